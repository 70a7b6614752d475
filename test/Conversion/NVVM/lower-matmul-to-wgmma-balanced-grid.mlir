// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-n=128" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-n=128 cluster-rows=2" | FileCheck %s --check-prefix=CLUSTER
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-n=128 max-blocks=100 stream-k=false" | FileCheck %s --check-prefix=CAP100

// The persistent grid: unless Stream-K splits the last round, the fewest
// blocks that take the T tiles in as many rounds as the G = 132
// multiprocessors would, ceil(T / ceil(T / G)), rounded up to a multiple
// of the raster group's 8 tile rows (4 units of 2 in clusters of 2), at
// most G. Worked out by hand, for tiles of 128 x 128 (given: which tile
// a matmul gets is lower-matmul-to-wgmma-tile-shape.mlir's):
// - 8192 x 8192: 64 x 64 = 4096 tiles, 32 rounds on 132 -> 128 blocks
//   (on at most 100: 41 rounds -> 100 blocks); clusters of 2: 2048
//   units on 66 cluster slots, 32 rounds -> 64 clusters, 128 blocks.
// CHECK-LABEL: func.func @square_8192
// CHECK:         gpu.launch_func  @square_8192_wgmma::@matmul blocks in (%c128{{(_[0-9]+)?}},
// CLUSTER-LABEL: func.func @square_8192
// CLUSTER:       gpu.launch_func  @square_8192_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c128{{(_[0-9]+)?}},
// CAP100-LABEL: func.func @square_8192
// CAP100:        gpu.launch_func  @square_8192_wgmma::@matmul blocks in (%c100{{(_[0-9]+)?}},
func.func @square_8192(%a: memref<8192x8192xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<8192x8192xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<8192x8192xbf16>) {
  qmm.matmul a(%a, %sa : memref<8192x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<8192x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<8192x8192xbf16>)
  return
}

// -----

// 4096 x 7168 x 16384, 1x128 x 128x128 blocks: 32 x 56 = 1792 tiles, 14
// rounds on 132 (the last of 76 tiles: more than 66, not split) -> 128
// blocks; on at most 100: 18 rounds -> 100 blocks. No Stream-K workspace:
// the only allocation is the scale checks' three counters.
// CHECK-LABEL: func.func @deepseek_shape
// CHECK-NOT:     memref.alloc() : memref<{{[0-9]+}}xf32>
// CHECK:         memref.alloc() : memref<3xi32>
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch_func  @deepseek_shape_wgmma::@matmul blocks in (%c128{{(_[0-9]+)?}},
// CAP100-LABEL: func.func @deepseek_shape
// CAP100:        gpu.launch_func  @deepseek_shape_wgmma::@matmul blocks in (%c100{{(_[0-9]+)?}},
func.func @deepseek_shape(%a: memref<4096x16384xf8E4M3FN>, %sa: memref<4096x128xf32>, %b: memref<7168x16384xf8E4M3FN>, %sb: memref<56x128xf32>, %d: memref<4096x7168xbf16>) {
  qmm.matmul a(%a, %sa : memref<4096x16384xf8E4M3FN>, memref<4096x128xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<7168x16384xf8E4M3FN>, memref<56x128xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<4096x7168xbf16>)
  return
}

// -----

// Whole rounds keep every block: 1024 x 4224 is 8 x 33 = 264 tiles, 2
// rounds of 132 (on at most 100: 3 rounds -> 88 blocks).
// CHECK-LABEL: func.func @two_whole_rounds
// CHECK:         gpu.launch_func  @two_whole_rounds_wgmma::@matmul blocks in (%c132{{(_[0-9]+)?}},
// CAP100-LABEL: func.func @two_whole_rounds
// CAP100:        gpu.launch_func  @two_whole_rounds_wgmma::@matmul blocks in (%c88{{(_[0-9]+)?}},
func.func @two_whole_rounds(%a: memref<1024x512xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<4224x512xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<1024x4224xbf16>) {
  qmm.matmul a(%a, %sa : memref<1024x512xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<4224x512xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<1024x4224xbf16>)
  return
}

// -----

// One tile over a round with short tiles (896 x 2432 x 2048: 7 x 19 = 133
// tiles of 16 K tiles, too short to split): 2 rounds -> 67 blocks,
// rounded up to 72, not 132 of which 131 would idle in the second round.
// CHECK-LABEL: func.func @one_tile_over_short_k
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch_func  @one_tile_over_short_k_wgmma::@matmul blocks in (%c72{{(_[0-9]+)?}},
func.func @one_tile_over_short_k(%a: memref<896x2048xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<2432x2048xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<896x2432xbf16>) {
  qmm.matmul a(%a, %sa : memref<896x2048xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<2432x2048xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<896x2432xbf16>)
  return
}

// -----

// 16384 x 7168 x 2048, 1x128 x 128x128 blocks: 128 x 56 = 7168 tiles, 55
// rounds on 132 -> 131 blocks, rounded up to 136, so 132 (131 measured 2%
// slower on an H100); on at most 100: 72 rounds -> 100 blocks.
// CHECK-LABEL: func.func @ragged_rounds
// CHECK:         gpu.launch_func  @ragged_rounds_wgmma::@matmul blocks in (%c132{{(_[0-9]+)?}},
// CAP100-LABEL: func.func @ragged_rounds
// CAP100:        gpu.launch_func  @ragged_rounds_wgmma::@matmul blocks in (%c100{{(_[0-9]+)?}},
func.func @ragged_rounds(%a: memref<16384x2048xf8E4M3FN>, %sa: memref<16384x16xf32>, %b: memref<7168x2048xf8E4M3FN>, %sb: memref<56x16xf32>, %d: memref<16384x7168xbf16>) {
  qmm.matmul a(%a, %sa : memref<16384x2048xf8E4M3FN>, memref<16384x16xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<7168x2048xf8E4M3FN>, memref<56x16xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<16384x7168xbf16>)
  return
}
