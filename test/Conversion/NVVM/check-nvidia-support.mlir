// RUN: fp8-opt %s -split-input-file --qmm-check-nvidia-support="chip=sm_90a" | FileCheck %s

// What sm_90a compiles passes through unchanged: OCP FP8 operands (E4M3 and
// E5M2, mixed), per-tensor, per-row and 1x128 x 128x128 block scales, an
// f32/bf16 outputs.
// CHECK-LABEL: func.func @per_tensor_mixed
// CHECK:         qmm.matmul a(%{{.*}} : tensor<64x128xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%{{.*}} : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
func.func @per_tensor_mixed(%a: tensor<64x128xf8E5M2>, %sa: tensor<1x1xf32>, %b: tensor<32x128xf8E4M3FN>, %sb: tensor<1x1xf32>, %c: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// -----

// CHECK-LABEL: func.func @blockwise
// CHECK:         qmm.matmul {{.*}} #qmm.scale<block 1x128> {{.*}} #qmm.scale<block 128x128>
func.func @blockwise(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>, %b: tensor<128x256xf8E4M3FN>, %sb: tensor<1x2xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : tensor<128x256xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128> outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// A contiguous grouped matmul (each 128-row segment one group's rows).
// CHECK-LABEL: func.func @grouped_contiguous
// CHECK:         qmm.grouped_matmul contiguous {{.*}} #qmm.scale<block 1x128> {{.*}} #qmm.scale<block 128x128> groups
func.func @grouped_contiguous(%a: tensor<256x256xf8E4M3FN>, %sa: tensor<256x2xf32>, %b: tensor<4x128x256xf8E4M3FN>, %sb: tensor<4x1x2xf32>, %g: tensor<256xi32>, %c: tensor<256x128xbf16>) -> tensor<256x128xbf16> {
  %0 = qmm.grouped_matmul contiguous a(%a, %sa : tensor<256x256xf8E4M3FN>, tensor<256x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : tensor<4x128x256xf8E4M3FN>, tensor<4x1x2xf32>) #qmm.scale<block 128x128> groups(%g : tensor<256xi32>) outs(%c : tensor<256x128xbf16>) -> tensor<256x128xbf16>
  return %0 : tensor<256x128xbf16>
}

// -----

// A masked grouped matmul (each group's valid rows counted at run time).
// CHECK-LABEL: func.func @grouped_masked
// CHECK:         qmm.grouped_matmul masked
func.func @grouped_masked(%a: tensor<2x64x128xf8E4M3FN>, %sa: tensor<2x1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>, %sb: tensor<2x1x1xf32>, %g: tensor<2xi32>, %c: tensor<2x64x32xbf16>) -> tensor<2x64x32xbf16> {
  %0 = qmm.grouped_matmul masked a(%a, %sa : tensor<2x64x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor> groups(%g : tensor<2xi32>) outs(%c : tensor<2x64x32xbf16>) -> tensor<2x64x32xbf16>
  return %0 : tensor<2x64x32xbf16>
}

// -----

// A run-time M (the rows of A, its scales and the output).
// CHECK-LABEL: func.func @dynamic_m
// CHECK:         qmm.matmul {{.*}} tensor<?x128xf8E4M3FN>, tensor<?x1xf32>
func.func @dynamic_m(%a: tensor<?x128xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<32x128xf8E4M3FN>, %sb: tensor<32x1xf32>, %c: tensor<?x32xbf16>) -> tensor<?x32xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<?x128xf8E4M3FN>, tensor<?x1xf32>) #qmm.scale<per_row> b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> outs(%c : tensor<?x32xbf16>) -> tensor<?x32xbf16>
  return %0 : tensor<?x32xbf16>
}
