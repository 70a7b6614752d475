#!/usr/bin/env bash
# Writes the launch plans of issue 17's NVIDIA runs (needs the MLIR build):
#   validate  the forms checked on the GPU, saved with data and both tiers
#   bench     the benchmark shapes, inputs drawn at random by the runner
#   bench-clusters  the same with clusters of 2 blocks (--cluster-rows 2)
#   peers     the shapes of the comparison with cuBLASLt, DeepGEMM and
#             Triton (the large shapes, DeepGEMM's DeepSeek shapes, small M)
# usage: benchmarks/nvidia_plans.sh validate|bench|bench-clusters|peers [DIR]
#          [--only REGEX]
# (default DIR: .device-plans/MODE; --only writes the cases whose names
# match the extended regular expression, e.g. 'streamed_b|w192_' : the
# whole validate set is about 900 MB with its data, more than one device
# call carries). Then, on the GPU machine,
# scripts/run-nvidia-plans.sh DIR (validate) or
# python3 benchmarks/nvidia_peers.py DIR (bench, peers).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
usage="usage: $0 validate|bench|bench-clusters|peers [DIR] [--only REGEX]"
mode= out= only=
while [ $# -gt 0 ]; do
  case "$1" in
    --only) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; only=$2; shift 2 ;;
    -*) echo "$0: unknown flag $1" >&2; echo "$usage" >&2; exit 2 ;;
    *) if [ -z "$mode" ]; then mode=$1; elif [ -z "$out" ]; then out=$1
       else echo "$usage" >&2; exit 2; fi; shift ;;
  esac
done
case "$mode" in
  validate|bench|bench-clusters|peers) ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
out=${out:-.device-plans/$mode}
# A bad pattern is an error, not a set that matches nothing.
# (bash's =~ is an extended regular expression; status 2 if it is bad.)
rc=0; [[ "" =~ $only ]] || rc=$?
[ $rc -le 1 ] || { echo "$0: --only: not an extended regular expression: $only" >&2; exit 2; }
selected() { [[ $1 =~ $only ]]; }
run=${FP8_RUN:-build/bin/fp8-run}
# Only a directory this script wrote (or none) is replaced.
if [ -e "$out" ] && [ ! -f "$out/cases.txt" ]; then
  echo "$0: $out exists and holds no cases.txt: not overwriting it" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out"
# Which compiler wrote the plans, for the results files.
echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo '+local changes')" > "$out/source.txt"
save() { # name shape flags...
  local name=$1 shape=$2
  shift 2
  selected "$name" || return 0
  local data=()
  case "$mode" in
    bench|peers) data=(--no-data) ;;
    bench-clusters) data=(--no-data --cluster-rows 2) ;;
  esac
  "$run" --chip sm_90a --gemm "$shape" "$@" "${data[@]}" \
    --save "$out/$name" >/dev/null
  echo "$name $shape $*" >> "$out/cases.txt"
}
save_each_m() { # name NxK m1,m2,... flags...: a run-time M, a plan per M
  local name=$1 nk=$2 ms=$3
  shift 3
  selected "$name" || return 0
  "$run" --chip sm_90a --gemm "?x$nk" --m "$ms" "$@" \
    --save "$out/$name" >/dev/null
  local m
  for m in ${ms//,/ }; do
    mv "$out/$name/m$m" "$out/${name}_m$m"
    echo "${name}_m$m ${m}x$nk $* (one kernel for every M)" >> "$out/cases.txt"
  done
  rmdir "$out/$name"
}
if [ "$mode" = validate ]; then
  save tensor_bf16 256x128x512 --a-scale tensor --b-scale tensor
  save row_f32 200x136x384 --a-scale row --b-scale row --out-type f32
  save block_bf16 256x256x512 --a-scale 1x128 --b-scale 128x128
  save mixed_f16 128x64x256 --a-type f8E5M2 --b-type f8E4M3FN --out-type f16
  save bias_gelu 128x96x256 --bias bf16 --gelu tanh
  save accumulate 128x64x256 --accumulate
  save kn 128x64x256 --b-layout kn
  save block_tail 200x136x384 --a-scale 1x128 --b-scale 128x128
  # The wgmma kernels' ring wrapping many times, a K tail TMA fills with
  # zeros, a grid of several blocks each way.
  save deep_k_f32 256x256x4096 --a-scale tensor --b-scale tensor --out-type f32
  save k_tail_row 136x200x400 --a-scale row --b-scale row
  save block_grid 512x384x2048 --a-scale 1x128 --b-scale 128x128
  # More tiles than multiprocessors: persistent blocks take several tiles,
  # a partial last column; then 170 tiles in two raster groups (the second
  # partial, with a partial last row) whose second tiles run the ring's
  # second round (flipped parities).
  save persistent 136x8520x256 --a-scale 1x128 --b-scale 128x128
  save persistent_wrap 1160x2176x512 --a-scale 1x128 --b-scale 128x128
  # A grid of 3 x 4 tiles.
  save odd_rows 384x512x256 --a-scale row --b-scale row
  # One K tile: no K loop, the only tile retired after wait_group 0.
  save one_k_tile 256x256x128 --a-scale tensor --b-scale tensor
  save row_bias_accumulate 256x384x512 --a-scale row --b-scale row --bias bf16 --accumulate
  # FP8 outputs (the next layer's A): per row and block of C columns the
  # amax across the thread quad, the rule's scale, codes in pairs. Whole
  # tiles; partial tiles with per-row scales, bias and GELU (N = 136: codes
  # stored from registers; N = 144: staged and stored with TMA, 1x32
  # blocks); MX (E8M0 scales, 4 blocks a tile) in E5M2 with pow2_ceil; odd
  # N (codes one by one, 2 blocks a tile). (Matmuls the kernel does not
  # take, B stored [K, N] or blocks wider than a tile, are refused for FP8
  # outputs.)
  save fp8_out_block 256x256x512 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN
  save fp8_out_gelu_tail 200x136x384 --a-scale row --b-scale row --bias bf16 --gelu tanh --out-type f8E4M3FN
  save fp8_out_row_bias_tail 200x144x384 --a-scale row --b-scale row --bias bf16 --gelu tanh --out-type f8E4M3FN --out-scale 1x32
  save fp8_out_mx_e5m2 256x384x512 --out-type f8E5M2 --out-scale mx32 --out-rounding pow2_ceil
  save fp8_out_odd_n 136x135x256 --out-type f8E4M3FN --out-scale 1x64
  # Clusters (--cluster-rows, off by default): blocks of 2 (4, 8) sharing
  # B's tiles through TMA multicast; partial tiles, a deep K, a grid, more
  # units of 2 tiles than clusters fit the multiprocessors.
  # Stream-K: a last round of tiles split along K (K >= 4096: tiles of
  # 32 K tiles or more; max-blocks makes small grids whose last round is
  # at most half full), every epilogue form, uneven and odd part counts.
  save sk_tensor_partial 300x200x4096 --a-scale tensor --b-scale tensor --max-blocks 4
  save sk_row_f32_bias_gelu_acc 384x256x4480 --a-scale row --b-scale row --out-type f32 --bias bf16 --gelu tanh --accumulate --max-blocks 4
  save sk_block_three_parts 512x256x4352 --a-scale 1x128 --b-scale 128x128 --max-blocks 6
  save sk_two_rounds 768x256x4096 --a-scale row --b-scale row --max-blocks 5
  save sk_five_parts_f32 128x128x5120 --a-scale tensor --b-scale tensor --out-type f32
  save sk_fp8_out_block 384x256x4096 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN --max-blocks 4
  save sk_fp8_out_row_tail 200x144x4096 --a-scale row --b-scale row --bias bf16 --gelu tanh --out-type f8E4M3FN --out-scale 1x32
  save sk_small_m 128x1024x4096 --a-scale tensor --b-scale tensor
  save sk_one_row 1x2048x4096 --a-scale tensor --b-scale tensor
  save sk_mixed_f16 256x384x4608 --a-type f8E5M2 --b-type f8E4M3FN --out-type f16 --max-blocks 5
  # Stream-K in clusters (cluster-reduction): every block one part, tiles
  # of 2 parts and 2 consumers; each block of a pair finishes one half.
  # Every epilogue form, partial tiles, split columns, 192 columns, a
  # grouped matmul, a deep K; one with the workspace for comparison.
  save skc_tensor_one_tile 128x128x4096 --a-scale tensor --b-scale tensor --max-blocks 2
  save skc_block 128x256x4096 --a-scale 1x128 --b-scale 128x128 --max-blocks 4
  save skc_block_mn 128x1024x8192 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 16
  save skc_block_workspace 128x1024x8192 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 16 --cluster-reduction=false
  save skc_row_f32_bias_gelu_acc 128x384x4096 --a-scale row --b-scale row --out-type f32 --bias bf16 --gelu tanh --accumulate --max-blocks 6
  save skc_fp8_out 128x256x4096 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN --max-blocks 4
  save skc_partial 100x200x4096 --a-scale row --b-scale row --max-blocks 4
  save skc_split_columns 64x256x4096 --a-scale 1x128 --b-scale 128x128 --tile-m 64 --tile-n 128 --max-blocks 4
  save skc_w192 128x384x4096 --a-scale tensor --b-scale tensor --tile-n 192 --max-blocks 4
  save skc_grouped 256x128x4096 --groups 2 --a-scale 1x128 --b-scale 128x128 --max-blocks 4
  # (128-column tiles would take 4 parts: the tile chosen is 64 columns.)
  save skc_narrow_pairs 128x256x4096 --a-scale tensor --b-scale tensor --max-blocks 8
  # A run-time M (versions within one tile row): 1, 40, 100, 128 rows.
  save_each_m skc_dyn_small 256x4096 1,40 --a-scale tensor --b-scale tensor --max-blocks 4
  save_each_m skc_dyn 256x4096 100,128 --a-scale 1x128 --b-scale 128x128 --max-blocks 4
  save cluster_row_f32 200x136x384 --a-scale row --b-scale row --out-type f32 --cluster-rows 2
  save cluster_deep_k 256x256x4096 --a-scale tensor --b-scale tensor --cluster-rows 2
  save cluster_block_grid 512x384x2048 --a-scale 1x128 --b-scale 128x128 --cluster-rows 2
  save cluster4_block_grid 512x384x2048 --a-scale 1x128 --b-scale 128x128 --cluster-rows 4
  save cluster8_row 1024x256x512 --a-scale row --b-scale row --cluster-rows 8
  save cluster_persistent 136x8520x256 --a-scale 1x128 --b-scale 128x128 --cluster-rows 2
  # Dynamic schedule (--dynamic-schedule): tiles drawn from a counter,
  # each stage's tile passed in shared memory, the end marked past the
  # last tile. Run with scripts/run-nvidia-plans.sh DIR --runs 2: the
  # second run needs the counters the first reset (or leaves tiles
  # poisoned). 134 tiles on 132 blocks; 25 tiles of 4 K
  # tiles on 7 blocks (later tiles in the ring's second round); small
  # grids of many rounds with 16, 3 (fewer than the stages: the end
  # marked in a stage within a round) and 1 K tiles; the staged f32
  # epilogue with C, bias and GELU; an FP8 output.
  save dyn_persistent 136x8520x256 --a-scale 1x128 --b-scale 128x128 --dynamic-schedule
  save dyn_wrap_row 520x640x512 --a-scale row --b-scale row --max-blocks 7 --dynamic-schedule
  save dyn_grid_block 512x384x2048 --a-scale 1x128 --b-scale 128x128 --max-blocks 3 --dynamic-schedule
  save dyn_three_k_tiles 256x640x384 --a-scale tensor --b-scale tensor --max-blocks 3 --dynamic-schedule
  save dyn_one_k_tile 256x1024x128 --a-scale tensor --b-scale tensor --max-blocks 3 --dynamic-schedule
  save dyn_f32_bias_gelu_acc 384x512x1024 --a-scale row --b-scale row --out-type f32 --bias bf16 --gelu tanh --accumulate --max-blocks 5 --dynamic-schedule
  save dyn_fp8_out 384x256x512 --a-scale tensor --b-scale tensor --out-type f8E4M3FN --max-blocks 2 --dynamic-schedule
  # Tile shapes (issue 44): one consumer warpgroup where M fits in 64
  # rows, 64 columns where 128-column tiles would leave more than half the
  # multiprocessors idle (the ring's bytes in more stages); Stream-K parts
  # whose padding rows skip the workspace; B's 64-row scale blocks; the
  # shapes forced (--tile-m, --tile-n) on grids of several rounds.
  save tile_one_row_block 1x1024x4096 --a-scale 1x128 --b-scale 128x128
  save tile_rows_tail 40x1000x2048 --a-scale 1x128 --b-scale 128x128
  save tile_m128_n64 128x1792x2048 --a-scale 1x128 --b-scale 128x128
  save tile_sk_rows_tail 100x512x4096 --a-scale row --b-scale row --out-type f32
  save tile_b_blocks_64 256x384x512 --a-scale 1x128 --b-scale 64x128
  save tile_fp8_out_narrow 16x256x512 --out-type f8E4M3FN --out-scale 1x32
  save tile_forced_64x64_dynamic 328x640x512 --a-scale row --b-scale row --tile-m 64 --tile-n 64 --max-blocks 7 --dynamic-schedule
  save tile_forced_64x128_sk 200x256x4096 --a-scale tensor --b-scale tensor --tile-m 64 --tile-n 128 --max-blocks 5
  save tile_forced_128x64_bias 384x320x640 --a-scale row --b-scale row --bias bf16 --gelu tanh --accumulate --tile-m 128 --tile-n 64 --max-blocks 4
  save tile_forced_64x64_cluster 512x384x2048 --a-scale 1x128 --b-scale 128x128 --tile-m 64 --tile-n 64 --cluster-rows 2
  # 64 x 128 tiles: two consumers split the columns (64 each).
  save tile_split_columns_block 64x512x2048 --a-scale 1x128 --b-scale 128x128 --tile-m 64 --tile-n 128
  save tile_split_columns_f32_bias 40x300x1024 --a-scale row --b-scale row --out-type f32 --bias bf16 --gelu tanh --accumulate --tile-m 64 --tile-n 128
  save tile_split_columns_fp8_out 64x256x512 --out-type f8E4M3FN --out-scale 1x32 --tile-m 64 --tile-n 128
  save tile_split_columns_odd_n 16x135x256 --tile-m 64 --tile-n 128
  save tile_split_columns_sk_one_row 1x1024x8192 --a-scale tensor --b-scale tensor --tile-m 64 --tile-n 128
  save tile_split_columns_cluster 128x256x1024 --a-scale 1x128 --b-scale 128x128 --tile-m 64 --tile-n 128 --cluster-rows 2
  save tile_split_columns_dynamic 192x640x512 --a-scale row --b-scale row --tile-m 64 --tile-n 128 --max-blocks 3 --dynamic-schedule
  # Fewer rows of A than wgmma M: TMA loads A's rows up to the next
  # swizzle atom, wgmma reads the rest of its 64 rows from B's part of the
  # stage (rows never stored). 8 rows exactly; 9 (16 loaded); 24 with
  # bias, GELU and C in f32 and a partial column; 33 (40 loaded) with an
  # FP8 output of 1x128 blocks (one consumer of 128 columns); 5 rows on a
  # dynamic schedule; 2 rows in 64 x 64 tiles; 3 rows, one-row clusters.
  save a_rows_8_block 8x2048x2048 --a-scale 1x128 --b-scale 128x128
  save a_rows_9_block 9x1536x4096 --a-scale 1x128 --b-scale 128x128
  save a_rows_24_f32_bias 24x520x1024 --a-scale row --b-scale row --out-type f32 --bias bf16 --gelu tanh --accumulate
  save a_rows_33_fp8_out 33x512x1024 --out-type f8E4M3FN --out-scale 1x128
  save a_rows_5_dynamic 5x2048x512 --a-scale tensor --b-scale tensor --max-blocks 3 --dynamic-schedule
  save a_rows_2_64x64 2x1024x1024 --a-scale 1x128 --b-scale 128x128 --tile-n 64
  save a_rows_3_cluster 3x1024x1024 --a-scale 1x128 --b-scale 128x128 --cluster-rows 2
  # Grouped (MoE) matmuls, contiguous (issue 45): a tile takes its group
  # from its first row, B's rows from g N on in B's [G N, K] map, B's
  # scales and the bias per group; padding rows (group -1) keep their
  # values (stored from registers, row by row). fp8-run's groupings have
  # an empty group, a group of one row (whole tiles of padding after it
  # where it has more) and unequal segments ending in padding. 3 groups
  # on 8 tiles; a partial N tile with C in f32; FP8 outputs; Stream-K
  # parts; a dynamic schedule; 64 x 64 tiles; cluster-rows 2 (ignored:
  # neighbouring tiles may read different groups' B).
  save grouped_block 768x384x512 --groups 4 --a-scale 1x128 --b-scale 128x128
  save grouped_tensor_bias_gelu 1024x256x256 --groups 3 --a-scale tensor --b-scale tensor --bias bf16 --gelu tanh
  save grouped_row_f32_acc 512x200x384 --groups 5 --a-scale row --b-scale row --out-type f32 --accumulate
  save grouped_mixed_f16 384x128x256 --groups 2 --a-type f8E5M2 --b-type f8E4M3FN --out-type f16
  save grouped_fp8_out 640x256x512 --groups 4 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN
  save grouped_fp8_out_row_bias 512x192x256 --groups 3 --a-scale row --b-scale row --bias bf16 --out-type f8E4M3FN --out-scale 1x32
  save grouped_sk_block 512x256x4096 --groups 4 --a-scale 1x128 --b-scale 128x128 --max-blocks 6
  save grouped_dynamic_row 768x384x512 --groups 6 --a-scale row --b-scale row --max-blocks 5 --dynamic-schedule
  save grouped_64x64_bias 768x320x640 --groups 4 --a-scale tensor --b-scale tensor --bias bf16 --tile-m 64 --tile-n 64
  save grouped_cluster_ignored 512x384x2048 --groups 4 --a-scale 1x128 --b-scale 128x128 --cluster-rows 2
  # Tiles of padding rows skipped (static schedules): many whole padding
  # tiles (group 1's segment of one row) among few blocks, blocks left
  # with none, Stream-K parts of them, clusters along N over them.
  save grouped_skip_few_blocks 2048x256x512 --groups 4 --a-scale 1x128 --b-scale 128x128 --max-blocks 3
  save grouped_skip_many_blocks 2048x128x256 --groups 4 --a-scale tensor --b-scale tensor
  save grouped_skip_split 1024x384x4096 --groups 4 --a-scale 1x128 --b-scale 128x128 --max-blocks 10
  save grouped_skip_cluster_columns 2048x512x512 --groups 4 --a-scale 1x128 --b-scale 128x128 --cluster-columns 2 --max-blocks 4
  # Masked grouped matmuls (decode, issue 45): A [G, Mmax, K], each
  # group's valid rows (fp8-run: group 0 full, group G / 2 empty, the rest
  # at random) counted at run time; the blocks walk the valid rows' tiles
  # only, and rows past a group's count keep their values. Staged where
  # Mmax is whole tiles; Mmax = 40 (one 64-row tile, A's 40 rows loaded,
  # stores from registers); 200 with f32 C, bias and GELU; FP8 outputs;
  # few blocks (several tiles each, blocks without a tile); 64 x 64 tiles.
  save masked_block 256x384x512 --groups 4 --masked --a-scale 1x128 --b-scale 128x128
  save masked_small_rows 40x256x1024 --groups 6 --masked --a-scale 1x128 --b-scale 128x128
  save masked_tensor_f32_bias_acc 200x192x256 --groups 5 --masked --a-scale tensor --b-scale tensor --out-type f32 --bias bf16 --gelu tanh --accumulate
  save masked_fp8_out 128x256x512 --groups 3 --masked --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN
  save masked_row_few_blocks 128x512x512 --groups 8 --masked --a-scale row --b-scale row --max-blocks 3
  save masked_64x64_bias 192x320x640 --groups 4 --masked --a-scale row --b-scale row --bias bf16 --tile-m 64 --tile-n 64
  # A's scales MN-major in grouped matmuls (masked: [G, K/128, Mmax], read
  # as [G K/128, Mmax]): loaded from global memory (K = 256: B's rows of
  # scales too short for TMA), staged, groups of rows not whole tiles,
  # 64-row tiles, per row (the epilogue's), 192 columns; contiguous staged.
  save masked_mn_global 128x256x256 --groups 3 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128
  save masked_mn_staged 128x256x1024 --groups 3 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128
  save masked_mn_partial_rows 200x128x512 --groups 3 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128
  save masked_mn_rows_64 192x128x1024 --groups 3 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-m 64
  save masked_mn_row 128x128x512 --groups 3 --masked --a-scale row --a-scale-major mn --b-scale row
  save w192_masked_mn 128x384x512 --groups 2 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-n 192
  save grouped_mn_staged 512x256x512 --groups 3 --a-scale 1x128 --a-scale-major mn --b-scale 128x128
  # Masked block scales checked once per launch (several tiles a block,
  # 16 K tiles each), only the groups' valid rows' A scales: fp8-run writes
  # NaN into the scales past each count, which must reach no stored row.
  # K-major, MN-major, 128-row blocks of A; 64-row (decode) tiles, not
  # checked (kMinMaskedCheckedTileRows), NaN past the counts all the same.
  save masked_checked 256x256x1024 --groups 3 --masked --a-scale 1x128 --b-scale 128x128 --max-blocks 1
  save masked_mn_checked 200x256x1024 --groups 3 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 1
  save masked_block_rows_checked 256x256x1024 --groups 3 --masked --a-scale 128x128 --b-scale 128x128 --max-blocks 1
  save masked_rows_64_unchecked 192x128x1024 --groups 4 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-m 64 --max-blocks 1
  # A masked matmul's item table (an item's group by a halving search):
  # 9 and 33 groups (the search's candidates clamped to the last group,
  # an empty group in the middle), and 400 groups, more table entries than
  # the block's threads (the fill's second pass), on few blocks.
  save masked_table_9_groups 128x128x256 --groups 9 --masked --a-scale 1x128 --b-scale 128x128
  save masked_table_33_groups 64x128x256 --groups 33 --masked --a-scale 1x128 --b-scale 128x128 --max-blocks 5
  save masked_table_400_groups 8x64x128 --groups 400 --masked --a-scale 1x128 --b-scale 128x128 --max-blocks 7
  # A run-time M (issue 45): one kernel for every M, its grid and tensor
  # maps from each plan's M; M = 1, 16 and 20 (A boxes of 8, 16 and 32
  # rows), a partial tile, several rounds; per-row f32 with C, bias and
  # GELU; an FP8 output; a contiguous grouped matmul.
  save_each_m dyn_m_block 384x1024 1,16,20,77,128,1000 --a-scale 1x128 --b-scale 128x128
  save_each_m dyn_m_row_f32 200x512 5,300 --a-scale row --b-scale row --out-type f32 --bias bf16 --gelu tanh --accumulate
  save_each_m dyn_m_fp8_out 256x512 40,256 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN
  save_each_m dyn_m_grouped 256x512 384,1024 --groups 4 --a-scale 1x128 --b-scale 128x128
  # Scales whose product overflows or underflows f32 while every scaled
  # product is finite (issue 40): the epilogue's and the promotion's
  # factors (test/fp8-run/Inputs/make_scale_range.py has the hand values).
  inputs=$(mktemp -d)
  /usr/bin/python3 test/fp8-run/Inputs/make_scale_range.py "$inputs"
  for case in overflow underflow; do
    save scale_tensor_$case 16x16x128 --a-type f8E4M3FN --b-type f8E4M3FN --a-scale tensor --b-scale tensor --out-type f32 --load "$inputs/tensor_$case"
    save scale_row_$case 16x16x128 --a-type f8E4M3FN --b-type f8E4M3FN --a-scale row --b-scale row --out-type f32 --load "$inputs/row_$case"
    save scale_block_$case 16x16x128 --a-type f8E4M3FN --b-type f8E4M3FN --a-scale 1x128 --b-scale 128x128 --out-type f32 --load "$inputs/block_$case"
  done
  # Block scales checked once per launch by the producer's idle warps
  # (blocks of several tiles, at least 64 K tiles after the first): 64-row
  # tiles, clusters, an FP8 output, grouped; and
  # scales whose products sa * sb overflow f32 in two tiles while D is
  # finite (make_checked_scale_tiles.py), which must keep the test.
  save checked_rounds 640x384x2048 --a-scale 1x128 --b-scale 128x128 --max-blocks 2
  save checked_64_rows 320x512x1536 --a-scale 1x128 --b-scale 128x128 --tile-m 64 --max-blocks 3
  save checked_cluster 1024x256x2048 --a-scale 1x128 --b-scale 128x128 --cluster-rows 2 --max-blocks 2
  save checked_fp8_out 640x256x2048 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN --max-blocks 2
  save checked_grouped 768x256x2048 --groups 3 --a-scale 1x128 --b-scale 128x128 --max-blocks 2
  /usr/bin/python3 test/fp8-run/Inputs/make_checked_scale_tiles.py "$inputs/checked"
  save checked_overflow_tiles 512x256x2048 --a-type f8E4M3FN --b-type f8E4M3FN --a-scale 1x128 --b-scale 128x128 --out-type f32 --max-blocks 1 --load "$inputs/checked"
  rm -rf "$inputs"
  # Block scales copied by TMA into the ring (MN-major A scales, or
  # 128x128 blocks on both): 64-row tiles, partial tiles, MN-major B,
  # Stream-K parts, clusters, several rounds, an f32 output with a bias.
  save mn_block 256x256x1024 --a-scale 1x128 --a-scale-major mn --b-scale 128x128
  save mn_block_m40 40x512x2048 --a-scale 1x128 --a-scale-major mn --b-scale 128x128
  save mn_block_partial 200x384x1024 --a-scale 1x128 --a-scale-major mn --b-scale 128x128
  save mn_both 256x512x1024 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --b-scale-major mn
  save a128_block 256x256x1024 --a-scale 128x128 --b-scale 128x128
  save mn_block_sk 256x256x4096 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 6
  save mn_block_cluster 512x256x1024 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --cluster-rows 2
  save mn_block_rounds 1024x1024x2048 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 8
  save mn_block_f32out 256x256x1024 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --out-type f32 --bias bf16
  # 256-row tiles (--tile-m 256): each consumer computes two waves of 64
  # rows per K tile through one fragment. Partial tiles, 64 columns,
  # staged MN-major scales, 128x128 A blocks, one operand's block scales,
  # clusters, a dynamic schedule, scales checked ahead, an f32 output with
  # a bias, an FP8 output, an odd N stored from registers.
  # (Their tile rows pair into clusters of 2 unless cluster-rows is given:
  # the first and the MN-major one keep the unclustered form.)
  save w256_block 512x256x1024 --a-scale 1x128 --b-scale 128x128 --tile-m 256 --cluster-rows 1
  save w256_partial 300x320x768 --a-scale 1x128 --b-scale 128x128 --tile-m 256
  save w256_narrow 256x384x1024 --a-scale 1x128 --b-scale 128x128 --tile-m 256 --tile-n 64
  save w256_mn 512x384x1024 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-m 256 --cluster-rows 1
  save w256_a128 512x256x1024 --a-scale 128x128 --b-scale 128x128 --tile-m 256
  save w256_row_block 400x256x1024 --a-scale row --b-scale 128x128 --tile-m 256
  save w256_cluster 1024x256x1024 --a-scale 1x128 --b-scale 128x128 --tile-m 256 --cluster-rows 2
  save w256_dynamic 768x512x512 --a-scale 1x128 --b-scale 128x128 --tile-m 256 --max-blocks 3 --dynamic-schedule
  save w256_checked 512x256x2048 --a-scale 1x128 --b-scale 128x128 --tile-m 256 --tile-n 64 --max-blocks 1
  save w256_f32_bias 256x256x1024 --a-scale 1x128 --b-scale 128x128 --out-type f32 --bias bf16 --gelu tanh --tile-m 256
  save w256_fp8_out 512x256x512 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN --tile-m 256
  save w256_odd_n 264x135x512 --a-scale 1x128 --b-scale 128x128 --tile-m 256
  # Two waves chosen by default, in clusters of 2: at short K (512 x 1024
  # x 512 on 8 blocks: 16 tiles of 256 rows in 2 rounds as full as 32 of
  # 128 in 4), K-major and MN-major A scales, and at long K where A's
  # scales are MN-major, staged by TMA (512 x 512 x 2048 on 4 blocks);
  # K-major ones keep tiles of 128 rows there (1024 x 512 x 2048 on 8
  # blocks).
  save w256_chosen_short_k 512x1024x512 --a-scale 1x128 --b-scale 128x128 --max-blocks 8
  save w256_chosen_mn 512x1024x512 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 8
  save kmajor_chosen_long_k 1024x512x2048 --a-scale 1x128 --b-scale 128x128 --max-blocks 8
  save w256_chosen_long_k_mn 512x512x2048 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 4
  # Clusters that share A's tiles (--cluster-columns): 128 x 128 tiles in
  # pairs along N; tiles of two waves; partial rows with staged MN-major
  # scales; clusters of 4 over several rounds (per-tensor); a partial last
  # column (per-row, f32 out); 32 loaded rows of A in parts of 16; 64-row
  # tiles in clusters of 8 (parts of one swizzle atom); grouped
  # contiguous; an FP8 output.
  save cc_block 256x512x1024 --a-scale 1x128 --b-scale 128x128 --cluster-columns 2
  save cc_w256 512x512x1024 --a-scale 1x128 --b-scale 128x128 --tile-m 256 --cluster-columns 2
  save cc_w256_mn_partial 300x512x768 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-m 256 --cluster-columns 2
  save cc4_tensor_rounds 256x1024x512 --a-scale tensor --b-scale tensor --cluster-columns 4 --max-blocks 4
  save cc_row_f32_partial_n 200x500x384 --a-scale row --b-scale row --out-type f32 --cluster-columns 2
  save cc_small_m 32x1024x1024 --a-scale 1x128 --b-scale 128x128 --cluster-columns 2
  save cc8_rows_64 64x2048x512 --a-scale 1x128 --b-scale 128x128 --tile-m 64 --cluster-columns 8
  save cc_grouped 512x512x512 --groups 4 --a-scale 1x128 --b-scale 128x128 --cluster-columns 2
  save cc_fp8_out 256x512x512 --a-scale 1x128 --b-scale 128x128 --out-type f8E4M3FN --cluster-columns 2
  # Tiles of 192 columns: every other one straddles two 128-column blocks
  # of B's scales (its 64-column chunks take one scale each: from global
  # memory, or staged in a box of two row blocks with MN-major A scales);
  # a partial last column (chunks past N); per-tensor and per-row; Stream-K
  # parts of 192 columns; clusters; a dynamic schedule; 64 rows; f32 out;
  # grouped contiguous and masked; then B blocks of 64 columns in 128-column
  # tiles (two chunks), and the 192-column tile the rule chooses.
  save w192_block 256x1152x512 --a-scale 1x128 --b-scale 128x128 --tile-n 192 --max-blocks 5
  save w192_block_staged 256x1152x512 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-n 192 --max-blocks 5
  save w192_partial_columns 300x1000x640 --a-scale 1x128 --b-scale 128x128 --tile-n 192 --max-blocks 4
  save w192_partial_staged 256x1000x640 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-n 192 --max-blocks 3
  save w192_tensor_bias_gelu 256x960x1024 --a-scale tensor --b-scale tensor --bias bf16 --gelu tanh --tile-n 192 --max-blocks 3
  save w192_row_f32_acc 200x576x384 --a-scale row --b-scale row --out-type f32 --accumulate --tile-n 192 --max-blocks 2
  save w192_sk_block 128x1152x4096 --a-scale 1x128 --b-scale 128x128 --tile-n 192
  save w192_sk_tensor 128x960x4096 --a-scale tensor --b-scale tensor --tile-n 192
  save w192_cluster 256x1152x512 --a-scale 1x128 --b-scale 128x128 --tile-n 192 --cluster-rows 2
  save w192_dynamic 384x1152x512 --a-scale 1x128 --b-scale 128x128 --tile-n 192 --max-blocks 5 --dynamic-schedule
  save w192_rows_64 64x1152x1024 --a-scale 1x128 --b-scale 128x128 --tile-n 192 --max-blocks 3
  save w192_grouped 512x576x512 --groups 4 --a-scale 1x128 --b-scale 128x128 --tile-n 192
  save w192_masked 128x576x512 --groups 3 --masked --a-scale 1x128 --b-scale 128x128 --tile-n 192
  # A masked matmul's 192 columns chosen by N's columns alone (576 / 576
  # of them against 576 / 640), on 8 blocks.
  save w192_masked_chosen 256x576x512 --groups 4 --masked --a-scale 1x128 --b-scale 128x128 --max-blocks 8
  # A contiguous matmul's 192 columns chosen by the staged scales' margin
  # (A's MN-major: rounds' use 0.889 of 128 columns', on 6 blocks).
  save w192_grouped_staged_chosen 512x640x512 --groups 3 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 6
  # Tiles that stream B (few tile rows a B tile, K >= 56 K tiles): a ring
  # of 5 stages, beside staged scales (MN-major) or not, grouped or dense.
  save streamed_b_dense 256x512x7168 --a-scale 1x128 --b-scale 128x128 --max-blocks 4
  save streamed_b_dense_mn 256x512x7168 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 4
  save streamed_b_stream_k 256x512x7168 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 16
  save streamed_b_grouped 768x256x7168 --groups 3 --a-scale 1x128 --b-scale 128x128 --max-blocks 5
  save streamed_b_grouped_mn 768x256x7168 --groups 3 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --max-blocks 5
  # A masked matmul's 128 x 128 tiles in a ring of 5 stages (the default
  # there is 128 x 192 in 4; measured against it), K-major and staged
  # MN-major A scales; 128 x 192 tiles in clusters sharing A's tile.
  save masked_t128_stages5 256x512x1024 --groups 3 --masked --a-scale 1x128 --b-scale 128x128 --tile-n 128 --stages 5 --max-blocks 4
  save masked_mn_t128_stages5 256x512x1024 --groups 3 --masked --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-n 128 --stages 5 --max-blocks 4
  save w192_cluster_columns 256x1152x512 --a-scale 1x128 --a-scale-major mn --b-scale 128x128 --tile-m 128 --tile-n 192 --cluster-rows 1 --cluster-columns 2 --max-blocks 6
  save b64_chunks 256x512x1024 --a-scale 1x128 --b-scale 64x128 --tile-n 128 --max-blocks 3
  save b64_chunks_staged 256x512x1024 --a-scale 1x128 --a-scale-major mn --b-scale 64x128 --tile-n 128 --max-blocks 3
  save w192_chosen 256x2112x1024 --a-scale 1x128 --b-scale 128x128 --max-blocks 11
  # 64-row tiles split along N by two consumers, B blocks of 64 rows: the
  # second consumer's scale is its own block's (partial last tile: its
  # first column past N, clamped); from global memory and staged.
  save b64_split_columns 64x200x2048 --a-scale 1x128 --b-scale 64x128 --tile-m 64 --tile-n 128 --max-blocks 2
  save b64_split_columns_staged 64x384x2048 --a-scale 1x128 --a-scale-major mn --b-scale 64x128 --tile-m 64 --tile-n 128 --max-blocks 2
elif [ "$mode" = peers ]; then
  # Blockwise: A's scales MN-major ([K/128, M]), the layout DeepGEMM is
  # given (nvidia_peers.py writes the same values in each one's layout);
  # qmm's kernel then copies them by TMA into its ring (K-major ones it
  # loads from global memory: 0.90-0.96x on the M <= 128 shapes).
  block="--a-scale 1x128 --a-scale-major mn --b-scale 128x128"
  for shape in 4096x4096x4096 8192x8192x8192 4096x7168x16384; do
    save tensor_$shape $shape --a-scale tensor --b-scale tensor
    save row_$shape $shape --a-scale row --b-scale row
  done
  for shape in 4096x4096x4096 8192x8192x8192 4096x7168x16384 16384x7168x2048; do
    save block_$shape $shape $block
  done
  # DeepGEMM's own DeepSeek-V3 shapes (its test_fp8_fp4.py): M 128 and
  # 4096 on each (N, K).
  for nk in 2112x7168 24576x1536 32768x512 7168x16384 4096x7168 7168x2048; do
    for m in 128 4096; do
      # (4096x7168x16384 is among the large shapes above.)
      [ "${m}x$nk" = 4096x7168x16384 ] && continue
      save block_${m}x$nk ${m}x$nk $block
    done
  done
  # Small M and decode.
  save tensor_128x7168x2048 128x7168x2048 --a-scale tensor --b-scale tensor
  save tensor_1x4096x4096 1x4096x4096 --a-scale tensor --b-scale tensor
  for m in 1 16 64; do
    save block_${m}x7168x2048 ${m}x7168x2048 $block
    save block_${m}x4096x7168 ${m}x4096x7168 $block
  done
else
  save tensor_4096 4096x4096x4096 --a-scale tensor --b-scale tensor
  save tensor_8192 8192x8192x8192 --a-scale tensor --b-scale tensor
  save tensor_4096x7168x16384 4096x7168x16384 --a-scale tensor --b-scale tensor
  save row_4096 4096x4096x4096 --a-scale row --b-scale row
  save row_8192 8192x8192x8192 --a-scale row --b-scale row
  save row_4096x7168x16384 4096x7168x16384 --a-scale row --b-scale row
  save block_4096x7168x16384 4096x7168x16384 --a-scale 1x128 --b-scale 128x128
  save block_16384x7168x2048 16384x7168x2048 --a-scale 1x128 --b-scale 128x128
  save tensor_128x7168x2048 128x7168x2048 --a-scale tensor --b-scale tensor
  save tensor_1x4096x4096 1x4096x4096 --a-scale tensor --b-scale tensor
  # Shapes with a small last round that Stream-K splits (one round of
  # tiles or none before it, 64 K tiles).
  save tensor_896x2432x8192 896x2432x8192 --a-scale tensor --b-scale tensor
  save row_384x7168x7168 384x7168x7168 --a-scale row --b-scale row
  save tensor_128x4096x8192 128x4096x8192 --a-scale tensor --b-scale tensor
fi
if [ ! -f "$out/cases.txt" ]; then
  rm -rf "$out"
  echo "$0: no $mode case matches --only '$only'" >&2
  exit 2
fi
echo "plans in $out:"
cat "$out/cases.txt"
