// RUN: fp8-opt %s -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file | fp8-opt -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file --mlir-print-op-generic | fp8-opt -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// An FP8 output with per-token 1x128 scales (N = 200: a partial last
// block); on tensors the op returns the codes and the scales.
// CHECK-LABEL: func.func @per_token
// CHECK: %[[R:.*]]:2 = qmm.matmul {{.*}} outs(%arg4 : tensor<64x200xf8E4M3FN>) out_scales(%arg5 : tensor<64x2xf32>) #qmm.scale<block 1x128> -> tensor<64x200xf8E4M3FN>, tensor<64x2xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
// Bufferized: codes and scales written in place.
// BUF-LABEL: func.func @per_token
// BUF: qmm.matmul {{.*}} outs(%arg4 : memref<64x200xf8E4M3FN{{.*}}>) out_scales(%arg5 : memref<64x2xf32{{.*}}>) #qmm.scale<block 1x128>{{$}}
// BUF: return %arg4, %arg5
func.func @per_token(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x1xf32>,
                     %b: tensor<200x128xf8E4M3FN>, %sb: tensor<2x1xf32>,
                     %d: tensor<64x200xf8E4M3FN>, %s: tensor<64x2xf32>)
    -> (tensor<64x200xf8E4M3FN>, tensor<64x2xf32>) {
  %r:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<block 1x128>
                    b(%b, %sb : tensor<200x128xf8E4M3FN>, tensor<2x1xf32>) #qmm.scale<block 128x128>
                    outs(%d : tensor<64x200xf8E4M3FN>)
                    out_scales(%s : tensor<64x2xf32>) #qmm.scale<block 1x128>
                    -> tensor<64x200xf8E4M3FN>, tensor<64x2xf32>
  return %r#0, %r#1 : tensor<64x200xf8E4M3FN>, tensor<64x2xf32>
}

// -----

// MX output (E8M0 per 32 columns) with the DeepGEMM rounding, after GELU
// with the pre-activation kept: three destinations.
// CHECK-LABEL: func.func @mx_gelu_aux
// CHECK: %[[R:.*]]:3 = qmm.matmul {{.*}} activation gelu_erf outs(%arg4 : tensor<32x64xf8E5M2>, aux %arg5 : tensor<32x64xbf16>) out_scales(%arg6 : tensor<32x2xf8E8M0FNU>) #qmm.scale<mx> rounding pow2_ceil min_amax 1.000000e-03 -> tensor<32x64xf8E5M2>, tensor<32x64xbf16>, tensor<32x2xf8E8M0FNU>
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
// BUF-LABEL: func.func @mx_gelu_aux
// BUF: return %arg4, %arg5, %arg6
func.func @mx_gelu_aux(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>,
                       %b: tensor<64x64xf8E4M3FN>, %sb: tensor<64x2xf8E8M0FNU>,
                       %d: tensor<32x64xf8E5M2>, %aux: tensor<32x64xbf16>,
                       %s: tensor<32x2xf8E8M0FNU>)
    -> (tensor<32x64xf8E5M2>, tensor<32x64xbf16>, tensor<32x2xf8E8M0FNU>) {
  %r:3 = qmm.matmul a(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
                    b(%b, %sb : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) #qmm.scale<mx>
                    activation gelu_erf
                    outs(%d : tensor<32x64xf8E5M2>, aux %aux : tensor<32x64xbf16>)
                    out_scales(%s : tensor<32x2xf8E8M0FNU>) #qmm.scale<mx> rounding pow2_ceil min_amax 1.0e-3
                    -> tensor<32x64xf8E5M2>, tensor<32x64xbf16>, tensor<32x2xf8E8M0FNU>
  return %r#0, %r#1, %r#2 : tensor<32x64xf8E5M2>, tensor<32x64xbf16>, tensor<32x2xf8E8M0FNU>
}

// -----

// FNUZ outputs (gfx942's FP8) with per-token scales of any block width.
// CHECK-LABEL: func.func @fnuz
// CHECK: outs(%arg4 : tensor<16x64xf8E4M3FNUZ>) out_scales(%arg5 : tensor<16x1xf32>) #qmm.scale<block 1x64> rounding pow2_floor
func.func @fnuz(%a: tensor<16x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                %b: tensor<64x128xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                %d: tensor<16x64xf8E4M3FNUZ>, %s: tensor<16x1xf32>)
    -> (tensor<16x64xf8E4M3FNUZ>, tensor<16x1xf32>) {
  %r:2 = qmm.matmul a(%a, %sa : tensor<16x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%d : tensor<16x64xf8E4M3FNUZ>)
                    out_scales(%s : tensor<16x1xf32>) #qmm.scale<block 1x64> rounding pow2_floor
                    -> tensor<16x64xf8E4M3FNUZ>, tensor<16x1xf32>
  return %r#0, %r#1 : tensor<16x64xf8E4M3FNUZ>, tensor<16x1xf32>
}
