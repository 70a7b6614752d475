#!/usr/bin/env bash
# Writes the launch plans of the H100 benchmark (issue 17's shapes) into DIR
# (default .device-plans/bench): fp8-run --chip sm_90a --no-data, inputs
# drawn at random by the runner. Run benchmarks/h100_vs_cublaslt.py DIR on
# the GPU machine next (it builds qmm-cuda-run and times cuBLASLt beside it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-.device-plans/bench}
run=${FP8_RUN:-build/bin/fp8-run}
rm -rf "$out"
mkdir -p "$out"
# name  shape  scale flags
while read -r name shape flags; do
  [ -z "$name" ] && continue
  "$run" --chip sm_90a --gemm "$shape" $flags --no-data \
    --save "$out/$name" >/dev/null
  echo "$name $shape $flags" >> "$out/cases.txt"
done <<'CASES'
tensor_4096 4096x4096x4096 --a-scale tensor --b-scale tensor
tensor_8192 8192x8192x8192 --a-scale tensor --b-scale tensor
tensor_4096x7168x16384 4096x7168x16384 --a-scale tensor --b-scale tensor
row_4096 4096x4096x4096 --a-scale row --b-scale row
row_8192 8192x8192x8192 --a-scale row --b-scale row
row_4096x7168x16384 4096x7168x16384 --a-scale row --b-scale row
block_4096x7168x16384 4096x7168x16384 --a-scale 1x128 --b-scale 128x128
block_16384x7168x2048 16384x7168x2048 --a-scale 1x128 --b-scale 128x128
tensor_128x7168x2048 128x7168x2048 --a-scale tensor --b-scale tensor
tensor_1x4096x4096 1x4096x4096 --a-scale tensor --b-scale tensor
CASES
echo "plans in $out:"
cat "$out/cases.txt"
