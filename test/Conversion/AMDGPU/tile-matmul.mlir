// RUN: fp8-opt %s -split-input-file --qmm-tile-matmul=chip=gfx942 --cse | FileCheck %s

// 1x128 x 128x128 blockwise scales, tile K 64: two K tiles per scale block.
// Grid ceil(48 / 32) x ceil(40 / 32) = 2 x 2 workgroups of 2 x 2 waves
// (256 threads); wave w owns rows 16 * (w / 2) and columns 16 * (w % 2) of
// its workgroup's 32 x 32 tile.
// CHECK-LABEL: func.func @two_tiles_per_block
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
// CHECK:       gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in ({{.*}} = %[[C2]], {{.*}} = %[[C2]], {{.*}} = %[[C1]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C256]], {{.*}} = %[[C1]], {{.*}} = %[[C1]])
// CHECK:         %[[WAVE:.*]] = arith.divui %[[TX]], %c64
// CHECK:         %[[WM:.*]] = arith.divui %[[WAVE]], %[[C2]]
// CHECK:         %[[WROW:.*]] = arith.muli %[[WM]], %c16
// CHECK:         %[[WN:.*]] = arith.remui %[[WAVE]], %[[C2]]
// CHECK:         %[[WCOL:.*]] = arith.muli %[[WN]], %c16
// CHECK:         %[[TROW:.*]] = arith.muli %[[BY]], %c32
// CHECK:         %[[TCOL:.*]] = arith.muli %[[BX]], %c32
// CHECK:         %[[ROW:.*]] = arith.addi %[[TROW]], %[[WROW]]
// CHECK:         %[[COL:.*]] = arith.addi %[[TCOL]], %[[WCOL]]
// 256 / 64 = 4 K tiles, carrying the accumulator and the block's partials.
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         %[[RES:.*]]:2 = scf.for %[[T:.*]] = %c0 to %c4 step %[[C1]] iter_args(%[[ACC:.*]] = %[[ZERO]], %[[PART:.*]] = %[[ZERO]])
// CHECK:           %[[K:.*]] = arith.muli %[[T]], %c64
// CHECK:           %[[P:.*]] = qmm.wave_mma %arg0[%[[TROW]], %[[K]]], %arg2[%[[TCOL]], %[[K]]] wave_offset[%[[WROW]], %[[WCOL]]] {{.*}} acc(%[[PART]])
// The block ends after every second tile (4 is a multiple of 2, so the
// last tile needs no test of its own).
// CHECK:           %[[NEXT:.*]] = arith.addi %[[T]], %[[C1]]
// CHECK:           %[[R:.*]] = arith.remui %[[NEXT]], %[[C2]]
// CHECK:           %[[ENDS:.*]] = arith.cmpi eq, %[[R]], %c0
// CHECK:           scf.if %[[ENDS]]
// CHECK:             %[[BLOCK:.*]] = arith.divui %[[T]], %[[C2]]
// CHECK:             %[[KB:.*]] = arith.muli %[[BLOCK]], %c128
// CHECK:             %[[S:.*]] = qmm.wave_scale_accumulate %[[P]] into %[[ACC]] at[%[[ROW]], %[[COL]], %[[KB]]] problem_size [40, 48, 256] {{.*}} a_scales(%arg1 : memref<40x2xf32>, #qmm.scale<block 1x128>) b_scales(%arg3 : memref<1x2xf32>, #qmm.scale<block 128x128>)
// CHECK:             scf.yield %[[S]], %[[ZERO]]
// CHECK:           } else {
// CHECK:             scf.yield %[[ACC]], %[[P]]
// CHECK:         qmm.wave_store %[[RES]]#0 into %arg4[%[[ROW]], %[[COL]]] config(
// CHECK-SAME:      : memref<40x48xbf16>, vector<4xf32>
// CHECK-NOT:   qmm.matmul
// CHECK: module attributes {gpu.container_module}
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

// Per-tensor scales: one block spanning K, scaled after the last of
// ceil(80 / 32) = 3 tiles (a K tail), at K block start 0. One wave with
// 64 / 32 = 2 MFMA tiles of 32 x 32: two accumulators of 16 items per lane.
// `accumulate` reaches the store.
// CHECK-LABEL: func.func @per_tensor_k_tail
// CHECK:       threads({{.*}}) in ({{.*}} = %c64,
// CHECK:       scf.for %[[T:.*]] = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:         %[[P:.*]]:2 = qmm.wave_mma
// CHECK:         %[[NEXT:.*]] = arith.addi %[[T]], %c1
// CHECK:         %[[LAST:.*]] = arith.cmpi eq, %[[NEXT]], %c3
// CHECK:         scf.if %[[LAST]]
// CHECK:           qmm.wave_scale_accumulate %[[P]]#0, %[[P]]#1 into {{.*}} at[%{{.*}}, %{{.*}}, %c0] problem_size [33, 17, 80]
// CHECK:       qmm.wave_store {{.*}} accumulate config(
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
// a block ends after every second tile and after the last one.
// CHECK-LABEL: func.func @blockwise_k_tail
// CHECK:       scf.for %[[T:.*]] = %c0 to %c5
// CHECK:         %[[NEXT:.*]] = arith.addi %[[T]], %c1
// CHECK-DAG:     %[[LAST:.*]] = arith.cmpi eq, %[[NEXT]], %c5
// CHECK-DAG:     %[[R:.*]] = arith.remui %[[NEXT]], %c2
// CHECK-DAG:     %[[EVERY:.*]] = arith.cmpi eq, %[[R]], %c0
// CHECK:         %[[ENDS:.*]] = arith.ori %[[EVERY]], %[[LAST]]
// CHECK:         scf.if %[[ENDS]]
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
// CHECK:       qmm.wave_store %{{.*}} into %arg5[%{{.*}}, %{{.*}}] bias(%arg4 : memref<32xf32>) activation gelu_tanh aux(%arg6 : memref<32x32xbf16>) config(
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
// (the encoding's defaults resolved: `none`, min_amax 1e-4).
// CHECK-LABEL: func.func @fp8_output
// CHECK:       qmm.wave_store %{{.*}} into %arg4[%{{.*}}, %{{.*}}] out_scales(%arg5 : memref<32x1xf32>) #qmm.scale<block 1x128> rounding none min_amax 9.99999974E-5 config(
func.func @fp8_output(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                      %b: memref<32x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                      %d: memref<32x32xf8E4M3FNUZ>, %s: memref<32x1xf32>) {
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf8E4M3FNUZ>) out_scales(%s : memref<32x1xf32>) #qmm.scale<block 1x128>
  return
}
