#!/usr/bin/env bash
# The main job: builds the project and runs fp8-opt on the blockwise-scaled
# FP8 matmul example (1x128 activations x 128x128 weights), parsing,
# verifying and bufferizing it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh"

build_dir="${QMM_BUILD_DIR:-$root/build}"
example="$root/examples/blockwise_fp8_matmul.mlir"

echo "== qmm: $example, verified and printed by fp8-opt"
"$build_dir/bin/fp8-opt" "$example"
echo
echo "== qmm: the same program after one-shot bufferization (memref form)"
"$build_dir/bin/fp8-opt" "$example" \
  --one-shot-bufferize="bufferize-function-boundaries"
