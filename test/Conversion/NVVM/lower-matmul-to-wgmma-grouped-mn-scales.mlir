// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" | FileCheck %s

// Grouped matmuls with A's scales MN-major (the layout DeepGEMM's kernels
// read). A masked matmul's are [G, K blocks, Mmax], read through their
// collapsed [G K blocks, Mmax] view: row r of group g (row g Mmax + r of
// the collapsed A) at (g K blocks + K block, r), where TMA copies them into
// the ring and where the consumers load them from global memory alike.

// Masked, 4 groups of 256 rows, K = 512 (4 K blocks): both operands'
// scales staged. A's box of the tile's 128 rows lies at (tile row - 256 g,
// 4 g + K block) of the [16, 256] view.
// CHECK-LABEL: func.func @masked_staged
// CHECK:         %[[SA:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : memref<4x4x256xf32> into memref<16x256xf32>
// CHECK:         %[[SACAST:.*]] = memref.cast %[[SA]] : memref<16x256xf32> to memref<*xf32>
// CHECK:         nvgpu.tma.create.descriptor %[[SACAST]] box[%c1{{.*}}, %c128{{.*}}] : memref<*xf32> -> <tensor = memref<1x128xf32
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c4{{.*}}] : memref<*xf32> -> <tensor = memref<1x4xf32
// CHECK:       gpu.func @matmul
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c33296
// CHECK:         %[[K:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[KB:.*]] = arith.divui %[[K]], %c128{{.*}} : index
// CHECK:         %[[FIRST:.*]] = arith.muli %[[G:[0-9]+]], %c256{{.*}} : index
// CHECK:         %[[INGROUP:.*]] = arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK:         %[[AROW:.*]] = arith.divui %[[INGROUP]], %c1{{.*}} : index
// CHECK:         %[[GKB:.*]] = arith.muli %[[G]], %c4{{.*}} : index
// CHECK:         %[[AKB:.*]] = arith.addi %[[GKB]], %[[KB]] : index
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[AROW]], %[[AKB]]], %{{.*}} to %{{.*}} : <tensor = memref<1x128xf32
// CHECK:         nvgpu.tma.async.load %{{.*}} : <tensor = memref<1x4xf32
func.func @masked_staged(%a: memref<4x256x512xf8E4M3FN>, %sa: memref<4x4x256xf32>, %b: memref<4x384x512xf8E4M3FN>, %sb: memref<4x3x4xf32>, %g: memref<4xi32>, %c: memref<4x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<4x256x512xf8E4M3FN>, memref<4x4x256xf32>) #qmm.scale<block 1x128, mn_major> b(%b, %sb : memref<4x384x512xf8E4M3FN>, memref<4x3x4xf32>) #qmm.scale<block 128x128> groups(%g : memref<4xi32>) outs(%c : memref<4x256x384xbf16>)
  return
}

// -----

// K = 256: B's rows of 2 K blocks (8 bytes) are not 16-byte aligned, so
// neither operand's scales are staged; each consumer loads A's of its row
// (g 256 + r of the collapsed A) at (2 g + K block, r) of the [8, 256]
// view, not at (K block, g 256 + r), past its 256 columns.
// CHECK-LABEL: func.func @masked_global
// CHECK-NOT:     memref<*xf32>
// CHECK:       gpu.func @matmul(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[SA:.*]]: memref<8x256xf32>,
// CHECK:         memref.load %{{.*}} : memref<4x3x2xf32>
// CHECK:         %[[FIRST:.*]] = arith.muli %[[GROUP:[0-9]+]], %c256{{.*}} : index
// CHECK:         %[[INGROUP:.*]] = arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK:         %[[KB:.*]] = arith.divui %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[GKB:.*]] = arith.muli %[[GROUP]], %c2{{.*}} : index
// CHECK:         %[[AKB:.*]] = arith.addi %[[GKB]], %[[KB]] : index
// CHECK:         %[[AROW:.*]] = arith.divui %[[INGROUP]], %c1{{.*}} : index
// CHECK:         memref.load %[[SA]][%[[AKB]], %[[AROW]]] : memref<8x256xf32>
func.func @masked_global(%a: memref<4x256x256xf8E4M3FN>, %sa: memref<4x2x256xf32>, %b: memref<4x384x256xf8E4M3FN>, %sb: memref<4x3x2xf32>, %g: memref<4xi32>, %c: memref<4x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<4x256x256xf8E4M3FN>, memref<4x2x256xf32>) #qmm.scale<block 1x128, mn_major> b(%b, %sb : memref<4x384x256xf8E4M3FN>, memref<4x3x2xf32>) #qmm.scale<block 128x128> groups(%g : memref<4xi32>) outs(%c : memref<4x256x384xbf16>)
  return
}

// -----

// A scale per row, MN-major: [G, 1, Mmax] read as [G, Mmax], in the
// epilogue, row r of group g at (g, r).
// CHECK-LABEL: func.func @masked_per_row
// CHECK:       gpu.func @matmul(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[SA:.*]]: memref<3x256xf32>,
// CHECK:         %[[CLAMPED:.*]] = arith.minui %{{.*}}, %c767 : index
// CHECK:         %[[FIRST:.*]] = arith.muli %[[GROUP:[0-9]+]], %c256{{.*}} : index
// CHECK:         %[[INGROUP:.*]] = arith.subi %[[CLAMPED]], %[[FIRST]] : index
// CHECK:         %[[GKB:.*]] = arith.muli %[[GROUP]], %c1{{.*}} : index
// CHECK:         %[[AKB:.*]] = arith.addi %[[GKB]], %{{.*}} : index
// CHECK:         %[[AROW:.*]] = arith.divui %[[INGROUP]], %c1{{.*}} : index
// CHECK:         memref.load %[[SA]][%[[AKB]], %[[AROW]]] : memref<3x256xf32>
func.func @masked_per_row(%a: memref<3x256x256xf8E4M3FN>, %sa: memref<3x1x256xf32>, %b: memref<3x128x256xf8E4M3FN>, %sb: memref<3x128x1xf32>, %g: memref<3xi32>, %c: memref<3x256x128xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<3x256x256xf8E4M3FN>, memref<3x1x256xf32>) #qmm.scale<per_row, mn_major> b(%b, %sb : memref<3x128x256xf8E4M3FN>, memref<3x128x1xf32>) #qmm.scale<per_row> groups(%g : memref<3xi32>) outs(%c : memref<3x256x128xbf16>)
  return
}

// -----

// Contiguous: A's scales [K blocks, M] as a matmul's, staged, A's box at
// (tile row, K block).
// CHECK-LABEL: func.func @contiguous_staged
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c128{{.*}}] : memref<*xf32> -> <tensor = memref<1x128xf32
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c4{{.*}}] : memref<*xf32> -> <tensor = memref<1x4xf32
// CHECK:       gpu.func @matmul
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c33296
// CHECK:         %[[K:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[AROW:.*]] = arith.divui %{{.*}}, %c1{{.*}} : index
// CHECK:         %[[AKB:.*]] = arith.divui %[[K]], %c128{{.*}} : index
// CHECK-NOT:     arith.subi
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[AROW]], %[[AKB]]], %{{.*}} to %{{.*}} : <tensor = memref<1x128xf32
func.func @contiguous_staged(%a: memref<512x512xf8E4M3FN>, %sa: memref<4x512xf32>, %b: memref<4x384x512xf8E4M3FN>, %sb: memref<4x3x4xf32>, %g: memref<512xi32>, %c: memref<512x384xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<512x512xf8E4M3FN>, memref<4x512xf32>) #qmm.scale<block 1x128, mn_major> b(%b, %sb : memref<4x384x512xf8E4M3FN>, memref<4x3x4xf32>) #qmm.scale<block 128x128> groups(%g : memref<512xi32>) outs(%c : memref<512x384xbf16>)
  return
}
