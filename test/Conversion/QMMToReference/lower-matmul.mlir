// RUN: fp8-opt %s -split-input-file --qmm-lower-to-reference | FileCheck %s

// Blockwise 1x128 x 128x128, B [N, K]: one generic over (m, n, k) reading
// the scales through floordiv maps, then one rounding generic to bf16.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[SA:.*]] = affine_map<(d0, d1, d2) -> (d0, d2 floordiv 128)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[SB:.*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 128, d2 floordiv 128)>
// CHECK-DAG: #[[D:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @blockwise
// CHECK: %[[ACC0:.*]] = tensor.empty() : tensor<256x1024xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[ACC0]] : tensor<256x1024xf32>)
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[SA]], #[[B]], #[[SB]], #[[D]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[ZERO]] : tensor<256x1024xf32>)
// CHECK: ^bb0(%[[QA:[a-z0-9_]+]]: f8E4M3FN, %[[SCA:[a-z0-9_]+]]: f32, %[[QB:[a-z0-9_]+]]: f8E4M3FN, %[[SCB:[a-z0-9_]+]]: f32, %[[OUT:[a-z0-9_]+]]: f32):
// CHECK:   %[[VA:.*]] = arith.extf %[[QA]] : f8E4M3FN to f32
// CHECK:   %[[DA:.*]] = arith.mulf %[[VA]], %[[SCA]] : f32
// CHECK:   %[[VB:.*]] = arith.extf %[[QB]] : f8E4M3FN to f32
// CHECK:   %[[DB:.*]] = arith.mulf %[[VB]], %[[SCB]] : f32
// CHECK:   %[[P:.*]] = arith.mulf %[[DA]], %[[DB]] : f32
// CHECK:   %[[S:.*]] = arith.addf %[[OUT]], %[[P]] : f32
// CHECK:   linalg.yield %[[S]] : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<256x1024xf32>) outs(%{{.*}} : tensor<256x1024xbf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[R]]
// CHECK-NOT: qmm.
func.func @blockwise(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>,
                     %b: tensor<1024x512xf8E4M3FN>, %sb: tensor<8x4xf32>,
                     %c: tensor<256x1024xbf16>) -> tensor<256x1024xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// B [K, N], MN-major A scales, per-tensor B scales.
// CHECK-DAG: #[[SA:.*]] = affine_map<(d0, d1, d2) -> (d2 floordiv 128, d0)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[SB:.*]] = affine_map<(d0, d1, d2) -> (0, 0)>
// CHECK-LABEL: func.func @kn_mn_major_per_tensor
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SA]], #[[B]], #[[SB]], #{{.*}}]
func.func @kn_mn_major_per_tensor(%a: tensor<64x256xf8E4M3FNUZ>, %sa: tensor<2x64xf32>,
                                  %b: tensor<256x32xf8E5M2FNUZ>, %sb: tensor<1x1xf32>,
                                  %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FNUZ>, tensor<2x64xf32>) #qmm.scale<block 1x128, mn_major>
                  b(%b, %sb : tensor<256x32xf8E5M2FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

// Per-row scales; f32 output needs no rounding step beyond a copy.
// CHECK-DAG: #[[SROW:.*]] = affine_map<(d0, d1, d2) -> (d0, 0)>
// CHECK-DAG: #[[SCOL:.*]] = affine_map<(d0, d1, d2) -> (0, d1)>
// CHECK-LABEL: func.func @per_row
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SROW]], #{{.*}}, #[[SCOL]], #{{.*}}]
// CHECK-NOT: arith.truncf
func.func @per_row(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<16x1xf32>,
                   %b: tensor<8x64xf8E4M3FN>, %sb: tensor<1x8xf32>,
                   %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<8x64xf8E4M3FN>, tensor<1x8xf32>) #qmm.scale<per_row, mn_major>
                  outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// MX: E8M0 scales are widened to f32 before they multiply.
// CHECK-DAG: #[[SMX:.*]] = affine_map<(d0, d1, d2) -> (d0, d2 floordiv 32)>
// CHECK-LABEL: func.func @mx
// CHECK: ^bb0(%[[QA:[a-z0-9_]+]]: f4E2M1FN, %[[SA:[a-z0-9_]+]]: f8E8M0FNU,
// CHECK:   arith.extf %[[QA]] : f4E2M1FN to f32
// CHECK:   arith.extf %[[SA]] : f8E8M0FNU to f32
func.func @mx(%a: tensor<16x64xf4E2M1FN>, %sa: tensor<16x2xf8E8M0FNU>,
              %b: tensor<8x64xf8E4M3FN>, %sb: tensor<8x2xf8E8M0FNU>,
              %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<16x64xf4E2M1FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %sb : tensor<8x64xf8E4M3FN>, tensor<8x2xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// Accumulation starts from C, widened to f32.
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<16x8xbf16>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<16x8xbf16>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {{.*}} outs(%[[INIT]] : tensor<16x8xf32>)
func.func @accumulate(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<1x1xf32>,
                      %b: tensor<8x64xf8E4M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<16x8xbf16>) -> tensor<16x8xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<16x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<8x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  accumulate outs(%c : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %d : tensor<16x8xbf16>
}

// -----

// The memref form allocates and frees its f32 accumulator.
// CHECK-LABEL: func.func @memref_form
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<16x8xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<16x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[ACC]] : memref<16x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<16x8xf32>) outs(%{{.*}} : memref<16x8xf16>)
// CHECK: memref.dealloc %[[ACC]]
// CHECK-NOT: qmm.
func.func @memref_form(%a: memref<16x64xf8E4M3FN>, %sa: memref<1x1xf32>,
                       %b: memref<8x64xf8E4M3FN>, %sb: memref<1x1xf32>,
                       %c: memref<16x8xf16>) {
  qmm.matmul a(%a, %sa : memref<16x64xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<8x64xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%c : memref<16x8xf16>)
  return
}

// -----

// The epilogue: one generic over (m, n) reads the f32 sums and bias[n],
// writes activation(sum + bias) to D and the pre-activation to aux, each
// rounded once.
// CHECK-LABEL: func.func @epilogue
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS:.*]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %arg4 : tensor<16x8xf32>, tensor<8xbf16>) outs(%arg5, %arg6 : tensor<16x8xbf16>, tensor<16x8xf32>)
// CHECK:   %[[B:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:   %[[PRE:.*]] = arith.addf %{{.*}}, %[[B]] : f32
// CHECK:   math.tanh
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK:   linalg.yield %{{.*}}, %[[PRE]] : bf16, f32
func.func @epilogue(%a: tensor<16x32xf8E4M3FN>, %sa: tensor<1x1xf32>,
                    %b: tensor<8x32xf8E4M3FN>, %sb: tensor<1x1xf32>,
                    %bias: tensor<8xbf16>, %c: tensor<16x8xbf16>,
                    %aux: tensor<16x8xf32>) -> (tensor<16x8xbf16>, tensor<16x8xf32>) {
  %d:2 = qmm.matmul a(%a, %sa : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<8x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    bias(%bias : tensor<8xbf16>) activation gelu_tanh
                    outs(%c : tensor<16x8xbf16>, aux %aux : tensor<16x8xf32>)
                    -> tensor<16x8xbf16>, tensor<16x8xf32>
  return %d#0, %d#1 : tensor<16x8xbf16>, tensor<16x8xf32>
}
