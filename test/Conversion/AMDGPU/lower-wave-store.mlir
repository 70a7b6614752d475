// The epilogue as the pipeline leaves it: lowered, then with the math the
// device cannot call expanded (qmm-expand-kernel-math, tested on its own in
// expand-kernel-math.mlir).
// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-store=chip=gfx942 --qmm-expand-kernel-math --cse | FileCheck %s

// bf16 output of 40 x 48, 16x16 MFMA: lane l's 4 items are row
// `row` + l % 16, columns `col` + 4 * (l / 16) .. +3. Nothing is stored at
// rows >= 40; one 4-wide store when the last column is inside
// (col < 48 - 3), else one store per column < 48. Each value is rounded
// to bf16 once.
// CHECK-LABEL: func.func @bf16_edges
// CHECK-SAME:    (%[[D:.*]]: memref<40x48xbf16>, %[[ROW:.*]]: index, %[[COL:.*]]: index, %[[ACC:.*]]: vector<4xf32>)
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[LROW:.*]] = arith.remui %[[LANE]], %c16
// CHECK:         %[[R:.*]] = arith.addi %[[ROW]], %[[LROW]]
// CHECK:         %[[GROUP:.*]] = arith.divui %[[LANE]], %c16
// CHECK:         %[[LCOL:.*]] = arith.muli %[[GROUP]], %c4
// CHECK:         %[[C:.*]] = arith.addi %[[COL]], %[[LCOL]]
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
// CHECK:             %[[C3:.*]] = arith.addi %[[C]], %c3
// CHECK:             arith.cmpi ult, %[[C3]], %c48
// CHECK:               vector.extract %[[QUAD]][3]
// CHECK-NOT:   qmm.wave_store
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
// in f32 before the one rounding to f16.
// CHECK-LABEL: func.func @accumulate_f16
// CHECK:           %[[OLD:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}] : memref<32x32xf16>, vector<4xf16>
// CHECK:           %[[WIDE:.*]] = arith.extf %[[OLD]] : vector<4xf16> to vector<4xf32>
// CHECK:           %[[SUM:.*]] = arith.addf %{{.*}}, %[[WIDE]] : vector<4xf32>
// CHECK:           %[[NARROW:.*]] = arith.truncf %[[SUM]] : vector<4xf32> to vector<4xf16>
// CHECK:           vector.store %[[NARROW]], %arg0
// CHECK:         } else {
// CHECK:             %[[OLD1:.*]] = memref.load %arg0
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
// CHECK-LABEL: func.func @f32_32x32
// CHECK-NOT:     arith.truncf
// CHECK:         %[[LCOL:.*]] = arith.muli %{{.*}}, %c4
// CHECK:         vector.shuffle %[[A0:.*]], %[[A0]] [0, 1, 2, 3]
// CHECK:         vector.store {{.*}} : memref<64x64xf32>, vector<4xf32>
// CHECK:         arith.addi %[[LCOL]], %c8
// CHECK:         vector.shuffle %[[A0]], %[[A0]] [4, 5, 6, 7]
// CHECK:         arith.addi %[[LCOL]], %c16
// CHECK:         vector.shuffle %[[A0]], %[[A0]] [8, 9, 10, 11]
// CHECK:         arith.addi %[[LCOL]], %c24
// CHECK:         vector.shuffle %[[A0]], %[[A0]] [12, 13, 14, 15]
// CHECK:         arith.addi %[[LCOL]], %c32
// CHECK:         vector.shuffle %[[A1:.*]], %[[A1]] [0, 1, 2, 3]
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
// the same per element.
// CHECK-LABEL: func.func @bias_gelu_aux
// CHECK-SAME:    (%[[D:.*]]: memref<40x48xbf16>, %[[BIAS:.*]]: memref<48xbf16>, %[[AUX:.*]]: memref<40x48xf32>,
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[B:.*]] = vector.load %[[BIAS]][%[[COL:.*]]] : memref<48xbf16>, vector<4xbf16>
// CHECK:           %[[BF:.*]] = arith.extf %[[B]] : vector<4xbf16> to vector<4xf32>
// CHECK:           %[[PRE:.*]] = arith.addf %{{.*}}, %[[BF]] : vector<4xf32>
// CHECK:           vector.store %[[PRE]], %[[AUX]][%{{.*}}, %[[COL]]] : memref<40x48xf32>, vector<4xf32>
// CHECK:           arith.constant dense<0.707106769> : vector<4xf32>
// CHECK:           math.fma
// CHECK:           %[[OUT:.*]] = arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK:           vector.store %[[OUT]], %[[D]]
// CHECK:         } else {
// CHECK:             memref.load %[[BIAS]]
// CHECK:             memref.store %{{.*}}, %[[AUX]]
// CHECK:             memref.store %{{.*}}, %[[D]]
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
// (masked).
// CHECK-LABEL: func.func @row_masks
// CHECK:         %[[R:.*]] = arith.addi %arg2, %{{.*}}
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[R]], %c64
// CHECK:         %[[BELOW:.*]] = arith.cmpi ult, %[[R]], %arg4
// CHECK:         %[[OK:.*]] = arith.andi %[[IN]], %[[BELOW]]
// CHECK:         scf.if %[[OK]] {
// CHECK:           %[[G:.*]] = memref.load %arg1[%[[R]]] : memref<64xi32>
// CHECK:           %[[NOTPAD:.*]] = arith.cmpi sge, %[[G]], %c0_i32
// CHECK:           scf.if %[[NOTPAD]] {
// CHECK:             vector.store
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
