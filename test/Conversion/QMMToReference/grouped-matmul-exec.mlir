// qmm.grouped_matmul executed on the host through the reference lowering,
// against values worked out by hand. e4m3fn codes: 0x38 = 1, 0x40 = 2,
// 0x44 = 3, 0x48 = 4, 0x30 = 0.5, 0xB8 = -1, 0xC0 = -2; only k = 0 is
// non-zero, so D[m][n] = A[m][0] * B[g][n][0] * scales.
//
// Contiguous: rows 0..3 of A hold 1, 2, 3, 4; groups [0, 2, -1, 2] (group 1
// is empty, row 2 is padding); B[0] = [1, 2], B[1] = [-1, -2], B[2] =
// [0.5, 4] with per-tensor scales [1, 1, 2] per group; init all 7.
//   row 0 (group 0): [1, 2]; row 1 (group 2): 2 * [0.5, 4] * 2 = [2, 16];
//   row 2 (padding): keeps [7, 7]; row 3 (group 2): 4 * [0.5, 4] * 2 =
//   [4, 32].
// Masked: A[0] rows 1, 2, 3 and A[1] rows 4, 1, 2; counts [2, 0]; B[0] =
// [1, 2], B[1] = [-1, -2], unit scales; init all 7.
//   group 0 rows 0, 1: [1, 2], [2, 4]; row 2 keeps [7, 7]; group 1 (empty)
//   keeps 7 everywhere.
//
// RUN: fp8-opt %s --qmm-cpu-pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

func.func private @printRows(%t: tensor<?x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %t, %c0 : tensor<?x2xf32>
  scf.for %r = %c0 to %rows step %c1 {
    %x = tensor.extract %t[%r, %c0] : tensor<?x2xf32>
    %y = tensor.extract %t[%r, %c1] : tensor<?x2xf32>
    vector.print %x : f32
    vector.print %y : f32
  }
  return
}

func.func @main() {
  %a = arith.constant dense<"0x3800000000000000000000000000000000000000000000000000000000000000400000000000000000000000000000000000000000000000000000000000000044000000000000000000000000000000000000000000000000000000000000004800000000000000000000000000000000000000000000000000000000000000"> : tensor<4x32xf8E4M3FN>
  %b = arith.constant dense<"0x38000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000000B800000000000000000000000000000000000000000000000000000000000000C00000000000000000000000000000000000000000000000000000000000000030000000000000000000000000000000000000000000000000000000000000004800000000000000000000000000000000000000000000000000000000000000"> : tensor<3x2x32xf8E4M3FN>
  %sa = arith.constant dense<1.0> : tensor<1x1xf32>
  %sb = arith.constant dense<[[[1.0]], [[1.0]], [[2.0]]]> : tensor<3x1x1xf32>
  %groups = arith.constant dense<[0, 2, -1, 2]> : tensor<4xi32>
  %init = arith.constant dense<7.0> : tensor<4x2xf32>
  %d = qmm.grouped_matmul contiguous
         a(%a, %sa : tensor<4x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %sb : tensor<3x2x32xf8E4M3FN>, tensor<3x1x1xf32>) #qmm.scale<per_tensor>
         groups(%groups : tensor<4xi32>)
         outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
  %dd = tensor.cast %d : tensor<4x2xf32> to tensor<?x2xf32>
  // CHECK: 1
  // CHECK-NEXT: 2
  // CHECK-NEXT: 2
  // CHECK-NEXT: 16
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  // CHECK-NEXT: 4
  // CHECK-NEXT: 32
  call @printRows(%dd) : (tensor<?x2xf32>) -> ()

  %am = arith.constant dense<"0x380000000000000000000000000000000000000000000000000000000000000040000000000000000000000000000000000000000000000000000000000000004400000000000000000000000000000000000000000000000000000000000000480000000000000000000000000000000000000000000000000000000000000038000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000000"> : tensor<2x3x32xf8E4M3FN>
  %bm = tensor.extract_slice %b[0, 0, 0] [2, 2, 32] [1, 1, 1] : tensor<3x2x32xf8E4M3FN> to tensor<2x2x32xf8E4M3FN>
  %sbm = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %sam = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %counts = arith.constant dense<[2, 0]> : tensor<2xi32>
  %initm = arith.constant dense<7.0> : tensor<2x3x2xf32>
  %dm = qmm.grouped_matmul masked
          a(%am, %sam : tensor<2x3x32xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
          b(%bm, %sbm : tensor<2x2x32xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
          groups(%counts : tensor<2xi32>)
          outs(%initm : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %flat = tensor.collapse_shape %dm [[0, 1], [2]] : tensor<2x3x2xf32> into tensor<6x2xf32>
  %fd = tensor.cast %flat : tensor<6x2xf32> to tensor<?x2xf32>
  // CHECK-NEXT: 1
  // CHECK-NEXT: 2
  // CHECK-NEXT: 2
  // CHECK-NEXT: 4
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  // CHECK-NEXT: 7
  call @printRows(%fd) : (tensor<?x2xf32>) -> ()
  return
}
