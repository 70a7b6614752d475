// RUN: fp8-opt %s --qmm-linalg-to-qmm | FileCheck %s
// RUN: fp8-opt %s --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm --remarks-filter-missed=qmm-linalg-to-qmm --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=FUSED
//
// Quantized and dequantized in one generic (fake quantization): the FP8
// tensor exists only implicitly, as the body's truncf. It is made
// explicit by a generic of its own (a clone of the ops the truncf depends
// on: the same values, bit for bit), which qmm.matmul reads with the
// dequantization's scale. Not qmm.quantize: that computes its scales from
// each block's amax by its own recipe, these scales are given. After
// fusion the quantization sits in the contraction's body, whose loops are
// not the FP8 tensor's: left alone, with the reason.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @quantized_and_dequantized
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<32x64xf32>, %[[SX:[a-z0-9]+]]: tensor<32xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<32x64xf8E4M3FN>
// CHECK:         %[[Q:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SX]] : tensor<32x64xf32>, tensor<32xf32>) outs(%[[E]] : tensor<32x64xf8E4M3FN>)
// CHECK:           arith.divf
// CHECK:           arith.minimumf
// CHECK:           arith.maximumf
// CHECK:           %[[T:.*]] = arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK-NEXT:      linalg.yield %[[T]] : f8E4M3FN
// CHECK:         %[[S:.*]] = tensor.expand_shape %[[SX]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK:         qmm.matmul a(%[[Q]], %[[S]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b({{.*}}) #qmm.scale<per_row> outs
// CHECK-NOT:     linalg.matmul
// FUSED: remark: [Missed] QuantizedMatmul {{.*}} Function=quantized_and_dequantized {{.*}}quantized and dequantized inside the contraction's body (`arith.truncf` to f8E4M3FN)
// FUSED-NOT: qmm.matmul
func.func @quantized_and_dequantized(%x: tensor<32x64xf32>, %sx: tensor<32xf32>,
                                     %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sx : tensor<32x64xf32>, tensor<32xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.divf %v, %s : f32
    %hi = arith.constant 448.0 : f32
    %lo = arith.constant -448.0 : f32
    %c1 = arith.minimumf %r, %hi : f32
    %c2 = arith.maximumf %c1, %lo : f32
    %q = arith.truncf %c2 : f32 to f8E4M3FN
    %w = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %w, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16xf32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %w = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %w, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
