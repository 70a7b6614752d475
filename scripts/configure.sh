#!/usr/bin/env bash
# Configures BUILD_DIR with Ninja against Debian's LLVM/MLIR 22 once (nothing
# when it already has a build.ninja); extra arguments go to cmake. Used by
# build.sh (build/), run-sanitized-tests.sh (build-asan/) and fuzz/run.sh
# (build-fuzz/).
#
#   bash scripts/configure.sh BUILD_DIR [CMAKE_ARG...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$1"
shift
[ -f "$build_dir/build.ninja" ] && exit 0
llvm_prefix="$(llvm-config-22 --prefix 2>/dev/null || echo /usr/lib/llvm-22)"
cmake -G Ninja -S "$root" -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
  -DLLVM_DIR="$llvm_prefix/lib/cmake/llvm" \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  -DQMM_LIT_PATH="$llvm_prefix/bin/lit" \
  "$@"
