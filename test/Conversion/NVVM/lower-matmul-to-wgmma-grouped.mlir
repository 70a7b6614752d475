// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 cluster-rows=2" | FileCheck %s --check-prefix=CLUSTER

// A contiguous grouped matmul as the wgmma kernel. B [G, N, K] is one
// [G N, K] tensor to TMA (collapsed on the host); each tile takes its
// group from its first row's entry (segments are 128-row aligned), clamped
// into [0, G - 1]; the producer loads B's rows g N + column; B's block
// scales and the bias are read at the group. Padding rows (entry -1) keep
// their values: a consumer's part whose last row is written (all of it,
// as a group's valid rows come first) is staged and stored with TMA; one
// with padding rows is stored from registers, skipping them.

// 512 rows x 384 columns: 4 x 3 tiles of 128 x 128, 12 blocks; B's map
// over 4 x 384 = 1536 rows; the row groups come after D, D's map last.
// CHECK-LABEL: func.func @grouped_block
// CHECK-SAME:    %[[B:[^:]*]]: memref<4x384x256xf8E4M3FN>
// CHECK-SAME:    %[[G:[^:]*]]: memref<512xi32>
// CHECK:         %[[B2D:.*]] = memref.collapse_shape %[[B]] {{\[}}[0, 1], [2]] : memref<4x384x256xf8E4M3FN> into memref<1536x256xf8E4M3FN>
// CHECK:         %[[CB:.*]] = memref.cast %[[B2D]] : memref<1536x256xf8E4M3FN> to memref<*xf8E4M3FN>
// CHECK:         nvgpu.tma.create.descriptor %[[CB]] box[%c128{{.*}}, %c128{{.*}}]
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16>
// CHECK:         gpu.launch_func @grouped_block_wgmma::@matmul blocks in (%c12, %c1, %c1) {{.*}} args({{.*}}, %{{.*}} : memref<4x384xf32>, %{{.*}} : memref<512x384xbf16>, %[[G]] : memref<512xi32>, %{{.*}} : !llvm.ptr)
// CHECK:       gpu.module @grouped_block_wgmma
// CHECK:         gpu.func @matmul(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: memref<512x2xf32>, %[[SB:[^:]*]]: memref<4x3x2xf32>, %[[BIAS:[^:]*]]: memref<4x384xf32>, %{{[^:]*}}: memref<512x384xbf16>, %[[GROUPS:[^:]*]]: memref<512xi32>, %{{[^:]*}}: !llvm.ptr)
// The producer: its first item past the tiles of padding rows (first row's
// entry negative: skipped, the block's cluster index plus the clusters
// while below the 12 items), then a loop that carries the item and the
// items taken (the ring's iterations count those only).
// CHECK:         %[[FIRSTITEM:.*]] = scf.while (%[[CANDIDATE:.*]] = %{{.*}}) : (index) -> index
// CHECK:           %[[INRANGE:.*]] = arith.cmpi ult, %[[CANDIDATE]], %c12
// CHECK:           scf.if %[[INRANGE]] -> (i1)
// CHECK:             %[[ENTRY:.*]] = memref.load %[[GROUPS]]
// CHECK:             %[[PAD:.*]] = arith.cmpi slt, %[[ENTRY]], %{{.*}} : i32
// CHECK:             scf.yield %[[PAD]] : i1
// CHECK:         scf.while (%[[ITEM:.*]] = %[[FIRSTITEM]], %[[TAKEN:.*]] = %{{.*}}) : (index, index) -> (index, index)
// CHECK:           arith.cmpi ult, %[[ITEM]], %c12
// The tile's group, then B's row g x 384 + column.
// CHECK:         %[[ROW:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[COL:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[FIRST:.*]] = memref.load %[[GROUPS]][%[[ROW]]] : memref<512xi32>
// CHECK:         arith.cmpi slt, %[[FIRST]], %{{.*}} : i32
// CHECK:         %[[LOW:.*]] = arith.maxsi %[[FIRST]], %{{.*}} : i32
// CHECK:         %[[CLAMPED:.*]] = arith.minsi %[[LOW]], %{{.*}} : i32
// CHECK:         %[[GROUP:.*]] = arith.index_cast %[[CLAMPED]] : i32 to index
// The next item, past padding, found before the tile's K loop.
// CHECK:         scf.while
// CHECK:         scf.for
// CHECK:         %[[C384:.*]] = arith.constant 384 : index
// CHECK:         %[[GN:.*]] = arith.muli %[[GROUP]], %[[C384]] : index
// CHECK:         %[[BROW:.*]] = arith.addi %[[GN]], %[[COL]] : index
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[K:.*]], %[[ROW]]]
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[K]], %[[BROW]]]
// The consumers: the first tile's group, and B's block scale of its K
// tile 0 at it, loaded ahead of the tile loop; in the loop, the tile's
// group again (its epilogue's), B's scales of K tiles 1, 2, ... at it.
// The first item past padding is found once; a block without one issues
// nothing.
// CHECK:         nvvm.setmaxregister increase
// CHECK:         %[[FIRSTC:.*]] = scf.while
// CHECK:         %[[HASTILE:.*]] = arith.cmpi ult, %[[FIRSTC]], %c12
// CHECK:         scf.if %[[HASTILE]]
// CHECK:           nvvm.wgmma.mma_async
// CHECK-NOT:       scf.while
// CHECK:           memref.load %[[GROUPS]]
// CHECK:           %[[FIRSTGROUP:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:           memref.load %[[SB]][%[[FIRSTGROUP]], %{{.*}}, %{{.*}}] : memref<4x3x2xf32>
// In the loop (items past padding from the first): the tile's group, then
// the next item past padding, whether there is one, the K loop.
// CHECK:         scf.while (%{{.*}} = %[[FIRSTC]],
// CHECK:         memref.load %[[GROUPS]]
// CHECK:         %[[CGROUP:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         %[[NEXTITEM:.*]] = scf.while
// CHECK:         %[[HASNEXT:.*]] = arith.cmpi ult, %[[NEXTITEM]], %c12
// CHECK:         scf.for
// CHECK:         memref.load %[[SB]][%[[CGROUP]], %{{.*}}, %{{.*}}] : memref<4x3x2xf32>
// The next tile's K tile 0 issued, then its group and B's scale there.
// CHECK:         scf.if %[[HASNEXT]] -> (
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK:           memref.load %[[GROUPS]]
// CHECK:           %[[NEXTGROUP:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:           memref.load %[[SB]][%[[NEXTGROUP]], %{{.*}}, %{{.*}}] : memref<4x3x2xf32>
// The epilogue: whether each of the thread's two rows is written (its
// entry not negative; whole tiles: no test against M); whether the
// consumer's part is (its last row, 63 rows on, inside M and not padding).
// CHECK:         %[[E0:.*]] = memref.load %[[GROUPS]][%{{.*}}] : memref<512xi32>
// CHECK:         %[[W0:.*]] = arith.cmpi sge, %[[E0]], %{{.*}} : i32
// CHECK:         %[[E1:.*]] = memref.load %[[GROUPS]][%{{.*}}] : memref<512xi32>
// CHECK:         %[[W1:.*]] = arith.cmpi sge, %[[E1]], %{{.*}} : i32
// CHECK:         %[[LAST:.*]] = arith.addi %{{.*}}, %c63 : index
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %[[LAST]], %c512 : index
// CHECK:         %[[CL:.*]] = arith.minui %[[LAST]], %c511{{.*}} : index
// CHECK:         %[[EL:.*]] = memref.load %[[GROUPS]][%[[CL]]] : memref<512xi32>
// CHECK:         %[[WL:.*]] = arith.cmpi sge, %[[EL]], %{{.*}} : i32
// CHECK:         %[[WHOLE:.*]] = arith.andi %[[INSIDE]], %[[WL]] : i1
// Whole: staged (the bias of the group), every pair to shared memory, the
// TMA store; no global stores.
// CHECK:         scf.if %[[WHOLE]] {
// CHECK:           memref.load %[[BIAS]][%[[CGROUP]], %{{.*}}] : memref<4x384xf32>
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT:       llvm.store %{{.*}} !llvm.ptr<1>
// CHECK:           nvgpu.tma.async.store
// Otherwise: pairs stored through D's global pointer, each in a row that
// is written.
// CHECK:         } else {
// CHECK:           scf.if %[[W0]] {
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK:           scf.if %[[W1]] {
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT:       nvgpu.tma.async.store
// CHECK:         }
// CHECK:         gpu.return

// No clusters for grouped matmuls: neighbouring tile rows may be different
// groups', whose B a multicast would not share.
// CLUSTER-LABEL: func.func @grouped_block
// CLUSTER:         gpu.launch_func @grouped_block_wgmma::@matmul blocks in (%c12, %c1, %c1)
// CLUSTER-NOT:     clusters in
// CLUSTER:       gpu.module
func.func @grouped_block(%a: memref<512x256xf8E4M3FN>, %sa: memref<512x2xf32>, %b: memref<4x384x256xf8E4M3FN>, %sb: memref<4x3x2xf32>, %g: memref<512xi32>, %bias: memref<4x384xf32>, %c: memref<512x384xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<512x256xf8E4M3FN>, memref<512x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<4x384x256xf8E4M3FN>, memref<4x3x2xf32>) #qmm.scale<block 128x128> groups(%g : memref<512xi32>) bias(%bias : memref<4x384xf32>) outs(%c : memref<512x384xbf16>)
  return
}

// -----

// Per-tensor scales: A's is loaded once per kernel, B's per tile, at the
// tile's group ([G, 1, 1]).
// CHECK-LABEL: gpu.module @grouped_tensor_wgmma
// CHECK:         gpu.func @matmul(
// CHECK-SAME:    %[[SA:[^:]*]]: memref<1x1xf32>, %[[SB:[^:]*]]: memref<3x1x1xf32>
// CHECK:         nvvm.setmaxregister increase
// CHECK:         memref.load %[[SA]][%{{.*}}, %{{.*}}] : memref<1x1xf32>
// CHECK-NOT:     memref.load %[[SB]]
// CHECK:         scf.while (%{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %{{[^)]*}})
// CHECK:         %[[GROUP:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         memref.load %[[SB]][%[[GROUP]], %{{.*}}, %{{.*}}] : memref<3x1x1xf32>
func.func @grouped_tensor(%a: memref<256x128xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<3x200x128xf8E4M3FN>, %sb: memref<3x1x1xf32>, %g: memref<256xi32>, %c: memref<256x200xf32>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<256x128xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : memref<3x200x128xf8E4M3FN>, memref<3x1x1xf32>) #qmm.scale<per_tensor> groups(%g : memref<256xi32>) outs(%c : memref<256x200xf32>)
  return
}

// -----

// Rows of 270 bytes (N = 135 bf16) are no tensor map's stride: D is stored
// from registers, element by element, where the row is written and the
// column inside D; 200 rows leave a partial tile, so a row is also tested
// against M (and its entry read clamped into it).
// CHECK-LABEL: gpu.module @grouped_registers_wgmma
// CHECK:         gpu.func @matmul(
// CHECK-SAME:    %[[D:[^:]*]]: memref<200x135xbf16>, %[[GROUPS:[^:]*]]: memref<200xi32>)
// CHECK:         nvvm.setmaxregister increase
// CHECK:         %[[IN0:.*]] = arith.cmpi ult, %[[ROW0:.*]], %c200{{.*}} : index
// CHECK:         %[[CL0:.*]] = arith.minui %[[ROW0]], %c199{{.*}} : index
// CHECK:         %[[E0:.*]] = memref.load %[[GROUPS]][%[[CL0]]] : memref<200xi32>
// CHECK:         %[[P0:.*]] = arith.cmpi sge, %[[E0]], %{{.*}} : i32
// CHECK:         %[[W0:.*]] = arith.andi %[[IN0]], %[[P0]] : i1
// CHECK:         %[[COL:.*]] = arith.cmpi ult, %{{.*}}, %c135{{.*}} : index
// CHECK:         %[[BOTH:.*]] = arith.andi %[[W0]], %[[COL]] : i1
// CHECK:         scf.if %[[BOTH]] {
// CHECK:           memref.store %{{.*}}, %[[D]][%[[ROW0]], %{{.*}}] : memref<200x135xbf16>
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK:         gpu.return
func.func @grouped_registers(%a: memref<200x128xf8E4M3FN>, %sa: memref<200x1xf32>, %b: memref<2x135x128xf8E4M3FN>, %sb: memref<2x135x1xf32>, %g: memref<200xi32>, %c: memref<200x135xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<200x128xf8E4M3FN>, memref<200x1xf32>) #qmm.scale<per_row> b(%b, %sb : memref<2x135x128xf8E4M3FN>, memref<2x135x1xf32>) #qmm.scale<per_row> groups(%g : memref<200xi32>) outs(%c : memref<200x135xbf16>)
  return
}
