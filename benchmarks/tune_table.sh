#!/usr/bin/env bash
# Regenerates the built-in tuning table (lib/Conversion/AMDGPU/
# BuiltinTuningTable.json, compiled into qmm-select-config): for every GEMM
# of the modeled performance table (perf_cases.sh), fp8-run --tune ranks
# every legal config by the performance model and the best goes into the
# table. All times MODELED. Takes 5-15 minutes (0.1 s per candidate).
# Usage: benchmarks/tune_table.sh [build-dir] [table]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${BUILD:-$root/build}}"
table="${2:-$root/lib/Conversion/AMDGPU/BuiltinTuningTable.json}"
[ -x "$build/bin/fp8-run" ] || { echo "tune_table: no $build/bin/fp8-run" >&2; exit 1; }
# A copy of the tool, so that rebuilding meanwhile does not disturb it.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$build/bin/fp8-run" "$work/fp8-run"

source "$root/benchmarks/perf_cases.sh"
rm -f "$table.new"
for c in "${cases[@]}"; do
  case_args "$c"
  "$work/fp8-run" "${args[@]}" --model="$device" --tune --model-only \
    --tune-table "$table.new" | grep '^tune:'
done
mv "$table.new" "$table"
echo "tune_table: wrote $table"
