// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-scales=chip=gfx942 --cse | FileCheck %s

// 1x128 activations x 128x128 weights, 16x16 MFMA (4 items per lane). Lane
// l's items are at row `row` + l % 16 and columns `col` + 4 * (l / 16) + i.
// A's scale: [min(row, 39) / 1, k / 128]; B's: [min(col, 47) / 128, k / 128]
// (rows and columns past M = 40 and N = 48 clamped). One fma with the
// products of the scales.
// CHECK-LABEL: func.func @blockwise
// CHECK-SAME:    (%[[SA:.*]]: memref<40x2xf32>, %[[SB:.*]]: memref<1x2xf32>, %[[ROW:.*]]: index, %[[COL:.*]]: index, %[[K:.*]]: index, %[[P:.*]]: vector<4xf32>, %[[ACC:.*]]: vector<4xf32>,
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[LROW:.*]] = arith.remui %[[LANE]], %c16
// CHECK:         %[[R:.*]] = arith.addi %[[ROW]], %[[LROW]]
// CHECK:         %[[RC:.*]] = arith.minui %[[R]], %c39
// CHECK:         %[[KB:.*]] = arith.divui %[[K]], %c128
// CHECK:         %[[SCALE_A:.*]] = memref.load %[[SA]][%[[RC]], %[[KB]]]
// CHECK:         %[[GROUP:.*]] = arith.divui %[[LANE]], %c16
// CHECK:         %[[C0:.*]] = arith.muli %[[GROUP]], %c4
// CHECK:         %[[C:.*]] = arith.addi %[[COL]], %[[C0]]
// CHECK:         %[[CC:.*]] = arith.minui %[[C]], %c47
// CHECK:         %[[BR:.*]] = arith.divui %[[CC]], %c128
// CHECK:         %[[SCALE_B0:.*]] = memref.load %[[SB]][%[[BR]], %[[KB]]]
// CHECK:         arith.addi %[[C0]], %c1
// CHECK:         %[[SCALE_B1:.*]] = memref.load %[[SB]]
// CHECK:         arith.addi %[[C0]], %c2
// CHECK:         %[[SCALE_B2:.*]] = memref.load %[[SB]]
// CHECK:         arith.addi %[[C0]], %c3
// CHECK:         %[[SCALE_B3:.*]] = memref.load %[[SB]]
// CHECK:         %[[S0:.*]] = arith.mulf %[[SCALE_A]], %[[SCALE_B0]] : f32
// CHECK:         %[[S1:.*]] = arith.mulf %[[SCALE_A]], %[[SCALE_B1]] : f32
// CHECK:         %[[S2:.*]] = arith.mulf %[[SCALE_A]], %[[SCALE_B2]] : f32
// CHECK:         %[[S3:.*]] = arith.mulf %[[SCALE_A]], %[[SCALE_B3]] : f32
// CHECK:         %[[S:.*]] = vector.from_elements %[[S0]], %[[S1]], %[[S2]], %[[S3]] : vector<4xf32>
// CHECK:         %[[NEW:.*]] = vector.fma %[[P]], %[[S]], %[[ACC]] : vector<4xf32>
// CHECK:         vector.store %[[NEW]]
// CHECK-NOT:   qmm.wave_scale_accumulate
func.func @blockwise(%sa: memref<40x2xf32>, %sb: memref<1x2xf32>, %row: index, %col: index, %k: index,
                     %p: vector<4xf32>, %acc: vector<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %r = qmm.wave_scale_accumulate %p into %acc at [%row, %col, %k] problem_size [40, 48, 256]
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           a_scales(%sa : memref<40x2xf32>, #qmm.scale<block 1x128>)
           b_scales(%sb : memref<1x2xf32>, #qmm.scale<block 128x128>) : vector<4xf32>
    vector.store %r, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// M-major A scales ([K / 128, M]): the same scale, indices swapped.
// Per-tensor B: block = the whole [48, 256] matrix, index [0, 0] computed
// as [min(col, 47) / 48, k / 256].
// CHECK-LABEL: func.func @mn_major_and_per_tensor
// CHECK-SAME:    (%[[SA:.*]]: memref<2x40xf32>, %[[SB:.*]]: memref<1x1xf32>, %{{.*}}: index, %{{.*}}: index, %[[K:.*]]: index,
// CHECK:         %[[RC:.*]] = arith.minui %{{.*}}, %c39
// CHECK:         %[[KB:.*]] = arith.divui %[[K]], %c128
// CHECK:         memref.load %[[SA]][%[[KB]], %[[RC]]] : memref<2x40xf32>
// CHECK:         %[[CC:.*]] = arith.minui %{{.*}}, %c47
// CHECK:         %[[BR:.*]] = arith.divui %[[CC]], %c48
// CHECK:         %[[BK:.*]] = arith.divui %[[K]], %c256
// CHECK:         memref.load %[[SB]][%[[BR]], %[[BK]]] : memref<1x1xf32>
func.func @mn_major_and_per_tensor(%sa: memref<2x40xf32>, %sb: memref<1x1xf32>, %row: index, %col: index, %k: index,
                                   %p: vector<4xf32>, %acc: vector<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %r = qmm.wave_scale_accumulate %p into %acc at [%row, %col, %k] problem_size [40, 48, 256]
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           a_scales(%sa : memref<2x40xf32>, #qmm.scale<block 1x128, mn_major>)
           b_scales(%sb : memref<1x1xf32>, #qmm.scale<per_tensor>) : vector<4xf32>
    vector.store %r, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// 32x32 MFMA, 16 items per lane: item i sits at column
// 4 * (l / 32) + i % 4 + 8 * (i / 4); per-row B scales (one per column).
// Item 4 is 8 columns after item 0, item 15 is 27 after.
// CHECK-LABEL: func.func @columns_of_32x32
// CHECK:         %[[GROUP:.*]] = arith.divui %{{.*}}, %c32
// CHECK:         %[[C0:.*]] = arith.muli %[[GROUP]], %c4
// CHECK:         arith.addi %[[C0]], %c8
// CHECK:         arith.addi %[[C0]], %c27
// CHECK:         vector.from_elements {{.*}} : vector<16xf32>
// CHECK:         vector.fma {{.*}} : vector<16xf32>
func.func @columns_of_32x32(%sa: memref<64x1xf32>, %sb: memref<64x1xf32>, %row: index, %col: index, %k: index,
                            %p: vector<16xf32>, %acc: vector<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %r = qmm.wave_scale_accumulate %p into %acc at [%row, %col, %k] problem_size [64, 64, 64]
           config #qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
           a_scales(%sa : memref<64x1xf32>, #qmm.scale<per_row>)
           b_scales(%sb : memref<64x1xf32>, #qmm.scale<per_row>) : vector<16xf32>
    vector.store %r, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}
