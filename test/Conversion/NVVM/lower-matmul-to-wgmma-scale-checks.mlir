// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=1" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=1 check-scales-ahead=false" | FileCheck %s --check-prefix=OFF

// Block scales on both operands, 4 x 2 tiles of 16 K tiles on one
// persistent block (7 x 16 K tiles after its first): the producer
// warpgroup's warps 1-3 check every scale once per launch, and the
// consumers promote the tiles after the block's first without the
// per-K-tile test once every block's check is done and found all in
// range. Three counters (found out of range, blocks done, blocks
// finished) start at zero.

// CHECK-LABEL: func.func @checked
// CHECK:         %[[COUNTERS:.*]] = memref.alloc() : memref<3xi32>
// CHECK:         gpu.memset  %[[COUNTERS]], %c0_i32 : memref<3xi32>, i32
// CHECK:         gpu.launch_func  @checked_wgmma::@matmul blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) {{.*}}, %[[COUNTERS]] : memref<3xi32>)
// CHECK:       gpu.func @matmul
// The checkers: warp w - 1 of the producer warpgroup, w >= 1; global
// checking thread = block x 96 + (w - 1) x 32 + lane, of gridDim x 96.
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:         %[[WARP:.*]] = arith.divui %{{.*}}, %c32{{.*}} : index
// CHECK:         %[[IS:.*]] = arith.cmpi uge, %[[WARP]], %c1{{.*}} : index
// CHECK:         scf.if %[[IS]] {
// CHECK:           %[[LANE:.*]] = arith.remui %{{.*}}, %c32{{.*}} : index
// CHECK:           %[[CHECKER:.*]] = arith.subi %[[WARP]], %c1{{.*}} : index
// CHECK:           %[[THREADS:.*]] = arith.muli %grid_dim_x, %c96 : index
// CHECK:           %[[INWARP:.*]] = arith.muli %[[CHECKER]], %c32{{.*}} : index
// CHECK:           %[[INBLOCK:.*]] = arith.addi %[[INWARP]], %[[LANE]] : index
// CHECK:           %[[BLOCK:.*]] = arith.muli %block_id_x, %c96{{.*}} : index
// CHECK:           %[[THREAD:.*]] = arith.addi %[[BLOCK]], %[[INBLOCK]] : index
// A's 512 x 16 scales in memory order, 8 a lane per trip (element e: row
// e / 16, K block e % 16): ceil(8192 / (96 gridDim x 8)) trips.
// CHECK:           %[[ELEMENTS:.*]] = arith.muli %c512{{.*}}, %c16{{.*}} : index
// CHECK:           %[[LASTE:.*]] = arith.subi %[[ELEMENTS]], %c1{{.*}} : index
// CHECK:           %[[PERTRIP:.*]] = arith.muli %[[THREADS]], %c8 : index
// CHECK:           %[[TRIPS:.*]] = arith.ceildivui %[[ELEMENTS]], %[[PERTRIP]] : index
// CHECK:           %[[ALOOP:.*]] = scf.for %{{.*}} = %c0{{.*}} to %[[TRIPS]] step %c1{{.*}} iter_args(%{{.*}} = %true) -> (i1) {
// CHECK:             %[[E:.*]] = arith.minui %{{.*}}, %[[LASTE]] : index
// CHECK:             %[[K:.*]] = arith.remui %[[E]], %c16{{.*}} : index
// CHECK:             %[[ROW:.*]] = arith.divui %[[E]], %c16{{.*}} : index
// CHECK:             memref.load %{{.*}}[%[[ROW]], %[[K]]] : memref<512x16xf32>
// CHECK-COUNT-7:     memref.load %{{.*}} : memref<512x16xf32>
// Each scale zero or of magnitude 2^-62 .. 2^63 (magnitude bits minus
// 65 << 23 below 125 << 23): every product is then a normal f32.
// CHECK:             %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:             %[[MAG:.*]] = arith.andi %[[BITS]], %c2147483647_i32 : i32
// CHECK:             %[[SHIFTED:.*]] = arith.subi %[[MAG]], %c545259520_i32 : i32
// CHECK:             arith.cmpi ult, %[[SHIFTED]], %c1048576000_i32 : i32
// CHECK:             arith.cmpi eq, %[[MAG]], %c0_i32 : i32
// Then B's 2 x 16.
// CHECK:           %[[BLOOP:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ALOOP]]) -> (i1) {
// CHECK:             memref.load %{{.*}} : memref<2x16xf32>
// The block's finding: the 96 checking threads meet at named barrier 3;
// warp 1's lane 0 counts it (relaxed), then the block done (acq_rel).
// CHECK:           %[[OUT:.*]] = arith.xori %[[BLOOP]], %true{{.*}} : i1
// CHECK:           %[[OUT32:.*]] = arith.extui %[[OUT]] : i1 to i32
// CHECK:           %[[FOUND:.*]] = llvm.inline_asm has_side_effects "{{.*}}bar.red.or.pred{{.*}}", "=r,r,r,r" %[[OUT32]], %c3_i32, %c96_i32
// CHECK:           scf.if
// CHECK:             arith.cmpi ne, %[[FOUND]], %c0_i32
// CHECK:               "atom.relaxed.gpu.global.add.u32 $0, [$1], 1;"
// CHECK:             arith.constant 4 : i64
// CHECK:             "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;"
// The consumers carry the verdict (0: not known yet) and ask at each tile
// after the block's first while it is not known: the blocks done
// (acquire), then the findings; the warpgroup agrees at its barrier.
// CHECK:         nvvm.setmaxregister  increase 232
// (Carried after the fragment and K tile 0's block scales, loaded ahead.)
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[STATE:.*]] = %c0_i32{{(_[0-9]+)?}}) -> (!llvm.struct<{{.*}}>, f32, f32, f32, i32)
// CHECK:           %[[LATER:.*]] = arith.cmpi ne, %{{.*}}, %c0{{.*}} : index
// CHECK:           %[[UNKNOWN:.*]] = arith.cmpi eq, %[[STATE]], %c0_i32{{.*}} : i32
// CHECK:           %[[ASK:.*]] = arith.andi %[[LATER]], %[[UNKNOWN]] : i1
// CHECK:           %[[VERDICT:.*]] = scf.if %[[ASK]] -> (i32) {
// CHECK:             "ld.acquire.gpu.global.u32 $0, [$1];"
// CHECK:             "ld.acquire.gpu.global.u32 $0, [$1];"
// CHECK:             "{{.*}}bar.red.or.pred{{.*}}"
// CHECK:             "{{.*}}bar.red.or.pred{{.*}}"
// CHECK:           } else {
// CHECK:             scf.yield %[[STATE]] : i32
// CHECK:           }
// CHECK:           %[[INRANGE:.*]] = arith.cmpi eq, %[[VERDICT]], %c1_i32{{(_[0-9]+)?}} : i32
// CHECK:           %[[CHECKED:.*]] = arith.andi %[[LATER]], %[[INRANGE]] : i1
// Checked: one fused multiply-add per element by sa * sb, no test; else
// the test per K tile.
// CHECK:           scf.if %[[CHECKED]] -> (!llvm.struct<
// CHECK-NOT:         scf.if {{.*}} -> (!llvm.struct<
// CHECK:             %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:             llvm.intr.fma(%{{.*}}, %[[P]], %{{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT:         arith.cmpi ult, %{{.*}}, %c2130706432_i32
// CHECK:           } else {
// CHECK:             arith.cmpi ult, %{{.*}}, %c2130706432_i32
// CHECK:             scf.if %{{.*}} -> (!llvm.struct<
// At the end, after the block meets: its first thread counts the block
// finished; the grid's last zeroes the three counters.
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK:           arith.constant 8 : i64
// CHECK:           %[[FINISHED:.*]] = llvm.inline_asm has_side_effects "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;"
// CHECK:           %[[PLUS:.*]] = arith.addi %[[FINISHED]], %c1_i32{{.*}} : i32
// CHECK:           %[[LAST:.*]] = arith.cmpi eq, %[[PLUS]], %{{.*}} : i32
// CHECK:           scf.if %[[LAST]] {
// CHECK-COUNT-3:     llvm.store %c0_i32{{.*}} atomic syncscope("device") monotonic

// Off: no counters, no checkers, the test on every K tile.
// OFF-LABEL: func.func @checked
// OFF-NOT:     memref.alloc
// OFF:         gpu.func @matmul
// OFF-NOT:     bar.red.or.pred
// OFF-NOT:     ld.acquire
// OFF:         arith.cmpi ult, %{{.*}}, %c2130706432_i32
func.func @checked(%a: memref<512x2048xf8E4M3FN>, %sa: memref<512x16xf32>, %b: memref<256x2048xf8E4M3FN>, %sb: memref<2x16xf32>, %c: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x2048xf8E4M3FN>, memref<512x16xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<256x2048xf8E4M3FN>, memref<2x16xf32>) #qmm.scale<block 128x128> outs(%c : memref<512x256xbf16>)
  return
}

// -----

// Per-row scales promote with no test: nothing to check.
// CHECK-LABEL: func.func @per_row
// CHECK-NOT:     memref.alloc
// CHECK:       gpu.func @matmul
// CHECK-NOT:     ld.acquire
// CHECK:         gpu.return
// OFF-LABEL: func.func @per_row
func.func @per_row(%a: memref<512x2048xf8E4M3FN>, %sa: memref<512x1xf32>, %b: memref<256x2048xf8E4M3FN>, %sb: memref<256x1xf32>, %c: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x2048xf8E4M3FN>, memref<512x1xf32>) #qmm.scale<per_row> b(%b, %sb : memref<256x2048xf8E4M3FN>, memref<256x1xf32>) #qmm.scale<per_row> outs(%c : memref<512x256xbf16>)
  return
}

// -----

// 512 x 256 x 512 on one block: 7 more tiles of 4 K tiles (28 < 64, and
// 4 < 8 a tile), too few to pay for the check.
// CHECK-LABEL: func.func @few_k_tiles
// CHECK-NOT:     memref.alloc
// CHECK:       gpu.func @matmul
// CHECK-NOT:     ld.acquire
// CHECK:         gpu.return
// OFF-LABEL: func.func @few_k_tiles
func.func @few_k_tiles(%a: memref<512x512xf8E4M3FN>, %sa: memref<512x4xf32>, %b: memref<256x512xf8E4M3FN>, %sb: memref<2x4xf32>, %c: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x512xf8E4M3FN>, memref<512x4xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<256x512xf8E4M3FN>, memref<2x4xf32>) #qmm.scale<block 128x128> outs(%c : memref<512x256xbf16>)
  return
}

// -----

// A masked matmul (4 groups of 256 rows, N = 384, K = 2048) on one block:
// a bound of 24 tiles of 16 K tiles. B's scales are checked whole; A's of
// the groups' valid rows only (rows past a count hold anything). The
// blocks form min(grid, 4) teams (block i in team i mod teams, of
// (grid - 1 - team) / teams + 1 blocks); a team takes its groups one at a
// time: the count clamped into [0, 256], ceil(count / 1) scale rows of 16
// K blocks, element e at (256 g + e / 16, e % 16) of the [1024, 16] view,
// divided in 32 bits; 4 loads in flight a lane (the producer's registers
// are few), where the dense checks have 8.
// CHECK-LABEL: func.func @masked
// CHECK:         memref.alloc() : memref<3xi32>
// CHECK:       gpu.func @matmul({{.*}}, %[[SA:[^:]*]]: memref<1024x16xf32>, %[[SB:[^:]*]]: memref<4x3x16xf32>, %{{[^:]*}}: memref<1024x384xbf16>, %[[COUNTS:[^:]*]]: memref<4xi32>
// CHECK:         %[[TEAMS:.*]] = arith.minui %[[GRID:.*]], %c4 : index
// CHECK:         %[[TEAM:.*]] = arith.remui %[[BLOCK:.*]], %[[TEAMS]] : index
// CHECK:         %[[LASTB:.*]] = arith.subi %[[GRID]], %c1{{.*}} : index
// CHECK:         %[[AFTER:.*]] = arith.subi %[[LASTB]], %[[TEAM]] : index
// CHECK:         %[[MORE:.*]] = arith.divui %[[AFTER]], %[[TEAMS]] : index
// CHECK:         %[[TBLOCKS:.*]] = arith.addi %[[MORE]], %c1{{.*}} : index
// CHECK:         %[[TTHREADS:.*]] = arith.muli %[[TBLOCKS]], %c96 : index
// CHECK:         %[[RANK:.*]] = arith.divui %[[BLOCK]], %[[TEAMS]] : index
// CHECK:         %[[RANKT:.*]] = arith.muli %[[RANK]], %c96 : index
// CHECK:         %[[TTHREAD:.*]] = arith.addi %[[RANKT]], %{{.*}} : index
// CHECK:         scf.for %[[G:.*]] = %[[TEAM]] to %c4{{.*}} step %[[TEAMS]] iter_args(%{{.*}} = %true) -> (i1) {
// CHECK:           %[[COUNT:.*]] = memref.load %[[COUNTS]][%[[G]]] : memref<4xi32>
// CHECK:           %[[LOW:.*]] = arith.maxsi %[[COUNT]], %c0_i32 : i32
// CHECK:           %[[ROWS:.*]] = arith.minsi %[[LOW]], %c256_i32 : i32
// CHECK:           %[[ROWSI:.*]] = arith.index_cast %[[ROWS]] : i32 to index
// CHECK:           %[[SROWS:.*]] = arith.ceildivui %[[ROWSI]], %c1{{.*}} : index
// CHECK:           %[[ELEMENTS:.*]] = arith.muli %[[SROWS]], %c16 : index
// CHECK:           %[[LASTE:.*]] = arith.subi %[[ELEMENTS]], %c1{{.*}} : index
// CHECK:           %[[PERTRIP:.*]] = arith.muli %[[TTHREADS]], %c4{{.*}} : index
// CHECK:           %[[TRIPS:.*]] = arith.ceildivui %[[ELEMENTS]], %[[PERTRIP]] : index
// CHECK:           scf.for %[[T:.*]] = %c0{{.*}} to %[[TRIPS]] step %c1{{.*}} iter_args
// CHECK:             %[[SKIP:.*]] = arith.muli %[[T]], %[[PERTRIP]] : index
// CHECK:             %[[FIRST:.*]] = arith.addi %[[TTHREAD]], %[[SKIP]] : index
// CHECK:             %[[E:.*]] = arith.minui %{{.*}}, %[[LASTE]] : index
// CHECK:             %[[E32:.*]] = arith.index_castui %[[E]] : index to i32
// CHECK:             %[[R32:.*]] = arith.divui %[[E32]], %c16_i32 : i32
// CHECK:             %[[R:.*]] = arith.index_castui %[[R32]] : i32 to index
// CHECK:             %[[K32:.*]] = arith.remui %[[E32]], %c16_i32 : i32
// CHECK:             %[[K:.*]] = arith.index_castui %[[K32]] : i32 to index
// CHECK:             %[[GROW:.*]] = arith.muli %[[G]], %c256 : index
// CHECK:             %[[ROW:.*]] = arith.addi %[[GROW]], %[[R]] : index
// CHECK:             memref.load %[[SA]][%[[ROW]], %[[K]]] : memref<1024x16xf32>
// CHECK-COUNT-3:     memref.load %[[SA]]
// CHECK-NOT:         memref.load %[[SA]]
// Then every one of B's scales, split over the grid, 8 loads in flight.
// CHECK:         arith.muli %{{.*}}, %c8 : index
// CHECK:         scf.for
// CHECK-COUNT-8:   memref.load %[[SB]]
// CHECK-NOT:       memref.load
// CHECK:           scf.yield
// CHECK:         bar.red.or.pred
// OFF-LABEL: func.func @masked
// OFF-NOT:     memref.alloc() : memref<3xi32>
// OFF:         gpu.func @matmul
// OFF-NOT:     bar.red.or.pred
func.func @masked(%a: memref<4x256x2048xf8E4M3FN>, %sa: memref<4x256x16xf32>, %b: memref<4x384x2048xf8E4M3FN>, %sb: memref<4x3x16xf32>, %g: memref<4xi32>, %c: memref<4x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<4x256x2048xf8E4M3FN>, memref<4x256x16xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<4x384x2048xf8E4M3FN>, memref<4x3x16xf32>) #qmm.scale<block 128x128> groups(%g : memref<4xi32>) outs(%c : memref<4x256x384xbf16>)
  return
}

// -----

// MN-major A scales ([4, 16, 256], viewed as [64, 256]): group g's valid
// scale rows s = ceil(count / 1) at the start of each of its 16 rows of
// the view, element e at (16 g + e / s, e % s), divided in 32 bits.
// CHECK-LABEL: func.func @masked_mn_major
// CHECK:       gpu.func @matmul({{.*}}, %[[SA:[^:]*]]: memref<64x256xf32>
// CHECK:         scf.for %[[G:.*]] = %{{.*}} to %c4{{.*}} step %{{.*}} iter_args
// CHECK:           %[[SROWS:.*]] = arith.ceildivui %{{.*}}, %c1{{.*}} : index
// CHECK:           %[[SROWS32:.*]] = arith.index_castui %[[SROWS]] : index to i32
// CHECK:           scf.for
// CHECK:             %[[E:.*]] = arith.minui
// CHECK:             %[[E32:.*]] = arith.index_castui %[[E]] : index to i32
// CHECK:             %[[KB32:.*]] = arith.divui %[[E32]], %[[SROWS32]] : i32
// CHECK:             %[[KB:.*]] = arith.index_castui %[[KB32]] : i32 to index
// CHECK:             %[[R32:.*]] = arith.remui %[[E32]], %[[SROWS32]] : i32
// CHECK:             %[[R:.*]] = arith.index_castui %[[R32]] : i32 to index
// CHECK:             %[[GK:.*]] = arith.muli %[[G]], %c16 : index
// CHECK:             %[[VROW:.*]] = arith.addi %[[GK]], %[[KB]] : index
// CHECK:             memref.load %[[SA]][%[[VROW]], %[[R]]] : memref<64x256xf32>
// OFF-LABEL: func.func @masked_mn_major
func.func @masked_mn_major(%a: memref<4x256x2048xf8E4M3FN>, %sa: memref<4x16x256xf32>, %b: memref<4x384x2048xf8E4M3FN>, %sb: memref<4x3x16xf32>, %g: memref<4xi32>, %c: memref<4x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<4x256x2048xf8E4M3FN>, memref<4x16x256xf32>) #qmm.scale<block 1x128, mn_major> b(%b, %sb : memref<4x384x2048xf8E4M3FN>, memref<4x3x16xf32>) #qmm.scale<block 128x128> groups(%g : memref<4xi32>) outs(%c : memref<4x256x384xbf16>)
  return
}

// -----

// 128-row blocks of A's scales ([4, 2, 16] viewed as [8, 16]): group g's
// valid block rows are ceil(count / 128), element e at (2 g + e / 16,
// e % 16).
// CHECK-LABEL: func.func @masked_block_rows
// CHECK:       gpu.func @matmul({{.*}}, %[[SA:[^:]*]]: memref<8x16xf32>
// CHECK:         scf.for %[[G:.*]] = %{{.*}} to %c4{{.*}} step %{{.*}} iter_args
// CHECK:           %[[SROWS:.*]] = arith.ceildivui %{{.*}}, %c128{{.*}} : index
// CHECK:           arith.muli %[[SROWS]], %c16 : index
// CHECK:           scf.for
// CHECK:             %[[E:.*]] = arith.minui
// CHECK:             %[[E32:.*]] = arith.index_castui %[[E]] : index to i32
// CHECK:             %[[R32:.*]] = arith.divui %[[E32]], %c16_i32 : i32
// CHECK:             %[[R:.*]] = arith.index_castui %[[R32]] : i32 to index
// CHECK:             %[[GROW:.*]] = arith.muli %[[G]], %c2 : index
// CHECK:             %[[ROW:.*]] = arith.addi %[[GROW]], %[[R]] : index
// CHECK:             memref.load %[[SA]][%[[ROW]], %{{.*}}] : memref<8x16xf32>
// OFF-LABEL: func.func @masked_block_rows
func.func @masked_block_rows(%a: memref<4x256x2048xf8E4M3FN>, %sa: memref<4x2x16xf32>, %b: memref<4x384x2048xf8E4M3FN>, %sb: memref<4x3x16xf32>, %g: memref<4xi32>, %c: memref<4x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<4x256x2048xf8E4M3FN>, memref<4x2x16xf32>) #qmm.scale<block 128x128> b(%b, %sb : memref<4x384x2048xf8E4M3FN>, memref<4x3x16xf32>) #qmm.scale<block 128x128> groups(%g : memref<4xi32>) outs(%c : memref<4x256x384xbf16>)
  return
}
