// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 cluster-columns=2" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 cluster-columns=4" | FileCheck %s --check-prefix=FOUR

// Clusters that share A's tile (cluster-columns=2): the two blocks of a
// cluster compute consecutive tiles of one row (256 x 512: 2 tile rows of
// 4 tiles, so 2 units per row, 4 units on 4 clusters, 8 blocks). Each
// block loads its half of A's 128 rows (a 64-row box) and multicasts it
// into both blocks' shared memory; B's tile is the block's own (a
// 128-row box, no multicast).

// CHECK-LABEL: func.func @two_columns
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<64x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         gpu.launch_func  @two_columns_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c8, %c1{{.*}}, %c1{{.*}}) threads in (%c384

// Set-up: `empty` counts one arrival per consumer warp of both blocks
// (16): the other block's producer writes into this block's stage too.
// CHECK:       gpu.module @two_columns_wgmma
// CHECK:         %[[RANK:.*]] = gpu.cluster_block_id  x
// CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK:         nvvm.mbarrier.init %{{.*}}, %[[SIXTEEN]]
// CHECK:         nvvm.fence.mbarrier.init
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait

// The producer: units of 2 tiles walked per cluster (block / 2, step
// grid / 2), 2 units a row; the tile column is 2 x unit column + rank, the
// tile row the unit's. Each stage expects both whole tiles' bytes (32
// KiB). A: rows tile row + 64 x rank into the half at 8192 x rank of the
// stage, multicast to both blocks (mask 0b11); then B's whole tile at
// 16384, not multicast.
// CHECK:         %[[BLOCK:.*]] = gpu.block_id  x
// CHECK:         %[[CLUSTER:.*]] = arith.divui %[[BLOCK]], %c2
// CHECK:         %[[GRID:.*]] = gpu.grid_dim  x
// CHECK:         %[[CLUSTERS:.*]] = arith.divui %[[GRID]], %c2
// CHECK:         scf.for %[[UNIT:.*]] = %[[CLUSTER]] to %c4 step %[[CLUSTERS]]
// CHECK:           %[[PAIR:.*]] = arith.muli %{{.*}}, %c2
// CHECK:           %[[TILECOLUMN:.*]] = arith.addi %[[PAIR]], %[[RANK]]
// CHECK:           %[[ROW:.*]] = arith.muli %{{.*}}, %c128
// CHECK:           %[[COLUMN:.*]] = arith.muli %[[TILECOLUMN]], %c128
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
// CHECK:             %[[PART:.*]] = arith.muli %[[RANK]], %c8192
// CHECK:             %[[AVIEW:.*]] = memref.view {{.*}} to memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK:             %[[HALF:.*]] = arith.muli %[[RANK]], %c64
// CHECK:             %[[AROW:.*]] = arith.addi %[[ROW]], %[[HALF]]
// CHECK:             %[[MASK:.*]] = arith.constant 3 : i16
// CHECK:             nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[AROW]]], %{{.*}}[%{{.*}}] to %[[AVIEW]] multicast_mask = %[[MASK]]
// CHECK:             arith.constant 16384 : index
// CHECK:             %[[BVIEW:.*]] = memref.view {{.*}} to memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[COLUMN]]], %{{.*}}[%{{.*}}] to %[[BVIEW]] :

// The consumers release a stage in both blocks.
// CHECK:         nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK:         nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>

// No block exits while the other may still write into it.
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    gpu.return

// cluster-columns=4: 4 tiles of a row (512 columns) make one unit; quarters
// of A's tile (32-row boxes), mask 0b1111, 32 arrivals per `empty`.
// FOUR-LABEL: func.func @two_columns
// FOUR:         box[%c32{{.*}}, %c128{{.*}}]
// FOUR:         box[%c128{{.*}}, %c128{{.*}}]
// FOUR:         gpu.launch_func  @two_columns_wgmma::@matmul clusters in (%c4{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c8, %c1{{.*}}, %c1{{.*}})
// FOUR:       gpu.module @two_columns_wgmma
// FOUR:         arith.constant 32 : i32
// FOUR:         arith.constant 15 : i16
func.func @two_columns(%a: memref<256x1024xf8E4M3FN>, %sa: memref<256x8xf32>, %b: memref<512x1024xf8E4M3FN>, %sb: memref<4x8xf32>, %d: memref<256x512xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<256x8xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<512x1024xf8E4M3FN>, memref<4x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x512xbf16>)
  return
}

// -----

// 3 tile columns (384) do not pair: no clusters, A's whole tile per block.
// CHECK-LABEL: func.func @odd_columns
// CHECK:         box[%c128{{.*}}, %c128{{.*}}]
// CHECK:         box[%c128{{.*}}, %c128{{.*}}]
// CHECK-NOT:     clusters in
// CHECK:         gpu.launch_func  @odd_columns_wgmma::@matmul blocks in
// CHECK-NOT:     multicast_mask
// CHECK:         return
func.func @odd_columns(%a: memref<256x1024xf8E4M3FN>, %sa: memref<256x8xf32>, %b: memref<384x1024xf8E4M3FN>, %sb: memref<3x8xf32>, %d: memref<256x384xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<256x8xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<384x1024xf8E4M3FN>, memref<3x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x384xbf16>)
  return
}

// -----

// A grouped (contiguous) matmul: a row's tiles are one group's, so they
// share A's tile (512 x 256 per group, 4 tile rows of 2: one unit a row).
// CHECK-LABEL: func.func @grouped
// CHECK:         box[%c64{{.*}}, %c128{{.*}}]
// CHECK:         gpu.launch_func  @grouped_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c8,
// CHECK:         multicast_mask
func.func @grouped(%a: memref<512x512xf8E4M3FN>, %sa: memref<512x4xf32>, %b: memref<4x256x512xf8E4M3FN>, %sb: memref<4x2x4xf32>, %d: memref<512x256xbf16>, %layout: memref<512xi32>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<512x512xf8E4M3FN>, memref<512x4xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<4x256x512xf8E4M3FN>, memref<4x2x4xf32>) #qmm.scale<block 128x128> groups(%layout : memref<512xi32>) outs(%d : memref<512x256xbf16>)
  return
}
