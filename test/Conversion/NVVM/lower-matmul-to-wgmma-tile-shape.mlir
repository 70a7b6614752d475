// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=64 tile-n=64" | FileCheck %s --check-prefix=FORCED
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-reduction=false" | FileCheck %s --check-prefix=NOPAIR
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-n=128" | FileCheck %s --check-prefix=WIDE

// The tile each matmul gets (chooseTileShape in WgmmaPlan.h; the values
// below are worked out by hand from sm_90a's 132 multiprocessors, wgmma
// m64 and 128-byte K tiles). The ring keeps the bytes of 4 stages of
// 128 x 128 tiles (131072) in as many smaller stages as fit.

// One row: a tile of wgmma M (64) rows. 32 tiles of 128 columns and 32 K
// tiles would split in min(132 / 32, 32 / 8) = 4 parts on 128 blocks; 64
// tiles of 64 columns split in min(132 / 64, 4) = 2 on as many blocks, so
// 64 columns, one consumer (256 threads). A's one row is loaded as a
// swizzle atom of 8 rows, so 131072 / ((8 + 64) x 128) = 14 stages of
// 9216 bytes: 129024 bytes, 112 of `empty` barriers, D's staging at
// 130048 (one 64 x 64 bf16 box, 8192 bytes), 1024 to align: 139264.
// Workspace: 64 tiles x 2 parts x 64 x 64 f32.
// CHECK-LABEL: func.func @one_row
// CHECK:         nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<8x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<64x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor {{.*}} : memref<*xbf16> -> <tensor = memref<64x64xbf16
// CHECK:         gpu.launch_func  @one_row_wgmma::@matmul blocks in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c139264_i32 {{.*}} memref<524288xf32>
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c9216 : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 14>
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>
// CHECK-NOT:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>

// With 128 columns given: a tile of wgmma M (64) rows, whose two consumer
// warpgroups split the columns (m64n64 each, 384 threads). 32 tiles of
// 128 columns and 32 K tiles split in min(132 / 32, 32 / 8) = 4 parts on
// 128 blocks. A's one row
// is loaded as a swizzle atom of 8 rows (A's tensor map's box), so
// 131072 / ((8 + 128) x 128) = 7 stages of 17408 bytes: 121856 bytes, 56
// of `empty` barriers, D's staging at 122880 (64 x 64 bf16 boxes, 16384
// bytes), 1024 to align: 140288. Workspace: 32 tiles x 4 parts x 64 x
// 128 f32.
// WIDE-LABEL: func.func @one_row
// WIDE:         nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<8x128xf8E4M3FN
// WIDE:         nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// WIDE:         nvgpu.tma.create.descriptor {{.*}} : memref<*xbf16> -> <tensor = memref<64x64xbf16
// WIDE:         gpu.launch_func  @one_row_wgmma::@matmul blocks in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c140288_i32 {{.*}} memref<1048576xf32>
// WIDE:       gpu.func @matmul({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32, qmm.tensor_map_arguments = array<i32: 0, 1, 5>}
// The producer: each stage expects A's 8 rows and B's 128 (17408 bytes);
// A's 8 x 128 box at the stage's start, B's 1024 bytes (8 rows) in.
// WIDE:         %[[STAGEBYTES:.*]] = arith.constant 17408 : index
// WIDE:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%[[STAGE:.*]]], %[[STAGEBYTES]]
// WIDE:         nvgpu.tma.async.load {{.*}} -> memref<8x128xf8E4M3FN
// WIDE:         %[[BOFFSET:.*]] = arith.constant 1024 : index
// WIDE:         %[[BSTAGE:.*]] = arith.muli %[[STAGE]], %c17408{{.*}} : index
// WIDE:         arith.addi %[[BSTAGE]], %[[BOFFSET]] : index
// WIDE:         nvgpu.tma.async.load {{.*}} -> memref<128x128xf8E4M3FN
// Consumer c's B rows start c x 64 x 128 bytes into the stage's B tile.
// The consumer's index, broadcast from lane 0 (shfl.sync.idx), so that
// ptxas keeps what is computed from it in uniform registers.
// WIDE:         nvvm.setmaxregister  increase 232
// WIDE:         %[[WARPGROUP:.*]] = arith.subi %{{.*}}, %c1{{(_[0-9]+)?}} : index
// WIDE:         %[[WARPGROUP32:.*]] = arith.index_cast %[[WARPGROUP]] : index to i32
// WIDE:         %[[LANE0:.*]] = nvvm.shfl.sync idx %c-1_i32, %[[WARPGROUP32]], %c0_i32, %c31_i32 : i32 -> i32
// WIDE:         %[[CONSUMER:.*]] = arith.index_cast %[[LANE0]] : i32 to index
// WIDE:         %[[PART:.*]] = arith.remui %[[CONSUMER]], %c2{{(_[0-9]+)?}} : index
// WIDE:         arith.muli %[[PART]], %c64{{(_[0-9]+)?}} : index
// WIDE:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>
// WIDE-NOT:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// A part's sums: only the threads whose first row is row 0 (< M = 1)
// store them to the workspace and, in the last part, load them back.
// WIDE:         %[[HASROWS:.*]] = arith.cmpi ult, %{{.*}}, %c1{{(_[0-9]+)?}} : index
// WIDE:         scf.if %[[HASROWS]] {
// WIDE:           llvm.inline_asm {{.*}}st.global.v4.f32
// WIDE:         arith.select %[[HASROWS]], %{{.*}}, %{{.*}} : index
func.func @one_row(%a: memref<1x4096xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<4096x4096xf8E4M3FN>, %d: memref<1x4096xbf16>) {
  qmm.matmul a(%a, %s : memref<1x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<4096x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<1x4096xbf16>)
  return
}

// -----

// 128 rows: two consumers (384 threads). 56 tiles of 128 columns with 16
// K tiles (too few to split) would keep 56 <= 132 / 2 blocks busy: 64
// columns, 112 tiles on 112 blocks. (128 + 64) x 128-byte stages: 5, the
// staging 2 x 64 x 64 bf16: 141312 bytes again.
// CHECK-LABEL: func.func @decode_block
// CHECK:         nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<64x128xf8E4M3FN
// CHECK:         gpu.launch_func  @decode_block_wgmma::@matmul blocks in (%c112{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c141312_i32
// CHECK:       gpu.func @matmul({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32, qmm.tensor_map_arguments = array<i32: 0, 1, 5>}
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>
// CHECK-NOT:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
func.func @decode_block(%a: memref<128x2048xf8E4M3FN>, %sa: memref<128x16xf32>, %b: memref<7168x2048xf8E4M3FN>, %sb: memref<56x16xf32>, %d: memref<128x7168xbf16>) {
  qmm.matmul a(%a, %sa : memref<128x2048xf8E4M3FN>, memref<128x16xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<7168x2048xf8E4M3FN>, memref<56x16xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<128x7168xbf16>)
  return
}

// -----

// Large: 32 x 32 tiles of 128 x 128 in 8 rounds, 4 stages (131072 + 32
// bytes of barriers, staging at 132096: 2 x 64 x 128 bf16, 1024 to align:
// 165888); forced, 64 x 64 tiles (64 x 64 = 4096 of them) in 8 stages of
// 16384 bytes: 131072 + 64 of barriers, staging at 132096 (8192 bytes),
// 1024 to align.
// CHECK-LABEL: func.func @large
// CHECK:         gpu.launch_func  @large_wgmma::@matmul blocks in ({{.*}}) threads in (%c384, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c165888_i32
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// FORCED-LABEL: func.func @large
// FORCED:        gpu.launch_func  @large_wgmma::@matmul blocks in ({{.*}}) threads in (%c256, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c141312_i32
// FORCED:        nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>
func.func @large(%a: memref<4096x4096xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<4096x4096xf8E4M3FN>, %d: memref<4096x4096xbf16>) {
  qmm.matmul a(%a, %s : memref<4096x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<4096x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<4096x4096xbf16>)
  return
}

// -----

// 33 rows: A loaded as 40 (the next swizzle atom). 4 tiles of 128 columns
// and 8 K tiles (too few to split) would keep 4 blocks busy: 64 columns,
// one consumer (256 threads), 8 tiles on 8 blocks. 131072 / ((40 + 64) x
// 128) = 9 stages of 13312 bytes: 119808, 72 of `empty` barriers, D's
// staging at 120832 (64 x 64 bf16, 8192 bytes), 1024 to align: 130048.
// wgmma still reads 64 rows of A from each stage: the last 24 from B's
// part, whose rows of D (33 and up) are never stored.
// CHECK-LABEL: func.func @rows_33
// CHECK:         nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<40x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<64x128xf8E4M3FN
// CHECK:         gpu.launch_func  @rows_33_wgmma::@matmul blocks in (%c8{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c130048_i32
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c13312
// CHECK:         nvgpu.tma.async.load {{.*}} -> memref<40x128xf8E4M3FN
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>
// FORCED-LABEL: func.func @rows_33
// FORCED:        nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<40x128xf8E4M3FN
func.func @rows_33(%a: memref<33x1024xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<512x1024xf8E4M3FN>, %d: memref<33x512xbf16>) {
  qmm.matmul a(%a, %s : memref<33x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<512x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<33x512xbf16>)
  return
}

// -----

// 192 columns: 4096 x 2112 x 7168 in 32 x 11 = 352 tiles of 128 x 192 in 3
// rounds use 352 / 396 = 0.889 of the slots, 544 of 128 x 128 in 5 rounds
// 2112 / 2176 x 544 / 660 = 0.800: 192 columns (within 7%), on
// ceil(352 / 3) = 118 blocks rounded up to 120. B's box is 192 rows; 4
// stages of (128 + 192) x 128 = 40960 bytes and 32 of barriers, staging
// at 164864 (128 x 192 bf16: 49152), 1024 to align: 215040. Tiles start 0
// or 64 columns into a 128-column block of B's scales: each K tile, a
// consumer loads 2 B scales, of the blocks of its columns 0 and 128
// (clamped to N - 1 = 2111), and its 64-column chunks take the first, the
// second where the tile starts 64 columns into a block (origin mod 128 >=
// 64), else the first, and the second.
// CHECK-LABEL: func.func @wide_columns
// CHECK:         nvgpu.tma.create.descriptor {{.*}} : memref<*xf8E4M3FN> -> <tensor = memref<192x128xf8E4M3FN
// CHECK:         gpu.launch_func  @wide_columns_wgmma::@matmul blocks in (%c120{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c215040_i32
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 192, k = 32>
// CHECK:         %[[BLOCK0:.*]] = arith.divui %[[ORIGIN:[0-9]+]], %c128{{(_[0-9]+)?}} : index
// CHECK:         %[[FIRST:.*]] = memref.load %{{.*}}[%[[BLOCK0]], %{{.*}}] : memref<17x56xf32>
// CHECK:         %[[COLUMN1:.*]] = arith.addi %[[ORIGIN]], %c128{{(_[0-9]+)?}} : index
// CHECK:         %[[CLAMPED:.*]] = arith.minui %[[COLUMN1]], %c2111{{(_[0-9]+)?}} : index
// CHECK:         %[[BLOCK1:.*]] = arith.divui %[[CLAMPED]], %c128{{(_[0-9]+)?}} : index
// CHECK:         %[[SECOND:.*]] = memref.load %{{.*}}[%[[BLOCK1]], %{{.*}}] : memref<17x56xf32>
// CHECK-NOT:     memref.load %{{.*}} : memref<17x56xf32>
// CHECK:         %[[INTO:.*]] = arith.remui %[[ORIGIN]], %c128{{(_[0-9]+)?}} : index
// CHECK:         %[[PAST:.*]] = arith.cmpi uge, %[[INTO]], %c64{{(_[0-9]+)?}} : index
// CHECK:         arith.select %[[PAST]], %[[SECOND]], %[[FIRST]] : f32
func.func @wide_columns(%a: memref<4096x7168xf8E4M3FN>, %sa: memref<4096x56xf32>, %b: memref<2112x7168xf8E4M3FN>, %sb: memref<17x56xf32>, %d: memref<4096x2112xbf16>) {
  qmm.matmul a(%a, %sa : memref<4096x7168xf8E4M3FN>, memref<4096x56xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<2112x7168xf8E4M3FN>, memref<17x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<4096x2112xbf16>)
  return
}

// -----

// Pairs: 128 x 4096 x 7168 (56 K tiles) in 128-column tiles is 32 tiles,
// split in min(132 / 32, 56 / 8) = 4 parts; in 64-column tiles 64 tiles,
// split in min(132 / 64, 7) = 2, whose pairs reduce in clusters of 2:
// 64 columns, 128 blocks in clusters. Without cluster reductions, 128
// columns (4 parts are not more than kMaxWideTileParts, and 2 x 128
// blocks exceed 132), unclustered.
// CHECK-LABEL: func.func @pairs
// CHECK:         gpu.launch_func  @pairs_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c128{{(_[0-9]+)?}},
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>
// NOPAIR-LABEL: func.func @pairs
// NOPAIR:        gpu.launch_func  @pairs_wgmma::@matmul blocks in (%c128{{(_[0-9]+)?}},
// NOPAIR:        nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
func.func @pairs(%a: memref<128x7168xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<4096x7168xf8E4M3FN>, %d: memref<128x4096xbf16>) {
  qmm.matmul a(%a, %s : memref<128x7168xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<4096x7168xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x4096xbf16>)
  return
}

// -----

// Block-scaled, the pairs' narrow tiles only up to 64 K tiles: 128 x 4096
// x 16384 (128 K tiles) keeps 128 columns in 4 parts, unclustered.
// CHECK-LABEL: func.func @pairs_deep_block
// CHECK:         gpu.launch_func  @pairs_deep_block_wgmma::@matmul blocks in (%c128{{(_[0-9]+)?}},
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
func.func @pairs_deep_block(%a: memref<128x16384xf8E4M3FN>, %sa: memref<128x128xf32>, %b: memref<4096x16384xf8E4M3FN>, %sb: memref<32x128xf32>, %d: memref<128x4096xbf16>) {
  qmm.matmul a(%a, %sa : memref<128x16384xf8E4M3FN>, memref<128x128xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<4096x16384xf8E4M3FN>, memref<32x128xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<128x4096xbf16>)
  return
}

// -----

// A masked grouped matmul's tiles are counted at run time (its groups'
// counts), so the rounds of its bound say nothing: 192 columns where N's
// use of them is within 0.93 of 128 columns' (768 / 768 = 1 here). By the
// rounds of a group's bound of 2048 rows (16 x 4 = 64 tiles against 16 x
// 6 = 96, one round of 132) 192 would have used two thirds of 128's and
// not been taken.
// CHECK-LABEL: func.func @masked_wide
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c192{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<192x128xf8E4M3FN
func.func @masked_wide(%a: memref<4x2048x512xf8E4M3FN>, %sa: memref<4x2048x4xf32>, %b: memref<4x768x512xf8E4M3FN>, %sb: memref<4x6x4xf32>, %g: memref<4xi32>, %d: memref<4x2048x768xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<4x2048x512xf8E4M3FN>, memref<4x2048x4xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<4x768x512xf8E4M3FN>, memref<4x6x4xf32>) #qmm.scale<block 128x128> groups(%g : memref<4xi32>) outs(%d : memref<4x2048x768xbf16>)
  return
}

// -----

// A contiguous grouped matmul whose A scales are MN-major, which TMA stages
// into the ring: 192 columns down to 0.85 of 128 columns' rounds use
// (kWideTileStagedUseMargin). 4096 rows of 4 groups, N = 4096: 32 x 22 =
// 704 tiles in 6 rounds of 132, 4096 / 4224 x 704 / 792 = 0.862, against
// 32 x 32 = 1024 in 8, 1024 / 1056 = 0.970: 0.889, so 192 columns; with
// A's scales K-major (loaded by the consumers, the 0.07 margin) 128.
// CHECK-LABEL: func.func @grouped_staged_wide
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c192{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<192x128xf8E4M3FN
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 192, k = 32>
func.func @grouped_staged_wide(%a: memref<4096x7168xf8E4M3FN>, %sa: memref<56x4096xf32>, %b: memref<4x4096x7168xf8E4M3FN>, %sb: memref<4x32x56xf32>, %layout: memref<4096xi32>, %d: memref<4096x4096xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<4096x7168xf8E4M3FN>, memref<56x4096xf32>) #qmm.scale<block 1x128, mn_major> b(%b, %sb : memref<4x4096x7168xf8E4M3FN>, memref<4x32x56xf32>) #qmm.scale<block 128x128> groups(%layout : memref<4096xi32>) outs(%d : memref<4096x4096xbf16>)
  return
}

// -----

// CHECK-LABEL: func.func @grouped_loaded_narrow
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
func.func @grouped_loaded_narrow(%a: memref<4096x7168xf8E4M3FN>, %sa: memref<4096x56xf32>, %b: memref<4x4096x7168xf8E4M3FN>, %sb: memref<4x32x56xf32>, %layout: memref<4096xi32>, %d: memref<4096x4096xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<4096x7168xf8E4M3FN>, memref<4096x56xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<4x4096x7168xf8E4M3FN>, memref<4x32x56xf32>) #qmm.scale<block 128x128> groups(%layout : memref<4096xi32>) outs(%d : memref<4096x4096xbf16>)
  return
}
