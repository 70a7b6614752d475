// RUN: fp8-opt %s -split-input-file --qmm-tile-matmul=chip=gfx950 --cse | FileCheck %s

// gfx950, OCP FP8 on the f8f6f4 16x16x128 form, tile K = scale block = 128:
// every K tile ends a block, so partial sums are not carried across
// iterations: each tile multiplies from zero and is scaled at once.
// 2 x 2 waves of a 64 x 64 tile: 32 x 32 per wave, 2 x 2 MFMA tiles.
// CHECK-LABEL: func.func @one_tile_per_block
// CHECK:       %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:       scf.for %[[T:.*]] = %c0 to %c3 step %c1 iter_args(%[[A0:.*]] = %[[ZERO]], %[[A1:.*]] = %[[ZERO]], %[[A2:.*]] = %[[ZERO]], %[[A3:.*]] = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:         %[[K:.*]] = arith.muli %[[T]], %c128
// CHECK:         %[[P:.*]]:4 = qmm.wave_mma %arg0[%{{.*}}, %[[K]]], %arg2[%{{.*}}, %[[K]]] {{.*}} acc(%[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]])
// CHECK-NOT:     scf.if
// CHECK:         %[[S:.*]]:4 = qmm.wave_scale_accumulate %[[P]]#0, %[[P]]#1, %[[P]]#2, %[[P]]#3 into %[[A0]], %[[A1]], %[[A2]], %[[A3]] at[%{{.*}}, %{{.*}}, %[[K]]]
// CHECK:         scf.yield %[[S]]#0, %[[S]]#1, %[[S]]#2, %[[S]]#3
// CHECK:       qmm.wave_store
func.func @one_tile_per_block(%a: memref<64x384xf8E4M3FN>, %as: memref<64x3xf32>,
                              %b: memref<64x384xf8E4M3FN>, %bs: memref<1x3xf32>,
                              %d: memref<64x64xf32>) {
  qmm.matmul a(%a, %as : memref<64x384xf8E4M3FN>, memref<64x3xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<64x384xf8E4M3FN>, memref<1x3xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = f8f6f4 [16, 16, 128], stages = 1>
             outs(%d : memref<64x64xf32>)
  return
}

// -----

// MX operands on the scaled MFMA: the instruction applies the E8M0 scales,
// so the accumulators go straight through qmm.wave_mma (no partial sums,
// no qmm.wave_scale_accumulate); the scales are indexed in their natural
// [rows, K / 32] shape at the tile's first row and K block k / 32.
// CHECK-LABEL: func.func @mx_scaled
// CHECK:       scf.for %[[T:.*]] = %c0 to %c2 step %c1 iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}, %[[A3:.*]] = %{{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:         %[[K:.*]] = arith.muli %[[T]], %c128
// CHECK:         %[[KB:.*]] = arith.divui %[[K]], %c32
// CHECK:         %[[P:.*]]:4 = qmm.wave_mma %arg0[%[[ROW:.*]], %[[K]]], %arg2[%[[COL:.*]], %[[K]]] wave_offset[%{{.*}}, %{{.*}}] scales(%arg1[%[[ROW]], %[[KB]]], %arg3[%[[COL]], %[[KB]]] : memref<64x8xf8E8M0FNU>, memref<40x8xf8E8M0FNU>) config {{.*}} acc(%[[A0]], %[[A1]], %[[A2]], %[[A3]])
// CHECK-NOT:     qmm.wave_scale_accumulate
// CHECK:         scf.yield %[[P]]#0, %[[P]]#1, %[[P]]#2, %[[P]]#3
// CHECK:       qmm.wave_store
func.func @mx_scaled(%a: memref<64x256xf8E4M3FN>, %as: memref<64x8xf8E8M0FNU>,
                     %b: memref<40x256xf8E5M2>, %bs: memref<40x8xf8E8M0FNU>,
                     %d: memref<64x40xf32>) {
  qmm.matmul a(%a, %as : memref<64x256xf8E4M3FN>, memref<64x8xf8E8M0FNU>) #qmm.scale<mx>
             b(%b, %bs : memref<40x256xf8E5M2>, memref<40x8xf8E8M0FNU>) #qmm.scale<mx>
             config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
             outs(%d : memref<64x40xf32>)
  return
}
