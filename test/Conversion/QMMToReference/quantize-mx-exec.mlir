// qmm.quantize with MX scales, executed on the host through the reference
// lowering, against codes worked out by hand from OCP MX v1.0 (scale
// exponent floor(log2 amax) - emax of the element format, emax = 2 for
// e2m1) and from DeepGEMM's round-up rule (2^ceil(log2(amax / 6))).
// e2m1 codes: 0 = 0, 1 = 0.5, 2 = 1, 3 = 1.5, 4 = 2, 5 = 3, 6 = 4, 7 = 6,
// bit 3 the sign; E8M0 code = exponent + 127.
//
// Block 0 (amax 7): OCP: floor(log2 7) - 2 = 0, scale 2^0 (0x7F); 7
//   saturates to 6 (code 7); -0.3 rounds to -0.5 (0x9); 1.3 to 1.5 (3).
//   Round-up: 7 / 6 > 1, ceil(log2) = 1, scale 2^1 (0x80); 7 / 2 = 3.5 is a
//   tie between 3 (code 5) and 4 (code 6): even mantissa, 4 (code 6);
//   -0.3 / 2 = -0.15 rounds to -0 (0x8); 1.3 / 2 = 0.65 to 0.5 (1).
// Block 1 (amax 0.375): OCP: floor(log2 0.375) - 2 = -4, scale 2^-4 (0x7B);
//   0.375 * 16 = 6 (code 7); 0.1 * 16 = 1.6 to 1.5 (3).
//   Round-up: 0.375 / 6 = 2^-4 exactly, scale 2^-4 (0x7B): the same codes.
//
// RUN: fp8-opt %s --qmm-cpu-pipeline \
// RUN: | mlir-runner -e floor -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefix=FLOOR
// RUN: fp8-opt %s --qmm-cpu-pipeline \
// RUN: | mlir-runner -e ceil -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefix=CEIL

func.func private @printResults(%q: tensor<1x64xf4E2M1FN>, %s: tensor<1x2xf8E8M0FNU>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c33 = arith.constant 33 : index
  %s0 = tensor.extract %s[%c0, %c0] : tensor<1x2xf8E8M0FNU>
  %s1 = tensor.extract %s[%c0, %c1] : tensor<1x2xf8E8M0FNU>
  %sb0 = arith.bitcast %s0 : f8E8M0FNU to i8
  %sb1 = arith.bitcast %s1 : f8E8M0FNU to i8
  %si0 = arith.extui %sb0 : i8 to i32
  %si1 = arith.extui %sb1 : i8 to i32
  vector.print %si0 : i32
  vector.print %si1 : i32
  scf.for %i = %c0 to %c2 step %c1 {
    %q0 = tensor.extract %q[%c0, %i] : tensor<1x64xf4E2M1FN>
    %qb = arith.bitcast %q0 : f4E2M1FN to i4
    %qi = arith.extui %qb : i4 to i32
    vector.print %qi : i32
  }
  %q2 = tensor.extract %q[%c0, %c2] : tensor<1x64xf4E2M1FN>
  %q2b = arith.bitcast %q2 : f4E2M1FN to i4
  %q2i = arith.extui %q2b : i4 to i32
  vector.print %q2i : i32
  scf.for %i = %c32 to %c33 step %c1 {
    %j = arith.addi %i, %c1 : index
    %a = tensor.extract %q[%c0, %i] : tensor<1x64xf4E2M1FN>
    %b = tensor.extract %q[%c0, %j] : tensor<1x64xf4E2M1FN>
    %ab = arith.bitcast %a : f4E2M1FN to i4
    %bb = arith.bitcast %b : f4E2M1FN to i4
    %ai = arith.extui %ab : i4 to i32
    %bi = arith.extui %bb : i4 to i32
    vector.print %ai : i32
    vector.print %bi : i32
  }
  return
}

func.func private @input() -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %x0 = tensor.splat %zero : tensor<1x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c33 = arith.constant 33 : index
  %v7 = arith.constant 7.0 : f32
  %vm = arith.constant -0.3 : f32
  %v13 = arith.constant 1.3 : f32
  %v375 = arith.constant 0.375 : f32
  %v01 = arith.constant 0.1 : f32
  %x1 = tensor.insert %v7 into %x0[%c0, %c0] : tensor<1x64xf32>
  %x2 = tensor.insert %vm into %x1[%c0, %c1] : tensor<1x64xf32>
  %x3 = tensor.insert %v13 into %x2[%c0, %c2] : tensor<1x64xf32>
  %x4 = tensor.insert %v375 into %x3[%c0, %c32] : tensor<1x64xf32>
  %x5 = tensor.insert %v01 into %x4[%c0, %c33] : tensor<1x64xf32>
  return %x5 : tensor<1x64xf32>
}

// FLOOR: 127
// FLOOR-NEXT: 123
// FLOOR-NEXT: 7
// FLOOR-NEXT: 9
// FLOOR-NEXT: 3
// FLOOR-NEXT: 7
// FLOOR-NEXT: 3
func.func @floor() {
  %x = call @input() : () -> tensor<1x64xf32>
  %q0 = tensor.empty() : tensor<1x64xf4E2M1FN>
  %s0 = tensor.empty() : tensor<1x2xf8E8M0FNU>
  %q, %s = qmm.quantize %x : tensor<1x64xf32> encoding #qmm.scale<mx> rounding pow2_floor
             outs(%q0, %s0 : tensor<1x64xf4E2M1FN>, tensor<1x2xf8E8M0FNU>)
             -> tensor<1x64xf4E2M1FN>, tensor<1x2xf8E8M0FNU>
  call @printResults(%q, %s) : (tensor<1x64xf4E2M1FN>, tensor<1x2xf8E8M0FNU>) -> ()
  return
}

// CEIL: 128
// CEIL-NEXT: 123
// CEIL-NEXT: 6
// CEIL-NEXT: 8
// CEIL-NEXT: 1
// CEIL-NEXT: 7
// CEIL-NEXT: 3
func.func @ceil() {
  %x = call @input() : () -> tensor<1x64xf32>
  %q0 = tensor.empty() : tensor<1x64xf4E2M1FN>
  %s0 = tensor.empty() : tensor<1x2xf8E8M0FNU>
  %q, %s = qmm.quantize %x : tensor<1x64xf32> encoding #qmm.scale<mx> rounding pow2_ceil
             outs(%q0, %s0 : tensor<1x64xf4E2M1FN>, tensor<1x2xf8E8M0FNU>)
             -> tensor<1x64xf4E2M1FN>, tensor<1x2xf8E8M0FNU>
  call @printResults(%q, %s) : (tensor<1x64xf4E2M1FN>, tensor<1x2xf8E8M0FNU>) -> ()
  return
}
