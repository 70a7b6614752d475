// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=4 cluster-reduction=false" | FileCheck %s --check-prefix=CAP4
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=4 stream-k=false" | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 cluster-reduction=false" | FileCheck %s --check-prefix=SM132
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=6 cluster-rows=2" | FileCheck %s --check-prefix=CLUSTER

// Stream-K: the last round of tiles split along K. The expected schedules
// are worked out by hand from the rule in Passes.td: T tiles on G blocks
// make R = T / G whole rounds and a last round of L = T mod G tiles; it
// is split when 0 < L <= G / 2, R <= 2 and the tiles have >= 32 K tiles
// (K tiles of 128), into s = min(G / L, K tiles / 8) parts. The parts
// add their sums through the global workspace here (cluster-reduction=false;
// lower-matmul-to-wgmma-cluster-reduction.mlir has the other form).

// 384 x 256 x 4096: 3 x 2 = 6 tiles of 32 K tiles. On 4 blocks: R = 1,
// L = 2 <= 2, s = min(4 / 2, 32 / 8) = 2. Host: the counters (2 tiles x
// 2 consumer warpgroups, zeroed) and the workspace (2 tiles x 2 parts x
// 128 x 128 f32 = 65536), passed after D's tensor map; grid 4; both
// freed after the launch.
// CAP4-LABEL: func.func @six_tiles
// CAP4:         %[[COUNTERS:.*]] = memref.alloc() : memref<4xi32>
// CAP4:         gpu.memset %[[COUNTERS]], %{{.*}} : memref<4xi32>, i32
// CAP4:         %[[WORKSPACE:.*]] = memref.alloc() : memref<65536xf32>
// CAP4:         gpu.launch_func  @six_tiles_wgmma::@matmul blocks in (%c4, %c1{{.*}}, %c1{{.*}}) {{.*}} args({{.*}}, %[[WORKSPACE]] : memref<65536xf32>, %[[COUNTERS]] : memref<4xi32>)
// CAP4-DAG:     memref.dealloc %[[WORKSPACE]]
// CAP4-DAG:     memref.dealloc %[[COUNTERS]]

// The work items: 4 whole tiles (items 0-3), then 4 parts (items 4-7):
// part p = item - 4 is K tiles [(p mod 2) x 32 / 2, (p mod 2 + 1) x 32 / 2)
// of tile 4 + p / 2. The producer's loop runs over the item's K tiles from
// its first one.
// CAP4:       gpu.module @six_tiles_wgmma
// CAP4:         gpu.func @matmul({{.*}}, %{{.*}}: memref<65536xf32>, %{{.*}}: memref<4xi32>) kernel
// CAP4:         scf.for %[[ITEM:.*]] = %{{.*}} to %c8{{.*}} step
// CAP4:           %[[ISPART:.*]] = arith.cmpi uge, %[[ITEM]], %c4
// CAP4:           %[[MAX:.*]] = arith.maxui %[[ITEM]], %c4
// CAP4:           %[[P:.*]] = arith.subi %[[MAX]], %c4
// CAP4:           %[[PART:.*]] = arith.remui %[[P]], %c2
// CAP4:           %[[B32:.*]] = arith.muli %[[PART]], %c32
// CAP4:           %[[BEGIN:.*]] = arith.divui %[[B32]], %c2
// CAP4:           %[[NEXTPART:.*]] = arith.addi %[[PART]], %c1
// CAP4:           %[[E32:.*]] = arith.muli %[[NEXTPART]], %c32
// CAP4:           %[[END:.*]] = arith.divui %[[E32]], %c2
// CAP4:           %[[TILEOFPART:.*]] = arith.divui %[[P]], %c2
// CAP4:           %[[PARTTILE:.*]] = arith.addi %c4{{.*}}, %[[TILEOFPART]]
// CAP4:           arith.select %[[ISPART]], %[[PARTTILE]], %[[ITEM]]
// CAP4:           %[[KBEGIN:.*]] = arith.select %[[ISPART]], %[[BEGIN]], %c0
// CAP4:           %[[KCOUNT:.*]] = arith.subi %[[END]], %[[BEGIN]]
// CAP4:           %[[KTILES:.*]] = arith.select %[[ISPART]], %[[KCOUNT]], %c32
// CAP4:           scf.for %[[KT:.*]] = %c0{{.*}} to %[[KTILES]] step
// CAP4:             %[[K:.*]] = arith.addi %[[KBEGIN]], %[[KT]]
// CAP4:             arith.muli %[[K]], %c128

// A consumer's part: its sums stored to its slot (one 16-byte vector of
// 4 fragment elements per statement line, vector v 2048 bytes (128
// threads x 16) after v - 1), its warpgroup's named barrier, the first
// thread's arrival (acquire-release at GPU scope) on the tile's counter
// of its warpgroup, the last-arrival answer spread by bar.red.or; the
// last of the 2 parts reads the 2 slots (both in one statement: the
// second 65536 bytes = 2 consumers x 32 KiB after the first), adds them
// in order from zero, resets the counter and runs the epilogue.
// CAP4:           scf.if %{{.*}} -> (i1, !llvm.struct
// CAP4:             llvm.inline_asm has_side_effects "st.global.v4.f32 [$0+0], {$1, $2, $3, $4};\0Ast.global.v4.f32 [$0+2048], {$5, $6, $7, $8};
// CAP4-SAME:          st.global.v4.f32 [$0+30720], {$61, $62, $63, $64};\0A", "l,f,f,f,f,
// CAP4:             nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CAP4:             llvm.inline_asm has_side_effects "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;", "=r,l"
// CAP4:             arith.cmpi eq, %{{.*}}, %c1_i32
// CAP4:             llvm.inline_asm has_side_effects "{ .reg .pred last; setp.ne.u32 last, $1, 0; bar.red.or.pred last, $2, $3, last; selp.u32 $0, 1, 0, last; }", "=r,r,r,r"
// CAP4:             scf.if %{{.*}} -> (!llvm.struct
// CAP4:               llvm.mlir.zero
// CAP4:               scf.for %{{.*}} = %c0{{.*}} to %c1{{.*}} step
// CAP4:                 llvm.inline_asm has_side_effects "ld.relaxed.gpu.global.v4.f32 {$0, $1, $2, $3}, [$128+0];
// CAP4-SAME:              ld.relaxed.gpu.global.v4.f32 {$124, $125, $126, $127}, [$128+96256];\0A"
// CAP4:               llvm.store %{{.*}}, %{{.*}} atomic syncscope("device") monotonic
// The epilogue runs where the item is whole or completes its tile.
// CAP4:           scf.if %{{.*}} {
// CAP4:             nvgpu.tma.async.store

// Without Stream-K the same matmul runs 6 whole tiles on 4 blocks (3 take
// them in 2 rounds too, but the grid is rounded up to a raster group's 8
// tile rows, at most 4), with no workspace.
// OFF-LABEL: func.func @six_tiles
// OFF-NOT:     memref.alloc
// OFF:         gpu.launch_func  @six_tiles_wgmma::@matmul blocks in (%c4,
// OFF-NOT:     atom.acq_rel

// On the H100's 132 multiprocessors (the default) the 6 tiles are the
// last round alone (R = 0, L = 6 <= 66): s = min(132 / 6, 32 / 8) = 4
// parts each, a grid of 6 x 4 = 24 blocks, 6 x 4 x 16384 f32.
// SM132-LABEL: func.func @six_tiles
// SM132:         memref.alloc() : memref<12xi32>
// SM132:         memref.alloc() : memref<393216xf32>
// SM132:         gpu.launch_func  @six_tiles_wgmma::@matmul blocks in (%c24,
func.func @six_tiles(%a: memref<384x4096xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x4096xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<384x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<384x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<384x256xbf16>)
  return
}

// -----

// 128 x 128 x 5120: one tile of 40 K tiles. With max-blocks=4: R = 0,
// L = 1, s = min(4, 5) = 4 parts of 10 K tiles on 4 blocks. On 132
// blocks: s = min(132, 40 / 8) = 5, an odd count: the last part reads
// the 5 slots one per statement (5 loop iterations), f32 D.
// CAP4-LABEL: func.func @one_deep_tile
// CAP4:         memref.alloc() : memref<2xi32>
// CAP4:         memref.alloc() : memref<65536xf32>
// CAP4:         gpu.launch_func  @one_deep_tile_wgmma::@matmul blocks in (%c4,
// SM132-LABEL: func.func @one_deep_tile
// SM132:         memref.alloc() : memref<2xi32>
// SM132:         memref.alloc() : memref<81920xf32>
// SM132:         gpu.launch_func  @one_deep_tile_wgmma::@matmul blocks in (%c5,
// SM132:       gpu.module @one_deep_tile_wgmma
// SM132:         scf.for %{{.*}} = %c0{{.*}} to %c5{{.*}} step
// SM132:           llvm.inline_asm has_side_effects "ld.relaxed.gpu.global.v4.f32 {$0, $1, $2, $3}, [$64+0];
// SM132-SAME:        [$64+30720];\0A"
func.func @one_deep_tile(%a: memref<128x5120xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<128x5120xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x128xf32>) {
  qmm.matmul a(%a, %sa : memref<128x5120xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<128x5120xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x128xf32>)
  return
}

// -----

// Not split: 128 x 7168 x 2048 has 56 tiles of only 16 K tiles (a short
// K loop: the block's fixed costs outweigh half of it); 8192^3 has 4096
// tiles on 132 blocks, R = 31 > 2 (so 32 rounds, which 4096 / 32 = 128
// blocks take).
// SM132-LABEL: func.func @short_k
// SM132-NOT:     memref.alloc
// SM132:         gpu.launch_func  @short_k_wgmma::@matmul blocks in (%c56,
// SM132-LABEL: func.func @many_rounds
// SM132-NOT:     memref.alloc
// SM132:         gpu.launch_func  @many_rounds_wgmma::@matmul blocks in (%c128{{(_[0-9]+)?}},
func.func @short_k(%a: memref<128x2048xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<7168x2048xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x7168xbf16>) {
  qmm.matmul a(%a, %sa : memref<128x2048xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<7168x2048xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x7168xbf16>)
  return
}
func.func @many_rounds(%a: memref<8192x8192xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<8192x8192xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<8192x8192xbf16>) {
  qmm.matmul a(%a, %sa : memref<8192x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<8192x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<8192x8192xbf16>)
  return
}

// -----

// 896 x 2432 x 8192: 7 x 19 = 133 tiles, one more than the blocks: R = 1,
// L = 1, s = min(132, 64 / 8) = 8 parts; 2 x 4 = 8 slots read in pairs.
// SM132-LABEL: func.func @one_tile_over
// SM132:         memref.alloc() : memref<2xi32>
// SM132:         memref.alloc() : memref<131072xf32>
// SM132:         gpu.launch_func  @one_tile_over_wgmma::@matmul blocks in (%c132,
// SM132:       gpu.module @one_tile_over_wgmma
// SM132:         scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step
// SM132:           llvm.inline_asm has_side_effects "ld.relaxed.gpu.global.v4.f32 {$0, $1, $2, $3}, [$128+0];
func.func @one_tile_over(%a: memref<896x8192xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<2432x8192xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<896x2432xbf16>) {
  qmm.matmul a(%a, %sa : memref<896x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<2432x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<896x2432xbf16>)
  return
}

// -----

// 512 x 256 x 4096: 4 x 2 = 8 tiles. Clusters of 2 blocks take units of 2
// tiles together: 4 units on 6 / 2 = 3 clusters (R = 1, L = 1 would split
// unclustered) run whole, with no workspace (2 clusters would take them
// in 2 rounds too; rounded up to a raster group's 4 units, at most 3). Unclustered on 132 blocks:
// R = 0, s = min(132 / 8, 32 / 8) = 4, 32 blocks.
// CLUSTER-LABEL: func.func @eight_tiles
// CLUSTER-NOT:   memref.alloc
// CLUSTER:       gpu.launch_func  @eight_tiles_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c6,
// CLUSTER-NOT:   atom.acq_rel
// SM132-LABEL: func.func @eight_tiles
// SM132:         memref.alloc() : memref<16xi32>
// SM132:         memref.alloc() : memref<524288xf32>
// SM132:         gpu.launch_func  @eight_tiles_wgmma::@matmul blocks in (%c32,
func.func @eight_tiles(%a: memref<512x4096xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x4096xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<512x256xbf16>)
  return
}
