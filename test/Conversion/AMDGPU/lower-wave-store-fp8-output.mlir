// The epilogue as the pipeline leaves it: lowered, then with the math the
// device cannot call expanded (qmm-expand-kernel-math, tested on its own in
// expand-kernel-math.mlir).
// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-store=chip=gfx942 --qmm-expand-kernel-math --cse | FileCheck %s

// An e4m3fnuz output of 40 x 200 with per-token scales per 32 columns,
// 16x16 MFMA, 2 tiles along N: each 32-column block is the lane's 8 items
// of both tiles (row l % 16, columns 4 (l / 16) .. +3 of each tile). The
// amax counts only columns < 200, is reduced across the 4 lanes of the row
// (xor 16, xor 32), and gives scale = amax' / 240 and reciprocal
// 240 / amax' (qmm.quantize's `none` rule). Codes are built with integer
// arithmetic (no truncf to FP8 is left), stored 4 to a vector inside the
// matrix; the row's lane l < 16 stores the scale at column col / 32.
// Index maps (s0 = thread id x, lane l = s0 mod 64; s1 = the op's row or
// column): row `row` + l mod 16 (printed flattened: s0 mod 16 is
// s0 - (s0 floordiv 16) * 16), column `col` + 4 * (l floordiv 16) of
// tile 0 and 16 more of tile 1, and the scale column col floordiv 32.
// CHECK-DAG:     #[[LANEMAP:map[0-9]*]] = affine_map<()[s0] -> (s0 mod 64)>
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[COL0:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-DAG:     #[[COL16:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4 + 16)>
// CHECK-DAG:     #[[BLOCK:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 32)>
// CHECK-LABEL: func.func @per_token
// CHECK-SAME:    (%[[D:.*]]: memref<40x200xf8E4M3FNUZ>, %[[S:.*]]: memref<40x2xf32>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index, %[[ACC0:.*]]: vector<4xf32>, %[[ACC1:.*]]: vector<4xf32>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[LANE:.*]] = affine.apply #[[LANEMAP]]()[%[[TID]]]
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[ROWOK:.*]] = arith.cmpi ult, %[[R]], %c40
// CHECK:         %[[C0:.*]] = affine.apply #[[COL0]]()[%[[TID]], %[[COLA]]]
// CHECK:         vector.shuffle %[[ACC0]], %[[ACC0]] [0, 1, 2, 3]
// CHECK:         arith.cmpi ult, %[[C0]], %c200
// CHECK-COUNT-3: arith.cmpi ult, %{{.*}}, %c200
// CHECK:         %[[C16:.*]] = affine.apply #[[COL16]]()[%[[TID]], %[[COLA]]]
// CHECK:         vector.shuffle %[[ACC1]], %[[ACC1]] [0, 1, 2, 3]
// CHECK:         arith.cmpi ult, %[[C16]], %c200
// CHECK-COUNT-3: arith.cmpi ult, %{{.*}}, %c200
// CHECK:         %[[LOCAL:.*]] = arith.maximumf
// CHECK:         %[[X16:.*]], %{{.*}} = gpu.shuffle  xor %[[LOCAL]], %c16_i32, %c64_i32 : f32
// CHECK:         %[[M16:.*]] = arith.maximumf %[[LOCAL]], %[[X16]]
// CHECK:         %[[X32:.*]], %{{.*}} = gpu.shuffle  xor %[[M16]], %c32_i32, %c64_i32 : f32
// CHECK:         %[[AMAX:.*]] = arith.maximumf %[[M16]], %[[X32]]
// CHECK:         %[[CLAMPED:.*]] = arith.maximumf %[[AMAX]], %{{.*}} : f32
// CHECK:         arith.divf %[[CLAMPED]], %{{.*}} : f32
// CHECK:         arith.divf %{{.*}}, %[[CLAMPED]] : f32
// CHECK:         scf.if %[[ROWOK]] {
// CHECK-NOT:       arith.truncf
// CHECK:           %[[CODES:.*]] = vector.from_elements {{.*}} : vector<4xf8E4M3FNUZ>
// CHECK:           %[[FITS:.*]] = arith.cmpi ult, %[[C0]], %c197
// CHECK:           scf.if %[[FITS]] {
// CHECK:             vector.store %[[CODES]], %[[D]][%[[R]], %[[C0]]] : memref<40x200xf8E4M3FNUZ>, vector<4xf8E4M3FNUZ>
// CHECK:           memref.store %{{.*}}, %[[D]][%[[R]], %[[C0]]] : memref<40x200xf8E4M3FNUZ>
// CHECK:           vector.store %{{.*}}, %[[D]][%[[R]], %[[C16]]] : memref<40x200xf8E4M3FNUZ>, vector<4xf8E4M3FNUZ>
// CHECK:           %[[BLOCKIN:.*]] = arith.cmpi ult, %[[COLA]], %c200
// CHECK:           %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %c16
// CHECK:           %[[WRITES:.*]] = arith.andi %[[FIRST]], %[[BLOCKIN]]
// CHECK:           scf.if %[[WRITES]] {
// CHECK:             %[[SC:.*]] = affine.apply #[[BLOCK]]()[%[[COLA]]]
// CHECK:             memref.store %{{.*}}, %[[S]][%[[R]], %[[SC]]] : memref<40x2xf32>
// CHECK-NOT:   qmm.wave_store
// CHECK-NOT:   arith.{{(add|mul|div|rem)}}{{.*}} : index
func.func @per_token(%d: memref<40x200xf8E4M3FNUZ>, %s: memref<40x2xf32>, %row: index, %col: index, %acc0: vector<4xf32>, %acc1: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc0, %acc1 into %d[%row, %col]
      out_scales(%s : memref<40x2xf32>) #qmm.scale<block 1x32> rounding none min_amax 1.0e-4
      config(#qmm.config<tile = [16, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<40x200xf8E4M3FNUZ>, vector<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// MX output with a 32x32 MFMA: one tile is one 32-column block; the rows'
// lanes are l and l ^ 32. The E8M0 scale 2^(floor(log2 amax) - 8) is
// computed from the bit pattern (math.ctlz for subnormals), and stored as
// an f8E8M0FNU code built with integer arithmetic. Bias and the GELU come
// before the amax; the pre-activation goes to aux.
// 32x32 MFMA: row `row` + l mod 32, first column `col` + 4 * (l floordiv
// 32), scale column col floordiv 32.
// CHECK-DAG:     #[[LANEMAP:map[0-9]*]] = affine_map<()[s0] -> (s0 mod 64)>
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 32) * 32)>
// CHECK-DAG:     #[[COL0:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4)>
// CHECK-DAG:     #[[BLOCK:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 32)>
// CHECK-LABEL: func.func @mx_bias_gelu_aux
// CHECK-SAME:    (%[[D:.*]]: memref<64x64xf8E4M3FN>, %[[S:.*]]: memref<64x2xf8E8M0FNU>, %[[BIAS:.*]]: memref<64xbf16>, %[[AUX:.*]]: memref<64x64xf32>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[LANE:.*]] = affine.apply #[[LANEMAP]]()[%[[TID]]]
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C0:.*]] = affine.apply #[[COL0]]()[%[[TID]], %[[COLA]]]
// CHECK:         vector.load %[[BIAS]][%[[C0]]] : memref<64xbf16>, vector<4xbf16>
// CHECK:         vector.store %{{.*}}, %[[AUX]][%[[R]], %[[C0]]] : memref<64x64xf32>, vector<4xf32>
// CHECK:         gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// CHECK-NOT:     gpu.shuffle
// CHECK:         math.ctlz
// CHECK-NOT:     arith.truncf {{.*}} to f8E8M0FNU
// CHECK:         %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %c32
// CHECK:         %[[SC:.*]] = affine.apply #[[BLOCK]]()[%[[COLA]]]
// CHECK:         memref.store %{{.*}}, %[[S]][%[[R]], %[[SC]]] : memref<64x2xf8E8M0FNU>
func.func @mx_bias_gelu_aux(%d: memref<64x64xf8E4M3FN>, %s: memref<64x2xf8E8M0FNU>, %bias: memref<64xbf16>, %aux: memref<64x64xf32>, %row: index, %col: index, %acc: vector<16xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col] bias(%bias : memref<64xbf16>) activation gelu_tanh
      aux(%aux : memref<64x64xf32>)
      out_scales(%s : memref<64x2xf8E8M0FNU>) #qmm.scale<mx> rounding pow2_floor min_amax 0.0
      config(#qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>)
      : memref<64x64xf8E4M3FN>, vector<16xf32>
    gpu.terminator
  }
  return
}

// -----

// Blocks narrower than the 16-column MFMA tile (1x6: blocks [0,6), [6,12),
// [12,16) of a 16-column output): each lane's items count towards the
// block holding their column (three amaxes, each reduced over the row's
// four lanes, 16 and 32 apart), each item is multiplied by its own block's
// reciprocal, and the row's first lane stores the three scales.
// Item 0's column relative to the wave, 4 * (l floordiv 16), is compared
// with the block bounds 6, 12, 18 (block 0 has no lower test: offsets are
// never negative); block b starts at `col` + 6 * b and
// its scale is at column (col + 6 * b) floordiv 6 = col floordiv 6 + b.
// CHECK-DAG:     #[[LANEMAP:map[0-9]*]] = affine_map<()[s0] -> (s0 mod 64)>
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[OFF:map[0-9]*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 4)>
// CHECK-DAG:     #[[START1:map[0-9]*]] = affine_map<()[s0] -> (s0 + 6)>
// CHECK-DAG:     #[[START2:map[0-9]*]] = affine_map<()[s0] -> (s0 + 12)>
// CHECK-DAG:     #[[BLOCK0:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 6)>
// CHECK-DAG:     #[[BLOCK1:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 6 + 1)>
// CHECK-DAG:     #[[BLOCK2:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 6 + 2)>
// CHECK-LABEL: func.func @narrow_blocks
// CHECK-SAME:    (%[[D:.*]]: memref<16x16xf8E4M3FNUZ>, %[[S:.*]]: memref<16x3xf32>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[LANE:.*]] = affine.apply #[[LANEMAP]]()[%[[TID]]]
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[OFF0:.*]] = affine.apply #[[OFF]]()[%[[TID]]]
// CHECK-NOT:     arith.cmpi uge, %[[OFF0]], %c0
// CHECK:         arith.cmpi ult, %[[OFF0]], %c6 :
// CHECK:         arith.cmpi uge, %[[OFF0]], %c6 :
// CHECK:         arith.cmpi ult, %[[OFF0]], %c12 :
// CHECK:         arith.cmpi uge, %[[OFF0]], %c12 :
// CHECK:         arith.cmpi ult, %[[OFF0]], %c18 :
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK-NOT:     gpu.shuffle
// CHECK:         vector.from_elements {{.*}} : vector<4xf32>
// CHECK:         %[[IN0:.*]] = arith.cmpi ult, %[[COLA]], %c16
// CHECK:         %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %c16
// CHECK:         %[[W0:.*]] = arith.andi %[[FIRST]], %[[IN0]]
// CHECK:         scf.if %[[W0]] {
// CHECK:           %[[SC0:.*]] = affine.apply #[[BLOCK0]]()[%[[COLA]]]
// CHECK:           memref.store %{{.*}}, %[[S]][%[[R]], %[[SC0]]] : memref<16x3xf32>
// CHECK:         %[[B1:.*]] = affine.apply #[[START1]]()[%[[COLA]]]
// CHECK:         %[[IN1:.*]] = arith.cmpi ult, %[[B1]], %c16
// CHECK:         %[[W1:.*]] = arith.andi %[[FIRST]], %[[IN1]]
// CHECK:         scf.if %[[W1]] {
// CHECK:           %[[SC1:.*]] = affine.apply #[[BLOCK1]]()[%[[COLA]]]
// CHECK:           memref.store %{{.*}}, %[[S]][%[[R]], %[[SC1]]] : memref<16x3xf32>
// CHECK:         %[[B2:.*]] = affine.apply #[[START2]]()[%[[COLA]]]
// CHECK:         %[[IN2:.*]] = arith.cmpi ult, %[[B2]], %c16
// CHECK:         %[[W2:.*]] = arith.andi %[[FIRST]], %[[IN2]]
// CHECK:         scf.if %[[W2]] {
// CHECK:           %[[SC2:.*]] = affine.apply #[[BLOCK2]]()[%[[COLA]]]
// CHECK:           memref.store %{{.*}}, %[[S]][%[[R]], %[[SC2]]] : memref<16x3xf32>
// CHECK-NOT:     memref.store %{{.*}} : memref<16x3xf32>
func.func @narrow_blocks(%d: memref<16x16xf8E4M3FNUZ>, %s: memref<16x3xf32>, %row: index, %col: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col]
      out_scales(%s : memref<16x3xf32>) #qmm.scale<block 1x6> rounding none min_amax 1.0e-4
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<16x16xf8E4M3FNUZ>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// in_bounds [true, true] (48 x 64: the tile [16, 32] divides both): every
// item counts towards the amax (no column test, no select), the rows are
// not tested, each run is one 4-wide store, and only the row's first lane
// (l < 16) guards the scale store.
// CHECK-DAG:     #[[LANEMAP:map[0-9]*]] = affine_map<()[s0] -> (s0 mod 64)>
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[COL0:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-DAG:     #[[COL16:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4 + 16)>
// CHECK-DAG:     #[[BLOCK:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 32)>
// CHECK-LABEL: func.func @per_token_in_bounds
// CHECK-SAME:    (%[[D:.*]]: memref<48x64xf8E4M3FNUZ>, %[[S:.*]]: memref<48x2xf32>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[LANE:.*]] = affine.apply #[[LANEMAP]]()[%[[TID]]]
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C0:.*]] = affine.apply #[[COL0]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[C16:.*]] = affine.apply #[[COL16]]()[%[[TID]], %[[COLA]]]
// CHECK-NOT:     arith.cmpi {{.*}} : index
// CHECK-NOT:     scf.if
// CHECK:         %[[CODES0:.*]] = vector.from_elements {{.*}} : vector<4xf8E4M3FNUZ>
// CHECK-NEXT:    vector.store %[[CODES0]], %[[D]][%[[R]], %[[C0]]] : memref<48x64xf8E4M3FNUZ>, vector<4xf8E4M3FNUZ>
// CHECK-NOT:     arith.cmpi {{.*}} : index
// CHECK-NOT:     scf.if
// CHECK:         %[[CODES1:.*]] = vector.from_elements {{.*}} : vector<4xf8E4M3FNUZ>
// CHECK-NEXT:    vector.store %[[CODES1]], %[[D]][%[[R]], %[[C16]]] : memref<48x64xf8E4M3FNUZ>, vector<4xf8E4M3FNUZ>
// CHECK-NOT:     scf.if
// CHECK:         %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %c16
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      %[[SC:.*]] = affine.apply #[[BLOCK]]()[%[[COLA]]]
// CHECK-NEXT:      memref.store %{{.*}}, %[[S]][%[[R]], %[[SC]]] : memref<48x2xf32>
// CHECK-NOT:     memref.store
// CHECK-NOT:     arith.cmpi {{.*}} : index
func.func @per_token_in_bounds(%d: memref<48x64xf8E4M3FNUZ>, %s: memref<48x2xf32>, %row: index, %col: index, %acc0: vector<4xf32>, %acc1: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc0, %acc1 into %d[%row, %col] in_bounds [true, true]
      out_scales(%s : memref<48x2xf32>) #qmm.scale<block 1x32> rounding none min_amax 1.0e-4
      config(#qmm.config<tile = [16, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<48x64xf8E4M3FNUZ>, vector<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
