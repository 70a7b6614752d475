// RUN: fp8-opt %s -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file | fp8-opt -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file --mlir-print-op-generic | fp8-opt -split-input-file | FileCheck %s

// DeepGEMM's dense NT GEMM: 1x128 activation scales, 128x128 weight scales,
// B stored [N, K] (the default layout, not printed).
// CHECK-LABEL: func.func @blockwise_nt
// CHECK: qmm.matmul a(%{{.*}}, %{{.*}} : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
// CHECK-SAME: b(%{{.*}}, %{{.*}} : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
// CHECK-NOT: layout
// CHECK-SAME: outs(%{{.*}} : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
func.func @blockwise_nt(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>,
                        %b: tensor<1024x512xf8E4M3FN>, %sb: tensor<8x4xf32>,
                        %c: tensor<256x1024xbf16>) -> tensor<256x1024xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
                  layout nk
                  outs(%c : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// B stored [K, N]; its scales keep the (N, K) block view: [N/128, K/128].
// CHECK-LABEL: func.func @blockwise_kn
// CHECK: b(%{{.*}}, %{{.*}} : tensor<512x1024xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128> layout kn
func.func @blockwise_kn(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>,
                        %b: tensor<512x1024xf8E4M3FN>, %sb: tensor<8x4xf32>,
                        %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<512x1024xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128> layout kn
                  outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %d : tensor<256x1024xf32>
}

// -----

// Per-tensor scales on MI300's FNUZ formats, mixed e4m3 x e5m2, f16 output.
// CHECK-LABEL: func.func @per_tensor_fnuz_mixed
// CHECK: qmm.matmul a(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
// CHECK-SAME: b(%{{.*}}, %{{.*}} : tensor<32x128xf8E5M2FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
// CHECK-SAME: -> tensor<64x32xf16>
func.func @per_tensor_fnuz_mixed(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                                 %b: tensor<32x128xf8E5M2FNUZ>, %sb: tensor<1x1xf32>,
                                 %c: tensor<64x32xf16>) -> tensor<64x32xf16> {
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E5M2FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x32xf16>) -> tensor<64x32xf16>
  return %d : tensor<64x32xf16>
}

// -----

// Per-row (per token x per output channel), torch._scaled_mm style: A scales
// [M, 1], B scales [1, N] (mn_major).
// CHECK-LABEL: func.func @per_row
// CHECK: a(%{{.*}}, %{{.*}} : tensor<64x100xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<per_row>
// CHECK-SAME: b(%{{.*}}, %{{.*}} : tensor<48x100xf8E5M2>, tensor<1x48xf32>) #qmm.scale<per_row, mn_major>
func.func @per_row(%a: tensor<64x100xf8E4M3FN>, %sa: tensor<64x1xf32>,
                   %b: tensor<48x100xf8E5M2>, %sb: tensor<1x48xf32>,
                   %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<64x100xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<48x100xf8E5M2>, tensor<1x48xf32>) #qmm.scale<per_row, mn_major>
                  outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %d : tensor<64x48xf32>
}

// -----

// DeepGEMM's MN-major ("TMA-aligned") activation scales are [K/128, M].
// Partial blocks: M = 200 and K = 300 are not multiples of 128, so the scale
// tensors are ceil-divided ([3, 200] and [2, 3]).
// CHECK-LABEL: func.func @mn_major_partial_blocks
// CHECK: tensor<200x300xf8E4M3FN>, tensor<3x200xf32>) #qmm.scale<block 1x128, mn_major>
// CHECK-SAME: tensor<160x300xf8E4M3FN>, tensor<2x3xf32>) #qmm.scale<block 128x128>
func.func @mn_major_partial_blocks(%a: tensor<200x300xf8E4M3FN>, %sa: tensor<3x200xf32>,
                                   %b: tensor<160x300xf8E4M3FN>, %sb: tensor<2x3xf32>,
                                   %c: tensor<200x160xbf16>) -> tensor<200x160xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<200x300xf8E4M3FN>, tensor<3x200xf32>) #qmm.scale<block 1x128, mn_major>
                  b(%b, %sb : tensor<160x300xf8E4M3FN>, tensor<2x3xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<200x160xbf16>) -> tensor<200x160xbf16>
  return %d : tensor<200x160xbf16>
}

// -----

// MX: FP4 activations x FP8 weights, E8M0 scales per 32 K.
// CHECK-LABEL: func.func @mx_fp4_fp8
// CHECK: a(%{{.*}}, %{{.*}} : tensor<128x256xf4E2M1FN>, tensor<128x8xf8E8M0FNU>) #qmm.scale<mx>
// CHECK-SAME: b(%{{.*}}, %{{.*}} : tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>) #qmm.scale<mx>
func.func @mx_fp4_fp8(%a: tensor<128x256xf4E2M1FN>, %sa: tensor<128x8xf8E8M0FNU>,
                      %b: tensor<64x256xf8E4M3FN>, %sb: tensor<64x8xf8E8M0FNU>,
                      %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<128x256xf4E2M1FN>, tensor<128x8xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %sb : tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %d : tensor<128x64xf32>
}

// -----

// MX FP6 (both flavours), B stored [K, N] with MN-major scales [K/32, N].
// CHECK-LABEL: func.func @mx_fp6_kn
// CHECK: tensor<32x64xf6E2M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
// CHECK-SAME: tensor<64x16xf6E3M2FN>, tensor<2x16xf8E8M0FNU>) #qmm.scale<mx, mn_major> layout kn
func.func @mx_fp6_kn(%a: tensor<32x64xf6E2M3FN>, %sa: tensor<32x2xf8E8M0FNU>,
                     %b: tensor<64x16xf6E3M2FN>, %sb: tensor<2x16xf8E8M0FNU>,
                     %c: tensor<32x16xbf16>) -> tensor<32x16xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<32x64xf6E2M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %sb : tensor<64x16xf6E3M2FN>, tensor<2x16xf8E8M0FNU>) #qmm.scale<mx, mn_major> layout kn
                  outs(%c : tensor<32x16xbf16>) -> tensor<32x16xbf16>
  return %d : tensor<32x16xbf16>
}

// -----

// D = C + A·B.
// CHECK-LABEL: func.func @accumulate
// CHECK: #qmm.scale<per_tensor> accumulate outs(
func.func @accumulate(%a: tensor<16x32xf8E4M3FN>, %sa: tensor<16x1xf32>,
                      %b: tensor<16x32xf8E4M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<16x32xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  accumulate
                  outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}

// -----

// The memref (bufferized) form has no result.
// CHECK-LABEL: func.func @memref_form
// CHECK: qmm.matmul a(%{{.*}}, %{{.*}} : memref<256x512xf8E4M3FNUZ>, memref<256x4xf32>) #qmm.scale<block 1x128>
// CHECK-SAME: outs(%{{.*}} : memref<256x1024xbf16>){{$}}
func.func @memref_form(%a: memref<256x512xf8E4M3FNUZ>, %sa: memref<256x4xf32>,
                       %b: memref<1024x512xf8E4M3FNUZ>, %sb: memref<8x4xf32>,
                       %c: memref<256x1024xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x512xf8E4M3FNUZ>, memref<256x4xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<1024x512xf8E4M3FNUZ>, memref<8x4xf32>) #qmm.scale<block 128x128>
             outs(%c : memref<256x1024xbf16>)
  return
}

// -----

// Strided memrefs (subviews) are accepted.
// CHECK-LABEL: func.func @strided_memref
// CHECK: qmm.matmul a(%{{.*}}, %{{.*}} : memref<64x128xf8E4M3FN, strided<[256, 1], offset: ?>>, memref<1x1xf32>)
func.func @strided_memref(%a: memref<64x128xf8E4M3FN, strided<[256, 1], offset: ?>>, %sa: memref<1x1xf32>,
                          %b: memref<64x128xf8E4M3FN>, %sb: memref<1x1xf32>,
                          %c: memref<64x64xf32>) {
  qmm.matmul a(%a, %sa : memref<64x128xf8E4M3FN, strided<[256, 1], offset: ?>>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<64x128xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%c : memref<64x64xf32>)
  return
}

// -----

// Dynamic M (number of tokens): checks that need M are deferred.
// CHECK-LABEL: func.func @dynamic_m
// CHECK: tensor<?x512xf8E4M3FN>, tensor<?x4xf32>) #qmm.scale<block 1x128>
// CHECK-SAME: -> tensor<?x1024xbf16>
func.func @dynamic_m(%a: tensor<?x512xf8E4M3FN>, %sa: tensor<?x4xf32>,
                     %b: tensor<1024x512xf8E4M3FN>, %sb: tensor<8x4xf32>,
                     %c: tensor<?x1024xbf16>) -> tensor<?x1024xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<?x512xf8E4M3FN>, tensor<?x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
  return %d : tensor<?x1024xbf16>
}
