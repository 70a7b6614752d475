// RUN: fp8-opt %s -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file | fp8-opt -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file --mlir-print-op-generic | fp8-opt -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// A contiguous grouped matmul writing FP8 codes with per-token 1x128
// scales ([M, ceil(N / 128)] = [256, 2] for N = 192).
// CHECK-LABEL: func.func @contiguous_per_token
// CHECK: %[[R:.*]]:2 = qmm.grouped_matmul contiguous {{.*}} outs(%arg5 : tensor<256x192xf8E4M3FNUZ>) out_scales(%arg6 : tensor<256x2xf32>) #qmm.scale<block 1x128> -> tensor<256x192xf8E4M3FNUZ>, tensor<256x2xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
// Bufferized: codes and scales written in place.
// BUF-LABEL: func.func @contiguous_per_token
// BUF: qmm.grouped_matmul contiguous {{.*}} outs(%arg5 : memref<256x192xf8E4M3FNUZ{{.*}}>) out_scales(%arg6 : memref<256x2xf32{{.*}}>) #qmm.scale<block 1x128>{{$}}
// BUF: return %arg5, %arg6
func.func @contiguous_per_token(%a: tensor<256x128xf8E4M3FNUZ>, %sa: tensor<256x1xf32>,
                                %b: tensor<2x192x128xf8E4M3FNUZ>, %sb: tensor<2x2x1xf32>,
                                %g: tensor<256xi32>,
                                %d: tensor<256x192xf8E4M3FNUZ>, %s: tensor<256x2xf32>)
    -> (tensor<256x192xf8E4M3FNUZ>, tensor<256x2xf32>) {
  %r:2 = qmm.grouped_matmul contiguous
           a(%a, %sa : tensor<256x128xf8E4M3FNUZ>, tensor<256x1xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<2x192x128xf8E4M3FNUZ>, tensor<2x2x1xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<256xi32>)
           outs(%d : tensor<256x192xf8E4M3FNUZ>)
           out_scales(%s : tensor<256x2xf32>) #qmm.scale<block 1x128>
           -> tensor<256x192xf8E4M3FNUZ>, tensor<256x2xf32>
  return %r#0, %r#1 : tensor<256x192xf8E4M3FNUZ>, tensor<256x2xf32>
}

// -----

// Masked: the scales carry the leading G ([G, Mmax, N / 32] for MX), after
// GELU with the pre-activation kept and the DeepGEMM rounding.
// CHECK-LABEL: func.func @masked_mx_gelu_aux
// CHECK: %[[R:.*]]:3 = qmm.grouped_matmul masked {{.*}} activation gelu_tanh outs(%arg5 : tensor<3x40x64xf8E4M3FN>, aux %arg6 : tensor<3x40x64xbf16>) out_scales(%arg7 : tensor<3x40x2xf8E8M0FNU>) #qmm.scale<mx> rounding pow2_ceil -> tensor<3x40x64xf8E4M3FN>, tensor<3x40x64xbf16>, tensor<3x40x2xf8E8M0FNU>
// BUF-LABEL: func.func @masked_mx_gelu_aux
// BUF: return %arg5, %arg6, %arg7
func.func @masked_mx_gelu_aux(%a: tensor<3x40x64xf8E4M3FN>, %sa: tensor<3x40x2xf8E8M0FNU>,
                              %b: tensor<3x64x64xf8E4M3FN>, %sb: tensor<3x64x2xf8E8M0FNU>,
                              %g: tensor<3xi32>,
                              %d: tensor<3x40x64xf8E4M3FN>, %aux: tensor<3x40x64xbf16>,
                              %s: tensor<3x40x2xf8E8M0FNU>)
    -> (tensor<3x40x64xf8E4M3FN>, tensor<3x40x64xbf16>, tensor<3x40x2xf8E8M0FNU>) {
  %r:3 = qmm.grouped_matmul masked
           a(%a, %sa : tensor<3x40x64xf8E4M3FN>, tensor<3x40x2xf8E8M0FNU>) #qmm.scale<mx>
           b(%b, %sb : tensor<3x64x64xf8E4M3FN>, tensor<3x64x2xf8E8M0FNU>) #qmm.scale<mx>
           groups(%g : tensor<3xi32>)
           activation gelu_tanh
           outs(%d : tensor<3x40x64xf8E4M3FN>, aux %aux : tensor<3x40x64xbf16>)
           out_scales(%s : tensor<3x40x2xf8E8M0FNU>) #qmm.scale<mx> rounding pow2_ceil
           -> tensor<3x40x64xf8E4M3FN>, tensor<3x40x64xbf16>, tensor<3x40x2xf8E8M0FNU>
  return %r#0, %r#1, %r#2 : tensor<3x40x64xf8E4M3FN>, tensor<3x40x64xbf16>, tensor<3x40x2xf8E8M0FNU>
}
