#!/usr/bin/env bash
# The performance model against hardware: models every row of the
# calibration set's kernels.tsv (other people's FP8 GEMM code objects whose
# speed on a real MI355X is published; ../shared/calibration/README.md)
# with qmm-model and prints the MODELED TFLOP/s next to the published
# (measured) figures, their ratio, and a summary: the median ratio, the rows
# within +-15% of the published band, whether the spilling k7 build models
# latency-bound, and whether the k1..k6 ladder ranks in the published order.
#
# Usage: benchmarks/calibration.sh [qmm-model options...]
#   e.g. benchmarks/calibration.sh --model-param l2-bw=20 --model-param clock=1.9
# Every argument is passed to each qmm-model run (model parameters).
# Environment: QMM_CALIBRATION_DIR (default: ../shared/calibration next to
# the repository), QMM_MODEL (default: build/bin/qmm-model).
# Output: stdout, and benchmarks/results/calibration-<date>.txt.
# Exits non-zero when the calibration set or qmm-model is missing or a row
# fails to model.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${QMM_CALIBRATION_DIR:-$root/../shared/calibration}"
model="${QMM_MODEL:-$root/build/bin/qmm-model}"

if [ ! -d "$dir" ]; then
  echo "calibration: no calibration set at '$dir' (expected ../shared/calibration next to the repository, or set QMM_CALIBRATION_DIR)" >&2
  exit 1
fi
if [ ! -f "$dir/kernels.tsv" ]; then
  echo "calibration: '$dir' has no kernels.tsv (not a calibration set?)" >&2
  exit 1
fi
dir="$(cd "$dir" && pwd)"
if [ ! -x "$model" ]; then
  echo "calibration: no qmm-model at '$model' (build it, or set QMM_MODEL)" >&2
  exit 1
fi

date="$(date +%F)"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$root" status --porcelain -- lib include tools 2>/dev/null)" ]; then
  commit="$commit (with uncommitted changes in lib/, include/ or tools/)"
fi
mkdir -p "$root/benchmarks/results"
out="$root/benchmarks/results/calibration-$date.txt"
work="$(mktemp)"
trap 'rm -f "$work"' EXIT

status=0
/usr/bin/python3 "$root/benchmarks/calibration.py" --dir "$dir" \
  --model "$model" --date "$date" --commit "$commit" \
  --model-built "$(date -r "$model" '+%F %T')" -- "$@" >"$work" || status=$?
cat "$work"
cp "$work" "$out"
echo "(written to ${out#"$root"/})"
exit "$status"
