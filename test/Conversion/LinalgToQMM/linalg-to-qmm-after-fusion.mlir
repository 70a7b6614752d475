// Dequantization fused into the contraction: what upstream's
// linalg-fuse-elementwise-ops (after linalg-generalize-named-ops) makes of
// the frontend forms. Each form of linalg-to-qmm.mlir must raise to the
// same qmm.matmul after fusion and canonicalization as before, and each
// near miss must stay linalg, silently.
//
// RUN: fp8-opt %S/linalg-to-qmm.mlir -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm | FileCheck %s --check-prefix=FUSED
// RUN: sed "s/expected-remark/remark expected/" %S/linalg-to-qmm-near-misses.mlir | fp8-opt -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm -verify-diagnostics | FileCheck %s --check-prefix=NEAR
// RUN: fp8-opt %S/linalg-to-qmm-near-misses.mlir -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm --remarks-filter-missed=qmm-linalg-to-qmm --remark-format=emitRemark 2>&1 >/dev/null | FileCheck %s --check-prefix=NEAR-WHY
// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm -verify-diagnostics | FileCheck %s
// RUN: fp8-opt %S/linalg-to-qmm-near-misses.mlir -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize > %t.before
// RUN: fp8-opt %t.before -split-input-file --qmm-linalg-to-qmm > %t.after
// RUN: diff %t.before %t.after

// Why each near miss stays linalg after fusion too (the dequantization now
// in the contraction's body), in the file's order.
// NEAR-WHY: Function=integers {{.*}}`arith.sitofp` and a block argument, neither quantized data
// NEAR-WHY: Function=zero_point {{.*}}`arith.subf` and a block argument, neither quantized data
// NEAR-WHY: Function=per_k_scale {{.*}}A: the scale, read through (d0, d1, d2) -> (d2), is no scale encoding
// NEAR-WHY: Function=bf16_result {{.*}}it accumulates in bf16
// NEAR-WHY: Function=one_operand {{.*}}B: produced by a function argument
// NEAR-WHY: Function=a_transposed {{.*}}no factor is read as A
// NEAR-WHY: Function=fnuz_times_ocp {{.*}}mix FNUZ and OCP
// NEAR-WHY: Function=mx_on_fnuz {{.*}}'mx' encoding of A requires an OCP MX element type
// NEAR-WHY: Function=a_transposed_data {{.*}}no factor is read as A
// NEAR-WHY: Function=constant_index_not_broadcast {{.*}}B: the scale, read through (d0, d1, d2) -> (0, d2), is no scale encoding
// NEAR-WHY: Function=scaling_extf_f32_scales {{.*}}`arith.scaling_extf` with a scale of type f32
// NEAR-WHY: Function=view_scale_within_block {{.*}}(d0, d1, d2) -> (d0, d2 mod 128), is no scale encoding
// NEAR-WHY: Function=view_interleaved_scale {{.*}}(d0, d1, d2) -> (d0, d2 mod 2), is no scale encoding
// NEAR-WHY: Function=bf16_rounded_dequantization {{.*}}rounded to bf16 (`arith.truncf`)
// NEAR-WHY: Function=out_transposed {{.*}}no factor is read as A
// NEAR-WHY: Function=computed_scalar_scale {{.*}}a scalar computed outside the dequantization
// NEAR-WHY: Function=zero_point_in_steps {{.*}}`arith.subf` and a block argument
// NEAR-WHY: Function=weight_only_fp4_bf16_activation {{.*}}A: produced by a function argument
// NEAR-WHY: Function=e8m0_decode_without_nan {{.*}}the scale is computed in the body by `math.exp2`
// NEAR-WHY: Function=divided_by_e8m0 {{.*}}a division by an E8M0 scale
// NEAR-WHY: Function=scaled_in_bf16 {{.*}}a bf16 value computed by `arith.mulf`
// NEAR-WHY: Function=blocks_straddling_rows {{.*}}not whole blocks of each row
// NEAR-WHY: Function=f6_through_e5m2 {{.*}}Remark=
// NEAR-WHY: Function=e8m0_uitofp_of_difference {{.*}}the scale is computed in the body by `arith.select`
// NEAR-WHY-NOT: Function=

// The encodings are linalg-to-qmm.mlir's own CHECK lines; a zero fill
// generalized into a linalg.generic still means "no accumulation" (no
// `accumulate` between the scales and `outs(`).
// FUSED-LABEL: func.func @blockwise_nk
// FUSED:         qmm.matmul {{.*}} #qmm.scale<block 1x128> {{.*}} #qmm.scale<block 128x128> outs(
// FUSED-NOT:     "reduction"
// FUSED-LABEL: func.func @per_tensor_kn_accumulate
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_tensor> layout kn accumulate outs(
// FUSED-LABEL: func.func @per_row_generic
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs(
// FUSED-LABEL: func.func @broadcast_row_scales
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row, mn_major> outs(
// FUSED-LABEL: func.func @broadcast_tensor_scales
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_tensor> outs(
// FUSED-LABEL: func.func @converted_scales
// FUSED-COUNT-2: arith.extf {{.*}} to f32
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs(
// FUSED-LABEL: func.func @f64_scales
// FUSED-COUNT-2: arith.truncf {{.*}} : f64 to f32
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs(
// FUSED-LABEL: func.func @b_transposed_data
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_tensor> layout kn outs(
// FUSED-LABEL: func.func @b_explicit_transpose
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs(
// FUSED-LABEL: func.func @unit_scale_fp8
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_tensor> layout kn outs(
// FUSED-LABEL: func.func @mxfp4
// FUSED:         qmm.matmul {{.*}} #qmm.scale<mx> {{.*}} #qmm.scale<mx> outs(
// FUSED-LABEL: func.func @mx_scaling_extf
// FUSED:         qmm.matmul {{.*}} #qmm.scale<mx> {{.*}} #qmm.scale<mx> outs(
// FUSED-LABEL: func.func @kn_mn_major
// FUSED:         qmm.matmul {{.*}} #qmm.scale<block 1x128> {{.*}} #qmm.scale<block 128x128, mn_major> layout kn outs(
// FUSED-LABEL: func.func @batched
// FUSED-COUNT-2: qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_tensor> layout kn outs(
// FUSED-LABEL: func.func @batched_keepdim
// FUSED-COUNT-2: qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_tensor> layout kn outs(
// FUSED-LABEL: func.func @dynamic_m_per_token
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs({{.*}} : tensor<?x16xf32>)
// (Canonicalization of the fused generic infers M = 4 from the static
// scale vector it reads along m.)
// FUSED-LABEL: func.func @dynamic_m_static_scales
// FUSED:         qmm.matmul a({{.*}} : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>) #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs({{.*}} : tensor<4x16xf32>)
// FUSED-LABEL: func.func @dynamic_m_blockwise
// FUSED:         qmm.matmul {{.*}} #qmm.scale<block 1x128> {{.*}} #qmm.scale<block 128x128> outs({{.*}} : tensor<?x128xf32>)
// FUSED-LABEL: func.func @scaled_mm_row_col
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row, mn_major> layout kn outs(
// FUSED-NOT:     linalg.generic
// FUSED-LABEL: func.func @scaled_mm_scalars
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_tensor> outs(
// FUSED-NOT:     linalg.generic
// FUSED-LABEL: func.func @scaled_mm_channel_vector
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_tensor> {{.*}} #qmm.scale<per_row> layout kn outs(
// FUSED-NOT:     linalg.generic
// FUSED-LABEL: func.func @scaled_after_elementwise
// FUSED:         qmm.matmul
// FUSED:         linalg.generic
// FUSED-LABEL: func.func @scaled_after_plus_bias
// FUSED:         qmm.matmul
// FUSED:         linalg.generic
// Reshaped views: fusion carries the split loops into the contraction
// (five loops, [M, N/128, 128] result), read back as three.
// FUSED-LABEL: func.func @blockwise_views
// FUSED:         qmm.matmul a(%arg0, %arg1 : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128> b(%arg2, %arg3 : tensor<128x256xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128> outs(
// FUSED-NOT:     linalg.generic
// FUSED-LABEL: func.func @blockwise_views_torch
// FUSED:         qmm.matmul a(%arg0, %{{.*}} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>) #qmm.scale<block 1x128> b(%arg2, %arg3 : tensor<256x128xf8E4M3FN>, tensor<2x1xf32>) #qmm.scale<block 128x128, mn_major> layout kn outs(
// FUSED-NOT:     linalg.generic

// The near misses fuse into one generic each, and stay that generic,
// unchanged (the diff of the last RUN lines).
// NEAR-NOT:    qmm.matmul

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#row = affine_map<(m, n, k) -> (m)>
#col = affine_map<(m, n, k) -> (n)>
#c = affine_map<(m, n, k) -> (m, n)>
// The fused per-row form as upstream prints it: B's dequantization first,
// each scale multiplied on the right.
// CHECK-LABEL: func.func @fused_per_row
// CHECK-DAG:     %[[SA:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK-DAG:     %[[SB:.*]] = tensor.expand_shape %arg3 {{\[\[}}0, 1]] output_shape [16, 1]
// CHECK-DAG:     %[[E:.*]] = tensor.empty() : tensor<32x16xf32>
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : {{.*}}) #qmm.scale<per_row> b(%arg2, %[[SB]] : {{.*}}) #qmm.scale<per_row> outs(%[[E]] : tensor<32x16xf32>)
// CHECK-NOT:     linalg
func.func @fused_per_row(%a: tensor<32x128xf8E4M3FN>, %sa: tensor<32xf32>,
                         %b: tensor<16x128xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.generic {indexing_maps = [#a, #row, #b, #col, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %sa, %b, %sb : tensor<32x128xf8E4M3FN>, tensor<32xf32>, tensor<16x128xf8E4M3FN>, tensor<16xf32>)
      outs(%init : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %xa: f32, %qb: f8E4M3FN, %xb: f32, %acc: f32):
    %0 = arith.extf %qb : f8E4M3FN to f32
    %1 = arith.mulf %0, %xb : f32
    %2 = arith.extf %qa : f8E4M3FN to f32
    %3 = arith.mulf %2, %xa : f32
    %4 = arith.mulf %3, %1 : f32
    %5 = arith.addf %acc, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#ablk = affine_map<(m, n, k) -> (m, k floordiv 128)>
#bblk = affine_map<(m, n, k) -> (k floordiv 128, n floordiv 128)>
#c = affine_map<(m, n, k) -> (m, n)>
// Blockwise, B stored [K, N] with MN-major block scales, scales first in
// each product, bf16 scales of A widened in the body, a dynamic M, the
// product added on the left and accumulated into the destination.
// CHECK-LABEL: func.func @fused_blockwise_kn
// CHECK:         %[[SA:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<?x2xbf16>)
// CHECK:           arith.extf {{.*}} : bf16 to f32
// CHECK:         qmm.matmul a(%arg0, %[[SA]] : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>) #qmm.scale<block 1x128> b(%arg2, %arg3 : tensor<256x128xf8E5M2>, tensor<2x1xf32>) #qmm.scale<block 128x128, mn_major> layout kn accumulate outs(%arg4 : tensor<?x128xf32>)
// CHECK-NOT:     linalg.generic
func.func @fused_blockwise_kn(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x2xbf16>,
                              %b: tensor<256x128xf8E5M2>, %sb: tensor<2x1xf32>,
                              %c: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %d = linalg.generic {indexing_maps = [#a, #ablk, #kn, #bblk, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %sa, %b, %sb : tensor<?x256xf8E4M3FN>, tensor<?x2xbf16>, tensor<256x128xf8E5M2>, tensor<2x1xf32>)
      outs(%c : tensor<?x128xf32>) {
  ^bb0(%qa: f8E4M3FN, %xa: bf16, %qb: f8E5M2, %xb: f32, %acc: f32):
    %0 = arith.extf %xa : bf16 to f32
    %1 = arith.extf %qa : f8E4M3FN to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.extf %qb : f8E5M2 to f32
    %4 = arith.mulf %xb, %3 : f32
    %5 = arith.mulf %2, %4 : f32
    %6 = arith.addf %5, %acc : f32
    linalg.yield %6 : f32
  } -> tensor<?x128xf32>
  return %d : tensor<?x128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#amx = affine_map<(m, n, k) -> (m, k floordiv 32)>
#c = affine_map<(m, n, k) -> (m, n)>
// Half fused: A's MX dequantization (arith.scaling_extf) in the body, B
// dequantized by a generic of its own (scaling_extf, E8M0 per 32); the
// zero fill generalized into a linalg.generic.
// CHECK-LABEL: func.func @half_fused_mx
// CHECK:         qmm.matmul a(%arg0, %arg1 : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx> b(%arg2, %arg3 : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> outs(
// CHECK-NOT:     linalg
func.func @half_fused_mx(%a: tensor<32x64xf4E2M1FN>, %sa: tensor<32x2xf8E8M0FNU>,
                         %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f8E8M0FNU, %o: f32):
    %y = arith.scaling_extf %q, %s : f8E4M3FN, f8E8M0FNU to f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<32x16xf32>) {
  ^bb0(%o: f32):
    %zero = arith.constant 0.0 : f32
    linalg.yield %zero : f32
  } -> tensor<32x16xf32>
  %d = linalg.generic {indexing_maps = [#a, #amx, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %sa, %db : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>, tensor<16x64xf32>)
      outs(%init : tensor<32x16xf32>) {
  ^bb0(%qa: f4E2M1FN, %xa: f8E8M0FNU, %vb: f32, %acc: f32):
    %0 = arith.scaling_extf %qa, %xa : f4E2M1FN, f8E8M0FNU to f32
    %1 = arith.mulf %0, %vb : f32
    %2 = arith.addf %acc, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#row = affine_map<(m, n, k) -> (m)>
#perk = affine_map<(m, n, k) -> (k)>
#c = affine_map<(m, n, k) -> (m, n)>
// Fused near misses: a zero point, a dequantized value rounded to bf16, a
// scale along K, a third factor, A read through a map other than (m, k),
// a fill that is not +0.
// CHECK-LABEL: func.func @fused_zero_point
// CHECK-NOT:     qmm.matmul
// CHECK:         linalg.generic
func.func @fused_zero_point(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>, %b: tensor<16x64xf8E4M3FN>,
                            %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %zp = arith.constant 3.0 : f32
  %d = linalg.generic {indexing_maps = [#a, #row, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %sa, %b : tensor<32x64xf8E4M3FN>, tensor<32xf32>, tensor<16x64xf8E4M3FN>) outs(%c : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %xa: f32, %qb: f8E4M3FN, %acc: f32):
    %0 = arith.extf %qa : f8E4M3FN to f32
    %1 = arith.subf %0, %zp : f32
    %2 = arith.mulf %1, %xa : f32
    %3 = arith.extf %qb : f8E4M3FN to f32
    %4 = arith.mulf %2, %3 : f32
    %5 = arith.addf %acc, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#row = affine_map<(m, n, k) -> (m)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @fused_bf16_rounding
// CHECK-NOT:     qmm.matmul
// CHECK:         linalg.generic
func.func @fused_bf16_rounding(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>, %b: tensor<16x64xf8E4M3FN>,
                               %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = linalg.generic {indexing_maps = [#a, #row, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %sa, %b : tensor<32x64xf8E4M3FN>, tensor<32xf32>, tensor<16x64xf8E4M3FN>) outs(%c : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %xa: f32, %qb: f8E4M3FN, %acc: f32):
    %0 = arith.extf %qa : f8E4M3FN to f32
    %1 = arith.mulf %0, %xa : f32
    %r = arith.truncf %1 : f32 to bf16
    %w = arith.extf %r : bf16 to f32
    %3 = arith.extf %qb : f8E4M3FN to f32
    %4 = arith.mulf %w, %3 : f32
    %5 = arith.addf %acc, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#perk = affine_map<(m, n, k) -> (k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @fused_scale_along_k
// CHECK-NOT:     qmm.matmul
// CHECK:         linalg.generic
func.func @fused_scale_along_k(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<64xf32>, %b: tensor<16x64xf8E4M3FN>,
                               %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = linalg.generic {indexing_maps = [#a, #perk, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %sa, %b : tensor<32x64xf8E4M3FN>, tensor<64xf32>, tensor<16x64xf8E4M3FN>) outs(%c : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %xa: f32, %qb: f8E4M3FN, %acc: f32):
    %0 = arith.extf %qa : f8E4M3FN to f32
    %1 = arith.mulf %0, %xa : f32
    %3 = arith.extf %qb : f8E4M3FN to f32
    %4 = arith.mulf %1, %3 : f32
    %5 = arith.addf %acc, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#row = affine_map<(m, n, k) -> (m)>
#col = affine_map<(m, n, k) -> (n)>
#c = affine_map<(m, n, k) -> (m, n)>
// A third factor (a per-column gate) in the product.
// CHECK-LABEL: func.func @fused_third_factor
// CHECK-NOT:     qmm.matmul
// CHECK:         linalg.generic
func.func @fused_third_factor(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>, %b: tensor<16x64xf8E4M3FN>,
                              %g: tensor<16xf32>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = linalg.generic {indexing_maps = [#a, #row, #b, #col, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %sa, %b, %g : tensor<32x64xf8E4M3FN>, tensor<32xf32>, tensor<16x64xf8E4M3FN>, tensor<16xf32>) outs(%c : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %xa: f32, %qb: f8E4M3FN, %xg: f32, %acc: f32):
    %0 = arith.extf %qa : f8E4M3FN to f32
    %1 = arith.mulf %0, %xa : f32
    %3 = arith.extf %qb : f8E4M3FN to f32
    %4 = arith.mulf %1, %3 : f32
    %5 = arith.mulf %4, %xg : f32
    %6 = arith.addf %acc, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// A stored [K, M] and read through (k, m): qmm reads A as [M, K] only.
// CHECK-LABEL: func.func @fused_a_transposed
// CHECK-NOT:     qmm.matmul
// CHECK:         linalg.generic
func.func @fused_a_transposed(%a: tensor<64x32xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>,
                              %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x32xf8E4M3FN>, tensor<16x64xf8E4M3FN>) outs(%c : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %qb: f8E4M3FN, %acc: f32):
    %0 = arith.extf %qa : f8E4M3FN to f32
    %3 = arith.extf %qb : f8E4M3FN to f32
    %4 = arith.mulf %0, %3 : f32
    %5 = arith.addf %acc, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// A generalized fill of -0 is a destination to accumulate into (the sum
// of an all -0 row is -0, not +0): raised, with accumulate.
// CHECK-LABEL: func.func @negative_zero_fill
// CHECK:         %[[F:.*]] = linalg.generic
// CHECK:         qmm.matmul {{.*}} #qmm.scale<per_tensor> accumulate outs(%[[F]] : tensor<32x16xf32>)
func.func @negative_zero_fill(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<32x16xf32>) {
  ^bb0(%o: f32):
    %nz = arith.constant -0.0 : f32
    linalg.yield %nz : f32
  } -> tensor<32x16xf32>
  %d = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<32x64xf8E4M3FN>, tensor<16x64xf8E4M3FN>) outs(%init : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %qb: f8E4M3FN, %acc: f32):
    %0 = arith.extf %qa : f8E4M3FN to f32
    %3 = arith.extf %qb : f8E4M3FN to f32
    %4 = arith.mulf %0, %3 : f32
    %5 = arith.addf %acc, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// Batched and fused, with a per-row scale of unknown extent (sliced per
// batch with its runtime size; the host program checks it against M).
// CHECK-LABEL: func.func @batched_dyn_scale
// CHECK:         %[[S0:.*]] = tensor.extract_slice %arg1[0, 0] [1, %{{.*}}] [1, 1] : tensor<2x?xf32> to tensor<?xf32>
// CHECK-COUNT-2: qmm.matmul {{.*}} tensor<?x1xf32>) #qmm.scale<per_row> {{.*}} #qmm.scale<per_tensor> accumulate outs(
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#sa = affine_map<(b, m, n, k) -> (b, m)>
#bm = affine_map<(b, m, n, k) -> (b, n, k)>
#sb = affine_map<(b, m, n, k) -> ()>
#o = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched_dyn_scale(%a: tensor<2x32x64xf8E4M3FN>, %sa: tensor<2x?xf32>, %b: tensor<2x16x64xf8E4M3FN>, %sb: tensor<f32>, %c: tensor<2x32x16xf32>) -> tensor<2x32x16xf32> {
  %d = linalg.generic {indexing_maps = [#a, #sa, #bm, #sb, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %sa, %b, %sb : tensor<2x32x64xf8E4M3FN>, tensor<2x?xf32>, tensor<2x16x64xf8E4M3FN>, tensor<f32>) outs(%c : tensor<2x32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %s1: f32, %qb: f8E4M3FN, %s2: f32, %o: f32):
    %x = arith.extf %qa : f8E4M3FN to f32
    %xs = arith.mulf %x, %s1 : f32
    %y = arith.extf %qb : f8E4M3FN to f32
    %ys = arith.mulf %s2, %y : f32
    %p = arith.mulf %xs, %ys : f32
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x32x16xf32>
  return %d : tensor<2x32x16xf32>
}
