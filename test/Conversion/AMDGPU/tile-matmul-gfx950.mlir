// RUN: fp8-opt %s -split-input-file --qmm-tile-matmul=chip=gfx950 --cse | FileCheck %s

// Index maps of a 64 x 64 tile of 2 x 2 waves (32 x 32 each): workgroup
// (block y, block x) = tile (by, bx), wave w = tid floordiv 64 at
// (w floordiv 2, w mod 2). MLIR prints 32 * (w mod 2) flattened as
// w * 32 - (w floordiv 2) * 64.

// gfx950, OCP FP8 on the f8f6f4 16x16x128 form, tile K = scale block = 128:
// every K tile ends a block, so partial sums are not carried across
// iterations: each tile multiplies from zero and is scaled at once.
// 2 x 2 waves of a 64 x 64 tile: 32 x 32 per wave, 2 x 2 MFMA tiles.
// M = N = 64: the tile divides both, so the store claims in_bounds.
// Wave offsets in the tile: 32 * (w floordiv 2), 32 * (w mod 2).
// CHECK-DAG:   #[[WROW:map[0-9]*]] = affine_map<()[s0] -> (((s0 floordiv 64) floordiv 2) * 32)>
// CHECK-DAG:   #[[WCOL:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 32 - ((s0 floordiv 64) floordiv 2) * 64)>
// Tile origin: block id * 64.
// CHECK-DAG:   #[[TILE:map[0-9]*]] = affine_map<()[s0] -> (s0 * 64)>
// Wave sub-tile origin in the output: by * 64 + wave row, bx * 64 + wave column.
// CHECK-DAG:   #[[SROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 64 + ((s1 floordiv 64) floordiv 2) * 32)>
// CHECK-DAG:   #[[SCOL:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 64 + (s1 floordiv 64) * 32 - ((s1 floordiv 64) floordiv 2) * 64)>
// K of iteration t: t * 128.
// CHECK-DAG:   #[[KMAP:map[0-9]*]] = affine_map<(d0) -> (d0 * 128)>
// CHECK-LABEL: func.func @one_tile_per_block
// CHECK-SAME:    (%[[A:.*]]: memref<64x384xf8E4M3FN>, %{{.*}}: memref<64x3xf32>, %[[B:.*]]: memref<64x384xf8E4M3FN>, %{{.*}}: memref<1x3xf32>, %[[D:.*]]: memref<64x64xf32>)
// CHECK:       gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in {{.*}} threads(%[[TX:[a-z0-9_]+]],
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:       %[[WR:.*]] = affine.apply #[[WROW]]()[%[[TX]]]
// CHECK:       %[[WC:.*]] = affine.apply #[[WCOL]]()[%[[TX]]]
// CHECK:       %[[TR:.*]] = affine.apply #[[TILE]]()[%[[BY]]]
// CHECK:       %[[TC:.*]] = affine.apply #[[TILE]]()[%[[BX]]]
// CHECK:       %[[SR:.*]] = affine.apply #[[SROW]]()[%[[BY]], %[[TX]]]
// CHECK:       %[[SC:.*]] = affine.apply #[[SCOL]]()[%[[BX]], %[[TX]]]
// CHECK:       %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:       scf.for %[[T:.*]] = %c0 to %c3 step %c1 iter_args(%[[A0:.*]] = %[[ZERO]], %[[A1:.*]] = %[[ZERO]], %[[A2:.*]] = %[[ZERO]], %[[A3:.*]] = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:         %[[K:.*]] = affine.apply #[[KMAP]](%[[T]])
// CHECK:         %[[P:.*]]:4 = qmm.wave_mma %[[A]][%[[TR]], %[[K]]], %[[B]][%[[TC]], %[[K]]] wave_offset[%[[WR]], %[[WC]]] {{.*}} acc(%[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]])
// CHECK-NOT:     scf.if
// CHECK:         %[[S:.*]]:4 = qmm.wave_scale_accumulate %[[P]]#0, %[[P]]#1, %[[P]]#2, %[[P]]#3 into %[[A0]], %[[A1]], %[[A2]], %[[A3]] at[%[[SR]], %[[SC]], %[[K]]]
// CHECK:         scf.yield %[[S]]#0, %[[S]]#1, %[[S]]#2, %[[S]]#3
// CHECK:       qmm.wave_store %{{.*}} into %[[D]][%[[SR]], %[[SC]]] in_bounds [true, true] config
// CHECK-NOT:   arith.{{(add|mul|div|rem)}}{{.*}} : index
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
// M = 64 is a multiple of tile M, N = 40 is not: in_bounds [true, false].
// K of iteration t: t * 128; its scale block (t * 128) floordiv 32 = t * 4.
// CHECK-DAG:   #[[TILE:map[0-9]*]] = affine_map<()[s0] -> (s0 * 64)>
// CHECK-DAG:   #[[KMAP:map[0-9]*]] = affine_map<(d0) -> (d0 * 128)>
// CHECK-DAG:   #[[KBMAP:map[0-9]*]] = affine_map<(d0) -> (d0 * 4)>
// CHECK-LABEL: func.func @mx_scaled
// CHECK:       gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}})
// CHECK:       %[[ROW:.*]] = affine.apply #[[TILE]]()[%[[BY]]]
// CHECK:       %[[COL:.*]] = affine.apply #[[TILE]]()[%[[BX]]]
// CHECK:       scf.for %[[T:.*]] = %c0 to %c2 step %c1 iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}, %[[A3:.*]] = %{{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:         %[[K:.*]] = affine.apply #[[KMAP]](%[[T]])
// CHECK:         %[[KB:.*]] = affine.apply #[[KBMAP]](%[[T]])
// CHECK:         %[[P:.*]]:4 = qmm.wave_mma %arg0[%[[ROW]], %[[K]]], %arg2[%[[COL]], %[[K]]] wave_offset[%{{.*}}, %{{.*}}] scales(%arg1[%[[ROW]], %[[KB]]], %arg3[%[[COL]], %[[KB]]] : memref<64x8xf8E8M0FNU>, memref<40x8xf8E8M0FNU>) config {{.*}} acc(%[[A0]], %[[A1]], %[[A2]], %[[A3]])
// CHECK-NOT:     qmm.wave_scale_accumulate
// CHECK:         scf.yield %[[P]]#0, %[[P]]#1, %[[P]]#2, %[[P]]#3
// CHECK:       qmm.wave_store {{.*}} in_bounds [true, false] config
func.func @mx_scaled(%a: memref<64x256xf8E4M3FN>, %as: memref<64x8xf8E8M0FNU>,
                     %b: memref<40x256xf8E5M2>, %bs: memref<40x8xf8E8M0FNU>,
                     %d: memref<64x40xf32>) {
  qmm.matmul a(%a, %as : memref<64x256xf8E4M3FN>, memref<64x8xf8E8M0FNU>) #qmm.scale<mx>
             b(%b, %bs : memref<40x256xf8E5M2>, memref<40x8xf8E8M0FNU>) #qmm.scale<mx>
             config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
             outs(%d : memref<64x40xf32>)
  return
}

// -----

// in_bounds is decided per dimension: M = 40 is not a multiple of tile M
// (64), N = 128 is one of tile N: in_bounds [false, true]. The grid is
// ceil(N / 64) = 2 by ceil(M / 64) = 1 workgroups.
// CHECK-LABEL: func.func @rows_not_divided
// CHECK:       gpu.launch blocks({{.*}}) in (%{{[a-z0-9_]+}} = %c2, %{{[a-z0-9_]+}} = %c1, %{{[a-z0-9_]+}} = %c1) threads
// CHECK:       qmm.wave_store {{.*}} in_bounds [false, true] config
func.func @rows_not_divided(%a: memref<40x384xf8E4M3FN>, %as: memref<40x3xf32>,
                            %b: memref<128x384xf8E4M3FN>, %bs: memref<1x3xf32>,
                            %d: memref<40x128xf32>) {
  qmm.matmul a(%a, %as : memref<40x384xf8E4M3FN>, memref<40x3xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<128x384xf8E4M3FN>, memref<1x3xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = f8f6f4 [16, 16, 128], stages = 1>
             outs(%d : memref<40x128xf32>)
  return
}
