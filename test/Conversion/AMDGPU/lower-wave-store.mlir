// The epilogue as the pipeline leaves it: lowered, then with the math the
// device cannot call expanded (qmm-expand-kernel-math, tested on its own in
// expand-kernel-math.mlir).
// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-store=chip=gfx942 --qmm-expand-kernel-math --cse | FileCheck %s

// Index maps (s0 = thread id x, lane l = s0 mod 64; s1 = the op's row or
// column). 16x16 MFMA: lane l's items sit at row l mod 16, columns
// 4 * (l floordiv 16) .. +3. MLIR prints s1 + s0 mod 16 in its flattened
// form s0 + s1 - (s0 floordiv 16) * 16 (16 divides 64, so l mod 16 =
// s0 mod 16).

// bf16 output of 40 x 48, 16x16 MFMA: lane l's 4 items are row
// `row` + l % 16, columns `col` + 4 * (l / 16) .. +3. Nothing is stored at
// rows >= 40; one 4-wide store when the last column is inside
// (col < 48 - 3), else one store per column < 48. Each value is rounded
// to bf16 once.
// Row `row` + l mod 16.
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// First column `col` + 4 * (l floordiv 16), and the edge path's last, +3.
// CHECK-DAG:     #[[COL:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-DAG:     #[[COL3:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4 + 3)>
// CHECK-LABEL: func.func @bf16_edges
// CHECK-SAME:    (%[[D:.*]]: memref<40x48xbf16>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index, %[[ACC:.*]]: vector<4xf32>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C:.*]] = affine.apply #[[COL]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[QUAD:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [0, 1, 2, 3]
// CHECK:         %[[ROWOK:.*]] = arith.cmpi ult, %[[R]], %c40
// CHECK:         scf.if %[[ROWOK]] {
// CHECK:           %[[FITS:.*]] = arith.cmpi ult, %[[C]], %c45
// CHECK:           scf.if %[[FITS]] {
// CHECK:             %[[V:.*]] = arith.truncf %[[QUAD]] : vector<4xf32> to vector<4xbf16>
// CHECK:             vector.store %[[V]], %[[D]][%[[R]], %[[C]]] : memref<40x48xbf16>, vector<4xbf16>
// CHECK:           } else {
// CHECK:             %[[IN0:.*]] = arith.cmpi ult, %[[C]], %c48
// CHECK:             scf.if %[[IN0]] {
// CHECK:               %[[E0:.*]] = vector.extract %[[QUAD]][0]
// CHECK:               %[[T0:.*]] = arith.truncf %[[E0]] : f32 to bf16
// CHECK:               memref.store %[[T0]], %[[D]][%[[R]], %[[C]]]
// CHECK-NOT:         arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:             %[[C3:.*]] = affine.apply #[[COL3]]()[%[[TID]], %[[COLA]]]
// CHECK:             arith.cmpi ult, %[[C3]], %c48
// CHECK:               vector.extract %[[QUAD]][3]
// CHECK:               memref.store %{{.*}}, %[[D]][%[[R]], %[[C3]]] : memref<40x48xbf16>
// CHECK-NOT:   qmm.wave_store
// CHECK-NOT:   arith.{{(add|mul|div|rem)}}{{.*}} : index
func.func @bf16_edges(%d: memref<40x48xbf16>, %row: index, %col: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col]
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<40x48xbf16>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// `accumulate` into f16: the output's values are read, widened and added
// in f32 before the one rounding to f16, at the position they are stored
// to (row `row` + l mod 16, column `col` + 4 * (l floordiv 16)).
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[COL:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-LABEL: func.func @accumulate_f16
// CHECK-SAME:    (%[[D:.*]]: memref<32x32xf16>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C:.*]] = affine.apply #[[COL]]()[%[[TID]], %[[COLA]]]
// CHECK:           %[[OLD:.*]] = vector.load %[[D]][%[[R]], %[[C]]] : memref<32x32xf16>, vector<4xf16>
// CHECK:           %[[WIDE:.*]] = arith.extf %[[OLD]] : vector<4xf16> to vector<4xf32>
// CHECK:           %[[SUM:.*]] = arith.addf %{{.*}}, %[[WIDE]] : vector<4xf32>
// CHECK:           %[[NARROW:.*]] = arith.truncf %[[SUM]] : vector<4xf32> to vector<4xf16>
// CHECK:           vector.store %[[NARROW]], %[[D]][%[[R]], %[[C]]] : memref<32x32xf16>, vector<4xf16>
// CHECK:         } else {
// CHECK:             %[[OLD1:.*]] = memref.load %[[D]][%[[R]], %[[C]]]
// CHECK:             arith.extf %[[OLD1]] : f16 to f32
func.func @accumulate_f16(%d: memref<32x32xf16>, %row: index, %col: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col] accumulate
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<32x32xf16>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// 32x32 MFMA tiles, f32 output (no conversion): 16 items per lane in 4
// runs of 4 columns, 8 apart (items 4 * g .. 4 * g + 3 at column
// 4 * (l / 32) + 8 * g); two MFMA tiles along N, the second 32 columns on.
// Row `row` + l mod 32 (printed flattened, as above).
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 32) * 32)>
// Run g of tile rn: `col` + 4 * (l floordiv 32) + 8 * g + 32 * rn.
// CHECK-DAG:     #[[COL0:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4)>
// CHECK-DAG:     #[[COL8:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 8)>
// CHECK-DAG:     #[[COL16:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 16)>
// CHECK-DAG:     #[[COL24:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 24)>
// CHECK-DAG:     #[[COL32:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 32)>
// CHECK-DAG:     #[[COL40:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 40)>
// CHECK-DAG:     #[[COL48:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 48)>
// CHECK-DAG:     #[[COL56:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 56)>
// CHECK-LABEL: func.func @f32_32x32
// CHECK-SAME:    (%[[D:.*]]: memref<64x64xf32>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index, %[[A0:.*]]: vector<16xf32>, %[[A1:.*]]: vector<16xf32>)
// CHECK-NOT:     arith.truncf
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C0:.*]] = affine.apply #[[COL0]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q0:.*]] = vector.shuffle %[[A0]], %[[A0]] [0, 1, 2, 3]
// CHECK:         vector.store %[[Q0]], %[[D]][%[[R]], %[[C0]]] : memref<64x64xf32>, vector<4xf32>
// CHECK:         %[[C8:.*]] = affine.apply #[[COL8]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q1:.*]] = vector.shuffle %[[A0]], %[[A0]] [4, 5, 6, 7]
// CHECK:         vector.store %[[Q1]], %[[D]][%[[R]], %[[C8]]]
// CHECK:         %[[C16:.*]] = affine.apply #[[COL16]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q2:.*]] = vector.shuffle %[[A0]], %[[A0]] [8, 9, 10, 11]
// CHECK:         vector.store %[[Q2]], %[[D]][%[[R]], %[[C16]]]
// CHECK:         %[[C24:.*]] = affine.apply #[[COL24]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q3:.*]] = vector.shuffle %[[A0]], %[[A0]] [12, 13, 14, 15]
// CHECK:         vector.store %[[Q3]], %[[D]][%[[R]], %[[C24]]]
// CHECK:         %[[C32:.*]] = affine.apply #[[COL32]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q4:.*]] = vector.shuffle %[[A1]], %[[A1]] [0, 1, 2, 3]
// CHECK:         vector.store %[[Q4]], %[[D]][%[[R]], %[[C32]]]
// CHECK:         %[[C40:.*]] = affine.apply #[[COL40]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q5:.*]] = vector.shuffle %[[A1]], %[[A1]] [4, 5, 6, 7]
// CHECK:         vector.store %[[Q5]], %[[D]][%[[R]], %[[C40]]]
// CHECK:         %[[C48:.*]] = affine.apply #[[COL48]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q6:.*]] = vector.shuffle %[[A1]], %[[A1]] [8, 9, 10, 11]
// CHECK:         vector.store %[[Q6]], %[[D]][%[[R]], %[[C48]]]
// CHECK:         %[[C56:.*]] = affine.apply #[[COL56]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[Q7:.*]] = vector.shuffle %[[A1]], %[[A1]] [12, 13, 14, 15]
// CHECK:         vector.store %[[Q7]], %[[D]][%[[R]], %[[C56]]]
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
func.func @f32_32x32(%d: memref<64x64xf32>, %row: index, %col: index, %acc0: vector<16xf32>, %acc1: vector<16xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc0, %acc1 into %d[%row, %col]
      config(#qmm.config<tile = [32, 64, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>)
      : memref<64x64xf32>, vector<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}

// -----

// The epilogue: bias of the 4 columns (bf16, widened) added to the f32
// values, the pre-activation stored to aux, GELU (erf form: 0.5 x (1 +
// erf(x / sqrt 2))) with erf expanded into an f32 polynomial (no math.erf
// left: no device library), then the rounding to bf16. The edge path does
// the same per element. Bias, aux and output are indexed by the same row
// (`row` + l mod 16) and column (`col` + 4 * (l floordiv 16)).
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[COL:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-LABEL: func.func @bias_gelu_aux
// CHECK-SAME:    (%[[D:.*]]: memref<40x48xbf16>, %[[BIAS:.*]]: memref<48xbf16>, %[[AUX:.*]]: memref<40x48xf32>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C:.*]] = affine.apply #[[COL]]()[%[[TID]], %[[COLA]]]
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[B:.*]] = vector.load %[[BIAS]][%[[C]]] : memref<48xbf16>, vector<4xbf16>
// CHECK:           %[[BF:.*]] = arith.extf %[[B]] : vector<4xbf16> to vector<4xf32>
// CHECK:           %[[PRE:.*]] = arith.addf %{{.*}}, %[[BF]] : vector<4xf32>
// CHECK:           vector.store %[[PRE]], %[[AUX]][%[[R]], %[[C]]] : memref<40x48xf32>, vector<4xf32>
// CHECK:           arith.constant dense<0.707106769> : vector<4xf32>
// CHECK:           math.fma
// CHECK:           %[[OUT:.*]] = arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK:           vector.store %[[OUT]], %[[D]][%[[R]], %[[C]]] : memref<40x48xbf16>, vector<4xbf16>
// CHECK:         } else {
// CHECK:             memref.load %[[BIAS]][%[[C]]]
// CHECK:             memref.store %{{.*}}, %[[AUX]][%[[R]], %[[C]]]
// CHECK:             memref.store %{{.*}}, %[[D]][%[[R]], %[[C]]]
// CHECK-NOT:     math.erf
func.func @bias_gelu_aux(%d: memref<40x48xbf16>, %bias: memref<48xbf16>, %aux: memref<40x48xf32>,
                         %row: index, %col: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col] bias(%bias : memref<48xbf16>) activation gelu_erf aux(%aux : memref<40x48xf32>)
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<40x48xbf16>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// The tanh form: sqrt(2 / pi) (x + 0.044715 x^3), tanh as a polynomial.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK:         arith.constant dense<4.471500e-02> : vector<4xf32>
// CHECK:         arith.constant dense<0.797884583> : vector<4xf32>
// CHECK-NOT:     math.tanh
func.func @gelu_tanh(%d: memref<32x32xf32>, %row: index, %col: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col] activation gelu_tanh
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<32x32xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Grouped matmuls: a row is stored when it is inside the matrix and its
// group index is not negative (contiguous), or below the valid-row count
// (masked). The row (`row` + l mod 16) selects the group index too.
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-LABEL: func.func @row_masks
// CHECK-SAME:    (%[[D:.*]]: memref<64x32xf32>, %[[GROUPS:.*]]: memref<64xi32>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index, %[[VALID:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[R]], %c64
// CHECK:         %[[BELOW:.*]] = arith.cmpi ult, %[[R]], %[[VALID]]
// CHECK:         %[[OK:.*]] = arith.andi %[[IN]], %[[BELOW]]
// CHECK:         scf.if %[[OK]] {
// CHECK:           %[[G:.*]] = memref.load %[[GROUPS]][%[[R]]] : memref<64xi32>
// CHECK:           %[[NOTPAD:.*]] = arith.cmpi sge, %[[G]], %c0_i32
// CHECK:           scf.if %[[NOTPAD]] {
// CHECK:             vector.store %{{.*}}, %[[D]][%[[R]], %{{.*}}] : memref<64x32xf32>, vector<4xf32>
func.func @row_masks(%d: memref<64x32xf32>, %groups: memref<64xi32>, %row: index, %col: index,
                     %valid: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col] row_groups(%groups : memref<64xi32>) valid_rows(%valid)
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<64x32xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// in_bounds [true, true] (the tiling's claim when the workgroup tile
// divides M and N): no bounds test at all, one 4-wide store per
// accumulator run. 2 x 2 MFMA tiles of 16x16: accumulator rm * 2 + rn at
// row `row` + l mod 16 + 16 * rm, column `col` + 4 * (l floordiv 16) + 16 * rn.
// CHECK-DAG:     #[[ROW0:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[ROW16:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16 + 16)>
// CHECK-DAG:     #[[COL0:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-DAG:     #[[COL16:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4 + 16)>
// CHECK-LABEL: func.func @in_bounds_both
// CHECK-SAME:    (%[[D:.*]]: memref<64x64xbf16>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index, %[[A0:.*]]: vector<4xf32>, %[[A1:.*]]: vector<4xf32>, %[[A2:.*]]: vector<4xf32>, %[[A3:.*]]: vector<4xf32>)
// Straight-line code, each line right after the last: no scf.if, no
// arith.cmpi and no element store in between.
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT:    %[[R0:.*]] = affine.apply #[[ROW0]]()[%[[TID]], %[[ROWA]]]
// CHECK-NEXT:    %[[C0:.*]] = affine.apply #[[COL0]]()[%[[TID]], %[[COLA]]]
// CHECK-NEXT:    %[[Q0:.*]] = vector.shuffle %[[A0]], %[[A0]] [0, 1, 2, 3]
// CHECK-NEXT:    %[[V0:.*]] = arith.truncf %[[Q0]] : vector<4xf32> to vector<4xbf16>
// CHECK-NEXT:    vector.store %[[V0]], %[[D]][%[[R0]], %[[C0]]] : memref<64x64xbf16>, vector<4xbf16>
// CHECK-NEXT:    %[[C16:.*]] = affine.apply #[[COL16]]()[%[[TID]], %[[COLA]]]
// CHECK-NEXT:    %[[Q1:.*]] = vector.shuffle %[[A1]], %[[A1]] [0, 1, 2, 3]
// CHECK-NEXT:    %[[V1:.*]] = arith.truncf %[[Q1]]
// CHECK-NEXT:    vector.store %[[V1]], %[[D]][%[[R0]], %[[C16]]]
// CHECK-NEXT:    %[[R16:.*]] = affine.apply #[[ROW16]]()[%[[TID]], %[[ROWA]]]
// CHECK-NEXT:    %[[Q2:.*]] = vector.shuffle %[[A2]], %[[A2]] [0, 1, 2, 3]
// CHECK-NEXT:    %[[V2:.*]] = arith.truncf %[[Q2]]
// CHECK-NEXT:    vector.store %[[V2]], %[[D]][%[[R16]], %[[C0]]]
// CHECK-NEXT:    %[[Q3:.*]] = vector.shuffle %[[A3]], %[[A3]] [0, 1, 2, 3]
// CHECK-NEXT:    %[[V3:.*]] = arith.truncf %[[Q3]]
// CHECK-NEXT:    vector.store %[[V3]], %[[D]][%[[R16]], %[[C16]]]
// CHECK-NEXT:    gpu.terminator
func.func @in_bounds_both(%d: memref<64x64xbf16>, %row: index, %col: index,
                          %acc0: vector<4xf32>, %acc1: vector<4xf32>, %acc2: vector<4xf32>, %acc3: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc0, %acc1, %acc2, %acc3 into %d[%row, %col] in_bounds [true, true]
      config(#qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<64x64xbf16>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// in_bounds [false, true] (40 rows, 48 columns: the tile divides N only):
// the row test stays; the run is stored whole, with no column test and no
// per-column edge path.
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[COL:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-LABEL: func.func @in_bounds_columns
// CHECK-SAME:    (%[[D:.*]]: memref<40x48xbf16>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index, %[[ACC:.*]]: vector<4xf32>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C:.*]] = affine.apply #[[COL]]()[%[[TID]], %[[COLA]]]
// CHECK:         %[[QUAD:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [0, 1, 2, 3]
// CHECK-NOT:     arith.cmpi ult, %[[C]]
// CHECK:         %[[ROWOK:.*]] = arith.cmpi ult, %[[R]], %c40
// CHECK-NEXT:    scf.if %[[ROWOK]] {
// CHECK-NEXT:      %[[V:.*]] = arith.truncf %[[QUAD]] : vector<4xf32> to vector<4xbf16>
// CHECK-NEXT:      vector.store %[[V]], %[[D]][%[[R]], %[[C]]] : memref<40x48xbf16>, vector<4xbf16>
// CHECK-NEXT:    }
// CHECK-NOT:     scf.if
// CHECK-NOT:     else
// CHECK-NOT:     arith.cmpi
// CHECK-NOT:     memref.store
func.func @in_bounds_columns(%d: memref<40x48xbf16>, %row: index, %col: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col] in_bounds [false, true]
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<40x48xbf16>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// in_bounds [true, false] (48 rows, 40 columns): the other way round, no
// row test, but the column test (col < 40 - 3) and the per-column edge
// path stay.
// CHECK-DAG:     #[[ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
// CHECK-DAG:     #[[COL:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-LABEL: func.func @in_bounds_rows
// CHECK-SAME:    (%[[D:.*]]: memref<48x40xbf16>, %[[ROWA:.*]]: index, %[[COLA:.*]]: index, %[[ACC:.*]]: vector<4xf32>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWA]]]
// CHECK:         %[[C:.*]] = affine.apply #[[COL]]()[%[[TID]], %[[COLA]]]
// CHECK-NOT:     arith.cmpi
// CHECK:         %[[FITS:.*]] = arith.cmpi ult, %[[C]], %c37
// CHECK-NEXT:    scf.if %[[FITS]] {
// CHECK:           vector.store %{{.*}}, %[[D]][%[[R]], %[[C]]] : memref<48x40xbf16>, vector<4xbf16>
// CHECK:         } else {
// CHECK:           arith.cmpi ult, %[[C]], %c40
// CHECK:             memref.store %{{.*}}, %[[D]][%[[R]], %[[C]]] : memref<48x40xbf16>
// CHECK-NOT:     arith.cmpi ult, %[[R]]
// CHECK-NOT:   qmm.wave_store
func.func @in_bounds_rows(%d: memref<48x40xbf16>, %row: index, %col: index, %acc: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    qmm.wave_store %acc into %d[%row, %col] in_bounds [true, false]
      config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
      : memref<48x40xbf16>, vector<4xf32>
    gpu.terminator
  }
  return
}
