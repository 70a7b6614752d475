#!/usr/bin/env bash
# A/B timing of two sets of saved NVIDIA launch plans of the same shapes
# (two builds' `benchmarks/nvidia_plans.sh bench`), on the GPU machine:
# for each round and plan, `qmm-cuda-run --no-validate --iters N --timing
# graph` of A then B (N runs replayed from a CUDA graph between events after
# warm-ups, the median), and
# a table of the medians over the rounds, TFLOP/s. Both sides run the same
# shapes on random data the runner draws.
# usage: benchmarks/nvidia_ab.sh --a DIR --b DIR [--rounds 3] [--iters 40]
#        [--out FILE.md] [PLAN...]   (default: every plan of A)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
a= b= rounds=3 iters=40 out=
plans=()
while [ $# -gt 0 ]; do
  case "$1" in
    --a) a=$2; shift 2 ;;
    --b) b=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "$0: unknown flag $1" >&2; exit 2 ;;
    *) plans+=("$1"); shift ;;
  esac
done
[ -d "$a" ] && [ -d "$b" ] || { echo "usage: $0 --a DIR --b DIR [...]" >&2; exit 2; }
if [ ${#plans[@]} -eq 0 ]; then
  for p in "$a"/*/; do plans+=("$(basename "$p")"); done
fi
build=${QMM_CUDA_RUN_BUILD:-/tmp/qmm-cuda-run-build}
cmake -S tools/qmm-cuda-run -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build "$build" -j >/dev/null || { echo "build failed" >&2; exit 2; }
runner=$build/qmm-cuda-run
tflops() { # plan dir -> TFLOP/s of one timed run
  "$runner" --no-validate --iters "$iters" --timing graph "$1" |
    sed -n 's/.*: \([0-9.e+]*\) TFLOP\/s (measured).*/\1/p'
}
declare -A times
for ((round = 1; round <= rounds; ++round)); do
  for plan in "${plans[@]}"; do
    times[$plan,a]+="$(tflops "$a/$plan") "
    times[$plan,b]+="$(tflops "$b/$plan") "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END {
  print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
{
  echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)," \
    "qmm-cuda-run --iters $iters --timing graph, $rounds rounds, A then B each round"
  echo
  echo "| plan | A TFLOP/s (median [rounds]) | B | B / A |"
  echo "|---|---|---|---|"
  for plan in "${plans[@]}"; do
    ma=$(echo "${times[$plan,a]}" | median)
    mb=$(echo "${times[$plan,b]}" | median)
    echo "| $plan | $ma [${times[$plan,a]% }] | $mb [${times[$plan,b]% }] |" \
      "$(awk -v x="$ma" -v y="$mb" 'BEGIN { printf "%.3f", y / x }') |"
  done
} | tee ${out:+"$out"}
