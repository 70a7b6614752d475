// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
// RUN: fp8-opt %s -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm | FileCheck %s
//
// A scale converted in the dequantization's body is converted the same way
// by the raised program: the body's arith.truncf / arith.extf is cloned
// into the scale tensor's conversion, its rounding mode and fast-math
// flags with it (they were dropped: `truncf downward` became a
// round-to-nearest-even truncf). Before and after fusion alike.

// CHECK-LABEL: func.func @truncf_downward
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<32xf64>) outs(%{{.*}} : tensor<32xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f64, %{{.*}}: f32):
// CHECK-NEXT:      arith.truncf %{{.*}} downward : f64 to f32
// CHECK:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs(
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @truncf_downward(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %sa = arith.constant dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7,
                              1.8, 1.9, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3.1, 3.2, 3.3, 3.4, 3.5]> : tensor<32xf64>
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32xf64>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s64: f64, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.truncf %s64 downward : f64 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16xf32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// A per-tensor f64 constant (a scalar once fused) rounded upward with
// fast-math flags, and bf16 per-row scales widened with some: each
// conversion keeps its attributes.
// CHECK-LABEL: func.func @upward_and_flags
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1xf64>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f64, %{{.*}}: f32):
// CHECK-NEXT:      arith.truncf %{{.*}} upward fastmath<nnan,ninf> : f64 to f32
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<16xbf16>) outs(%{{.*}} : tensor<16xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: bf16, %{{.*}}: f32):
// CHECK-NEXT:      arith.extf %{{.*}} fastmath<fast> : bf16 to f32
// CHECK:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_row> outs(
#id = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0, d1) -> ()>
#row = affine_map<(d0, d1) -> (d0)>
func.func @upward_and_flags(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xbf16>) -> tensor<32x16xf32> {
  %sa = arith.constant dense<0.1> : tensor<f64>
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<f64>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s64: f64, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.truncf %s64 upward fastmath<nnan,ninf> : f64 to f32
    %y = arith.mulf %x, %s fastmath<fast> : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16xbf16>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s16: bf16, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.extf %s16 fastmath<fast> : bf16 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
