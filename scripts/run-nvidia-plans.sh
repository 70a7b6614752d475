#!/usr/bin/env bash
# On a machine with an NVIDIA GPU of the plans' chip (no MLIR needed):
# builds qmm-cuda-run with cmake alone, checks that it can fail (the
# hand-written smoke plan, right and deliberately wrong), then runs every
# plan of DIR (benchmarks/nvidia_plans.sh validate) and requires
# RESULT: PASS of each, and of each PTX kernel no note from ptxas (when
# the machine has one) that it serialized wgmma. Exit 0 only when all pass.
# usage: scripts/run-nvidia-plans.sh DIR [--iters N]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=${1:?usage: $0 DIR [--iters N]}
shift
build=${QMM_CUDA_RUN_BUILD:-/tmp/qmm-cuda-run-build}
cmake -S tools/qmm-cuda-run -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build "$build" -j >/dev/null || { echo "build failed" >&2; exit 2; }
runner=$build/qmm-cuda-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
smoke=$(mktemp -d)
python3 test/qmm-cuda-run/Inputs/make-smoke-plan.py "$smoke/good" &&
  python3 test/qmm-cuda-run/Inputs/make-smoke-plan.py "$smoke/wrong" --wrong
"$runner" "$smoke/good" > "$smoke/good.txt"
echo "smoke plan: $(tail -1 "$smoke/good.txt") (expected PASS)"
[ "$(tail -1 "$smoke/good.txt")" = "RESULT: PASS" ] || status=1
"$runner" "$smoke/wrong" > "$smoke/wrong.txt"
code=$?
echo "smoke plan, wrong on purpose: exit $code (expected 1)"
[ $code -eq 1 ] || status=1
# ptxas (the GPU machine's toolkit) tells where it serializes wgmma steps,
# each waited for on its own (notes C7514 and kin), or that it ignored
# setmaxnreg (C7508): silent slowdowns the timings alone do not explain,
# so a plan with such a note fails.
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
[ -x "$ptxas" ] || ptxas=
for plan in "$dir"/*/; do
  out=$("$runner" "$@" "$plan" 2>&1)
  echo "== $(basename "$plan")"
  chip=$(awk '$1 == "chip" { print $2 }' "$plan/plan.txt")
  for ptx in "$plan"/*.ptx; do
    [ -n "$ptxas" ] && [ -f "$ptx" ] && [ -n "$chip" ] || continue
    # C7508: setmaxnreg ignored (the roles keep the entry registers).
    notes=$("$ptxas" -arch="$chip" -v "$ptx" -o /dev/null 2>&1 | grep -iE 'serialized|C7508')
    if [ -n "$notes" ]; then
      echo "   ptxas: $(basename "$ptx"): $notes"
      status=1
    else
      echo "   ptxas: $(basename "$ptx"): no wgmma serialization, setmaxnreg kept"
    fi
  done
  echo "$out" | grep -E '^check|^time|^RESULT|error' | sed 's/^/   /'
  result=$(echo "$out" | tail -1)
  [ "$result" = "RESULT: PASS" ] || status=1
done
exit $status
