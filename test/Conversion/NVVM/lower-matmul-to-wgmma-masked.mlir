// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" | FileCheck %s

// A masked grouped matmul as the wgmma kernel: A [G, Mmax, K], its scales,
// D are read through [G Mmax, ...] views (B as for contiguous grouped
// matmuls, [G N, K]); the blocks count the tiles of each group's valid rows
// at run time, once per launch into a table in shared memory, and find an
// item's group by a search of it; rows at or past a group's count keep
// their values.

// 4 groups of 256 rows, N = 384: a bound of 4 x 2 x 3 = 24 tiles, 24
// blocks; the counts are the kernel's argument after D.
// CHECK-LABEL: func.func @masked_block
// CHECK-SAME:    %[[A:[^:]*]]: memref<4x256x256xf8E4M3FN>, %[[SA:[^:]*]]: memref<4x256x2xf32>, %[[B:[^:]*]]: memref<4x384x256xf8E4M3FN>, %{{[^:]*}}: memref<4x3x2xf32>, %[[G:[^:]*]]: memref<4xi32>, %[[D:[^:]*]]: memref<4x256x384xbf16>
// CHECK-DAG:     %[[A2:.*]] = memref.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : memref<4x256x256xf8E4M3FN> into memref<1024x256xf8E4M3FN>
// CHECK-DAG:     %[[D2:.*]] = memref.collapse_shape %[[D]] {{\[}}[0, 1], [2]] : memref<4x256x384xbf16> into memref<1024x384xbf16>
// CHECK-DAG:     %[[SA2:.*]] = memref.collapse_shape %[[SA]] {{\[}}[0, 1], [2]] : memref<4x256x2xf32> into memref<1024x2xf32>
// CHECK-DAG:     memref.collapse_shape %[[B]] {{\[}}[0, 1], [2]] : memref<4x384x256xf8E4M3FN> into memref<1536x256xf8E4M3FN>
// CHECK:         gpu.launch_func @masked_block_wgmma::@matmul blocks in (%c24, %c1, %c1) {{.*}} args({{.*}}, %[[SA2]] : memref<1024x2xf32>, {{.*}}, %[[D2]] : memref<1024x384xbf16>, %[[G]] : memref<4xi32>, %{{.*}} : !llvm.ptr)
// CHECK:       gpu.module @masked_block_wgmma
// CHECK:         gpu.func @matmul(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[KSA:[^:]*]]: memref<1024x2xf32>, %[[KSB:[^:]*]]: memref<4x3x2xf32>, %{{[^:]*}}: memref<1024x384xbf16>, %[[COUNTS:[^:]*]]: memref<4xi32>, %{{[^:]*}}: !llvm.ptr)
// The item table: 5 i32 entries after the ring (4 stages of 32 KiB) and
// its 4 barriers; thread t (of 384) sums the tiles of groups 0 .. t - 1,
// per group its count clamped into [0, 256], in 128-row tiles, times 3
// columns; then the block's barrier.
// CHECK:         %[[TOFF:.*]] = arith.addi %{{.*}}, %c131104 : index
// CHECK:         %[[TABLE:.*]] = memref.view %{{.*}}[%[[TOFF]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5xi32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %[[E:.*]] = %{{.*}} to %c5 step %c384 {
// CHECK:           %[[SUM:.*]] = scf.for %[[GR:.*]] = %c0{{.*}} to %[[E]] step %c1{{.*}} iter_args(%{{.*}} = %c0{{.*}}) -> (index) {
// CHECK:             %[[COUNT:.*]] = memref.load %[[COUNTS]][%[[GR]]] : memref<4xi32>
// CHECK:             %[[LOW:.*]] = arith.maxsi %[[COUNT]], %{{.*}} : i32
// CHECK:             arith.minsi %[[LOW]], %c256_i32 : i32
// CHECK:             arith.divui %{{.*}}, %c128{{.*}} : index
// CHECK:             arith.muli %{{.*}}, %c3 : index
// CHECK:             scf.yield
// CHECK:           %[[SUM32:.*]] = arith.index_castui %[[SUM]] : index to i32
// CHECK:           memref.store %[[SUM32]], %[[TABLE]][%[[E]]]
// CHECK:         gpu.barrier
// The producer's loop runs to the table's last entry.
// CHECK:         %[[ITEMS32:.*]] = memref.load %[[TABLE]][%c4] : memref<5xi32, #gpu.address_space<workgroup>>
// CHECK:         %[[ITEMS:.*]] = arith.index_castui %[[ITEMS32]] : i32 to index
// CHECK:         scf.for %[[ITEM:.*]] = %{{.*}} to %[[ITEMS]] step %{{.*}} {
// An item's group: the last of groups 0 .. 3 whose first item is at most
// the item, in two halving steps (2, then 1); then its tiles' index in the
// group, its tile rows ((end - first) / 3, at least 1), its tile row and
// column, and the row g x 256 + 128 x tile row.
// CHECK:           %[[C1:.*]] = arith.minui %{{.*}}, %c3{{.*}} : index
// CHECK:           %[[T1:.*]] = memref.load %[[TABLE]][%[[C1]]]
// CHECK:           %[[T1I:.*]] = arith.index_castui %[[T1]] : i32 to index
// CHECK:           %[[R1:.*]] = arith.cmpi ule, %[[T1I]], %[[ITEM]] : index
// CHECK:           %[[G1:.*]] = arith.select %[[R1]], %[[C1]], %c0{{.*}} : index
// CHECK:           %[[N2:.*]] = arith.addi %[[G1]], %c1{{.*}} : index
// CHECK:           %[[C2:.*]] = arith.minui %[[N2]], %c3{{.*}} : index
// CHECK:           %[[T2:.*]] = memref.load %[[TABLE]][%[[C2]]]
// CHECK:           %[[T2I:.*]] = arith.index_castui %[[T2]] : i32 to index
// CHECK:           %[[R2:.*]] = arith.cmpi ule, %[[T2I]], %[[ITEM]] : index
// CHECK:           %[[GROUP:.*]] = arith.select %[[R2]], %[[C2]], %[[G1]] : index
// CHECK:           %[[F32:.*]] = memref.load %[[TABLE]][%[[GROUP]]]
// CHECK:           %[[FIRST:.*]] = arith.index_castui %[[F32]] : i32 to index
// CHECK:           %[[NEXT:.*]] = arith.addi %[[GROUP]], %c1{{.*}} : index
// CHECK:           %[[END32:.*]] = memref.load %[[TABLE]][%[[NEXT]]]
// CHECK:           %[[END:.*]] = arith.index_castui %[[END32]] : i32 to index
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[ITEM]], %[[END]] : index
// CHECK:           %[[OFF:.*]] = arith.subi %[[ITEM]], %[[FIRST]] : index
// CHECK:           %[[INDEX:.*]] = arith.select %[[IN]], %[[OFF]], %c0{{.*}} : index
// CHECK:           %[[SPAN:.*]] = arith.subi %[[END]], %[[FIRST]] : index
// CHECK:           %[[ROWS0:.*]] = arith.divui %[[SPAN]], %c3{{.*}} : index
// CHECK:           %[[TROWS:.*]] = arith.maxui %[[ROWS0]], %c1{{.*}} : index
// CHECK:           %[[TROW:.*]] = arith.remui %[[INDEX]], %[[TROWS]] : index
// CHECK:           %[[TCOL:.*]] = arith.divui %[[INDEX]], %[[TROWS]] : index
// CHECK:           %[[INROW:.*]] = arith.muli %[[TROW]], %c128{{.*}} : index
// CHECK:           %[[START:.*]] = arith.muli %[[GROUP]], %c256 : index
// CHECK:           %[[ROW:.*]] = arith.addi %[[START]], %[[INROW]] : index
// CHECK:           nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[ROW]]]
// The consumers: the same count; a block without a tile issues nothing.
// A block with one issues its first K tile, then loads that tile's K tile
// 0 scales ahead (as dense matmuls do): B's at the group the table's
// search finds, A's two (K-major) at the tile's rows; all carried out
// beside the fragment.
// CHECK:         nvvm.setmaxregister increase
// CHECK:         %[[CITEMS32:.*]] = memref.load %[[TABLE]][%c4{{.*}}]
// CHECK:         %[[CITEMS:.*]] = arith.index_castui %[[CITEMS32]] : i32 to index
// CHECK:         %[[BLOCK:.*]] = gpu.block_id  x
// CHECK:         %[[HAS:.*]] = arith.cmpi ult, %[[BLOCK]], %[[CITEMS]] : index
// CHECK:         scf.if %[[HAS]] -> (!llvm.struct<{{.*}}>, f32, f32, f32) {
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           arith.select
// CHECK:           %[[FG:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      memref.load %[[TABLE]][%[[FG]]]
// CHECK:           %[[FSB:.*]] = memref.load %[[KSB]][%[[FG]], %{{.*}}, %{{.*}}] : memref<4x3x2xf32>
// CHECK:           %[[FSA0:.*]] = memref.load %[[KSA]][%{{.*}}, %{{.*}}] : memref<1024x2xf32>
// CHECK:           %[[FSA1:.*]] = memref.load %[[KSA]][%{{.*}}, %{{.*}}] : memref<1024x2xf32>
// CHECK:           scf.yield %{{.*}}, %[[FSB]], %[[FSA0]], %[[FSA1]] :
// CHECK:         } else {
// CHECK-NOT:       nvvm.wgmma.mma_async
// CHECK:         }
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[CITEMS]] step
// The epilogue: a row is written below its group's count (the row minus
// the group's first row, 256 g); the part's last row decides staging.
// CHECK:         %[[C:.*]] = memref.load %[[COUNTS]][%[[CG:[0-9]+]]] : memref<4xi32>
// CHECK:         %[[VALID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         %[[FIRST:.*]] = arith.muli %[[CG]], %c256{{.*}} : index
// CHECK:         %[[L0:.*]] = arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK:         arith.cmpi ult, %[[L0]], %[[VALID]] : index
// CHECK:         arith.addi %{{.*}}, %c63 : index
// CHECK:         arith.cmpi slt
// CHECK:         scf.if
// CHECK:           nvgpu.tma.async.store
// CHECK:         } else {
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
func.func @masked_block(%a: memref<4x256x256xf8E4M3FN>, %sa: memref<4x256x2xf32>, %b: memref<4x384x256xf8E4M3FN>, %sb: memref<4x3x2xf32>, %g: memref<4xi32>, %c: memref<4x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<4x256x256xf8E4M3FN>, memref<4x256x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<4x384x256xf8E4M3FN>, memref<4x3x2xf32>) #qmm.scale<block 128x128> groups(%g : memref<4xi32>) outs(%c : memref<4x256x384xbf16>)
  return
}

// -----

// Per-tensor scales stay [G, 1, 1] (one per group), each loaded per tile at
// the tile's group; 40-row groups are no whole tiles: no staging (no tensor
// map of D), stores from registers.
// CHECK-LABEL: func.func @masked_tensor_partial
// CHECK-NOT:     memref.collapse_shape %{{.*}} : memref<3x1x1xf32>
// CHECK:         gpu.launch_func
// CHECK-NOT:     !llvm.ptr)
// CHECK:       gpu.module @masked_tensor_partial_wgmma
// CHECK:         gpu.func @matmul(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[SA:[^:]*]]: memref<3x1x1xf32>, %[[SB:[^:]*]]: memref<3x1x1xf32>, %{{[^:]*}}: memref<120x128xbf16>, %{{[^:]*}}: memref<3xi32>)
// CHECK:         nvvm.setmaxregister increase
// CHECK-NOT:     memref.load %[[SA]]
// CHECK:         scf.for
// CHECK:         memref.load %[[SB]][%[[GROUP:[^,]*]], %{{.*}}, %{{.*}}] : memref<3x1x1xf32>
// CHECK:         memref.load %[[SA]][%[[GROUP]], %{{.*}}, %{{.*}}] : memref<3x1x1xf32>
// CHECK-NOT:     nvgpu.tma.async.store
func.func @masked_tensor_partial(%a: memref<3x40x256xf8E4M3FN>, %sa: memref<3x1x1xf32>, %b: memref<3x128x256xf8E4M3FN>, %sb: memref<3x1x1xf32>, %g: memref<3xi32>, %c: memref<3x40x128xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<3x40x256xf8E4M3FN>, memref<3x1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : memref<3x128x256xf8E4M3FN>, memref<3x1x1xf32>) #qmm.scale<per_tensor> groups(%g : memref<3xi32>) outs(%c : memref<3x40x128xbf16>)
  return
}
