#!/usr/bin/env bash
# The AMD pipeline's kernels on the emulator for the shapes the pipeline is
# held to (1000x1000x1024, 1x4096x4096, 4096x7168x512), blockwise scales,
# both chips; then MX formats and grouped (MoE) GEMMs: prints fp8-run's
# validation and the wall time of each run.
# The large shape takes minutes on one core.
# Usage: benchmarks/emulator_shapes.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
for chip in gfx942 gfx950; do
  if [ "$chip" = gfx942 ]; then types="--a-type f8E4M3FNUZ --b-type f8E4M3FNUZ"
  else types="--a-type f8E4M3FN --b-type f8E4M3FN"; fi
  for gemm in 1000x1000x1024 1x4096x4096 4096x7168x512; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    result=$("$build/bin/fp8-run" --device emu --chip "$chip" $types --gemm "$gemm" \
      --a-scale 1x128 --b-scale 128x128 | grep -E 'exact tier|RESULT' | tr '\n' ' ')
    stop=$(date +%s.%N)
    awk -v c="$chip" -v g="$gemm" -v a="$start" -v b="$stop" -v r="$result" \
      'BEGIN { printf "%-7s %-15s %7.1f s  %s\n", c, g, b - a, r }'
  done
done

# MX formats and grouped (MoE) GEMMs, both chips.
run() {
  local label=$1; shift
  start=$(date +%s.%N)
  result=$("$build/bin/fp8-run" --device emu "$@" | grep -E 'exact tier|RESULT' | tr '\n' ' ')
  stop=$(date +%s.%N)
  awk -v l="$label" -v a="$start" -v b="$stop" -v r="$result" \
    'BEGIN { printf "%-38s %7.1f s  %s\n", l, b - a, r }'
}
for chip in gfx942 gfx950; do
  run "$chip MXFP4 x MXFP4 1000x1000x1024" --chip "$chip" --a-type f4E2M1FN \
    --b-type f4E2M1FN --a-scale mx32 --b-scale mx32 --gemm 1000x1000x1024
  run "$chip MXFP8 x MXFP6 1000x1000x1024" --chip "$chip" --a-type f8E4M3FN \
    --b-type f6E2M3FN --a-scale mx32 --b-scale mx32 --gemm 1000x1000x1024
  if [ "$chip" = gfx942 ]; then types="--a-type f8E4M3FNUZ --b-type f8E4M3FNUZ"
  else types="--a-type f8E4M3FN --b-type f8E4M3FN"; fi
  # shellcheck disable=SC2086
  run "$chip grouped 8 x 2048x512x1024" --chip "$chip" $types --groups 8 \
    --gemm 2048x512x1024 --a-scale 1x128 --b-scale 128x128
  # shellcheck disable=SC2086
  run "$chip masked 8 x 256x512x1024" --chip "$chip" $types --groups 8 \
    --masked --gemm 256x512x1024 --a-scale 1x128 --b-scale 128x128
  # FP8 output quantized in the epilogue (1x128 per-token scales).
  out=${types#--a-type }; out=${out%% *}
  # shellcheck disable=SC2086
  run "$chip FP8 out 1000x1000x1024" --chip "$chip" $types --gemm 1000x1000x1024 \
    --a-scale 1x128 --b-scale 128x128 --out-type "$out" --gelu tanh
done
