#!/usr/bin/env bash
# Configures (once) and builds the project into build/. Installs missing
# packages first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"

build_dir="${QMM_BUILD_DIR:-$root/build}"
llvm_prefix="$(llvm-config-22 --prefix 2>/dev/null || echo /usr/lib/llvm-22)"

if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DLLVM_DIR="$llvm_prefix/lib/cmake/llvm" \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DQMM_LIT_PATH="$llvm_prefix/bin/lit"
fi
cmake --build "$build_dir"
