// RUN: fp8-opt %s -split-input-file --qmm-expand-kernel-math | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-expand-kernel-math | FileCheck %s --check-prefix=SIGN

// tanh and erf become f32 polynomials (no device library); the |x| they
// take becomes the bits with the sign cleared (NVVM lowering would call
// libdevice for math.absf). Other math ops, |x| included, are left to the
// backend.
// CHECK-LABEL: func.func @tanh_erf
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.erf
// CHECK:         %[[BITS:.*]] = arith.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK:         %[[CLEAR:.*]] = arith.andi %[[BITS]], %{{.*}} : vector<4xi32>
// CHECK:         arith.bitcast %[[CLEAR]] : vector<4xi32> to vector<4xf32>
// CHECK:         math.fma
// CHECK:         %[[E:.*]] = math.exp %{{.*}} : vector<4xf32>
// CHECK:         %[[A:.*]] = math.absf %{{.*}} : vector<4xf32>
// CHECK:         return %{{.*}}, %{{.*}}, %[[E]], %[[A]]
// SIGN-LABEL: func.func @tanh_erf
// SIGN:         arith.constant dense<2147483647> : vector<4xi32>
// SIGN:         math.absf
// SIGN-NOT:     math.absf
// SIGN:         return
func.func @tanh_erf(%x: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  %t = math.tanh %x : vector<4xf32>
  %e = math.erf %x : vector<4xf32>
  %keep = math.exp %x : vector<4xf32>
  %keepabs = math.absf %x : vector<4xf32>
  return %t, %e, %keep, %keepabs : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
}

// -----

// Truncations to FP8 (scalar and vector) and E8M0 become integer arithmetic
// on the f32 bits, ending in a bitcast of the code; f32 -> bf16 stays.
// CHECK-LABEL: func.func @small_floats
// CHECK-NOT:     arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK-NOT:     arith.truncf %{{.*}} : vector<4xf32> to vector<4xf8E5M2FNUZ>
// CHECK-NOT:     arith.truncf %{{.*}} : f32 to f8E8M0FNU
// CHECK:         arith.bitcast %{{.*}} : f32 to i32
// CHECK:         arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK:         arith.bitcast %{{.*}} : i8 to f8E5M2FNUZ
// CHECK:         arith.bitcast %{{.*}} : i8 to f8E8M0FNU
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
func.func @small_floats(%x: f32, %v: vector<4xf32>) -> (f8E4M3FN, vector<4xf8E5M2FNUZ>, f8E8M0FNU, bf16) {
  %a = arith.truncf %x : f32 to f8E4M3FN
  %b = arith.truncf %v : vector<4xf32> to vector<4xf8E5M2FNUZ>
  %c = arith.truncf %x : f32 to f8E8M0FNU
  %d = arith.truncf %x : f32 to bf16
  return %a, %b, %c, %d : f8E4M3FN, vector<4xf8E5M2FNUZ>, f8E8M0FNU, bf16
}

// -----

// Inside kernels still in gpu.launch (the pass works on any op).
// CHECK-LABEL: func.func @in_launch
// CHECK:         gpu.launch
// CHECK-NOT:       math.tanh
// CHECK:           math.fma
func.func @in_launch(%m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %m[%c0] : memref<4xf32>
    %t = math.tanh %x : f32
    memref.store %t, %m[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}
