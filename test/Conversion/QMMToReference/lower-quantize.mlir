// RUN: fp8-opt %s -split-input-file --qmm-lower-to-reference | FileCheck %s

// DeepGEMM's 1x128 rule: amax per block (NaN-propagating maximumf), clamped
// at 1e-4; s = amax / 448 and q = sat(rne(x * (448 / amax))).
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 128)>
// CHECK-LABEL: func.func @deepgemm_1x128
// CHECK: %[[AMAX0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<32x2xf32>)
// CHECK: %[[AMAX:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[S]]], iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<32x256xbf16>) outs(%[[AMAX0]] : tensor<32x2xf32>)
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK:   math.absf
// CHECK:   arith.maximumf
// CHECK: %[[SCALES:.*]]:2 = linalg.generic {{.*}} ins(%[[AMAX]] : tensor<32x2xf32>) outs(%{{.*}}, %{{.*}} : tensor<32x2xf32>, tensor<32x2xf32>)
// CHECK:   %[[FLOOR:.*]] = arith.constant 9.99999974E-5 : f32
// CHECK:   %[[CLAMPED:.*]] = arith.maximumf %{{.*}}, %[[FLOOR]] : f32
// CHECK:   %[[SCALE:.*]] = arith.divf %[[CLAMPED]], %[[FMAX:.*]] : f32
// CHECK:   %[[RECIP:.*]] = arith.divf %[[FMAX]], %[[CLAMPED]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[S]], #[[X]]], {{.*}} ins(%{{.*}}, %[[SCALES]]#1 : tensor<32x256xbf16>, tensor<32x2xf32>) outs(%{{.*}} : tensor<32x256xf8E4M3FN>)
// CHECK:   arith.mulf
// CHECK:   arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.truncf %{{.*}} : f32 to f8E4M3FN
func.func @deepgemm_1x128(%x: tensor<32x256xbf16>, %q0: tensor<32x256xf8E4M3FN>,
                          %s0: tensor<32x2xf32>) -> (tensor<32x256xf8E4M3FN>, tensor<32x2xf32>) {
  %q, %s = qmm.quantize %x : tensor<32x256xbf16> encoding #qmm.scale<block 1x128>
             outs(%q0, %s0 : tensor<32x256xf8E4M3FN>, tensor<32x2xf32>)
             -> tensor<32x256xf8E4M3FN>, tensor<32x2xf32>
  return %q, %s : tensor<32x256xf8E4M3FN>, tensor<32x2xf32>
}

// -----

// OCP MX rule: exponent = floor(log2(amax)) - 2 for e2m1, clamped to
// [-127, 127]; the scale is stored as E8M0; no amax floor; FP4 has no NaN, so
// NaN becomes 0 before rounding.
// CHECK-LABEL: func.func @mx_fp4
// CHECK: linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4x2xf8E8M0FNU>, tensor<4x2xf32>)
// CHECK:   %[[ZERO_FLOOR:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   arith.maximumf %{{.*}}, %[[ZERO_FLOOR]]
// CHECK:   math.ctlz
// CHECK:   %[[EMAX:.*]] = arith.constant 2 : i32
// CHECK:   arith.subi %{{.*}}, %[[EMAX]] : i32
// CHECK:   arith.maxsi
// CHECK:   arith.minsi
// CHECK:   arith.truncf %{{.*}} : f32 to f8E8M0FNU
// CHECK: linalg.generic
// CHECK:   arith.cmpf uno
// CHECK:   arith.select
// CHECK:   arith.truncf %{{.*}} : f32 to f4E2M1FN
func.func @mx_fp4(%x: tensor<4x64xf32>, %q0: tensor<4x64xf4E2M1FN>,
                  %s0: tensor<4x2xf8E8M0FNU>) -> (tensor<4x64xf4E2M1FN>, tensor<4x2xf8E8M0FNU>) {
  %q, %s = qmm.quantize %x : tensor<4x64xf32> encoding #qmm.scale<mx>
             outs(%q0, %s0 : tensor<4x64xf4E2M1FN>, tensor<4x2xf8E8M0FNU>)
             -> tensor<4x64xf4E2M1FN>, tensor<4x2xf8E8M0FNU>
  return %q, %s : tensor<4x64xf4E2M1FN>, tensor<4x2xf8E8M0FNU>
}

// -----

// DeepGEMM's round-up rule: ceil(log2(amax / fmax)) (a popcount decides
// exactness), no floor subtraction of emax.
// CHECK-LABEL: func.func @pow2_ceil
// CHECK: linalg.generic
// CHECK:   arith.divf
// CHECK:   math.ctpop
// CHECK-NOT: arith.truncf %{{.*}} : f32 to f8E8M0FNU
func.func @pow2_ceil(%x: tensor<4x128xf32>, %q0: tensor<4x128xf8E4M3FN>,
                     %s0: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %q, %s = qmm.quantize %x : tensor<4x128xf32> encoding #qmm.scale<block 1x128> rounding pow2_ceil
             outs(%q0, %s0 : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>)
             -> tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// -----

// A [K, rows] input with per-tensor scales on memrefs.
// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (0, 0)>
// CHECK-LABEL: func.func @kn_per_tensor_memref
// CHECK: memref.alloc() : memref<1x1xf32>
// CHECK: linalg.generic {indexing_maps = [#[[KN]], #[[T]]]
// CHECK: memref.dealloc
// CHECK-NOT: qmm.
func.func @kn_per_tensor_memref(%x: memref<64x16xf32>, %q: memref<64x16xf8E4M3FNUZ>, %s: memref<1x1xf32>) {
  qmm.quantize %x : memref<64x16xf32> encoding #qmm.scale<per_tensor> layout kn
    outs(%q, %s : memref<64x16xf8E4M3FNUZ>, memref<1x1xf32>)
  return
}
