#!/usr/bin/env bash
# The main job: builds the project, then compiles a blockwise-scaled FP8
# GEMM in the DeepSeek-V3 / DeepGEMM recipe (1x128 activation scales x
# 128x128 weight scales, bf16 output) through the AMD pipeline for a chip
# (QMM_CHIP, default gfx942), runs its kernels on the default device (a GPU
# of the chip when there is one, else the emulator; QMM_DEVICE overrides)
# and prints the validation report and the kernel statistics. Extra
# arguments go to fp8-run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh" --target fp8-run >/dev/null

build_dir="${QMM_BUILD_DIR:-$root/build}"
chip="${QMM_CHIP:-gfx942}"
case "$chip" in
  gfx942) types=(--a-type f8E4M3FNUZ --b-type f8E4M3FNUZ) ;;
  *) types=(--a-type f8E4M3FN --b-type f8E4M3FN) ;;
esac
"$build_dir/bin/fp8-run" --chip "$chip" "${types[@]}" --device "${QMM_DEVICE:-auto}" \
  --gemm 256x512x1024 --a-scale 1x128 --b-scale 128x128 --stats "$@"
