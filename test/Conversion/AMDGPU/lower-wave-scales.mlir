// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-scales=chip=gfx942 --cse | FileCheck %s

// 1x128 activations x 128x128 weights, 16x16 MFMA (4 items per lane). Lane
// l's items are at row `row` + l % 16 and columns `col` + 4 * (l / 16) + i.
// A's scale: [min(row, 39) / 1, k / 128]. The wave's 16 columns start at a
// multiple of 16 (the op's contract), so a 128-column block holds them all:
// B's scale is loaded once, at [min(col, 47) / 128, k / 128] (columns past
// N = 48 clamped), and one product with A's scale is broadcast to the
// lane's items as two factors: (sa * sb, 1) where that product is a normal
// f32 (its magnitude's bits minus 2^23 below 0x7F000000) or a scale is 0,
// else (sa, sb); one multiply and one fma.
// Index maps over the thread id s0 (lane = s0 mod 64) and the op's
// row / col / k:
//   item row: s1 (row) + lane % 16, which MLIR prints with s0 mod 16
//   expanded to s0 - (s0 floordiv 16) * 16
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
//   block of 128 (k / 128 for A and B, clamped column / 128 for B)
// CHECK-DAG: #[[DIV128:.*]] = affine_map<()[s0] -> (s0 floordiv 128)>
// CHECK-LABEL: func.func @blockwise
// CHECK-SAME:    (%[[SA:.*]]: memref<40x2xf32>, %[[SB:.*]]: memref<1x2xf32>, %[[ROWARG:.*]]: index, %[[COLARG:.*]]: index, %[[K:.*]]: index, %[[P:.*]]: vector<4xf32>, %[[ACC:.*]]: vector<4xf32>,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWARG]]]
// CHECK:         %[[RC:.*]] = arith.minui %[[R]], %c39
// CHECK:         %[[KB:.*]] = affine.apply #[[DIV128]]()[%[[K]]]
// CHECK:         %[[SCALE_A:.*]] = memref.load %[[SA]][%[[RC]], %[[KB]]]
// CHECK:         %[[CC:.*]] = arith.minui %[[COLARG]], %c47
// CHECK:         %[[BR:.*]] = affine.apply #[[DIV128]]()[%[[CC]]]
// CHECK:         %[[SCALE_B:.*]] = memref.load %[[SB]][%[[BR]], %[[KB]]]
// CHECK-NOT:     memref.load
// CHECK:         %[[S:.*]] = arith.mulf %[[SCALE_A]], %[[SCALE_B]] : f32
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[S]] : f32 to i32
// CHECK:         %[[MAG:.*]] = arith.andi %[[BITS]], %c2147483647_i32
// CHECK-DAG:     %[[TOP:.*]] = arith.constant 2130706432 : i32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant 8388608 : i32
// CHECK:         %[[OFF:.*]] = arith.subi %[[MAG]], %[[MIN]]
// CHECK:         %[[NORMAL:.*]] = arith.cmpi ult, %[[OFF]], %[[TOP]]
// CHECK-DAG:     %[[BZERO:.*]] = arith.cmpf oeq, %[[SCALE_B]], %[[ZERO:.*]] : f32
// CHECK-DAG:     %[[AZERO:.*]] = arith.cmpf oeq, %[[SCALE_A]], %[[ZERO]] : f32
// CHECK:         %[[ANYZERO:.*]] = arith.ori %[[AZERO]], %[[BZERO]]
// CHECK:         %[[OK:.*]] = arith.ori %[[NORMAL]], %[[ANYZERO]]
// CHECK:         %[[F1:.*]] = arith.select %[[OK]], %[[S]], %[[SCALE_A]] : f32
// CHECK:         %[[F2:.*]] = arith.select %[[OK]], %{{.*}}, %[[SCALE_B]] : f32
// CHECK:         %[[F1V:.*]] = vector.broadcast %[[F1]] : f32 to vector<4xf32>
// CHECK:         %[[F2V:.*]] = vector.broadcast %[[F2]] : f32 to vector<4xf32>
// CHECK:         %[[SCALED:.*]] = arith.mulf %[[P]], %[[F1V]] : vector<4xf32>
// CHECK:         %[[NEW:.*]] = vector.fma %[[SCALED]], %[[F2V]], %[[ACC]] : vector<4xf32>
// CHECK:         vector.store %[[NEW]]
// CHECK-NOT:   qmm.wave_scale_accumulate
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
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
// Per-tensor B: block = the whole [48, 256] matrix (48 rows, a multiple of
// the wave's 16 columns), loaded once at [min(col, 47) / 48, k / 256].
//   item row as in @blockwise
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
//   A's K block: k / 128
// CHECK-DAG: #[[DIV128:.*]] = affine_map<()[s0] -> (s0 floordiv 128)>
//   B's per-tensor block: clamped column / 48 and k / 256
// CHECK-DAG: #[[DIV48:.*]] = affine_map<()[s0] -> (s0 floordiv 48)>
// CHECK-DAG: #[[DIV256:.*]] = affine_map<()[s0] -> (s0 floordiv 256)>
// CHECK-LABEL: func.func @mn_major_and_per_tensor
// CHECK-SAME:    (%[[SA:.*]]: memref<2x40xf32>, %[[SB:.*]]: memref<1x1xf32>, %[[ROWARG:.*]]: index, %[[COLARG:.*]]: index, %[[K:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWARG]]]
// CHECK:         %[[RC:.*]] = arith.minui %[[R]], %c39
// CHECK:         %[[KB:.*]] = affine.apply #[[DIV128]]()[%[[K]]]
// CHECK:         memref.load %[[SA]][%[[KB]], %[[RC]]] : memref<2x40xf32>
// CHECK:         %[[CC:.*]] = arith.minui %[[COLARG]], %c47
// CHECK:         %[[BR:.*]] = affine.apply #[[DIV48]]()[%[[CC]]]
// CHECK:         %[[BK:.*]] = affine.apply #[[DIV256]]()[%[[K]]]
// CHECK:         memref.load %[[SB]][%[[BR]], %[[BK]]] : memref<1x1xf32>
// CHECK:         vector.broadcast {{.*}} : f32 to vector<4xf32>
// CHECK:         vector.fma {{.*}} : vector<4xf32>
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
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
//   item row: s1 (row) + lane % 32 (printed with the mod expanded)
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 32) * 32)>
//   per-row scales: one block of K = 64
// CHECK-DAG: #[[DIV64:.*]] = affine_map<()[s0] -> (s0 floordiv 64)>
//   columns of items 0, 3, 4, 8 and 15: s1 (col) + 4 * (lane / 32) + 0, 3,
//   8, 16 and 27
// CHECK-DAG: #[[COL0:.*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4)>
// CHECK-DAG: #[[COL3:.*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 3)>
// CHECK-DAG: #[[COL4:.*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 8)>
// CHECK-DAG: #[[COL8:.*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 16)>
// CHECK-DAG: #[[COL15:.*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 32) * 4 + 27)>
// CHECK-LABEL: func.func @columns_of_32x32
// CHECK-SAME:    (%[[SA:.*]]: memref<64x1xf32>, %[[SB:.*]]: memref<64x1xf32>, %[[ROWARG:.*]]: index, %[[COLARG:.*]]: index, %[[K:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]], %[[ROWARG]]]
// CHECK:         %[[RC:.*]] = arith.minui %[[R]], %c63
// CHECK:         %[[KB:.*]] = affine.apply #[[DIV64]]()[%[[K]]]
// CHECK:         memref.load %[[SA]][%[[RC]], %[[KB]]] : memref<64x1xf32>
// CHECK:         %[[C0:.*]] = affine.apply #[[COL0]]()[%[[TID]], %[[COLARG]]]
// CHECK:         %[[CC0:.*]] = arith.minui %[[C0]], %c63
// CHECK:         memref.load %[[SB]][%[[CC0]], %[[KB]]] : memref<64x1xf32>
// CHECK:         %[[C3:.*]] = affine.apply #[[COL3]]()[%[[TID]], %[[COLARG]]]
// CHECK:         %[[CC3:.*]] = arith.minui %[[C3]], %c63
// CHECK:         memref.load %[[SB]][%[[CC3]], %[[KB]]]
// CHECK:         %[[C4:.*]] = affine.apply #[[COL4]]()[%[[TID]], %[[COLARG]]]
// CHECK:         %[[CC4:.*]] = arith.minui %[[C4]], %c63
// CHECK:         memref.load %[[SB]][%[[CC4]], %[[KB]]]
// CHECK:         %[[C8:.*]] = affine.apply #[[COL8]]()[%[[TID]], %[[COLARG]]]
// CHECK:         %[[CC8:.*]] = arith.minui %[[C8]], %c63
// CHECK:         memref.load %[[SB]][%[[CC8]], %[[KB]]]
// CHECK:         %[[C15:.*]] = affine.apply #[[COL15]]()[%[[TID]], %[[COLARG]]]
// CHECK:         %[[CC15:.*]] = arith.minui %[[C15]], %c63
// CHECK:         memref.load %[[SB]][%[[CC15]], %[[KB]]]
// CHECK:         vector.from_elements {{.*}} : vector<16xf32>
// CHECK:         vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
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

// -----

// A block that holds the wave's rows, one that does not hold its columns.
// Wave sub-tile 32x16 of 16x16 MFMAs: two MFMA rows (repeats M = 2). A's
// 128x128 blocks hold the wave's 32 rows: one A scale, loaded at
// [min(row, 99) / 128, k / 128] and used for both MFMA rows. B's 8x128
// blocks are narrower than the wave's 16 columns: one load per item, at
// [min(col + 4 * (lane / 16) + i, 63) / 8, k / 128].
// CHECK-DAG: #[[DIV128:.*]] = affine_map<()[s0] -> (s0 floordiv 128)>
// CHECK-DAG: #[[DIV8:.*]] = affine_map<()[s0] -> (s0 floordiv 8)>
// CHECK-DAG: #[[COL0:.*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4)>
// CHECK-DAG: #[[COL3:.*]] = affine_map<()[s0, s1] -> (s1 + ((s0 mod 64) floordiv 16) * 4 + 3)>
// CHECK-LABEL: func.func @shared_rows_per_item_columns
// CHECK-SAME:    (%[[SA:.*]]: memref<1x2xf32>, %[[SB:.*]]: memref<8x2xf32>, %[[ROWARG:.*]]: index, %[[COLARG:.*]]: index, %[[K:.*]]: index,
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[RC:.*]] = arith.minui %[[ROWARG]], %c99
// CHECK:         %[[AR:.*]] = affine.apply #[[DIV128]]()[%[[RC]]]
// CHECK:         %[[KB:.*]] = affine.apply #[[DIV128]]()[%[[K]]]
// CHECK:         %[[SCALE_A:.*]] = memref.load %[[SA]][%[[AR]], %[[KB]]]
// CHECK-NOT:     memref.load %[[SA]]
// CHECK:         %[[C0:.*]] = affine.apply #[[COL0]]()[%[[TID]], %[[COLARG]]]
// CHECK:         %[[CC0:.*]] = arith.minui %[[C0]], %c63
// CHECK:         %[[BR0:.*]] = affine.apply #[[DIV8]]()[%[[CC0]]]
// CHECK:         memref.load %[[SB]][%[[BR0]], %[[KB]]]
// CHECK-COUNT-2: memref.load %[[SB]]
// CHECK:         %[[C3:.*]] = affine.apply #[[COL3]]()[%[[TID]], %[[COLARG]]]
// CHECK:         %[[CC3:.*]] = arith.minui %[[C3]], %c63
// CHECK:         %[[BR3:.*]] = affine.apply #[[DIV8]]()[%[[CC3]]]
// CHECK:         memref.load %[[SB]][%[[BR3]], %[[KB]]]
// CHECK-NOT:     memref.load
// Both MFMA rows multiply by the same A scale.
// CHECK-COUNT-4: arith.mulf %[[SCALE_A]], {{.*}} : f32
// CHECK:         vector.from_elements
// CHECK:         vector.fma {{.*}} : vector<4xf32>
// CHECK:         vector.fma {{.*}} : vector<4xf32>
// CHECK-NOT:     vector.fma
func.func @shared_rows_per_item_columns(%sa: memref<1x2xf32>, %sb: memref<8x2xf32>, %row: index, %col: index, %k: index,
                                        %p: vector<4xf32>, %acc: vector<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %r:2 = qmm.wave_scale_accumulate %p, %acc into %acc, %p at [%row, %col, %k] problem_size [100, 64, 256]
           config #qmm.config<tile = [32, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           a_scales(%sa : memref<1x2xf32>, #qmm.scale<block 128x128>)
           b_scales(%sb : memref<8x2xf32>, #qmm.scale<block 8x128>) : vector<4xf32>, vector<4xf32>
    vector.store %r#0, %out[%c0] : memref<4xf32>, vector<4xf32>
    vector.store %r#1, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
