// RUN: fp8-opt %s | FileCheck %s
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --mlir-print-op-generic | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// Contiguous (MoE prefill) with DeepGEMM's scales: A 1x128 per row, B
// 128x128 per group.
// CHECK-LABEL: func.func @contiguous
// CHECK: qmm.grouped_matmul contiguous a(%arg0, %arg1 : tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) #qmm.scale<block 1x128> b(%arg2, %arg3 : tensor<4x384x256xf8E4M3FN>, tensor<4x3x2xf32>) #qmm.scale<block 128x128> groups(%arg4 : tensor<512xi32>) outs(%arg5 : tensor<512x384xbf16>) -> tensor<512x384xbf16>
// BUF-LABEL: func.func @contiguous
// BUF: qmm.grouped_matmul contiguous {{.*}} groups(%arg4 : memref<512xi32{{.*}}>) outs(%arg5 : memref<512x384xbf16{{.*}}>){{$}}
func.func @contiguous(%a: tensor<512x256xf8E4M3FN>, %sa: tensor<512x2xf32>,
                      %b: tensor<4x384x256xf8E4M3FN>, %sb: tensor<4x3x2xf32>,
                      %g: tensor<512xi32>, %d: tensor<512x384xbf16>) -> tensor<512x384xbf16> {
  %0 = qmm.grouped_matmul contiguous
         a(%a, %sa : tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) #qmm.scale<block 1x128>
         b(%b, %sb : tensor<4x384x256xf8E4M3FN>, tensor<4x3x2xf32>) #qmm.scale<block 128x128>
         groups(%g : tensor<512xi32>)
         outs(%d : tensor<512x384xbf16>) -> tensor<512x384xbf16>
  return %0 : tensor<512x384xbf16>
}

// Masked (MoE decode), accumulating, with MX scales per group.
// CHECK-LABEL: func.func @masked
// CHECK: qmm.grouped_matmul masked a(%arg0, %arg1 : tensor<8x64x128xf4E2M1FN>, tensor<8x64x4xf8E8M0FNU>) #qmm.scale<mx> b(%arg2, %arg3 : tensor<8x256x128xf4E2M1FN>, tensor<8x256x4xf8E8M0FNU>) #qmm.scale<mx> groups(%arg4 : tensor<8xi32>) accumulate outs(%arg5 : tensor<8x64x256xf32>) -> tensor<8x64x256xf32>
func.func @masked(%a: tensor<8x64x128xf4E2M1FN>, %sa: tensor<8x64x4xf8E8M0FNU>,
                  %b: tensor<8x256x128xf4E2M1FN>, %sb: tensor<8x256x4xf8E8M0FNU>,
                  %counts: tensor<8xi32>, %d: tensor<8x64x256xf32>) -> tensor<8x64x256xf32> {
  %0 = qmm.grouped_matmul masked
         a(%a, %sa : tensor<8x64x128xf4E2M1FN>, tensor<8x64x4xf8E8M0FNU>) #qmm.scale<mx>
         b(%b, %sb : tensor<8x256x128xf4E2M1FN>, tensor<8x256x4xf8E8M0FNU>) #qmm.scale<mx>
         groups(%counts : tensor<8xi32>) accumulate
         outs(%d : tensor<8x64x256xf32>) -> tensor<8x64x256xf32>
  return %0 : tensor<8x64x256xf32>
}

// A bias per group and GELU.
// CHECK-LABEL: func.func @epilogue
// CHECK: qmm.grouped_matmul contiguous {{.*}} groups(%arg5 : tensor<256xi32>) bias(%arg4 : tensor<2x64xbf16>) activation gelu_erf outs(
func.func @epilogue(%a: tensor<256x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                    %b: tensor<2x64x128xf8E4M3FN>, %sb: tensor<2x1x1xf32>,
                    %bias: tensor<2x64xbf16>, %g: tensor<256xi32>,
                    %d: tensor<256x64xbf16>) -> tensor<256x64xbf16> {
  %0 = qmm.grouped_matmul contiguous
         a(%a, %sa : tensor<256x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %sb : tensor<2x64x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<256xi32>) bias(%bias : tensor<2x64xbf16>) activation gelu_erf
         outs(%d : tensor<256x64xbf16>) -> tensor<256x64xbf16>
  return %0 : tensor<256x64xbf16>
}

// The pre-activation output of a masked grouped GEMM: shaped like init, a
// second result; bufferized, both destinations are written in place.
// CHECK-LABEL: func.func @masked_aux
// CHECK: %[[R:.*]]:2 = qmm.grouped_matmul masked {{.*}} activation gelu_tanh outs(%arg5 : tensor<4x32x64xbf16>, aux %arg6 : tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>, tensor<4x32x64xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
// BUF-LABEL: func.func @masked_aux
// BUF: qmm.grouped_matmul masked {{.*}} outs(%arg5 : memref<4x32x64xbf16{{.*}}>, aux %arg6 : memref<4x32x64xf32{{.*}}>){{$}}
// BUF: return %arg5, %arg6
func.func @masked_aux(%a: tensor<4x32x128xf8E4M3FN>, %sa: tensor<4x1x1xf32>,
                      %b: tensor<4x64x128xf8E4M3FN>, %sb: tensor<4x1x1xf32>,
                      %counts: tensor<4xi32>, %d: tensor<4x32x64xbf16>,
                      %aux: tensor<4x32x64xf32>) -> (tensor<4x32x64xbf16>, tensor<4x32x64xf32>) {
  %0:2 = qmm.grouped_matmul masked
           a(%a, %sa : tensor<4x32x128xf8E4M3FN>, tensor<4x1x1xf32>) #qmm.scale<per_tensor>
           b(%b, %sb : tensor<4x64x128xf8E4M3FN>, tensor<4x1x1xf32>) #qmm.scale<per_tensor>
           groups(%counts : tensor<4xi32>) activation gelu_tanh
           outs(%d : tensor<4x32x64xbf16>, aux %aux : tensor<4x32x64xf32>)
           -> tensor<4x32x64xbf16>, tensor<4x32x64xf32>
  return %0#0, %0#1 : tensor<4x32x64xbf16>, tensor<4x32x64xf32>
}
