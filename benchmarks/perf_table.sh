#!/usr/bin/env bash
# Modeled performance table: for a fixed set of GEMMs on both chips
# (gfx942 modeled as MI300X, gfx950 as MI355X), compiles each with the
# pipeline's own config choice and prints the performance model's figures
# (fp8-run --model-only --json: compile and model only, nothing executes)
# next to the best published figure for the same case. All AMD figures are
# MODELED, not measured. Exits non-zero if a case fails to compile.
# Usage: benchmarks/perf_table.sh [--build DIR] [--calibration DIR] [--out FILE]
#   --build        the build directory (default: build/)
#   --calibration  the calibration set that qualifies the published figures
#                  (default: ../shared/calibration next to the repository)
#   --out          also write the table to FILE (e.g.
#                  benchmarks/results/<date>-modeled.md)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
calibration_dir="$root/../shared/calibration"
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --calibration) calibration_dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "perf_table: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for tool in fp8-run; do
  [ -x "$build/bin/$tool" ] || { echo "perf_table: no $build/bin/$tool (build it, or pass --build DIR)" >&2; exit 1; }
done

source "$root/benchmarks/perf_cases.sh"

manifest="$work/manifest.tsv"
: >"$manifest"
n=0
for c in "${cases[@]}"; do
  case_args "$c"
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

# The calibration that qualifies the published (measured) figures: the same
# model on kernels measured on hardware (benchmarks/calibration.sh).
summary=
if [ -f "$calibration_dir/kernels.tsv" ] && [ -x "$build/bin/qmm-model" ]; then
  summary="$(/usr/bin/python3 "$root/benchmarks/calibration.py" \
    --dir "$(cd "$calibration_dir" && pwd)" --model "$build/bin/qmm-model" \
    --date "$(date +%F)" 2>/dev/null | sed -n 's/^  \(median MODELED \/ blog: .* over k1-k6.*\)$/\1/p; s/^  \(within +-15% of the band: [0-9]* of [0-9]* rows\).*/\1/p' | paste -sd ';' -)"
fi
/usr/bin/python3 "$root/benchmarks/perf_table.py" "$manifest" \
  --calibration-summary "$summary" | tee ${out:+"$out"}
