// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-rows=1" | FileCheck %s --check-prefix=UNCLUSTERED
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a dynamic-schedule=true" | FileCheck %s --check-prefix=DYNAMIC

// cluster-rows left open (0, the default): block-scaled matmuls with a
// 16-bit output take tiles of two waves (256 x 128) at long K too, where
// M's 256-row tiles pair into clusters of two (B's tile multicast to both
// blocks) and their rounds are within 2% as full as those of the 128-row
// tile chosen otherwise, where TMA copies the block scales into the ring
// (A's 1 x 128 scales MN-major; K-major ones, which each wave would load
// from global memory, keep 128 rows: @long_k_k_major).

// 4096 x 4096 x 7168, 1x128 x 128x128 (56 K tiles): 16 x 32 = 512 tiles
// of 256 x 128 in 256 units of a cluster on 132 / 2 = 66 slots, 4 rounds,
// 256 / 264 = 0.970 of them; 128 x 128: 1024 tiles in 8 rounds of 132,
// 1024 / 1056 = 0.970 (128 x 192: 32 x 22 = 704 tiles in 6 rounds, 0.862
// of 128's, below 0.93). 0.970 >= 0.98 x 0.970: two waves, in clusters
// of 2 blocks; 256 units in 4 rounds on 64 clusters, 128 blocks. A's box
// holds the tile's 256 rows, B's the block's half of 128 rows.
// CHECK-LABEL: func.func @long_k
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c256{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<256x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<64x128xf8E4M3FN
// CHECK:         gpu.launch_func  @long_k_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384
// cluster-rows=1: no clusters, so tiles of two waves at short K only:
// 128 x 128 tiles, 1024 in 8 rounds on 128 blocks.
// UNCLUSTERED-LABEL: func.func @long_k
// UNCLUSTERED:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// UNCLUSTERED:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// UNCLUSTERED-NOT:     clusters in
// UNCLUSTERED:         gpu.launch_func  @long_k_wgmma::@matmul blocks in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384
// A dynamic schedule draws tiles block by block: no clusters, 128 rows,
// a block per multiprocessor.
// DYNAMIC-LABEL: func.func @long_k
// DYNAMIC:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// DYNAMIC-NOT:     clusters in
// DYNAMIC:         gpu.launch_func  @long_k_wgmma::@matmul blocks in (%c132{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384
func.func @long_k(%a: memref<4096x7168xf8E4M3FN>, %sa: memref<56x4096xf32>, %b: memref<4096x7168xf8E4M3FN>, %sb: memref<32x56xf32>, %d: memref<4096x4096xbf16>) {
  qmm.matmul a(%a, %sa : memref<4096x7168xf8E4M3FN>, memref<56x4096xf32>) #qmm.scale<block 1x128, mn_major>
             b(%b, %sb : memref<4096x7168xf8E4M3FN>, memref<32x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<4096x4096xbf16>)
  return
}

// -----

// The same matmul with A's scales K-major: the consumers load them from
// global memory (TMA would copy a 16-byte row per row of A), so no tiles
// of two waves: 128 x 128 tiles (128 x 192's rounds are 0.889 of 128's,
// below 0.93), 1024 in 8 rounds on 128 blocks, no clusters.
// CHECK-LABEL: func.func @long_k_k_major
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK-NOT:     clusters in
// CHECK:         gpu.launch_func  @long_k_k_major_wgmma::@matmul blocks in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384
func.func @long_k_k_major(%a: memref<4096x7168xf8E4M3FN>, %sa: memref<4096x56xf32>, %b: memref<4096x7168xf8E4M3FN>, %sb: memref<32x56xf32>, %d: memref<4096x4096xbf16>) {
  qmm.matmul a(%a, %sa : memref<4096x7168xf8E4M3FN>, memref<4096x56xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<4096x7168xf8E4M3FN>, memref<32x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<4096x4096xbf16>)
  return
}

// -----

// (A's scales MN-major here and below.)
// 3840 rows: 15 tile rows of 256 do not pair into clusters, so 128 rows:
// 128 x 192 tiles, 30 x 22 = 660 in 5 whole rounds of 132 (4096 / 4224 =
// 0.970 of them), against 128 x 128's 960 in 8 rounds (0.909).
// CHECK-LABEL: func.func @odd_wave_rows
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c192{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<192x128xf8E4M3FN
// CHECK-NOT:     clusters in
// CHECK:         gpu.launch_func  @odd_wave_rows_wgmma::@matmul blocks in (%c132{{.*}}, %c1{{.*}}, %c1{{.*}})
func.func @odd_wave_rows(%a: memref<3840x7168xf8E4M3FN>, %sa: memref<56x3840xf32>, %b: memref<4096x7168xf8E4M3FN>, %sb: memref<32x56xf32>, %d: memref<3840x4096xbf16>) {
  qmm.matmul a(%a, %sa : memref<3840x7168xf8E4M3FN>, memref<56x3840xf32>) #qmm.scale<block 1x128, mn_major>
             b(%b, %sb : memref<4096x7168xf8E4M3FN>, memref<32x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<3840x4096xbf16>)
  return
}

// -----

// 4096 x 2112 x 7168: 256 x 128 tiles, 16 x 17 = 272 (the last column 64
// of 128 wide) in 136 units, 3 rounds of 66: 0.970 x 136 / 198 = 0.666;
// 128 x 192: 32 x 11 = 352 tiles in 3 rounds of 132, 352 / 396 = 0.889.
// 192 columns, no clusters; 352 tiles in 3 rounds of 118 blocks, 120 as
// whole raster groups of 8.
// CHECK-LABEL: func.func @few_columns
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c192{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<192x128xf8E4M3FN
// CHECK-NOT:     clusters in
// CHECK:         gpu.launch_func  @few_columns_wgmma::@matmul blocks in (%c120{{.*}}, %c1{{.*}}, %c1{{.*}})
func.func @few_columns(%a: memref<4096x7168xf8E4M3FN>, %sa: memref<56x4096xf32>, %b: memref<2112x7168xf8E4M3FN>, %sb: memref<17x56xf32>, %d: memref<4096x2112xbf16>) {
  qmm.matmul a(%a, %sa : memref<4096x7168xf8E4M3FN>, memref<56x4096xf32>) #qmm.scale<block 1x128, mn_major>
             b(%b, %sb : memref<2112x7168xf8E4M3FN>, memref<17x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<4096x2112xbf16>)
  return
}

// -----

// Per-tensor scales: no waves (their fragments sum several K tiles), no
// clusters: 128 x 128 tiles, 1024 in 8 rounds on 128 blocks.
// CHECK-LABEL: func.func @per_tensor
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK-NOT:     clusters in
// CHECK:         gpu.launch_func  @per_tensor_wgmma::@matmul blocks in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}})
func.func @per_tensor(%a: memref<4096x7168xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<4096x7168xf8E4M3FN>, %d: memref<4096x4096xbf16>) {
  qmm.matmul a(%a, %s : memref<4096x7168xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<4096x7168xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<4096x4096xbf16>)
  return
}
