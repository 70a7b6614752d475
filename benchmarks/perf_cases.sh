# shellcheck shell=bash
# The GEMMs of the modeled performance table (perf_table.sh) and of the
# built-in tuning table (tune_table.sh): sourced by both.
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

# case_args "<case line>": sets id, chip, gemm, device and the fp8-run
# flags `args` of a case.
case_args() {
  read -r id chip gemm at bt as bs groups <<<"$1"
  if [ "$chip" = gfx942 ]; then device=mi300x; e4m3=f8E4M3FNUZ; else device=mi355x; e4m3=f8E4M3FN; fi
  [ "$at" = e4m3 ] && at=$e4m3
  [ "$bt" = e4m3 ] && bt=$e4m3
  args=(--chip "$chip" --gemm "$gemm" --a-type "$at" --b-type "$bt" --a-scale "$as" --b-scale "$bs")
  if [ "$groups" != 0 ]; then args+=(--groups "$groups"); fi
}
