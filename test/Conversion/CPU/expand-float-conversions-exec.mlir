// Executes the expanded conversions on the host and checks the codes against
// values worked out by hand from the format definitions (OCP 8-bit FP v1.0,
// OCP MX v1.0, and the FNUZ variants: bias one larger, 0x80 is NaN, no -0).
//
// RUN: fp8-opt %s --qmm-expand-float-conversions --convert-vector-to-llvm \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

func.func @e4m3fn(%x: f32) {
  %t = arith.truncf %x : f32 to f8E4M3FN
  %i = arith.bitcast %t : f8E4M3FN to i8
  %w = arith.extui %i : i8 to i32
  vector.print %w : i32
  return
}
func.func @e4m3fnuz(%x: f32) {
  %t = arith.truncf %x : f32 to f8E4M3FNUZ
  %i = arith.bitcast %t : f8E4M3FNUZ to i8
  %w = arith.extui %i : i8 to i32
  vector.print %w : i32
  return
}
func.func @e5m2(%x: f32) {
  %t = arith.truncf %x : f32 to f8E5M2
  %i = arith.bitcast %t : f8E5M2 to i8
  %w = arith.extui %i : i8 to i32
  vector.print %w : i32
  return
}
func.func @e5m2fnuz(%x: f32) {
  %t = arith.truncf %x : f32 to f8E5M2FNUZ
  %i = arith.bitcast %t : f8E5M2FNUZ to i8
  %w = arith.extui %i : i8 to i32
  vector.print %w : i32
  return
}
func.func @e2m1(%x: f32) {
  %t = arith.truncf %x : f32 to f4E2M1FN
  %i = arith.bitcast %t : f4E2M1FN to i4
  %w = arith.extui %i : i4 to i32
  vector.print %w : i32
  return
}
func.func @e2m3(%x: f32) {
  %t = arith.truncf %x : f32 to f6E2M3FN
  %i = arith.bitcast %t : f6E2M3FN to i6
  %w = arith.extui %i : i6 to i32
  vector.print %w : i32
  return
}
func.func @e3m2(%x: f32) {
  %t = arith.truncf %x : f32 to f6E3M2FN
  %i = arith.bitcast %t : f6E3M2FN to i6
  %w = arith.extui %i : i6 to i32
  vector.print %w : i32
  return
}
func.func @e8m0(%x: f32) {
  %t = arith.truncf %x : f32 to f8E8M0FNU
  %i = arith.bitcast %t : f8E8M0FNU to i8
  %w = arith.extui %i : i8 to i32
  vector.print %w : i32
  return
}
// Decoding: print the f32 bit pattern of the decoded value.
func.func @decode_e4m3fn(%c: i8) {
  %f = arith.bitcast %c : i8 to f8E4M3FN
  %x = arith.extf %f : f8E4M3FN to f32
  %b = arith.bitcast %x : f32 to i32
  vector.print %b : i32
  return
}
func.func @decode_e4m3fnuz(%c: i8) {
  %f = arith.bitcast %c : i8 to f8E4M3FNUZ
  %x = arith.extf %f : f8E4M3FNUZ to f32
  %b = arith.bitcast %x : f32 to i32
  vector.print %b : i32
  return
}
func.func @decode_e5m2(%c: i8) {
  %f = arith.bitcast %c : i8 to f8E5M2
  %x = arith.extf %f : f8E5M2 to f32
  %b = arith.bitcast %x : f32 to i32
  vector.print %b : i32
  return
}
func.func @decode_e2m1(%c: i4) {
  %f = arith.bitcast %c : i4 to f4E2M1FN
  %x = arith.extf %f : f4E2M1FN to f32
  %b = arith.bitcast %x : f32 to i32
  vector.print %b : i32
  return
}
func.func @decode_e8m0(%c: i8) {
  %f = arith.bitcast %c : i8 to f8E8M0FNU
  %x = arith.extf %f : f8E8M0FNU to f32
  %b = arith.bitcast %x : f32 to i32
  vector.print %b : i32
  return
}

func.func @main() {
  // --- f8E4M3FN: bias 7, 3 mantissa bits, max 448 = 0x7E, NaN 0x7F.
  %one = arith.constant 1.0 : f32
  // CHECK: 56
  call @e4m3fn(%one) : (f32) -> ()
  %c448 = arith.constant 448.0 : f32
  // CHECK-NEXT: 126
  call @e4m3fn(%c448) : (f32) -> ()
  // 464 is halfway between 448 (mantissa 110, even) and 512: stays 448.
  %c464 = arith.constant 464.0 : f32
  // CHECK-NEXT: 126
  call @e4m3fn(%c464) : (f32) -> ()
  // 480 overflows; truncf does not saturate and e4m3fn has no Inf: NaN.
  %c480 = arith.constant 480.0 : f32
  // CHECK-NEXT: 127
  call @e4m3fn(%c480) : (f32) -> ()
  // -1.5 = -(1.100b): 0x80 | 0x3C.
  %m15 = arith.constant -1.5 : f32
  // CHECK-NEXT: 188
  call @e4m3fn(%m15) : (f32) -> ()
  // Smallest subnormal 2^-9.
  %sub1 = arith.constant 0.001953125 : f32
  // CHECK-NEXT: 1
  call @e4m3fn(%sub1) : (f32) -> ()
  // 2^-10 is halfway between 0 and 2^-9: ties to the even code, 0.
  %half_sub = arith.constant 0.0009765625 : f32
  // CHECK-NEXT: 0
  call @e4m3fn(%half_sub) : (f32) -> ()
  // 1.5 * 2^-9: halfway between codes 1 and 2: 2.
  %sub15 = arith.constant 0.0029296875 : f32
  // CHECK-NEXT: 2
  call @e4m3fn(%sub15) : (f32) -> ()
  // 7.5 * 2^-9: halfway between subnormal 7 and the smallest normal 8: 8.
  %sub75 = arith.constant 0.0146484375 : f32
  // CHECK-NEXT: 8
  call @e4m3fn(%sub75) : (f32) -> ()
  // 1 + 1/16: halfway between 1.000b and 1.001b: 1.0.
  %tie_down = arith.constant 1.0625 : f32
  // CHECK-NEXT: 56
  call @e4m3fn(%tie_down) : (f32) -> ()
  // 1 + 3/16: halfway between 1.001b and 1.010b: 1.25 = 0x3A.
  %tie_up = arith.constant 1.1875 : f32
  // CHECK-NEXT: 58
  call @e4m3fn(%tie_up) : (f32) -> ()
  %negzero = arith.constant -0.0 : f32
  // CHECK-NEXT: 128
  call @e4m3fn(%negzero) : (f32) -> ()
  %nan = arith.constant 0x7FC00000 : f32
  // CHECK-NEXT: 127
  call @e4m3fn(%nan) : (f32) -> ()
  %inf = arith.constant 0x7F800000 : f32
  // CHECK-NEXT: 127
  call @e4m3fn(%inf) : (f32) -> ()

  // --- f8E4M3FNUZ: bias 8, max 240 = 0x7F, NaN 0x80, no -0.
  // CHECK-NEXT: 64
  call @e4m3fnuz(%one) : (f32) -> ()
  %c240 = arith.constant 240.0 : f32
  // CHECK-NEXT: 127
  call @e4m3fnuz(%c240) : (f32) -> ()
  // 248 is halfway between 240 (mantissa 111, odd) and 256: rounds up and
  // overflows to NaN.
  %c248 = arith.constant 248.0 : f32
  // CHECK-NEXT: 128
  call @e4m3fnuz(%c248) : (f32) -> ()
  // CHECK-NEXT: 0
  call @e4m3fnuz(%negzero) : (f32) -> ()
  // CHECK-NEXT: 128
  call @e4m3fnuz(%nan) : (f32) -> ()
  // -2^-10, the smallest subnormal: 0x81.
  %negsub = arith.constant -0.0009765625 : f32
  // CHECK-NEXT: 129
  call @e4m3fnuz(%negsub) : (f32) -> ()
  // -2^-12 rounds to zero, which has no sign here.
  %negtiny = arith.constant -0.000244140625 : f32
  // CHECK-NEXT: 0
  call @e4m3fnuz(%negtiny) : (f32) -> ()

  // --- f8E5M2: bias 15, IEEE specials, max 57344 = 0x7B.
  %c57344 = arith.constant 57344.0 : f32
  // CHECK-NEXT: 123
  call @e5m2(%c57344) : (f32) -> ()
  // Halfway between 57344 (odd mantissa) and 65536: rounds up to Inf 0x7C.
  %c61440 = arith.constant 61440.0 : f32
  // CHECK-NEXT: 124
  call @e5m2(%c61440) : (f32) -> ()
  %ninf = arith.constant 0xFF800000 : f32
  // CHECK-NEXT: 252
  call @e5m2(%ninf) : (f32) -> ()
  // CHECK-NEXT: 126
  call @e5m2(%nan) : (f32) -> ()
  %e5sub = arith.constant 0.0000152587890625 : f32
  // CHECK-NEXT: 1
  call @e5m2(%e5sub) : (f32) -> ()

  // --- f8E5M2FNUZ: bias 16: 1.0 = 0 10000 00.
  // CHECK-NEXT: 64
  call @e5m2fnuz(%one) : (f32) -> ()

  // --- f4E2M1FN: 0, 0.5, 1, 1.5, 2, 3, 4, 6 are codes 0..7.
  %q25 = arith.constant 0.25 : f32
  // CHECK-NEXT: 0
  call @e2m1(%q25) : (f32) -> ()
  %q75 = arith.constant 0.75 : f32
  // CHECK-NEXT: 2
  call @e2m1(%q75) : (f32) -> ()
  %c5 = arith.constant 5.0 : f32
  // CHECK-NEXT: 6
  call @e2m1(%c5) : (f32) -> ()
  %c6 = arith.constant 6.0 : f32
  // CHECK-NEXT: 7
  call @e2m1(%c6) : (f32) -> ()
  // No Inf, no NaN: beyond the range clamps to 6.
  %c7 = arith.constant 7.0 : f32
  // CHECK-NEXT: 7
  call @e2m1(%c7) : (f32) -> ()
  %mhalf = arith.constant -0.5 : f32
  // CHECK-NEXT: 9
  call @e2m1(%mhalf) : (f32) -> ()
  // CHECK-NEXT: 0
  call @e2m1(%nan) : (f32) -> ()

  // --- f6E2M3FN: max 7.5 = 0x1F; smallest subnormal 0.125.
  %c75 = arith.constant 7.5 : f32
  // CHECK-NEXT: 31
  call @e2m3(%c75) : (f32) -> ()
  %sixteenth = arith.constant 0.0625 : f32
  // CHECK-NEXT: 0
  call @e2m3(%sixteenth) : (f32) -> ()
  // --- f6E3M2FN: max 28 = 0x1F; 1.0 = 011 00.
  %c28 = arith.constant 28.0 : f32
  // CHECK-NEXT: 31
  call @e3m2(%c28) : (f32) -> ()
  // CHECK-NEXT: 12
  call @e3m2(%one) : (f32) -> ()

  // --- f8E8M0FNU: 2^(code - 127); rounds down to a power of two.
  // CHECK-NEXT: 127
  call @e8m0(%one) : (f32) -> ()
  %p127 = arith.constant 0x00400000 : f32
  // CHECK-NEXT: 0
  call @e8m0(%p127) : (f32) -> ()
  // CHECK-NEXT: 126
  call @e8m0(%q75) : (f32) -> ()
  %big = arith.constant 0x7F000000 : f32
  // CHECK-NEXT: 254
  call @e8m0(%big) : (f32) -> ()
  // CHECK-NEXT: 255
  call @e8m0(%nan) : (f32) -> ()

  // --- Decoding, as f32 bit patterns.
  %x7e = arith.constant 126 : i8
  // 448 = 0x43E00000
  // CHECK-NEXT: 1138753536
  call @decode_e4m3fn(%x7e) : (i8) -> ()
  %x01 = arith.constant 1 : i8
  // 2^-9 = 0x3B000000
  // CHECK-NEXT: 989855744
  call @decode_e4m3fn(%x01) : (i8) -> ()
  %x80 = arith.constant -128 : i8
  // -0.0 = 0x80000000
  // CHECK-NEXT: -2147483648
  call @decode_e4m3fn(%x80) : (i8) -> ()
  %x7f = arith.constant 127 : i8
  // 240 = 0x43700000 in e4m3fnuz (0x7F is NaN in e4m3fn)
  // CHECK-NEXT: 1131413504
  call @decode_e4m3fnuz(%x7f) : (i8) -> ()
  // The same bits read as e4m3fnuz are worth half: 0x7E = 224 = 0x43600000.
  // CHECK-NEXT: 1130364928
  call @decode_e4m3fnuz(%x7e) : (i8) -> ()
  // 0x80 is NaN in e4m3fnuz: the canonical f32 quiet NaN 0x7FC00000.
  // CHECK-NEXT: 2143289344
  call @decode_e4m3fnuz(%x80) : (i8) -> ()
  %x7c = arith.constant 124 : i8
  // +Inf = 0x7F800000
  // CHECK-NEXT: 2139095040
  call @decode_e5m2(%x7c) : (i8) -> ()
  %x7 = arith.constant 7 : i4
  // 6.0 = 0x40C00000
  // CHECK-NEXT: 1086324736
  call @decode_e2m1(%x7) : (i4) -> ()
  %x00 = arith.constant 0 : i8
  // 2^-127 = 0x00400000 (an f32 subnormal)
  // CHECK-NEXT: 4194304
  call @decode_e8m0(%x00) : (i8) -> ()
  %xff = arith.constant -1 : i8
  // CHECK-NEXT: 2143289344
  call @decode_e8m0(%xff) : (i8) -> ()
  return
}
