// RUN: fp8-opt %s -split-input-file --qmm-tile-matmul=chip=gfx942 --cse | FileCheck %s

// 1x128 x 128x128 blockwise scales, tile K 64: two K tiles per scale block.
// Grid ceil(48 / 32) x ceil(40 / 32) = 2 x 2 workgroups of 2 x 2 waves
// (256 threads); wave w = thread floordiv 64 owns rows 16 * (w floordiv 2)
// and columns 16 * (w mod 2) of its workgroup's 32 x 32 tile, which starts
// at row 32 * block y, column 32 * block x.
// CHECK-DAG:   #[[WAVE_ROW:map[0-9]*]] = affine_map<()[s0] -> (((s0 floordiv 64) floordiv 2) * 16)>
// CHECK-DAG:   #[[WAVE_COL:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 - ((s0 floordiv 64) floordiv 2) * 32)>
// CHECK-DAG:   #[[TILE_START:map[0-9]*]] = affine_map<()[s0] -> (s0 * 32)>
// The wave's sub-tile: tile start + wave offset, ()[block, thread].
// CHECK-DAG:   #[[SUB_ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 32 + ((s1 floordiv 64) floordiv 2) * 16)>
// CHECK-DAG:   #[[SUB_COL:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 32 + (s1 floordiv 64) * 16 - ((s1 floordiv 64) floordiv 2) * 32)>
// One trip per scale block: trip t (t = 0, 2: the first tile of the
// block) multiplies tiles t and t + 1, at k = 64 * t and 64 * t + 64; the
// block starts at k = 64 * t.
// CHECK-DAG:   #[[K_START:map[0-9]*]] = affine_map<(d0) -> (d0 * 64)>
// CHECK-DAG:   #[[K_SECOND:map[0-9]*]] = affine_map<(d0) -> (d0 * 64 + 64)>
// The kernel lives in the module, marked as a container of GPU code.
// CHECK:       module attributes {gpu.container_module}
// CHECK-LABEL: func.func @two_tiles_per_block
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
// CHECK:       gpu.launch blocks(%[[BX:[^ ,]+]], %[[BY:[^ ,]+]], %{{.*}}) in ({{.*}} = %[[C2]], {{.*}} = %[[C2]], {{.*}} = %[[C1]]) threads(%[[TX:[^ ,]+]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C256]], {{.*}} = %[[C1]], {{.*}} = %[[C1]])
// CHECK-NEXT:    %[[WROW:.*]] = affine.apply #[[WAVE_ROW]]()[%[[TX]]]
// CHECK-NEXT:    %[[WCOL:.*]] = affine.apply #[[WAVE_COL]]()[%[[TX]]]
// CHECK-NEXT:    %[[TROW:.*]] = affine.apply #[[TILE_START]]()[%[[BY]]]
// CHECK-NEXT:    %[[TCOL:.*]] = affine.apply #[[TILE_START]]()[%[[BX]]]
// CHECK-NEXT:    %[[ROW:.*]] = affine.apply #[[SUB_ROW]]()[%[[BY]], %[[TX]]]
// CHECK-NEXT:    %[[COL:.*]] = affine.apply #[[SUB_COL]]()[%[[BX]], %[[TX]]]
// 256 / 64 = 4 K tiles in 2 trips of 2, carrying only the accumulator: the
// block's MFMA chain starts from zero and is scaled at the end of the trip,
// with no branch.
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         %[[RES:.*]] = scf.for %[[T:.*]] = %c0 to %c4 step %[[C2]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<4xf32>)
// CHECK-NEXT:      %[[K0:.*]] = affine.apply #[[K_START]](%[[T]])
// CHECK-NEXT:      %[[P0:.*]] = qmm.wave_mma %arg0[%[[TROW]], %[[K0]]], %arg2[%[[TCOL]], %[[K0]]] wave_offset[%[[WROW]], %[[WCOL]]] {{.*}} acc(%[[ZERO]])
// CHECK-NEXT:      %[[K1:.*]] = affine.apply #[[K_SECOND]](%[[T]])
// CHECK-NEXT:      %[[P1:.*]] = qmm.wave_mma %arg0[%[[TROW]], %[[K1]]], %arg2[%[[TCOL]], %[[K1]]] wave_offset[%[[WROW]], %[[WCOL]]] {{.*}} acc(%[[P0]])
// CHECK-NEXT:      %[[S:.*]] = qmm.wave_scale_accumulate %[[P1]] into %[[ACC]] at[%[[ROW]], %[[COL]], %[[K0]]] problem_size [40, 48, 256] {{.*}} a_scales(%arg1 : memref<40x2xf32>, #qmm.scale<block 1x128>) b_scales(%arg3 : memref<1x2xf32>, #qmm.scale<block 128x128>)
// CHECK-NEXT:      scf.yield %[[S]]
// CHECK-NEXT:    } {qmm.k_loop}
// 32 divides neither M = 40 nor N = 48: both edges are tested.
// CHECK:         qmm.wave_store %[[RES]] into %arg4[%[[ROW]], %[[COL]]] in_bounds [false, false] config(
// CHECK-SAME:      : memref<40x48xbf16>, vector<4xf32>
// CHECK-NOT:   qmm.matmul
func.func @two_tiles_per_block(%a: memref<40x256xf8E4M3FNUZ>, %as: memref<40x2xf32>,
                               %b: memref<48x256xf8E4M3FNUZ>, %bs: memref<1x2xf32>,
                               %d: memref<40x48xbf16>) {
  qmm.matmul a(%a, %as : memref<40x256xf8E4M3FNUZ>, memref<40x2xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<48x256xf8E4M3FNUZ>, memref<1x2xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [32, 32, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<40x48xbf16>)
  return
}

// -----

// Per-tensor scales: one block spanning K, so the loop over its
// ceil(80 / 32) = 3 tiles (a K tail) only multiplies, carrying the partial
// sums; they are scaled once, after it, into zero accumulators, at K block
// start 0. One wave with 64 / 32 = 2 MFMA tiles of 32 x 32: two
// accumulators of 16 items per lane. `accumulate` reaches the store. One
// wave: its rows start at 64 * (thread floordiv 64), its column offset is 0
// (folded: the sub-tile column is the tile's).
// CHECK-DAG:   #[[WAVE_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 64)>
// CHECK-DAG:   #[[TILE_ROW:map[0-9]*]] = affine_map<()[s0] -> (s0 * 64)>
// CHECK-DAG:   #[[TILE_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 32)>
// CHECK-DAG:   #[[SUB_ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 64 + (s1 floordiv 64) * 64)>
// CHECK-DAG:   #[[K_START:map[0-9]*]] = affine_map<(d0) -> (d0 * 32)>
// CHECK-LABEL: func.func @per_tensor_k_tail
// CHECK:       gpu.launch blocks(%[[BX:[^ ,]+]], %[[BY:[^ ,]+]], %{{.*}}) in ({{.*}}) threads(%[[TX:[^ ,]+]], %{{.*}}, %{{.*}}) in ({{.*}} = %c64,
// CHECK:         %[[WROW:.*]] = affine.apply #[[WAVE_ROW]]()[%[[TX]]]
// CHECK:         %[[TROW:.*]] = affine.apply #[[TILE_ROW]]()[%[[BY]]]
// CHECK:         %[[TCOL:.*]] = affine.apply #[[TILE_COL]]()[%[[BX]]]
// CHECK:         %[[ROW:.*]] = affine.apply #[[SUB_ROW]]()[%[[BY]], %[[TX]]]
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:       %[[SUMS:.*]]:2 = scf.for %[[T:.*]] = %c0 to %c3 step %c1 iter_args(%[[S0:.*]] = %[[ZERO]], %[[S1:.*]] = %[[ZERO]]) -> (vector<16xf32>, vector<16xf32>)
// CHECK-NEXT:    %[[K:.*]] = affine.apply #[[K_START]](%[[T]])
// CHECK-NEXT:    %[[P:.*]]:2 = qmm.wave_mma %arg0[%[[TROW]], %[[K]]], %arg2[%[[TCOL]], %[[K]]] wave_offset[%[[WROW]], %c0] {{.*}} acc(%[[S0]], %[[S1]])
// CHECK-NEXT:    scf.yield %[[P]]#0, %[[P]]#1
// CHECK-NEXT:  } {qmm.k_loop}
// CHECK-NEXT:  %[[SCALED:.*]]:2 = qmm.wave_scale_accumulate %[[SUMS]]#0, %[[SUMS]]#1 into %[[ZERO]], %[[ZERO]] at[%[[ROW]], %[[TCOL]], %c0] problem_size [33, 17, 80]
// Tiles 64 x 32 divide neither M = 33 nor N = 17.
// CHECK-NEXT:  qmm.wave_store %[[SCALED]]#0, %[[SCALED]]#1 into %arg4[%[[ROW]], %[[TCOL]]] in_bounds [false, false] accumulate config(
// CHECK-SAME:    : memref<33x17xf16>, vector<16xf32>, vector<16xf32>
func.func @per_tensor_k_tail(%a: memref<33x80xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                             %b: memref<17x80xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                             %d: memref<33x17xf16>) {
  qmm.matmul a(%a, %as : memref<33x80xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<17x80xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             accumulate
             config #qmm.config<tile = [64, 32, 32], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
             outs(%d : memref<33x17xf16>)
  return
}

// -----

// Blockwise with a K tail: K = 320 with tile K 64 is 5 tiles, blocks of 2:
// a block ends after every second tile ((t + 1) mod 2 = 0) and after the
// last one (t + 1 = 5).
// CHECK-DAG:   #[[PLUS_ONE:map[0-9]*]] = affine_map<(d0) -> (d0 + 1)>
// CHECK-DAG:   #[[NEXT_MOD_2:map[0-9]*]] = affine_map<(d0) -> (d0 - ((d0 + 1) floordiv 2) * 2 + 1)>
// CHECK-LABEL: func.func @blockwise_k_tail
// CHECK:       scf.for %[[T:.*]] = %c0 to %c5
// CHECK:         %[[NEXT:.*]] = affine.apply #[[PLUS_ONE]](%[[T]])
// CHECK-DAG:     %[[LAST:.*]] = arith.cmpi eq, %[[NEXT]], %c5
// CHECK-DAG:     %[[R:.*]] = affine.apply #[[NEXT_MOD_2]](%[[T]])
// CHECK-DAG:     %[[EVERY:.*]] = arith.cmpi eq, %[[R]], %c0
// CHECK:         %[[ENDS:.*]] = arith.ori %[[EVERY]], %[[LAST]]
// CHECK:         scf.if %[[ENDS]]
// 32 x 32 tiles divide the 32 x 32 output: no edge tests.
// CHECK:       qmm.wave_store {{.*}} in_bounds [true, true] config(
func.func @blockwise_k_tail(%a: memref<32x320xf8E4M3FNUZ>, %as: memref<32x3xf32>,
                            %b: memref<32x320xf8E4M3FNUZ>, %bs: memref<1x3xf32>,
                            %d: memref<32x32xf32>) {
  qmm.matmul a(%a, %as : memref<32x320xf8E4M3FNUZ>, memref<32x3xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<32x320xf8E4M3FNUZ>, memref<1x3xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [32, 32, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

// The epilogue goes to qmm.wave_store: bias, activation and aux.
// CHECK-LABEL: func.func @epilogue
// CHECK:       qmm.wave_store %{{.*}} into %arg5[%{{.*}}, %{{.*}}] in_bounds [true, true] bias(%arg4 : memref<32xf32>) activation gelu_tanh aux(%arg6 : memref<32x32xbf16>) config(
func.func @epilogue(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                    %b: memref<32x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                    %bias: memref<32xf32>, %d: memref<32x32xf32>, %aux: memref<32x32xbf16>) {
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             bias(%bias : memref<32xf32>) activation gelu_tanh
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>, aux %aux : memref<32x32xbf16>)
  return
}

// -----

// An FP8 output: the wave_store carries the scales and the rule in force
// (the encoding's defaults resolved: `none`, min_amax 1e-4). Waves 2 x 1:
// wave w = thread floordiv 64 owns rows 16 * w, all 32 columns (column
// offset 0, folded).
// CHECK-DAG:   #[[SUB_ROW:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 32 + (s1 floordiv 64) * 16)>
// CHECK-DAG:   #[[TILE_START:map[0-9]*]] = affine_map<()[s0] -> (s0 * 32)>
// CHECK-LABEL: func.func @fp8_output
// CHECK:       gpu.launch blocks(%[[BX:[^ ,]+]], %[[BY:[^ ,]+]], %{{.*}}) in ({{.*}}) threads(%[[TX:[^ ,]+]], %{{.*}}, %{{.*}})
// CHECK-DAG:     %[[TCOL:.*]] = affine.apply #[[TILE_START]]()[%[[BX]]]
// CHECK-DAG:     %[[ROW:.*]] = affine.apply #[[SUB_ROW]]()[%[[BY]], %[[TX]]]
// CHECK:       qmm.wave_store %{{.*}} into %arg4[%[[ROW]], %[[TCOL]]] in_bounds [true, true] out_scales(%arg5 : memref<32x1xf32>) #qmm.scale<block 1x128> rounding none min_amax 9.99999974E-5 config(
func.func @fp8_output(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                      %b: memref<32x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                      %d: memref<32x32xf8E4M3FNUZ>, %s: memref<32x1xf32>) {
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf8E4M3FNUZ>) out_scales(%s : memref<32x1xf32>) #qmm.scale<block 1x128>
  return
}

// -----

// in_bounds is per dimension: tile M 32 divides M = 64 (no row tests),
// tile N 32 does not divide N = 40 (column tests).
// CHECK-LABEL: func.func @in_bounds_rows_only
// CHECK:       qmm.wave_store {{.*}} in_bounds [true, false] config(
// CHECK-SAME:    : memref<64x40xf32>, vector<4xf32>
func.func @in_bounds_rows_only(%a: memref<64x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                               %b: memref<40x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                               %d: memref<64x40xf32>) {
  qmm.matmul a(%a, %as : memref<64x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<40x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<64x40xf32>)
  return
}
