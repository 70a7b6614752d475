// RUN: fp8-opt %s -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file | fp8-opt -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file --mlir-print-op-generic | fp8-opt -split-input-file | FileCheck %s

// 1x128 activation quantization (DeepGEMM per_token_cast_to_fp8).
// CHECK-LABEL: func.func @activation_1x128
// CHECK: %{{.*}}:2 = qmm.quantize %{{.*}} : tensor<256x512xbf16> encoding #qmm.scale<block 1x128>
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
func.func @activation_1x128(%x: tensor<256x512xbf16>, %q0: tensor<256x512xf8E4M3FN>,
                            %s0: tensor<256x4xf32>) -> (tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) {
  %q, %s = qmm.quantize %x : tensor<256x512xbf16> encoding #qmm.scale<block 1x128>
             outs(%q0, %s0 : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>)
             -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
  return %q, %s : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
}

// -----

// 128x128 weight quantization of a [K, N] weight, MI300 FNUZ format.
// CHECK-LABEL: func.func @weight_kn_fnuz
// CHECK: qmm.quantize %{{.*}} : tensor<512x1024xf32> encoding #qmm.scale<block 128x128> layout kn outs(
// CHECK-SAME: tensor<512x1024xf8E4M3FNUZ>, tensor<8x4xf32>
func.func @weight_kn_fnuz(%x: tensor<512x1024xf32>, %q0: tensor<512x1024xf8E4M3FNUZ>,
                          %s0: tensor<8x4xf32>) -> (tensor<512x1024xf8E4M3FNUZ>, tensor<8x4xf32>) {
  %q, %s = qmm.quantize %x : tensor<512x1024xf32> encoding #qmm.scale<block 128x128> layout kn
             outs(%q0, %s0 : tensor<512x1024xf8E4M3FNUZ>, tensor<8x4xf32>)
             -> tensor<512x1024xf8E4M3FNUZ>, tensor<8x4xf32>
  return %q, %s : tensor<512x1024xf8E4M3FNUZ>, tensor<8x4xf32>
}

// -----

// Per-tensor and per-row, f16 input, e5m2 data.
// CHECK-LABEL: func.func @per_tensor_and_per_row
// CHECK: qmm.quantize %{{.*}} : tensor<64x96xf16> encoding #qmm.scale<per_tensor> outs(
// CHECK: qmm.quantize %{{.*}} : tensor<64x96xf16> encoding #qmm.scale<per_row> min_amax 9.99999996E-13 outs(
func.func @per_tensor_and_per_row(%x: tensor<64x96xf16>, %q0: tensor<64x96xf8E5M2>,
                                  %t0: tensor<1x1xf32>, %r0: tensor<64x1xf32>)
    -> (tensor<64x96xf8E5M2>, tensor<1x1xf32>, tensor<64x96xf8E5M2>, tensor<64x1xf32>) {
  %q, %s = qmm.quantize %x : tensor<64x96xf16> encoding #qmm.scale<per_tensor>
             outs(%q0, %t0 : tensor<64x96xf8E5M2>, tensor<1x1xf32>)
             -> tensor<64x96xf8E5M2>, tensor<1x1xf32>
  %qr, %sr = qmm.quantize %x : tensor<64x96xf16> encoding #qmm.scale<per_row> min_amax 1.0e-12
             outs(%q0, %r0 : tensor<64x96xf8E5M2>, tensor<64x1xf32>)
             -> tensor<64x96xf8E5M2>, tensor<64x1xf32>
  return %q, %s, %qr, %sr : tensor<64x96xf8E5M2>, tensor<1x1xf32>, tensor<64x96xf8E5M2>, tensor<64x1xf32>
}

// -----

// MX with the OCP rule (the default for E8M0 scales, not printed) and with
// DeepGEMM's round-up rule.
// CHECK-LABEL: func.func @mx_rounding
// CHECK: qmm.quantize %{{.*}} : tensor<32x128xf32> encoding #qmm.scale<mx> outs(
// CHECK-SAME: tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>
// CHECK: qmm.quantize %{{.*}} : tensor<32x128xf32> encoding #qmm.scale<mx> rounding pow2_floor outs(
// CHECK: qmm.quantize %{{.*}} : tensor<32x128xf32> encoding #qmm.scale<mx> rounding pow2_ceil outs(
// CHECK-SAME: tensor<32x128xf6E3M2FN>, tensor<32x4xf8E8M0FNU>
func.func @mx_rounding(%x: tensor<32x128xf32>, %q4: tensor<32x128xf4E2M1FN>,
                       %q6: tensor<32x128xf6E3M2FN>, %s0: tensor<32x4xf8E8M0FNU>)
    -> (tensor<32x128xf4E2M1FN>, tensor<32x128xf4E2M1FN>, tensor<32x128xf6E3M2FN>) {
  %a, %sa = qmm.quantize %x : tensor<32x128xf32> encoding #qmm.scale<mx>
             outs(%q4, %s0 : tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>)
             -> tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>
  %b, %sb = qmm.quantize %x : tensor<32x128xf32> encoding #qmm.scale<mx> rounding pow2_floor
             outs(%q4, %s0 : tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>)
             -> tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>
  %c, %sc = qmm.quantize %x : tensor<32x128xf32> encoding #qmm.scale<mx> rounding pow2_ceil
             outs(%q6, %s0 : tensor<32x128xf6E3M2FN>, tensor<32x4xf8E8M0FNU>)
             -> tensor<32x128xf6E3M2FN>, tensor<32x4xf8E8M0FNU>
  return %a, %b, %c : tensor<32x128xf4E2M1FN>, tensor<32x128xf4E2M1FN>, tensor<32x128xf6E3M2FN>
}

// -----

// Power-of-two rounding also applies to f32 scales.
// CHECK-LABEL: func.func @pow2_f32_scales
// CHECK: encoding #qmm.scale<block 1x128> rounding pow2_ceil outs(
func.func @pow2_f32_scales(%x: tensor<16x256xf32>, %q0: tensor<16x256xf8E4M3FN>,
                           %s0: tensor<16x2xf32>) -> tensor<16x2xf32> {
  %q, %s = qmm.quantize %x : tensor<16x256xf32> encoding #qmm.scale<block 1x128> rounding pow2_ceil
             outs(%q0, %s0 : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>)
             -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>
  return %s : tensor<16x2xf32>
}

// -----

// Memref form: no results.
// CHECK-LABEL: func.func @memref_form
// CHECK: qmm.quantize %{{.*}} : memref<128x256xf32> encoding #qmm.scale<block 1x128, mn_major> outs(%{{.*}}, %{{.*}} : memref<128x256xf8E4M3FN>, memref<2x128xf32>){{$}}
func.func @memref_form(%x: memref<128x256xf32>, %q: memref<128x256xf8E4M3FN>, %s: memref<2x128xf32>) {
  qmm.quantize %x : memref<128x256xf32> encoding #qmm.scale<block 1x128, mn_major>
    outs(%q, %s : memref<128x256xf8E4M3FN>, memref<2x128xf32>)
  return
}
