// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" | FileCheck %s

// A run-time M: one kernel for every M. The host sizes the grid from A's
// rows (at most one block per tile, at most one per multiprocessor) and
// launches nothing for M = 0 (a tensor map has no empty dimension); the
// kernel takes D's rows from its view (qmm-kernel-size-arguments passes
// the extent later), counts the tiles of M's rows, issues nothing without
// a tile, and tests rows against M.

// CHECK-LABEL: func.func @dynamic_m
// CHECK-SAME:    %[[A:[^:]*]]: memref<?x256xf8E4M3FN>
// CHECK:         %[[M:.*]] = memref.dim %[[A]], %c0 : memref<?x256xf8E4M3FN>
// CHECK:         %[[NONZERO:.*]] = arith.cmpi ne, %[[M]], %c0{{.*}} : index
// CHECK:         scf.if %[[NONZERO]] {
// CHECK:           nvgpu.tma.create.descriptor
// The grid: M's tiles (3 columns) in as few rounds of at most 132 blocks,
// the fewest blocks for those rounds rounded up to raster columns of 8.
// CHECK:           %[[TILES:.*]] = arith.ceildivui %[[M]], %c128{{.*}} : index
// CHECK:           %[[ITEMS:.*]] = arith.muli %[[TILES]], %c3 : index
// CHECK:           %[[ROUNDS:.*]] = arith.ceildivui %[[ITEMS]], %c132 : index
// CHECK:           %[[PER:.*]] = arith.ceildivui %[[ITEMS]], %[[ROUNDS]] : index
// CHECK:           %[[R8:.*]] = arith.ceildivui %[[PER]], %c8 : index
// CHECK:           %[[BALANCED:.*]] = arith.muli %[[R8]], %c8 : index
// CHECK:           %[[FEWER:.*]] = arith.minui %[[ITEMS]], %[[BALANCED]] : index
// CHECK:           %[[BLOCKS:.*]] = arith.minui %c132, %[[FEWER]] : index
// CHECK:           gpu.launch_func @dynamic_m_wgmma::@matmul blocks in (%[[BLOCKS]], %c1{{.*}}, %c1{{.*}}) {{.*}} args({{.*}} : memref<?x2xf32>, {{.*}} : memref<?x384xbf16>, {{.*}} : !llvm.ptr)
// CHECK:         }
// CHECK:       gpu.module @dynamic_m_wgmma
// CHECK:         gpu.func @matmul(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: memref<?x2xf32>, %{{[^:]*}}: memref<3x2xf32>, %[[D:[^:]*]]: memref<?x384xbf16>, %{{[^:]*}}: !llvm.ptr)
// CHECK:         %[[ROWS:.*]] = memref.dim %[[D]], %c0{{.*}} : memref<?x384xbf16>
// The producer walks the tiles of M's rows in raster groups of 8 tile
// rows (the last group's height from the run-time tile rows).
// CHECK:         %[[PTILES:.*]] = arith.ceildivui %[[ROWS]], %c128{{.*}} : index
// CHECK:         %[[PITEMS:.*]] = arith.muli %[[PTILES]], %c3{{.*}} : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[PITEMS]] step
// CHECK:           arith.ceildivui %[[ROWS]], %c128{{.*}} : index
// The consumers: a block without a tile issues nothing.
// CHECK:         nvvm.setmaxregister increase
// CHECK:         %[[CITEMS:.*]] = arith.muli %{{.*}}, %c3{{.*}} : index
// CHECK:         %[[HAS:.*]] = arith.cmpi ult, %{{.*}}, %[[CITEMS]] : index
// CHECK:         scf.if %[[HAS]] -> (!llvm.struct<
// A's scale rows clamped into M (M - 1 at run time), rows written below M.
// CHECK:         %[[LAST:.*]] = arith.subi %[[ROWS]], %c1{{.*}} : index
// CHECK:         arith.minui %{{.*}}, %[[LAST]] : index
// CHECK:         arith.cmpi ult, %{{.*}}, %[[ROWS]] : index
func.func @dynamic_m(%a: memref<?x256xf8E4M3FN>, %sa: memref<?x2xf32>, %b: memref<384x256xf8E4M3FN>, %sb: memref<3x2xf32>, %c: memref<?x384xbf16>) {
  qmm.matmul a(%a, %sa : memref<?x256xf8E4M3FN>, memref<?x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<384x256xf8E4M3FN>, memref<3x2xf32>) #qmm.scale<block 128x128> outs(%c : memref<?x384xbf16>)
  return
}

// -----

// Another dynamic extent than M is not compiled: the matmul runs as the
// reference loops (with --remarks-filter-missed, a remark says why).
// CHECK-LABEL: func.func @dynamic_n
// CHECK-NOT:     gpu.launch_func
// CHECK:         qmm.matmul
func.func @dynamic_n(%a: memref<64x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<?x256xf8E4M3FN>, %sb: memref<1x1xf32>, %c: memref<64x?xbf16>) {
  qmm.matmul a(%a, %sa : memref<64x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : memref<?x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor> outs(%c : memref<64x?xbf16>)
  return
}
