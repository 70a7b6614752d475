// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
// RUN: fp8-opt %s -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm | FileCheck %s --check-prefix=FUSED
//
// FP8 widened to bf16 (exact: every FP8, FP6 and FP4 value is a bf16
// value) feeding a bf16 x bf16 -> f32 matmul, which widens again to f32:
// a matmul of the FP8 data with unit scales. (Scaled in bf16 it would be
// rounded: a near miss, linalg-to-qmm-near-misses.mlir.)

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @fp8_widened_to_bf16
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[B:[a-z0-9]+]]: tensor<64x16xf8E5M2>
// CHECK-DAG:     %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK:         qmm.matmul a(%[[A]], %[[ONE]] : tensor<32x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%[[B]], %{{.*}} : tensor<64x16xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn outs
// CHECK-NOT:     linalg.
// FUSED-LABEL: func.func @fp8_widened_to_bf16
// FUSED:         qmm.matmul {{.*}} layout kn outs
// FUSED-NOT:     linalg.
func.func @fp8_widened_to_bf16(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xf8E5M2>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xbf16>
  %wa = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xbf16>) {
  ^bb0(%q: f8E4M3FN, %o: bf16):
    %x = arith.extf %q : f8E4M3FN to bf16
    linalg.yield %x : bf16
  } -> tensor<32x64xbf16>
  %eb = tensor.empty() : tensor<64x16xbf16>
  %wb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x16xf8E5M2>) outs(%eb : tensor<64x16xbf16>) {
  ^bb0(%q: f8E5M2, %o: bf16):
    %x = arith.extf %q : f8E5M2 to bf16
    linalg.yield %x : bf16
  } -> tensor<64x16xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul ins(%wa, %wb : tensor<32x64xbf16>, tensor<64x16xbf16>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#o = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @fp8_widened_to_bf16_in_body
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[B:[a-z0-9]+]]: tensor<16x64xf8E4M3FN>
// CHECK:         qmm.matmul a(%[[A]], %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%[[B]], %{{.*}} : tensor<16x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs
// CHECK-NOT:     linalg.
// FUSED-LABEL: func.func @fp8_widened_to_bf16_in_body
// FUSED:         qmm.matmul
// FUSED-NOT:     linalg.
func.func @fp8_widened_to_bf16_in_body(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.generic {indexing_maps = [#a, #b, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<32x64xf8E4M3FN>, tensor<16x64xf8E4M3FN>) outs(%init : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %qb: f8E4M3FN, %acc: f32):
    %ha = arith.extf %qa : f8E4M3FN to bf16
    %hb = arith.extf %qb : f8E4M3FN to bf16
    %xa = arith.extf %ha : bf16 to f32
    %xb = arith.extf %hb : bf16 to f32
    %p = arith.mulf %xa, %xb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
