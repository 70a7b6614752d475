#!/usr/bin/env bash
# The AMD pipeline's kernels on the emulator for the shapes the pipeline is
# held to (1000x1000x1024, 1x4096x4096, 4096x7168x512), blockwise scales,
# both chips: prints fp8-run's validation and the wall time of each run.
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
