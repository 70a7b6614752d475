#!/usr/bin/env bash
# Compile time of the AMD pipeline: for GEMMs on both chips, times
# fp8-opt --qmm-to-amdgpu-pipeline from the qmm program to code objects
# (format=bin) and prints seconds per program and per kernel.
# Target: under 1 s per kernel on this machine.
# Usage: benchmarks/compile_time.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cases=(
  "gfx942 f8E4M3FNUZ f8E4M3FNUZ 4096x7168x512 1x128 128x128 nk"
  "gfx942 f8E4M3FN f8E5M2 1000x1000x1024 row tensor kn"
  "gfx942 f8E4M3FNUZ f8E4M3FNUZ 1x4096x4096 1x128 128x128 nk"
  "gfx950 f8E4M3FN f8E4M3FN 4096x7168x512 1x128 128x128 nk"
  "gfx950 f8E4M3FN f8E4M3FN 1x4096x4096 row row kn"
)
printf '%-8s %-24s %-15s %-18s %8s %8s %10s\n' chip types gemm scales kernels seconds s/kernel
for c in "${cases[@]}"; do
  read -r chip at bt gemm as bs layout <<<"$c"
  "$build/bin/fp8-run" --emit-ir --chip "$chip" --a-type "$at" --b-type "$bt" \
    --gemm "$gemm" --a-scale "$as" --b-scale "$bs" --b-layout "$layout" >"$work/in.mlir"
  start=$(date +%s.%N)
  "$build/bin/fp8-opt" "$work/in.mlir" \
    --qmm-to-amdgpu-pipeline="chip=$chip format=bin" >"$work/out.mlir"
  stop=$(date +%s.%N)
  kernels=$(grep -c 'gpu.binary' "$work/out.mlir")
  awk -v c="$chip" -v t="$at x $bt" -v g="$gemm" -v s="$as x $bs $layout" \
      -v k="$kernels" -v a="$start" -v b="$stop" \
      'BEGIN { printf "%-8s %-24s %-15s %-18s %8d %8.3f %10.3f\n", c, t, g, s, k, b - a, (b - a) / k }'
done
