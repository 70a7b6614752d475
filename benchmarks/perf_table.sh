#!/usr/bin/env bash
# Modeled performance table: for a fixed set of GEMMs on both chips
# (gfx942 modeled as MI300X, gfx950 as MI355X), compiles each with the
# pipeline's own config choice and prints the performance model's figures
# (fp8-run --model-only --json: compile and model only, nothing executes)
# next to the best published figure for the same case. All AMD figures are
# MODELED, not measured. Exits non-zero if a case fails to compile.
# Usage: benchmarks/perf_table.sh [build-dir]   (or BUILD=build-dir)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${BUILD:-$root/build}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for tool in fp8-run; do
  [ -x "$build/bin/$tool" ] || { echo "perf_table: no $build/bin/$tool (build it, or pass the build dir)" >&2; exit 1; }
done

# id chip gemm a-type b-type a-scale b-scale groups
# "e4m3" is the chip's e4m3 (f8E4M3FNUZ on gfx942, f8E4M3FN on gfx950);
# groups 0 = a plain GEMM. The ids key the published figures in perf_table.py.
cases=()
for chip in gfx942 gfx950; do
  cases+=(
    "fp8-8192      $chip 8192x8192x8192   e4m3 e4m3 tensor tensor 0"
    "fp8-row-4096  $chip 4096x4096x4096   e4m3 e4m3 row    row    0"
    "bw-4096x7168x16384  $chip 4096x7168x16384  e4m3 e4m3 1x128 128x128 0"
    "bw-16384x7168x2048  $chip 16384x7168x2048  e4m3 e4m3 1x128 128x128 0"
    "bw-128x7168x2048    $chip 128x7168x2048    e4m3 e4m3 1x128 128x128 0"
  )
  if [ "$chip" = gfx950 ]; then
    cases+=(
      "mxfp8-8192  $chip 8192x8192x8192 e4m3     e4m3     mx32 mx32 0"
      "mxfp4-8192  $chip 8192x8192x8192 f4E2M1FN f4E2M1FN mx32 mx32 0"
    )
  fi
  cases+=(
    "moe-8x4096  $chip 32768x4096x7168 e4m3 e4m3 1x128  128x128 8"
    "decode-1    $chip 1x4096x4096      e4m3 e4m3 tensor tensor 0"
  )
done

manifest="$work/manifest.tsv"
: >"$manifest"
n=0
for c in "${cases[@]}"; do
  read -r id chip gemm at bt as bs groups <<<"$c"
  if [ "$chip" = gfx942 ]; then device=mi300x; e4m3=f8E4M3FNUZ; else device=mi355x; e4m3=f8E4M3FN; fi
  [ "$at" = e4m3 ] && at=$e4m3
  [ "$bt" = e4m3 ] && bt=$e4m3
  args=(--chip "$chip" --gemm "$gemm" --a-type "$at" --b-type "$bt" --a-scale "$as" --b-scale "$bs")
  [ "$groups" != 0 ] && args+=(--groups "$groups")
  n=$((n + 1))
  what="$chip $gemm $at x $bt, scales $as x $bs, groups $groups"
  # The model (compile and model only).
  if ! "$build/bin/fp8-run" "${args[@]}" --model="$device" --model-only --json \
      >"$work/$n.json" 2>"$work/$n.err"; then
    echo "perf_table: FAILED to compile/model: $what" >&2
    cat "$work/$n.err" >&2
    exit 1
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$chip" "$device" "$gemm" \
    "$at" "$bt" "$as" "$bs" "$groups" "$work/$n.json" >>"$manifest"
done

/usr/bin/python3 "$root/benchmarks/perf_table.py" "$manifest"
