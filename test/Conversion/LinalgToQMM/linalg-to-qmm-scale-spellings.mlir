// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
// RUN: fp8-opt %s -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm | FileCheck %s --check-prefix=FUSED
//
// Scales spelled otherwise than a stored f32 or E8M0 tensor multiplied in:
// data divided by its scale (`q.to(f32) / s`, torchao's and PyTorch's
// reference convention: qmm.matmul gets 1 / s, by a clone of the
// division), E8M0 exponents decoded arithmetically (`2^(e - 127)`, NaN
// for 255, as torchao writes it: qmm.matmul gets the bits as
// f8E8M0FNU), a scale broadcast to the data's shape by a generic of its
// own, scales applied after the product as an M x N outer product or
// after a batch_matmul, and ONNX's zero point of 0.
// Before fusion and after (the same qmm.matmul).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#one = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @divided_by_scales
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<32xf32>, %[[B:[a-z0-9]+]]: tensor<16x64xf8E4M3FN>, %[[SB:[a-z0-9]+]]: tensor<f32>
// CHECK:         %[[RA:.*]] = linalg.generic {{.*}} ins(%[[SA]] : tensor<32xf32>)
// CHECK:           %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:           arith.divf %[[ONE]], %{{.*}} : f32
// CHECK:         %[[CA:.*]] = tensor.expand_shape %[[RA]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK:         %[[UB:.*]] = tensor.expand_shape %[[SB]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK:         %[[RB:.*]] = linalg.generic {{.*}} ins(%[[UB]] : tensor<1x1xf32>)
// CHECK:           arith.divf
// CHECK:         qmm.matmul a(%[[A]], %[[CA]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%[[B]], %[[RB]] : tensor<16x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs
// FUSED-LABEL: func.func @divided_by_scales
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_tensor> outs
func.func @divided_by_scales(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>,
                             %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.divf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.divf %x, %s : f32
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

#id = affine_map<(d0, d1) -> (d0, d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// CHECK-LABEL: func.func @e8m0_decoded_arithmetically
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf4E2M1FN>, %[[SA:[a-z0-9]+]]: tensor<32x2xi8>, %[[B:[a-z0-9]+]]: tensor<16x64xf8E4M3FN>, %[[SB:[a-z0-9]+]]: tensor<16x2xf8E8M0FNU>
// CHECK:         %[[EA:.*]] = linalg.generic {{.*}} ins(%[[SA]] : tensor<32x2xi8>) outs(%{{.*}} : tensor<32x2xf8E8M0FNU>)
// CHECK:           arith.bitcast %{{.*}} : i8 to f8E8M0FNU
// CHECK:         qmm.matmul a(%[[A]], %[[EA]] : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx> b(%[[B]], %[[SB]] : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> outs
// CHECK-NOT:     math.
// FUSED-LABEL: func.func @e8m0_decoded_arithmetically
// FUSED:         qmm.matmul {{.*}} #qmm.scale<mx> {{.*}} #qmm.scale<mx> outs
// FUSED-NOT:     math.
func.func @e8m0_decoded_arithmetically(%a: tensor<32x64xf4E2M1FN>, %sa: tensor<32x2xi8>,
                                       %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf4E2M1FN>, tensor<32x2xi8>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f4E2M1FN, %e: i8, %o: f32):
    %w = arith.extui %e : i8 to i32
    %c127 = arith.constant 127 : i32
    %u = arith.subi %w, %c127 : i32
    %f = arith.sitofp %u : i32 to f32
    %two = arith.constant 2.0 : f32
    %p = math.powf %two, %f : f32
    %c255 = arith.constant -1 : i8
    %is = arith.cmpi eq, %e, %c255 : i8
    %nan = arith.constant 0x7FC00000 : f32
    %s = arith.select %is, %nan, %p : f32
    %x = arith.extf %q : f4E2M1FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %e8: f8E8M0FNU, %o: f32):
    %e = arith.bitcast %e8 : f8E8M0FNU to i8
    %w = arith.extui %e : i8 to i16
    %c255 = arith.constant 255 : i16
    %ok = arith.cmpi ne, %w, %c255 : i16
    %wf = arith.uitofp %w : i16 to f32
    %bias = arith.constant 127.0 : f32
    %u = arith.subf %wf, %bias : f32
    %p = math.exp2 %u : f32
    %nan = arith.constant 0x7FC00000 : f32
    %s = arith.select %ok, %p, %nan : f32
    %x = arith.extf %q : f8E4M3FN to f32
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

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @scale_broadcast_first
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<f32>
// CHECK:         %[[CA:.*]] = tensor.expand_shape %[[SA]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK:         qmm.matmul a(%[[A]], %[[CA]] : tensor<32x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b({{.*}}) #qmm.scale<per_row> outs
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @scale_broadcast_first
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_row> outs
// FUSED-NOT:     linalg.generic
func.func @scale_broadcast_first(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>,
                                 %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %full = tensor.empty() : tensor<32x64xf32>
  %sfull = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sa : tensor<f32>) outs(%full : tensor<32x64xf32>) {
  ^bb0(%s: f32, %o: f32):
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sfull : tensor<32x64xf8E4M3FN>, tensor<32x64xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
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

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @scales_outer_product_after
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<32xf32>, %[[B:[a-z0-9]+]]: tensor<16x64xf8E4M3FN>, %[[SB:[a-z0-9]+]]: tensor<16xf32>
// CHECK-DAG:     %[[CA:.*]] = tensor.expand_shape %[[SA]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK-DAG:     %[[CB:.*]] = tensor.expand_shape %[[SB]] {{\[\[}}0, 1]] output_shape [16, 1]
// CHECK:         %[[D:.*]] = qmm.matmul a(%[[A]], %[[CA]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%[[B]], %[[CB]] : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row> outs
// CHECK-NEXT:    return %[[D]]
// FUSED-LABEL: func.func @scales_outer_product_after
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs
// FUSED-NOT:     linalg.generic
func.func @scales_outer_product_after(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>,
                                      %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %p = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<32x64xf8E4M3FN>, tensor<16x64xf8E4M3FN>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  %es = tensor.empty() : tensor<32x16xf32>
  %outer = linalg.generic {indexing_maps = [#rows, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sa, %sb : tensor<32xf32>, tensor<16xf32>) outs(%es : tensor<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  %ed = tensor.empty() : tensor<32x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %outer : tensor<32x16xf32>, tensor<32x16xf32>) outs(%ed : tensor<32x16xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(b, m, n) -> (b, m, n)>
#tok = affine_map<(b, m, n) -> (b, m)>
#ch = affine_map<(b, m, n) -> (b, 0, n)>
// Scales after a batch_matmul: per batch, the scaling of that batch's
// product (its slices) folded into that batch's qmm.matmul.
// CHECK-LABEL: func.func @scales_after_batch_matmul
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<2x32x64xf8E4M3FN>, %{{[a-z0-9]+}}: tensor<2x64x16xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<2x32xf32>, %[[SB:[a-z0-9]+]]: tensor<2x1x16xf32>
// CHECK:         %[[SA0:.*]] = tensor.extract_slice %[[SA]][0, 0] [1, 32] [1, 1]
// CHECK:         %[[SB0:.*]] = tensor.extract_slice %[[SB]][0, 0, 0] [1, 1, 16] [1, 1, 1]
// CHECK:         %[[CA0:.*]] = tensor.expand_shape %[[SA0]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK:         %[[D0:.*]] = qmm.matmul a(%{{.*}}, %[[CA0]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%{{.*}}, %[[SB0]] : tensor<64x16xf8E4M3FN>, tensor<1x16xf32>) #qmm.scale<per_row, mn_major> layout kn
// CHECK:         %[[R0:.*]] = tensor.insert_slice %[[D0]] into %{{.*}}[0, 0, 0] [1, 32, 16]
// CHECK:         %[[SA1:.*]] = tensor.extract_slice %[[SA]][1, 0] [1, 32] [1, 1]
// CHECK:         %[[D1:.*]] = qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row, mn_major> layout kn
// CHECK:         %[[R1:.*]] = tensor.insert_slice %[[D1]] into %[[R0]][1, 0, 0] [1, 32, 16]
// CHECK:         return %[[R1]]
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @scales_after_batch_matmul
// FUSED-COUNT-2: qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row, mn_major> layout kn
// FUSED-NOT:     linalg.generic
func.func @scales_after_batch_matmul(%a: tensor<2x32x64xf8E4M3FN>, %b: tensor<2x64x16xf8E4M3FN>,
                                     %sa: tensor<2x32xf32>, %sb: tensor<2x1x16xf32>) -> tensor<2x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x16xf32>) -> tensor<2x32x16xf32>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x32x64xf8E4M3FN>, tensor<2x64x16xf8E4M3FN>) outs(%init : tensor<2x32x16xf32>) -> tensor<2x32x16xf32>
  %ed = tensor.empty() : tensor<2x32x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #tok, #ch, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %sa, %sb : tensor<2x32x16xf32>, tensor<2x32xf32>, tensor<2x1x16xf32>) outs(%ed : tensor<2x32x16xf32>) {
  ^bb0(%x: f32, %s: f32, %t: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    %z = arith.mulf %y, %t : f32
    linalg.yield %z : f32
  } -> tensor<2x32x16xf32>
  return %d : tensor<2x32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0, d1) -> ()>
// ONNX's DequantizeLinear, (x - zero_point) * scale, with the zero point
// FP8 requires, 0: a +0 constant tensor input or a +0 constant (x - 0 is
// x, bit for bit). Other zero points are near misses.
// CHECK-LABEL: func.func @onnx_zero_point_zero
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<f32>, %[[B:[a-z0-9]+]]: tensor<16x64xf8E4M3FN>
// CHECK:         qmm.matmul a(%[[A]], %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%[[B]], %{{.*}} : tensor<16x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     arith.constant dense<0.000000e+00> : tensor<f8E4M3FN>
// FUSED-LABEL: func.func @onnx_zero_point_zero
// FUSED:         qmm.matmul
// FUSED-NOT:     linalg.generic
func.func @onnx_zero_point_zero(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>,
                                %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %zp = arith.constant dense<0.0> : tensor<f8E4M3FN>
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %zp, %sa : tensor<32x64xf8E4M3FN>, tensor<f8E4M3FN>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %z: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %w = arith.extf %z : f8E4M3FN to f32
    %d = arith.subf %x, %w : f32
    %y = arith.mulf %d, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %zero = arith.constant 0.0 : f32
    %d = arith.subf %x, %zero : f32
    %y = arith.mulf %d, %s : f32
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

#id = affine_map<(d0, d1) -> (d0, d1)>
// Scales broadcast by linalg.broadcast (StableHLO's broadcast_in_dim) to
// the data's shape: read through the broadcast's map.
// CHECK-LABEL: func.func @scales_by_linalg_broadcast
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<32xf32>, %[[B:[a-z0-9]+]]: tensor<16x64xf8E4M3FN>, %[[SB:[a-z0-9]+]]: tensor<f32>
// CHECK-DAG:     %[[CA:.*]] = tensor.expand_shape %[[SA]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK-DAG:     %[[CB:.*]] = tensor.expand_shape %[[SB]] [] output_shape [1, 1]
// CHECK:         qmm.matmul a(%[[A]], %[[CA]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%[[B]], %[[CB]] : tensor<16x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs
// CHECK-NOT:     linalg.broadcast
// FUSED-LABEL: func.func @scales_by_linalg_broadcast
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_tensor> outs
func.func @scales_by_linalg_broadcast(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>,
                                      %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ba = tensor.empty() : tensor<32x64xf32>
  %fa = linalg.broadcast ins(%sa : tensor<32xf32>) outs(%ba : tensor<32x64xf32>) dimensions = [1]
  %bb = tensor.empty() : tensor<16x64xf32>
  %fb = linalg.broadcast ins(%sb : tensor<f32>) outs(%bb : tensor<16x64xf32>) dimensions = [0, 1]
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %fa : tensor<32x64xf8E4M3FN>, tensor<32x64xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %fb : tensor<16x64xf8E4M3FN>, tensor<16x64xf32>) outs(%eb : tensor<16x64xf32>) {
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

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// Division in steps: an extf generic, then the division by its own
// generic (read fused).
// CHECK-LABEL: func.func @division_in_steps
// CHECK:         arith.divf
// CHECK:         arith.divf
// CHECK:         qmm.matmul a(%{{.*}} : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%{{.*}} : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row> outs
// CHECK-NOT:     linalg.matmul
// FUSED-LABEL: func.func @division_in_steps
// FUSED:         qmm.matmul
func.func @division_in_steps(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>,
                             %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
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
    %y = arith.divf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16xf32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.divf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
