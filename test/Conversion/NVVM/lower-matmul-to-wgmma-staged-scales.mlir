// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=1" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=1 stage-scales=false" | FileCheck %s --check-prefix=OFF

// Block scales through the ring: MN-major A scales [16 K blocks, 512 rows]
// and K-major B scales [2 column blocks, 16 K blocks]. Each K tile, TMA
// copies the tile's 128 rows of A's K block (one 512-byte row) and B's
// K blocks kb - kb mod 4 .. + 3 of the tile's column block (16 bytes; TMA's
// innermost coordinate must be 16-byte aligned) into the stage's scale
// slot, counted in the stage's bytes: 32768 + 512 + 16. The slots follow
// the 4 stages (4 x 32768) and their `empty` barriers (32 bytes), 128-byte
// aligned: 131200, 640 bytes each (A's 512, then B's, 128-byte aligned).

// CHECK-LABEL: func.func @staged
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c128{{.*}}] : memref<*xf32> -> <tensor = memref<1x128xf32, #gpu.address_space<workgroup>>, swizzle = none, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c4{{.*}}] : memref<*xf32> -> <tensor = memref<1x4xf32, #gpu.address_space<workgroup>>, swizzle = none, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         gpu.launch_func  @staged_wgmma::@matmul
// CHECK:       gpu.func @matmul(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<16x512xf32>, %{{.*}}: memref<2x16xf32>, %{{.*}}: memref<512x256xbf16>, %{{.*}}: !llvm.ptr, %[[MAPSA:.*]]: !llvm.ptr, %[[MAPSB:.*]]: !llvm.ptr, %{{.*}}: memref<3xi32>)
// CHECK-SAME:    qmm.tensor_map_arguments = array<i32: 0, 1, 5, 6, 7>
// The producer's K tile: the stage's bytes, then A's box at (tile row,
// K block) and B's at (K block rounded down to 4, column block).
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%[[STAGE:.*]]], %c33296
// CHECK:         %[[K:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[AROW:.*]] = arith.divui %[[ROW:.*]], %c1{{.*}} : index
// CHECK:         %[[AKB:.*]] = arith.divui %[[K]], %c128{{.*}} : index
// CHECK:         %[[ASLOT:.*]] = arith.muli %[[STAGE]], %c640 : index
// CHECK:         arith.addi %[[ASLOT]], %c131200 : index
// CHECK:         %[[AVIEW:.*]] = memref.view {{.*}} to memref<1x128xf32, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[AROW]], %[[AKB]]], %{{.*}}[%[[STAGE]]] to %[[AVIEW]] : <tensor = memref<1x128xf32
// CHECK:         %[[BROW:.*]] = arith.divui %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[BKB:.*]] = arith.divui %[[K]], %c128{{.*}} : index
// CHECK:         %[[BMOD:.*]] = arith.remui %[[BKB]], %c4{{.*}} : index
// CHECK:         %[[BALIGNED:.*]] = arith.subi %[[BKB]], %[[BMOD]] : index
// CHECK:         arith.addi %{{.*}}, %c131712 : index
// CHECK:         %[[BVIEW:.*]] = memref.view {{.*}} to memref<1x4xf32, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[BALIGNED]], %[[BROW]]], %{{.*}}[%[[STAGE]]] to %[[BVIEW]] : <tensor = memref<1x4xf32
// Then the tiles.
// CHECK:         nvgpu.tma.async.load %{{.*}} : <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.async.load %{{.*}} : <tensor = memref<128x128xf8E4M3FN
// A consumer's K tiles after its first: the wait for the stage, the three
// scales read from its slot (volatile, not moved above the wait), then
// the wgmma steps; no scale loaded from global memory in the K loop.
// CHECK:         scf.for
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK-NOT:       memref.load
// CHECK:           llvm.load volatile %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT:       memref.load
// CHECK:           llvm.load volatile %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT:       memref.load
// CHECK:           llvm.load volatile %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT:       memref.load
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK:           nvvm.wgmma.mma_async

// Without stage-scales, the consumers load the scales from global memory
// and no scale map is made.
// OFF-LABEL: func.func @staged
// OFF-NOT:     memref<*xf32>
// OFF:         gpu.launch_func
// OFF:       gpu.func @matmul
// OFF:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
// OFF:         scf.for
// OFF:           memref.load %{{.*}} : memref<2x16xf32>
// OFF:           memref.load %{{.*}} : memref<16x512xf32>
// OFF:           nvgpu.mbarrier.try_wait.parity
func.func @staged(%a: memref<512x2048xf8E4M3FN>, %sa: memref<16x512xf32>, %b: memref<256x2048xf8E4M3FN>, %sb: memref<2x16xf32>, %c: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x2048xf8E4M3FN>, memref<16x512xf32>) #qmm.scale<block 1x128, mn_major> b(%b, %sb : memref<256x2048xf8E4M3FN>, memref<2x16xf32>) #qmm.scale<block 128x128> outs(%c : memref<512x256xbf16>)
  return
}

// -----

// K-major A scales with a scale per row: a box of each of the tile's 128
// rows (16 bytes each) made TMA's copies slower than the consumers' loads
// (TMA fetches a box row by row), so neither operand's scales are staged
// (one operand's still loaded from global memory would keep the wait).

// CHECK-LABEL: func.func @k_major_rows
// CHECK-NOT:     memref<*xf32>
// CHECK:         gpu.launch_func
// CHECK:       gpu.func @matmul
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
// CHECK:         scf.for
// CHECK:           memref.load %{{.*}} : memref<2x16xf32>
// CHECK:           memref.load %{{.*}} : memref<512x16xf32>
func.func @k_major_rows(%a: memref<512x2048xf8E4M3FN>, %sa: memref<512x16xf32>, %b: memref<256x2048xf8E4M3FN>, %sb: memref<2x16xf32>, %c: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x2048xf8E4M3FN>, memref<512x16xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<256x2048xf8E4M3FN>, memref<2x16xf32>) #qmm.scale<block 128x128> outs(%c : memref<512x256xbf16>)
  return
}

// -----

// 128 x 128 blocks on both operands, K-major: one row block covers each
// tile, so each box is 16 bytes of one row (A's at row block tile row /
// 128, B's at column block tile column / 128).

// CHECK-LABEL: func.func @square_blocks
// CHECK-COUNT-2: nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c4{{.*}}] : memref<*xf32> -> <tensor = memref<1x4xf32
// CHECK:         gpu.func @matmul
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32800
func.func @square_blocks(%a: memref<512x2048xf8E4M3FN>, %sa: memref<4x16xf32>, %b: memref<256x2048xf8E4M3FN>, %sb: memref<2x16xf32>, %c: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x2048xf8E4M3FN>, memref<4x16xf32>) #qmm.scale<block 128x128> b(%b, %sb : memref<256x2048xf8E4M3FN>, memref<2x16xf32>) #qmm.scale<block 128x128> outs(%c : memref<512x256xbf16>)
  return
}

// -----

// K = 384: rows of 3 K blocks (12 bytes) are not 16-byte aligned, which
// TMA's strides must be: the consumers load the scales.

// CHECK-LABEL: func.func @unaligned_rows
// CHECK-NOT:     memref<*xf32>
// CHECK:         gpu.func @matmul
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
func.func @unaligned_rows(%a: memref<512x384xf8E4M3FN>, %sa: memref<3x512xf32>, %b: memref<256x384xf8E4M3FN>, %sb: memref<2x3xf32>, %c: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x384xf8E4M3FN>, memref<3x512xf32>) #qmm.scale<block 1x128, mn_major> b(%b, %sb : memref<256x384xf8E4M3FN>, memref<2x3xf32>) #qmm.scale<block 128x128> outs(%c : memref<512x256xbf16>)
  return
}
