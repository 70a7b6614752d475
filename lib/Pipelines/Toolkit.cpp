//===- Toolkit.cpp - where the AMD pipeline finds ld.lld ------------------===//
//
// getToolkitPath(): the directory holding llvm/bin/ld.lld that
// gpu-module-to-binary links code objects with (the rule is in
// Pipelines.h). The binary holding this code (a tool, a downstream
// executable, libQMMCAPI.so, the Python extension) may live in the build
// tree, in an installed tree, moved or not, or anywhere else.
//
//===----------------------------------------------------------------------===//

#include "qmm/Pipelines/Pipelines.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <dlfcn.h>
#include <link.h>

using namespace mlir;

/// Whether `toolkit` holds an ld.lld that resolves (links followed).
static bool holdsLinker(const llvm::Twine &toolkit) {
  llvm::SmallString<256> linker;
  llvm::sys::path::append(linker, toolkit, "llvm", "bin", "ld.lld");
  return llvm::sys::fs::exists(linker);
}

/// The real directory of the executable or shared library holding
/// `address`; empty when unknown.
static std::string directoryOfBinaryHolding(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname || !*info.dli_fname)
    return "";
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(info.dli_fname, real))
    return "";
  return llvm::sys::path::parent_path(real).str();
}

/// The toolkit installed with qmm beside the binary holding this code: an
/// executable in <prefix>/bin or a library in <prefix>/lib.
static std::string findInstalledToolkit() {
  static int anchor;
  std::string mainExecutable = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  for (const std::string &directory :
       {directoryOfBinaryHolding(&anchor),
        llvm::sys::path::parent_path(mainExecutable).str()}) {
    if (directory.empty())
      continue;
    for (llvm::SmallString<256> candidate :
         {llvm::SmallString<256>(directory + "/../lib/qmm/toolkit"),
          llvm::SmallString<256>(directory + "/qmm/toolkit")}) {
      llvm::sys::path::remove_dots(candidate, /*remove_dot_dot=*/true);
      if (holdsLinker(candidate))
        return candidate.str().str();
    }
  }
  return "";
}

/// The ld.lld in the bin/ beside the loaded libMLIR.so or libLLVM.so (the
/// lld of the same release), as loaded or with links resolved (Debian's
/// /usr/lib/llvm-22/lib holds links to /usr/lib/<triple>); empty when MLIR
/// and LLVM are linked statically.
static std::string findLinkerBesideLoadedLLVM() {
  std::string linker;
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) {
        llvm::StringRef name = info->dlpi_name ? info->dlpi_name : "";
        llvm::StringRef file = llvm::sys::path::filename(name);
        if (!file.starts_with("libMLIR.so") && !file.starts_with("libLLVM.so"))
          return 0;
        llvm::SmallString<256> real;
        for (llvm::StringRef library :
             {name, llvm::sys::fs::real_path(name, real)
                        ? llvm::StringRef()
                        : llvm::StringRef(real)}) {
          if (library.empty())
            continue;
          llvm::SmallString<256> candidate(
              llvm::sys::path::parent_path(library));
          llvm::sys::path::append(candidate, "..", "bin", "ld.lld");
          llvm::sys::path::remove_dots(candidate, /*remove_dot_dot=*/true);
          if (llvm::sys::fs::can_execute(candidate)) {
            *static_cast<std::string *>(data) = candidate.str().str();
            return 1;
          }
        }
        return 0;
      },
      &linker);
  return linker;
}

/// LLVM's own ld.lld: beside the loaded libMLIR.so or libLLVM.so, else
/// ld.lld-<major> on PATH (Debian's name for it). Not a plain ld.lld on
/// PATH: another release's lld may not link this LLVM's code objects.
static std::string findLLVMLinker() {
  if (std::string beside = findLinkerBesideLoadedLLVM(); !beside.empty())
    return beside;
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName(
          "ld.lld-" + std::to_string(LLVM_VERSION_MAJOR)))
    return *onPath;
  return "";
}

/// A toolkit made in the user's cache directory, its ld.lld a link to
/// `linker`; empty when it cannot be made.
static std::string makeCachedToolkit(const std::string &linker) {
  llvm::SmallString<256> toolkit;
  if (!llvm::sys::path::cache_directory(toolkit))
    return "";
  llvm::sys::path::append(toolkit, "qmm",
               "rocm-toolkit-llvm" + std::to_string(LLVM_VERSION_MAJOR));
  llvm::SmallString<256> bin(toolkit);
  llvm::sys::path::append(bin, "llvm", "bin");
  llvm::SmallString<256> link(bin);
  llvm::sys::path::append(link, "ld.lld");
  if (holdsLinker(toolkit))
    return toolkit.str().str();
  // A dangling link (LLVM moved) is replaced; another process may make the
  // same link at the same time.
  (void)llvm::sys::fs::remove(link);
  if (llvm::sys::fs::create_directories(bin))
    return "";
  (void)llvm::sys::fs::create_link(linker, link);
  return holdsLinker(toolkit) ? toolkit.str().str() : "";
}

std::string qmm::getToolkitPath() {
  if (const char *env = std::getenv("QMM_ROCM_TOOLKIT"); env && *env)
    return env;
  if (std::string installed = findInstalledToolkit(); !installed.empty())
    return installed;
  if (holdsLinker(QMM_DEFAULT_TOOLKIT))
    return QMM_DEFAULT_TOOLKIT;
  if (std::string linker = findLLVMLinker(); !linker.empty())
    if (std::string cached = makeCachedToolkit(linker); !cached.empty())
      return cached;
  // gpu-module-to-binary then reports the ld.lld it did not find.
  return QMM_DEFAULT_TOOLKIT;
}
