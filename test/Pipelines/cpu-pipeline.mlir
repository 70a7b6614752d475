// qmm-cpu-pipeline takes qmm on tensors all the way to the LLVM dialect,
// with the small-float conversions expanded (no f8 arithmetic left).
// RUN: fp8-opt %s --qmm-cpu-pipeline | FileCheck %s

// CHECK: llvm.mlir.global private constant @__qmm_decode_f8E4M3FN
// CHECK-LABEL: llvm.func @gemm
// CHECK-NOT: qmm.
// CHECK-NOT: linalg.
// CHECK-NOT: arith.
// CHECK-NOT: scf.
// CHECK: llvm.return
func.func @gemm(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<16x1xf32>,
                %b: tensor<8x64xf8E4M3FN>, %sb: tensor<1x1xf32>,
                %c: tensor<16x8xbf16>) -> tensor<16x8xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<8x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %d : tensor<16x8xbf16>
}
