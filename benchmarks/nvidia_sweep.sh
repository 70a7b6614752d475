#!/usr/bin/env bash
# Times every saved launch plan under DIR on the GPU machine, for choosing
# among a shape's tilings: `qmm-cuda-run --no-validate --timing graph` with
# N runs replayed from a CUDA graph, each run on the next of C copies of the
# plan's buffers (C: as many as make --rotate-bytes, at most 64, so that the
# runs read more than the L2 cache holds, as the peers benchmark does), over
# rounds; prints the median TFLOP/s per plan and its range.
# usage: benchmarks/nvidia_sweep.sh DIR [--rounds 3] [--iters 100]
#        [--rotate-bytes 268435456] [--out FILE.md]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir= rounds=3 iters=100 rotate_bytes=268435456 out=
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --rotate-bytes) rotate_bytes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "$0: unknown flag $1" >&2; exit 2 ;;
    *) dir=$1; shift ;;
  esac
done
[ -d "$dir" ] || { echo "usage: $0 DIR [...]" >&2; exit 2; }
build=${QMM_CUDA_RUN_BUILD:-/tmp/qmm-cuda-run-build}
cmake -S tools/qmm-cuda-run -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build "$build" -j >/dev/null || { echo "build failed" >&2; exit 2; }
runner=$build/qmm-cuda-run
plans=()
for p in "$dir"/*/; do [ -f "$p/plan.txt" ] && plans+=("$(basename "$p")"); done
copies() { # plan dir -> copies of its buffers that make rotate_bytes
  awk -v want="$rotate_bytes" '$1 == "buffer" { bytes += $3 } END {
    c = bytes > 0 ? int((want + bytes - 1) / bytes) : 1
    print (c < 1 ? 1 : (c > 64 ? 64 : c)) }' "$1/plan.txt"
}
declare -A times
for ((round = 1; round <= rounds; ++round)); do
  for plan in "${plans[@]}"; do
    t=$("$runner" --no-validate --iters "$iters" --timing graph \
          --rotate "$(copies "$dir/$plan")" "$dir/$plan" 2>&1 |
        sed -n 's/.*: \([0-9.e+]*\) TFLOP\/s (measured).*/\1/p' | head -1)
    times[$plan]+="${t:-error} "
  done
done
median() { tr ' ' '\n' | grep -v '^$\|error' | sort -g | awk '{ v[NR] = $1 }
  END { if (NR == 0) print "error"; else
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
{
  echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)," \
    "qmm-cuda-run --iters $iters --timing graph, buffers rotated over" \
    "$rotate_bytes bytes, $rounds rounds"
  echo
  echo "| plan | launch | TFLOP/s (median) | rounds |"
  echo "|---|---|---|---|"
  for plan in "${plans[@]}"; do
    launch=$(awk '$1 == "launch" { print $3 "x" $4 "x" $5 " blocks, " $6 " threads"; exit }' "$dir/$plan/plan.txt")
    echo "| $plan | $launch | $(echo "${times[$plan]}" | median) | ${times[$plan]% } |"
  done
} | tee ${out:+"$out"}
