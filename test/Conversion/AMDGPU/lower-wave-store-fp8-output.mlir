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
// CHECK-LABEL: func.func @per_token
// CHECK-SAME:    (%[[D:.*]]: memref<40x200xf8E4M3FNUZ>, %[[S:.*]]: memref<40x2xf32>, %[[ROW:.*]]: index, %[[COL:.*]]: index,
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[ROWOK:.*]] = arith.cmpi ult, %[[R:.*]], %c40
// CHECK-COUNT-4: arith.cmpi ult, %{{.*}}, %c200
// CHECK:         vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3]
// CHECK-COUNT-4: arith.cmpi ult, %{{.*}}, %c200
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
// CHECK:           vector.store %[[CODES]], %[[D]][%[[R]], %{{.*}}] : memref<40x200xf8E4M3FNUZ>, vector<4xf8E4M3FNUZ>
// CHECK:           memref.store %{{.*}}, %[[D]][%[[R]], %{{.*}}] : memref<40x200xf8E4M3FNUZ>
// CHECK:           %[[BLOCKIN:.*]] = arith.cmpi ult, %[[COL]], %c200
// CHECK:           %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %c16
// CHECK:           %[[WRITES:.*]] = arith.andi %[[FIRST]], %[[BLOCKIN]]
// CHECK:           scf.if %[[WRITES]] {
// CHECK:             %[[SC:.*]] = arith.divui %[[COL]], %c32
// CHECK:             memref.store %{{.*}}, %[[S]][%[[R]], %[[SC]]] : memref<40x2xf32>
// CHECK-NOT:   qmm.wave_store
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
// CHECK-LABEL: func.func @mx_bias_gelu_aux
// CHECK:         vector.load %{{.*}} : memref<64xbf16>, vector<4xbf16>
// CHECK:         vector.store %{{.*}} : memref<64x64xf32>, vector<4xf32>
// CHECK:         gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// CHECK-NOT:     gpu.shuffle
// CHECK:         math.ctlz
// CHECK-NOT:     arith.truncf {{.*}} to f8E8M0FNU
// CHECK:         memref.store %{{.*}} : memref<64x2xf8E8M0FNU>
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
// CHECK-LABEL: func.func @narrow_blocks
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK-NOT:     gpu.shuffle
// CHECK:         vector.from_elements {{.*}} : vector<4xf32>
// CHECK-COUNT-3: memref.store %{{.*}} : memref<16x3xf32>
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
