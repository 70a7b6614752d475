// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
// RUN: fp8-opt %s -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm | FileCheck %s
//
// Variants of the accepted forms (docs/frontend.md) raise to
// the same qmm.matmul whether or not upstream fusion ran first: both RUN
// lines check the same lines. python/tests/test_frontend_variants.py runs
// both forms of each on the devices.

// torch's blockwise spelling on views with B [K, N] viewed [K/128, 128,
// N/128, 128] and N/128 = 2 (issue 48: fusion leaves B's dequantization
// half fused, collapsed [[0], [1], [2, 3]] before the contraction
// collapses the rest; docs/frontend.md's @blockwise_views_torch has N/128 = 1).
// CHECK-LABEL: func.func @torch_views_kn_n2
// CHECK:         qmm.matmul a(%arg0, %{{.*}} : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128> b(%arg2, %arg3 : tensor<256x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128, mn_major> layout kn outs(
// CHECK-NOT:     linalg.
#tid3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ts3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#tid4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ts4 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
func.func @torch_views_kn_n2(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2x1xf32>,
                             %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<64x256xf32> {
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xf8E4M3FN> into tensor<64x2x128xf8E4M3FN>
  %ea = tensor.empty() : tensor<64x2x128xf32>
  %da = linalg.generic {indexing_maps = [#tid3, #ts3, #tid3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<64x2x128xf8E4M3FN>, tensor<64x2x1xf32>) outs(%ea : tensor<64x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x2x128xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<64x2x128xf32> into tensor<64x256xf32>
  %bv = tensor.expand_shape %b [[0, 1], [2, 3]] output_shape [2, 128, 2, 128] : tensor<256x256xf8E4M3FN> into tensor<2x128x2x128xf8E4M3FN>
  %eb = tensor.empty() : tensor<2x128x2x128xf32>
  %db = linalg.generic {indexing_maps = [#tid4, #ts4, #tid4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bv, %sb : tensor<2x128x2x128xf8E4M3FN>, tensor<2x2xf32>) outs(%eb : tensor<2x128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x2x128xf32>
  %fb = tensor.collapse_shape %db [[0, 1], [2, 3]] : tensor<2x128x2x128xf32> into tensor<256x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %d = linalg.matmul ins(%fa, %fb : tensor<64x256xf32>, tensor<256x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %d : tensor<64x256xf32>
}

// -----

// The same with N/128 = 4, bf16 B scales and accumulation into C.
// CHECK-LABEL: func.func @torch_views_kn_n4_accumulate
// CHECK:         %[[SB:.*]] = linalg.generic {{.*}} ins(%arg3 : tensor<2x4xbf16>)
// CHECK:         qmm.matmul a(%arg0, %{{.*}} : tensor<48x256xf8E4M3FN>, tensor<48x2xf32>) #qmm.scale<block 1x128> b(%arg2, %[[SB]] : tensor<256x512xf8E4M3FN>, tensor<2x4xf32>) #qmm.scale<block 128x128, mn_major> layout kn accumulate outs(
// CHECK-NOT:     linalg.generic
#tid3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ts3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#tid4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ts4 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
func.func @torch_views_kn_n4_accumulate(%a: tensor<48x256xf8E4M3FN>, %sa: tensor<48x2x1xf32>,
                                        %b: tensor<256x512xf8E4M3FN>, %sb: tensor<2x4xbf16>, %c: tensor<48x512xf32>) -> tensor<48x512xf32> {
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [48, 2, 128] : tensor<48x256xf8E4M3FN> into tensor<48x2x128xf8E4M3FN>
  %ea = tensor.empty() : tensor<48x2x128xf32>
  %da = linalg.generic {indexing_maps = [#tid3, #ts3, #tid3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<48x2x128xf8E4M3FN>, tensor<48x2x1xf32>) outs(%ea : tensor<48x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<48x2x128xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<48x2x128xf32> into tensor<48x256xf32>
  %bv = tensor.expand_shape %b [[0, 1], [2, 3]] output_shape [2, 128, 4, 128] : tensor<256x512xf8E4M3FN> into tensor<2x128x4x128xf8E4M3FN>
  %eb = tensor.empty() : tensor<2x128x4x128xf32>
  %db = linalg.generic {indexing_maps = [#tid4, #ts4, #tid4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bv, %sb : tensor<2x128x4x128xf8E4M3FN>, tensor<2x4xbf16>) outs(%eb : tensor<2x128x4x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s16: bf16, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.extf %s16 : bf16 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x4x128xf32>
  %fb = tensor.collapse_shape %db [[0, 1], [2, 3]] : tensor<2x128x4x128xf32> into tensor<256x512xf32>
  %d = linalg.matmul ins(%fa, %fb : tensor<48x256xf32>, tensor<256x512xf32>) outs(%c : tensor<48x512xf32>) -> tensor<48x512xf32>
  return %d : tensor<48x512xf32>
}

// -----

// With a dynamic M.
// CHECK-LABEL: func.func @torch_views_kn_n2_dynamic_m
// CHECK:         qmm.matmul a(%arg0, %{{.*}} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>) #qmm.scale<block 1x128> b(%arg2, %arg3 : tensor<256x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128, mn_major> layout kn outs(
// CHECK-NOT:     linalg.
#tid3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ts3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#tid4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ts4 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
func.func @torch_views_kn_n2_dynamic_m(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x2x1xf32>,
                                       %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x256xf8E4M3FN>
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [%m, 2, 128] : tensor<?x256xf8E4M3FN> into tensor<?x2x128xf8E4M3FN>
  %ea = tensor.empty(%m) : tensor<?x2x128xf32>
  %da = linalg.generic {indexing_maps = [#tid3, #ts3, #tid3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<?x2x128xf8E4M3FN>, tensor<?x2x1xf32>) outs(%ea : tensor<?x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<?x2x128xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<?x2x128xf32> into tensor<?x256xf32>
  %bv = tensor.expand_shape %b [[0, 1], [2, 3]] output_shape [2, 128, 2, 128] : tensor<256x256xf8E4M3FN> into tensor<2x128x2x128xf8E4M3FN>
  %eb = tensor.empty() : tensor<2x128x2x128xf32>
  %db = linalg.generic {indexing_maps = [#tid4, #ts4, #tid4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bv, %sb : tensor<2x128x2x128xf8E4M3FN>, tensor<2x2xf32>) outs(%eb : tensor<2x128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x2x128xf32>
  %fb = tensor.collapse_shape %db [[0, 1], [2, 3]] : tensor<2x128x2x128xf32> into tensor<256x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x256xf32>) -> tensor<?x256xf32>
  %d = linalg.matmul ins(%fa, %fb : tensor<?x256xf32>, tensor<256x256xf32>) outs(%init : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %d : tensor<?x256xf32>
}

// -----

// A per row without views, B's view alone split loops.
// CHECK-LABEL: func.func @per_row_a_views_kn_b
// CHECK:         qmm.matmul a(%arg0, %{{.*}} : tensor<32x256xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%arg2, %arg3 : tensor<256x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128, mn_major> layout kn outs(
// CHECK-NOT:     linalg.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#tid4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ts4 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
func.func @per_row_a_views_kn_b(%a: tensor<32x256xf8E4M3FN>, %sa: tensor<32xf32>,
                                %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<32x256xf32> {
  %ea = tensor.empty() : tensor<32x256xf32>
  %da = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x256xf8E4M3FN>, tensor<32xf32>) outs(%ea : tensor<32x256xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %bv = tensor.expand_shape %b [[0, 1], [2, 3]] output_shape [2, 128, 2, 128] : tensor<256x256xf8E4M3FN> into tensor<2x128x2x128xf8E4M3FN>
  %eb = tensor.empty() : tensor<2x128x2x128xf32>
  %db = linalg.generic {indexing_maps = [#tid4, #ts4, #tid4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bv, %sb : tensor<2x128x2x128xf8E4M3FN>, tensor<2x2xf32>) outs(%eb : tensor<2x128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x2x128xf32>
  %fb = tensor.collapse_shape %db [[0, 1], [2, 3]] : tensor<2x128x2x128xf32> into tensor<256x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x256xf32>) -> tensor<32x256xf32>
  %d = linalg.matmul ins(%da, %fb : tensor<32x256xf32>, tensor<256x256xf32>) outs(%init : tensor<32x256xf32>) -> tensor<32x256xf32>
  return %d : tensor<32x256xf32>
}

// -----

// A with 128x128 blocks on its own [M/128, 128, K/128, 128] view too
// (both operands' rows split), B [K, N].
// CHECK-LABEL: func.func @views_128x128_kn
// CHECK:         qmm.matmul a(%arg0, %arg1 : tensor<256x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128> b(%arg2, %arg3 : tensor<256x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128, mn_major> layout kn outs(
// CHECK-NOT:     linalg.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#s4 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
func.func @views_128x128_kn(%a: tensor<256x256xf8E4M3FN>, %sa: tensor<2x2xf32>,
                            %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<256x256xf32> {
  %av = tensor.expand_shape %a [[0, 1], [2, 3]] output_shape [2, 128, 2, 128] : tensor<256x256xf8E4M3FN> into tensor<2x128x2x128xf8E4M3FN>
  %ea = tensor.empty() : tensor<2x128x2x128xf32>
  %da = linalg.generic {indexing_maps = [#id4, #s4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<2x128x2x128xf8E4M3FN>, tensor<2x2xf32>) outs(%ea : tensor<2x128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x2x128xf32>
  %fa = tensor.collapse_shape %da [[0, 1], [2, 3]] : tensor<2x128x2x128xf32> into tensor<256x256xf32>
  %bv = tensor.expand_shape %b [[0, 1], [2, 3]] output_shape [2, 128, 2, 128] : tensor<256x256xf8E4M3FN> into tensor<2x128x2x128xf8E4M3FN>
  %eb = tensor.empty() : tensor<2x128x2x128xf32>
  %db = linalg.generic {indexing_maps = [#id4, #s4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bv, %sb : tensor<2x128x2x128xf8E4M3FN>, tensor<2x2xf32>) outs(%eb : tensor<2x128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x2x128xf32>
  %fb = tensor.collapse_shape %db [[0, 1], [2, 3]] : tensor<2x128x2x128xf32> into tensor<256x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %d = linalg.matmul ins(%fa, %fb : tensor<256x256xf32>, tensor<256x256xf32>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %d : tensor<256x256xf32>
}

// -----

// The same with B [N, K].
// CHECK-LABEL: func.func @views_128x128_nk
// CHECK:         qmm.matmul a(%arg0, %arg1 : tensor<256x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128> b(%arg2, %arg3 : tensor<256x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128> outs(
// CHECK-NOT:     linalg.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#s4 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
func.func @views_128x128_nk(%a: tensor<256x256xf8E4M3FN>, %sa: tensor<2x2xf32>,
                            %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<256x256xf32> {
  %av = tensor.expand_shape %a [[0, 1], [2, 3]] output_shape [2, 128, 2, 128] : tensor<256x256xf8E4M3FN> into tensor<2x128x2x128xf8E4M3FN>
  %ea = tensor.empty() : tensor<2x128x2x128xf32>
  %da = linalg.generic {indexing_maps = [#id4, #s4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<2x128x2x128xf8E4M3FN>, tensor<2x2xf32>) outs(%ea : tensor<2x128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x2x128xf32>
  %fa = tensor.collapse_shape %da [[0, 1], [2, 3]] : tensor<2x128x2x128xf32> into tensor<256x256xf32>
  %bv = tensor.expand_shape %b [[0, 1], [2, 3]] output_shape [2, 128, 2, 128] : tensor<256x256xf8E4M3FN> into tensor<2x128x2x128xf8E4M3FN>
  %eb = tensor.empty() : tensor<2x128x2x128xf32>
  %db = linalg.generic {indexing_maps = [#id4, #s4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bv, %sb : tensor<2x128x2x128xf8E4M3FN>, tensor<2x2xf32>) outs(%eb : tensor<2x128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x2x128xf32>
  %fb = tensor.collapse_shape %db [[0, 1], [2, 3]] : tensor<2x128x2x128xf32> into tensor<256x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%fa, %fb : tensor<256x256xf32>, tensor<256x256xf32>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %d : tensor<256x256xf32>
}

// -----

// 1x64 blocks on a [M, K/64, 64] view.
// CHECK-LABEL: func.func @views_1x64
// CHECK:         qmm.matmul a(%arg0, %arg1 : tensor<32x256xf8E4M3FN>, tensor<32x4xf32>) #qmm.scale<block 1x64> b(%arg2, %{{.*}} : tensor<16x256xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row> outs(
// CHECK-NOT:     linalg.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#s3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @views_1x64(%a: tensor<32x256xf8E4M3FN>, %sa: tensor<32x4xf32>, %b: tensor<16x256xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [32, 4, 64] : tensor<32x256xf8E4M3FN> into tensor<32x4x64xf8E4M3FN>
  %ea = tensor.empty() : tensor<32x4x64xf32>
  %da = linalg.generic {indexing_maps = [#id3, #s3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<32x4x64xf8E4M3FN>, tensor<32x4xf32>) outs(%ea : tensor<32x4x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x4x64xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<32x4x64xf32> into tensor<32x256xf32>
  %eb = tensor.empty() : tensor<16x256xf32>
  %db = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x256xf8E4M3FN>, tensor<16xf32>) outs(%eb : tensor<16x256xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%fa, %db : tensor<32x256xf32>, tensor<16x256xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// MX scales widened in the body on [R, K/32, 32] views.
// CHECK-LABEL: func.func @mx_views
// CHECK:         qmm.matmul a(%arg0, %arg1 : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx> b(%arg2, %arg3 : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> outs(
// CHECK-NOT:     linalg.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#s3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @mx_views(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [32, 2, 32] : tensor<32x64xf8E4M3FN> into tensor<32x2x32xf8E4M3FN>
  %ea = tensor.empty() : tensor<32x2x32xf32>
  %da = linalg.generic {indexing_maps = [#id3, #s3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<32x2x32xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) outs(%ea : tensor<32x2x32xf32>) {
  ^bb0(%q: f8E4M3FN, %s8: f8E8M0FNU, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.extf %s8 : f8E8M0FNU to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x2x32xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<32x2x32xf32> into tensor<32x64xf32>
  %bv = tensor.expand_shape %b [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf8E4M3FN> into tensor<16x2x32xf8E4M3FN>
  %eb = tensor.empty() : tensor<16x2x32xf32>
  %db = linalg.generic {indexing_maps = [#id3, #s3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bv, %sb : tensor<16x2x32xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) outs(%eb : tensor<16x2x32xf32>) {
  ^bb0(%q: f8E4M3FN, %s8: f8E8M0FNU, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.extf %s8 : f8E8M0FNU to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x2x32xf32>
  %fb = tensor.collapse_shape %db [[0], [1, 2]] : tensor<16x2x32xf32> into tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%fa, %fb : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// A per-tensor f64 constant rounded in the body (issue 48: fused, the
// constant is a scalar outside the body, which was refused).
// CHECK-LABEL: func.func @f64_constant_per_tensor
// CHECK:         %[[SA:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1xf64>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : tensor<32x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%arg1, %{{.*}} : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row> outs(
#id = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0, d1) -> ()>
#row = affine_map<(d0, d1) -> (d0)>
func.func @f64_constant_per_tensor(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %sa = arith.constant dense<0.1> : tensor<f64>
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<f64>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s64: f64, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.truncf %s64 : f64 to f32
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

// A bf16 scale read at (0, 0) on [1, 1] and an f16 0-d one (B [K, N]).
// CHECK-LABEL: func.func @converted_unit_scales
// CHECK:         qmm.matmul a(%arg0, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%arg2, %{{.*}} : tensor<64x16xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn outs(
#id = affine_map<(d0, d1) -> (d0, d1)>
#zz = affine_map<(d0, d1) -> (0, 0)>
#one = affine_map<(d0, d1) -> ()>
func.func @converted_unit_scales(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<1x1xbf16>, %b: tensor<64x16xf8E5M2>, %sb: tensor<f16>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #zz, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<1x1xbf16>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s16: bf16, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.extf %s16 : bf16 to f32
    %y = arith.mulf %s, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<64x16xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<64x16xf8E5M2>, tensor<f16>) outs(%eb : tensor<64x16xf32>) {
  ^bb0(%q: f8E5M2, %s16: f16, %o: f32):
    %x = arith.extf %q : f8E5M2 to f32
    %s = arith.extf %s16 : f16 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul ins(%da, %db : tensor<32x64xf32>, tensor<64x16xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// torch._scaled_mm with a 0-d f32 constant and a [1, N] scale (fused,
// the constant is a scalar: a dense [1, 1] constant, not
// tensor.from_elements).
// CHECK-LABEL: func.func @scaled_mm_constant
// CHECK-NOT:     tensor.from_elements
// CHECK:         qmm.matmul a(%arg0, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%arg1, %arg2 : tensor<64x16xf8E4M3FN>, tensor<1x16xf32>) #qmm.scale<per_row, mn_major> layout kn outs(
// CHECK-NOT:     linalg.
#id = affine_map<(m, n) -> (m, n)>
#one = affine_map<(m, n) -> ()>
#col = affine_map<(m, n) -> (0, n)>
func.func @scaled_mm_constant(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xf8E4M3FN>, %sb: tensor<1x16xf32>) -> tensor<32x16xf32> {
  %sa = arith.constant dense<0.75> : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %p = linalg.matmul ins(%a, %b : tensor<32x64xf8E4M3FN>, tensor<64x16xf8E4M3FN>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  %e2 = tensor.empty() : tensor<32x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #one, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %sa, %sb : tensor<32x16xf32>, tensor<f32>, tensor<1x16xf32>) outs(%e2 : tensor<32x16xf32>) {
  ^bb0(%x: f32, %s: f32, %t: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    %z = arith.mulf %y, %t : f32
    linalg.yield %z : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// Dequantization in element-wise steps, each a generic of its own (extf,
// then the scale's multiplication, as a frontend lowering one op at a time
// writes it; fusion merges them): A per row, B stored [K, N] read
// transposed by its extf step, with a per-tensor f16 scale.
// CHECK-LABEL: func.func @dequantization_in_steps
// CHECK:         qmm.matmul a(%arg0, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%arg2, %{{.*}} : tensor<64x16xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn outs(
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
#one = affine_map<(d0, d1) -> ()>
func.func @dequantization_in_steps(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>,
                                   %b: tensor<64x16xf8E4M3FN>, %sb: tensor<f16>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %xa = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xa, %sa : tensor<32x64xf32>, tensor<32xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %xb = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x16xf8E4M3FN>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xb, %sb : tensor<16x64xf32>, tensor<f16>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%x: f32, %s16: f16, %o: f32):
    %s = arith.extf %s16 : f16 to f32
    %y = arith.mulf %s, %x : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
