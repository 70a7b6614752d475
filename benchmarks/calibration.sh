#!/usr/bin/env bash
# The performance model against hardware: models every row of the
# calibration set's kernels.tsv (other people's FP8 GEMM code objects whose
# speed on a real MI355X is published; ../shared/calibration/README.md)
# with qmm-model and prints the MODELED TFLOP/s next to the published
# (measured) figures, their ratio, and a summary: the median ratio, the rows
# within +-15% of the published band, whether the spilling k7 build models
# latency-bound, and whether the k1..k6 ladder ranks in the published order.
#
# Usage: benchmarks/calibration.sh [--calibration DIR] [--model QMM_MODEL]
#          [--out FILE] [-- qmm-model options...]
#   e.g. benchmarks/calibration.sh -- --model-param l2-bw=20
#   --calibration  the calibration set (default: ../shared/calibration next
#                  to the repository)
#   --model        qmm-model (default: build/bin/qmm-model)
#   --out          the results file (default:
#                  benchmarks/results/calibration-<date>.txt)
# Arguments after -- go to each qmm-model run (model parameters).
# Output: stdout, and the results file.
# Exits non-zero when the calibration set or qmm-model is missing or a row
# fails to model.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/../shared/calibration"
model="$root/build/bin/qmm-model"
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --calibration) dir=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "calibration: unknown argument '$1' (model parameters go after --)" >&2; exit 2 ;;
  esac
done

if [ ! -d "$dir" ]; then
  echo "calibration: no calibration set at '$dir' (expected ../shared/calibration next to the repository, or pass --calibration DIR)" >&2
  exit 1
fi
if [ ! -f "$dir/kernels.tsv" ]; then
  echo "calibration: '$dir' has no kernels.tsv (not a calibration set?)" >&2
  exit 1
fi
dir="$(cd "$dir" && pwd)"
if [ ! -x "$model" ]; then
  echo "calibration: no qmm-model at '$model' (build it, or pass --model PATH)" >&2
  exit 1
fi

date="$(date +%F)"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$root" status --porcelain -- lib include tools 2>/dev/null)" ]; then
  commit="$commit (with uncommitted changes in lib/, include/ or tools/)"
fi
mkdir -p "$root/benchmarks/results"
out="${out:-$root/benchmarks/results/calibration-$date.txt}"
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
