// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
//
// Per-tensor scales given as scalars or 0-d tensors become the [1, 1]
// tensors qmm.matmul takes through reshapes, dense constants and
// element-wise generics on [1, 1] (kernels on the devices), never by
// scalar arithmetic, loads or stores, which the host code of the emu and
// hip devices does not run: a 0-d conversion generic (memref.load and
// memref.store once bufferized) or tensor.from_elements of a constant
// (memref.store) failed there. python/tests/test_frontend_variants.py
// runs these programs.

// A 0-d f16 scale converted in the body: reshaped to [1, 1] first, then
// converted by a [1, 1] generic (not a 0-d one).
// CHECK-LABEL: func.func @f16_zero_d
// CHECK:         %[[X:.*]] = tensor.expand_shape %arg1 [] output_shape [1, 1] : tensor<f16> into tensor<1x1xf16>
// CHECK:         %[[SA:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x1xf16>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[SB:.*]] = tensor.expand_shape %arg3 [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : {{.*}}) #qmm.scale<per_tensor> b(%arg2, %[[SB]] : {{.*}}) #qmm.scale<per_tensor> outs(
// CHECK-NOT:     tensor<f32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0, d1) -> ()>
func.func @f16_zero_d(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f16>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<f16>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s16: f16, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.extf %s16 : f16 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
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

// Scalar constants read from outside the bodies (what fusion and
// canonicalization make of splat constant scales): dense [1, 1] constants,
// an f64 one converted by its body's truncf; nothing scalar is left.
// CHECK-LABEL: func.func @constant_scalars
// CHECK-DAG:     %[[SA:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-DAG:     %[[S64:.*]] = arith.constant dense<1.000000e-01> : tensor<1x1xf64>
// CHECK:         %[[SB:.*]] = linalg.generic {{.*}} ins(%[[S64]] : tensor<1x1xf64>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : {{.*}}) #qmm.scale<per_tensor> b(%arg1, %[[SB]] : {{.*}}) #qmm.scale<per_tensor> outs(
// CHECK-NOT:     tensor.from_elements
// CHECK-NOT:     arith.constant {{.*}} : f64
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @constant_scalars(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>) -> tensor<32x16xf32> {
  %sa = arith.constant 0.5 : f32
  %sb = arith.constant 0.1 : f64
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %sa : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x64xf8E4M3FN>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.truncf %sb : f64 to f32
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

// The conversion outside the body too (an f64 constant truncated before
// the dequantization): the same as above, the truncf repeated on [1, 1].
// CHECK-LABEL: func.func @hoisted_conversion
// CHECK:         %[[S64:.*]] = arith.constant dense<3.000000e-01> : tensor<1x1xf64>
// CHECK:         %[[SA:.*]] = linalg.generic {{.*}} ins(%[[S64]] : tensor<1x1xf64>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : {{.*}}) #qmm.scale<per_tensor> b(%arg1, %{{.*}} : {{.*}}) #qmm.scale<per_tensor> outs(
// CHECK-NOT:     tensor.from_elements
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @hoisted_conversion(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>) -> tensor<32x16xf32> {
  %s64 = arith.constant 0.3 : f64
  %sa = arith.truncf %s64 : f64 to f32
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %sa : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x64xf8E4M3FN>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// Scalars extracted from one-element tensors: the tensors themselves,
// reshaped (a bf16 one converted on [1, 1]); the extracts go.
// CHECK-LABEL: func.func @extracted_scalars
// CHECK-DAG:     %[[SA:.*]] = tensor.expand_shape %arg1 [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK-DAG:     %[[XB:.*]] = tensor.expand_shape %arg3 {{\[\[}}0, 1]] output_shape [1, 1] : tensor<1xbf16> into tensor<1x1xbf16>
// CHECK:         %[[SB:.*]] = linalg.generic {{.*}} ins(%[[XB]] : tensor<1x1xbf16>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : {{.*}}) #qmm.scale<per_tensor> b(%arg2, %[[SB]] : {{.*}}) #qmm.scale<per_tensor> outs(
// CHECK-NOT:     tensor.extract
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @extracted_scalars(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<1xbf16>) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract %sa[] : tensor<f32>
  %t = tensor.extract %sb[%c0] : tensor<1xbf16>
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x64xf8E4M3FN>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %w = arith.extf %t : bf16 to f32
    %y = arith.mulf %x, %w : f32
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

// Per-batch f16 scales of a batched product (`(b)` on [B]): each batch's
// 0-d slice is reshaped to [1, 1] before its conversion.
// CHECK-LABEL: func.func @batched_f16_per_tensor
// CHECK:         %[[S0:.*]] = tensor.extract_slice %arg3[0] [1] [1] : tensor<2xf16> to tensor<f16>
// CHECK-NOT:     tensor<f16>) outs
// CHECK:         tensor.expand_shape %[[S0]] [] output_shape [1, 1] : tensor<f16> into tensor<1x1xf16>
// CHECK:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn outs(
// CHECK:         %[[S1:.*]] = tensor.extract_slice %arg3[1] [1] [1] : tensor<2xf16> to tensor<f16>
// CHECK-NOT:     tensor<f16>) outs
// CHECK:         tensor.expand_shape %[[S1]] [] output_shape [1, 1] : tensor<f16> into tensor<1x1xf16>
// CHECK:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn outs(
#id3 = affine_map<(b, d0, d1) -> (b, d0, d1)>
#ps = affine_map<(b, d0, d1) -> (b)>
#rs = affine_map<(b, d0, d1) -> (b, d0, 0)>
func.func @batched_f16_per_tensor(%a: tensor<2x16x128xf8E4M3FN>, %sa: tensor<2x16x1xf32>, %b: tensor<2x128x32xf8E4M3FN>, %sb: tensor<2xf16>) -> tensor<2x16x32xf32> {
  %ea = tensor.empty() : tensor<2x16x128xf32>
  %da = linalg.generic {indexing_maps = [#id3, #rs, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %sa : tensor<2x16x128xf8E4M3FN>, tensor<2x16x1xf32>) outs(%ea : tensor<2x16x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x16x128xf32>
  %eb = tensor.empty() : tensor<2x128x32xf32>
  %db = linalg.generic {indexing_maps = [#id3, #ps, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b, %sb : tensor<2x128x32xf8E4M3FN>, tensor<2xf16>) outs(%eb : tensor<2x128x32xf32>) {
  ^bb0(%q: f8E4M3FN, %s16: f16, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %s = arith.extf %s16 : f16 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x128x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %d = linalg.batch_matmul ins(%da, %db : tensor<2x16x128xf32>, tensor<2x128x32xf32>) outs(%init : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %d : tensor<2x16x32xf32>
}

// -----

// A scale from the caller as an f32 argument: placed by
// tensor.from_elements (the caller passes the scalar; the devices' calls
// take buffers only, so the linalg program does not run there either).
// CHECK-LABEL: func.func @scalar_argument
// CHECK:         %[[SA:.*]] = tensor.from_elements %arg1 : tensor<1x1xf32>
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : {{.*}}) #qmm.scale<per_tensor>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scalar_argument(%a: tensor<32x64xf8E4M3FN>, %sa: f32, %b: tensor<16x64xf8E4M3FN>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %sa : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x64xf8E4M3FN>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
