// arith.scaling_extf (OCP MX: the element widened, times 2^(scale - 127))
// through qmm-expand-float-conversions on the host, against values worked
// out by hand from OCP MX v1.0: E2M1 0x3 = 1.5 and 0xF = -6.0, E4M3 0x38 =
// 1.0; E8M0 129 = 2^2, 120 = 2^-7, 127 = 1, 0xFF = NaN.
//
// RUN: fp8-opt %s --qmm-expand-float-conversions --convert-vector-to-llvm \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

func.func @fp4(%code: i4, %scale: i8) {
  %q = arith.bitcast %code : i4 to f4E2M1FN
  %s = arith.bitcast %scale : i8 to f8E8M0FNU
  %x = arith.scaling_extf %q, %s : f4E2M1FN, f8E8M0FNU to f32
  vector.print %x : f32
  return
}
func.func @fp8(%code: i8, %scale: i8) {
  %q = arith.bitcast %code : i8 to f8E4M3FN
  %s = arith.bitcast %scale : i8 to f8E8M0FNU
  %x = arith.scaling_extf %q, %s : f8E4M3FN, f8E8M0FNU to f32
  vector.print %x : f32
  return
}

func.func @main() {
  %c3 = arith.constant 3 : i4
  %cm1 = arith.constant -1 : i4   // 0xF
  %c56 = arith.constant 56 : i8   // 0x38
  %s129 = arith.constant -127 : i8 // 129
  %s120 = arith.constant 120 : i8
  %s127 = arith.constant 127 : i8
  %snan = arith.constant -1 : i8  // 0xFF
  // CHECK: 6
  call @fp4(%c3, %s129) : (i4, i8) -> ()
  // CHECK-NEXT: -6
  call @fp4(%cm1, %s127) : (i4, i8) -> ()
  // CHECK-NEXT: 0.0078125
  call @fp8(%c56, %s120) : (i8, i8) -> ()
  // CHECK-NEXT: nan
  call @fp8(%c56, %snan) : (i8, i8) -> ()
  return
}
