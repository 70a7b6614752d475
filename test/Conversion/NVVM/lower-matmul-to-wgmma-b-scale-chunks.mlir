// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-n=192 max-blocks=1" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=64 tile-n=128 max-blocks=1" | FileCheck %s --check-prefix=SPLIT

// B's block scales per chunk of a consumer's columns where a block does
// not hold the tile (WgmmaPlan::bScaleColumns).
//
// 128 x 192 tiles, 128-column B blocks: tile j starts at 192 j, 0 or 64
// columns into a block, so its 64-column chunks at columns 0, 64 and 128
// lie in its first block, in its first or second (the second where it
// starts 64 columns in), and in its second: a consumer loads the 2 blocks'
// scales and selects the middle chunk's. Staged (MN-major A scales): B's
// box holds the 2 row blocks a tile reaches, 4 K blocks each (2 x 4 f32),
// at (K block rounded down to 4, the tile's first row block); the stage
// counts 40960 + 512 (A's box) + 32 bytes. The slots follow the 4 stages
// (163840) and their barriers (32), 128-byte aligned: 163968, 640 bytes
// each, B's box 512 bytes in. A block's scale is the box's element (K
// block mod 4) + 4 x (its row block - the tile's first): the second
// block's, origin / 128 - blockColumn / 128 + 1, clamped to the box's
// last row (1).
// CHECK-LABEL: func.func @straddling_staged
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c2{{.*}}, %c4{{.*}}] : memref<*xf32> -> <tensor = memref<2x4xf32
// CHECK:       gpu.func @matmul
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c41504
// CHECK:         scf.for
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK:           %[[KMOD:.*]] = arith.remui %{{.*}}, %c4{{(_[0-9]+)?}} : index
// CHECK:           %c164480{{(_[0-9]+)?}} = arith.constant 164480 : index
// CHECK:           %[[FIRSTBITS:.*]] = llvm.load volatile
// CHECK-NEXT:      %[[FIRST:.*]] = arith.bitcast %[[FIRSTBITS]] : i32 to f32
// CHECK:           %[[TILEBLOCK:.*]] = arith.divui %[[BLOCKCOLUMN:.*]], %c128{{(_[0-9]+)?}} : index
// CHECK-NEXT:      %c128{{(_[0-9]+)?}} = arith.constant 128 : index
// CHECK-NEXT:      %[[BLOCK:.*]] = arith.divui %[[ORIGIN:.*]], %c128{{(_[0-9]+)?}} : index
// CHECK-NEXT:      %[[ROW0:.*]] = arith.subi %[[BLOCK]], %[[TILEBLOCK]] : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[ROW1:.*]] = arith.addi %[[ROW0]], %[[ONE]] : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.minui %[[ROW1]], %[[LAST]] : index
// CHECK:           %[[KMOD1:.*]] = arith.remui %{{.*}}, %c4{{(_[0-9]+)?}} : index
// CHECK:           %[[ROWOFFSET:.*]] = arith.muli %[[ROW]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT:      %[[ELEMENT:.*]] = arith.addi %[[KMOD1]], %[[ROWOFFSET]] : index
// CHECK:           arith.muli %[[ELEMENT]], %c4{{(_[0-9]+)?}} : index
// CHECK:           %c164480{{(_[0-9]+)?}} = arith.constant 164480 : index
// CHECK:           %[[SECONDBITS:.*]] = llvm.load volatile
// CHECK-NEXT:      %[[SECOND:.*]] = arith.bitcast %[[SECONDBITS]] : i32 to f32
// CHECK-NEXT:      %c128{{(_[0-9]+)?}} = arith.constant 128 : index
// CHECK-NEXT:      %[[INTO:.*]] = arith.remui %[[ORIGIN]], %c128{{(_[0-9]+)?}} : index
// CHECK-NEXT:      %c64{{(_[0-9]+)?}} = arith.constant 64 : index
// CHECK-NEXT:      %[[PAST:.*]] = arith.cmpi uge, %[[INTO]], %c64{{(_[0-9]+)?}} : index
// CHECK-NEXT:      arith.select %[[PAST]], %[[SECOND]], %[[FIRST]] : f32
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 192, k = 32>
func.func @straddling_staged(%a: memref<256x1024xf8E4M3FN>, %sa: memref<8x256xf32>, %b: memref<1152x1024xf8E4M3FN>, %sb: memref<9x8xf32>, %d: memref<256x1152xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<8x256xf32>) #qmm.scale<block 1x128, mn_major>
             b(%b, %sb : memref<1152x1024xf8E4M3FN>, memref<9x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x1152xbf16>)
  return
}

// -----

// 64 x 128 tiles split along N by two consumers (64 columns each), B
// blocks of 64 rows: one chunk a consumer, but consumer 1's is the tile's
// second block: its scale is loaded at its own first column, blockColumn +
// (consumer mod 2) x 64, in block column / 64. N = 200: the last tile's
// second consumer starts at 192 + 64 = 256, past N, so the column is
// clamped to N - 1 = 199 (a tile a block holds needs no clamp: its first
// column is in B).
// SPLIT-LABEL: func.func @split_columns
// SPLIT:       gpu.func @matmul
// SPLIT:         scf.for
// SPLIT:           %[[CLAMPED:.*]] = arith.minui %{{.*}}, %c199{{(_[0-9]+)?}} : index
// SPLIT:           %[[BLOCK:.*]] = arith.divui %[[CLAMPED]], %c64{{(_[0-9]+)?}} : index
// SPLIT:           memref.load %{{.*}}[%[[BLOCK]], %{{.*}}] : memref<4x16xf32>
func.func @split_columns(%a: memref<64x2048xf8E4M3FN>, %sa: memref<64x16xf32>, %b: memref<200x2048xf8E4M3FN>, %sb: memref<4x16xf32>, %d: memref<64x200xbf16>) {
  qmm.matmul a(%a, %sa : memref<64x2048xf8E4M3FN>, memref<64x16xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<200x2048xf8E4M3FN>, memref<4x16xf32>) #qmm.scale<block 64x128>
             outs(%d : memref<64x200xbf16>)
  return
}
