# -*- Python -*-
# lit configuration for the qmm project.

import os
import subprocess
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QMM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Utils", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.qmm_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%qmm_src_root", config.qmm_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.qmm_tools_dir, config.llvm_tools_dir]
tools = ["fp8-opt", "fp8-run", "qmm-compile", "qmm-gen-program", "qmm-model",
         "qmm-intrinsic-table-check", "qmm-wgmma-plan-check", "qmm-cuda-run",
         "mlir-runner", "llvm-readelf", "llvm-mc"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Runtime libraries of mlir-runner (printing from JIT-compiled tests).
config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so")))

# %expect-exit CODE cmd...: cmd must exit with exactly CODE.
config.substitutions.append(
    ("%expect-exit",
     "/usr/bin/python3 " + os.path.join(config.test_source_root, "Utils",
                                        "expect_exit.py")))

# Debian's HIP runtime (libamdhip64-5): present, it answers "no device" here.
import ctypes
for library in ("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"):
    try:
        ctypes.CDLL(library)
        config.available_features.add("hip-runtime")
        break
    except OSError:
        pass

# The CUDA driver (qmm-cuda-run dlopens libcuda.so.1): absent here, so its
# tests check the "skipped" exit; present on a GPU machine.
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# NVIDIA's ptxas, where a CUDA toolkit is installed (never needed to build
# or test; CI has none): the wgmma kernels' PTX is then compiled to check
# that ptxas neither serializes their wgmma steps nor spills.
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# Debian's python3 with numpy, for tests that read .npy files independently.
config.substitutions.append(("%python", "/usr/bin/python3"))
try:
    import subprocess
    subprocess.run(["/usr/bin/python3", "-c", "import numpy"], check=True,
                   capture_output=True)
    config.available_features.add("numpy")
except Exception:
    pass

# The build tree (python_packages/ for the Python API's tests).
config.substitutions.append(("%qmm_build_dir", config.qmm_obj_root))

# Install/: the package installed from this build tree and a project built
# against it (examples/downstream) with this build's compilers, through
# ccache where there is one.
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
downstream_args = ["-DCMAKE_BUILD_TYPE=Release",
                   "-DCMAKE_C_COMPILER=" + config.c_compiler,
                   "-DCMAKE_CXX_COMPILER=" + config.cxx_compiler]
if shutil.which("ccache"):
    downstream_args += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache",
                        "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
config.substitutions.append(("%downstream_cmake_args",
                             " ".join(downstream_args)))

# Sanitized builds (scripts/run-sanitized-tests.sh configures build-asan/
# with QMM_SANITIZERS=address,undefined; docs/testing.md, "Sanitizers").
if getattr(config, "qmm_sanitizers", ""):
    config.available_features.add("sanitizers")
    # A report aborts the tool: a crash, which `not` and %expect-exit do not
    # take for an expected failure. allow_user_poisoning=0: LLVM's
    # BumpPtrAllocator poisons its slabs in ASan-instrumented code (ours)
    # but not in libMLIR.so, which hands the same memory out (false
    # use-after-poison). Leaks are checked: LLVM's process-lifetime
    # allocations are reachable from globals, and the suite leaks nothing.
    config.environment.setdefault(
        "ASAN_OPTIONS", "abort_on_error=1:allow_user_poisoning=0:detect_leaks=1")
    config.environment.setdefault(
        "UBSAN_OPTIONS", "abort_on_error=1:halt_on_error=1:print_stacktrace=1")
# %qmm_python: the interpreter for tests that import the package's
# extension. In sanitized builds the ASan runtime must be the process's
# first library (python3 is not instrumented) and libstdc++ must be loaded
# before it starts (its __cxa_throw interceptor needs the real one);
# python3's own allocations are not leak-checked.
python_with_qmm = "/usr/bin/python3"
if getattr(config, "qmm_sanitizers", ""):
    def runtime_library(name):
        return subprocess.run(
            [getattr(config, "cxx_compiler", "") or "g++",
             "-print-file-name=" + name], capture_output=True,
            text=True).stdout.strip()
    preload = " ".join(runtime_library(n)
                       for n in ("libasan.so", "libstdc++.so"))
    options = config.environment["ASAN_OPTIONS"].replace(
        "detect_leaks=1", "detect_leaks=0")
    python_with_qmm = "env LD_PRELOAD='%s' ASAN_OPTIONS=%s /usr/bin/python3" % (
        preload, options)
config.substitutions.append(("%qmm_python", python_with_qmm))
if getattr(config, "qmm_build_python", "ON").upper() in ("OFF", "0", "FALSE", "NO", ""):
    config.excludes.append("python")
