#!/usr/bin/env bash
# The main job: builds the project, then runs fp8-run on its embedded
# default, a blockwise-scaled FP8 GEMM in the DeepSeek-V3 / DeepGEMM recipe
# (1x128 activation scales x 128x128 weight scales, bf16 output), quantized,
# executed, validated and reported. Extra arguments go to fp8-run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh" >/dev/null

build_dir="${QMM_BUILD_DIR:-$root/build}"
"$build_dir/bin/fp8-run" --gemm 256x512x1024 --a-scale 1x128 --b-scale 128x128 \
  --quantize device --iters 3 "$@"
