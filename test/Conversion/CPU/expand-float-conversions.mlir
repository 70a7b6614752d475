// RUN: fp8-opt %s -split-input-file --qmm-expand-float-conversions \
// RUN:   --mlir-print-elementsattrs-with-hex-if-larger=1000 | FileCheck %s

// extf reads a module-level table of the 256 decoded values.
// CHECK: memref.global "private" constant @__qmm_decode_f8E4M3FN : memref<256xf32> = dense<[0.000000e+00, 0.001953125, {{.*}}, 4.480000e+02, 0x7FC00000, -0.000000e+00, {{.*}}]>
// CHECK-LABEL: func.func @extf
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: %[[IDX:.*]] = arith.index_castui %[[BITS]] : i8 to index
// CHECK: %[[TABLE:.*]] = memref.get_global @__qmm_decode_f8E4M3FN : memref<256xf32>
// CHECK: %[[V:.*]] = memref.load %[[TABLE]][%[[IDX]]] : memref<256xf32>
// CHECK: return %[[V]]
func.func @extf(%x: f8E4M3FN) -> f32 {
  %y = arith.extf %x : f8E4M3FN to f32
  return %y : f32
}

// -----

// extf to a type narrower than f32 (bf16, f16): the decoded f32 value
// narrowed by truncf, exact (every FP8 value is a bf16 and an f16 value);
// to f64, widened.
// CHECK-LABEL: func.func @extf_to_bf16_f16_f64
// CHECK: %[[A:.*]] = memref.load %{{.*}} : memref<256xf32>
// CHECK: %[[AH:.*]] = arith.truncf %[[A]] : f32 to bf16
// CHECK: %[[B:.*]] = memref.load %{{.*}} : memref<256xf32>
// CHECK: %[[BH:.*]] = arith.truncf %[[B]] : f32 to f16
// CHECK: %[[C:.*]] = memref.load %{{.*}} : memref<256xf32>
// CHECK: %[[CD:.*]] = arith.extf %[[C]] : f32 to f64
// CHECK: return %[[AH]], %[[BH]], %[[CD]]
func.func @extf_to_bf16_f16_f64(%x: f8E4M3FN, %y: f8E5M2) -> (bf16, f16, f64) {
  %a = arith.extf %x : f8E4M3FN to bf16
  %b = arith.extf %y : f8E5M2 to f16
  %c = arith.extf %x : f8E4M3FN to f64
  return %a, %b, %c : bf16, f16, f64
}

// -----

// One table per type, shared by all uses; FP4 tables have 16 entries.
// CHECK-COUNT-1: memref.global "private" constant @__qmm_decode_f4E2M1FN : memref<16xf32> = dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 6.000000e+00, -0.000000e+00, -5.000000e-01, -1.000000e+00, -1.500000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00, -6.000000e+00]>
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @shared_table
// CHECK-COUNT-2: memref.get_global @__qmm_decode_f4E2M1FN
func.func @shared_table(%x: f4E2M1FN, %y: f4E2M1FN) -> f32 {
  %a = arith.extf %x : f4E2M1FN to f32
  %b = arith.extf %y : f4E2M1FN to f32
  %s = arith.addf %a, %b : f32
  return %s : f32
}

// -----

// truncf becomes integer arithmetic ending in a bitcast; no truncf to a
// small type is left.
// CHECK-LABEL: func.func @truncf
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[R:.*]] = arith.bitcast %{{.*}} : i8 to f8E5M2FNUZ
// CHECK: return %[[R]]
func.func @truncf(%x: f32) -> f8E5M2FNUZ {
  %y = arith.truncf %x : f32 to f8E5M2FNUZ
  return %y : f8E5M2FNUZ
}

// -----

// Conversions that LLVM handles itself are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: memref.get_global
func.func @untouched(%x: f32, %h: f16) -> (bf16, f32) {
  %a = arith.truncf %x : f32 to bf16
  %b = arith.extf %h : f16 to f32
  return %a, %b : bf16, f32
}

// -----

// bf16 sources are widened exactly first.
// CHECK-LABEL: func.func @from_bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: arith.truncf
func.func @from_bf16(%x: bf16) -> f8E4M3FN {
  %y = arith.truncf %x : bf16 to f8E4M3FN
  return %y : f8E4M3FN
}
