// RUN: fp8-opt %s | FileCheck %s
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --mlir-print-op-generic | fp8-opt | FileCheck %s

// The wave-level ops of the AMD pipeline round-trip in custom and generic
// form; results take the accumulators' types.

// CHECK-LABEL: func.func @wave_ops
// CHECK:       %[[P:.*]]:2 = qmm.wave_mma %arg0[%arg4, %arg6], %arg1[%arg5, %arg6] wave_offset[%arg4, %arg5] config #qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1> acc(%arg7, %arg8) : memref<64x128xf8E4M3FNUZ>, memref<32x128xf8E5M2FNUZ>, vector<16xf32>, vector<16xf32>
// CHECK:       %[[S:.*]]:2 = qmm.wave_scale_accumulate %[[P]]#0, %[[P]]#1 into %arg7, %arg8 at[%arg4, %arg5, %arg6] problem_size [64, 32, 128] config #qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1> a_scales(%arg2 : memref<64x1xf32>, #qmm.scale<block 1x128>) b_scales(%arg3 : memref<1x1xf32>, #qmm.scale<block 128x128>) : vector<16xf32>, vector<16xf32>
// CHECK:       qmm.wave_store %[[S]]#0, %[[S]]#1 into %arg9[%arg4, %arg5] in_bounds [true, false] accumulate config(#qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>) : memref<64x32xbf16>, vector<16xf32>, vector<16xf32>
func.func @wave_ops(%a: memref<64x128xf8E4M3FNUZ>, %b: memref<32x128xf8E5M2FNUZ>,
                    %sa: memref<64x1xf32>, %sb: memref<1x1xf32>,
                    %row: index, %col: index, %k: index,
                    %acc0: vector<16xf32>, %acc1: vector<16xf32>, %d: memref<64x32xbf16>) {
  %p:2 = qmm.wave_mma %a[%row, %k], %b[%col, %k] wave_offset [%row, %col]
           config #qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
           acc(%acc0, %acc1) : memref<64x128xf8E4M3FNUZ>, memref<32x128xf8E5M2FNUZ>, vector<16xf32>, vector<16xf32>
  %s:2 = qmm.wave_scale_accumulate %p#0, %p#1 into %acc0, %acc1 at [%row, %col, %k]
           problem_size [64, 32, 128]
           config #qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
           a_scales(%sa : memref<64x1xf32>, #qmm.scale<block 1x128>)
           b_scales(%sb : memref<1x1xf32>, #qmm.scale<block 128x128>) : vector<16xf32>, vector<16xf32>
  qmm.wave_store %s#0, %s#1 into %d[%row, %col] in_bounds [true, false] accumulate
    config(#qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>)
    : memref<64x32xbf16>, vector<16xf32>, vector<16xf32>
  return
}

// A double-buffered LDS operand takes a stage index.
// CHECK-LABEL: func.func @staged_operand
// CHECK:       qmm.wave_mma %arg0[%arg2, %arg3, %arg3], %arg1[%arg2, %arg3, %arg3]
func.func @staged_operand(%la: memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
                          %lb: memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
                          %stage: index, %zero: index, %acc: vector<4xf32>) -> vector<4xf32> {
  %p = qmm.wave_mma %la[%stage, %zero, %zero], %lb[%stage, %zero, %zero] wave_offset [%zero, %zero]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 2>
         acc(%acc) : memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
  return %p : vector<4xf32>
}

// MX operands carry their E8M0 scale tensors and the scaled MFMA kind.
// CHECK-LABEL: func.func @scaled_operands
// CHECK:       qmm.wave_mma %arg0[%arg4, %arg4], %arg1[%arg4, %arg4] wave_offset[%arg4, %arg4] scales(%arg2[%arg4, %arg4], %arg3[%arg4, %arg4] : memref<16x4xf8E8M0FNU>, memref<16x4xf8E8M0FNU>) config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1> acc(%arg5)
func.func @scaled_operands(%a: memref<16x128xf8E4M3FN>, %b: memref<16x128xf8E5M2>,
                           %sa: memref<16x4xf8E8M0FNU>, %sb: memref<16x4xf8E8M0FNU>,
                           %i: index, %acc: vector<4xf32>) -> vector<4xf32> {
  %p = qmm.wave_mma %a[%i, %i], %b[%i, %i] wave_offset [%i, %i]
         scales(%sa[%i, %i], %sb[%i, %i] : memref<16x4xf8E8M0FNU>, memref<16x4xf8E8M0FNU>)
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
         acc(%acc) : memref<16x128xf8E4M3FN>, memref<16x128xf8E5M2>, vector<4xf32>
  return %p : vector<4xf32>
}
