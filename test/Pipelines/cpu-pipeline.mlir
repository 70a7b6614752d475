// qmm-cpu-pipeline takes qmm on tensors all the way to the LLVM dialect,
// with the small-float conversions expanded (no f8 arithmetic left).
// RUN: fp8-opt %s --qmm-cpu-pipeline | FileCheck %s

// The GEMM itself must be there: a K loop whose body decodes both FP8
// operands through the decode table, multiplies the two dequantized values
// and accumulates in f32, then a loop that rounds to bf16 and stores.
// CHECK: llvm.mlir.global private constant @__qmm_decode_f8E4M3FN
// CHECK-LABEL: llvm.func @gemm
// CHECK-NOT: qmm.
// CHECK-NOT: linalg.
// CHECK-NOT: arith.
// CHECK-NOT: scf.
// CHECK: llvm.cond_br
// CHECK: %[[TABLE_A:.*]] = llvm.mlir.addressof @__qmm_decode_f8E4M3FN
// CHECK: %[[A:.*]] = llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK: %[[TABLE_B:.*]] = llvm.mlir.addressof @__qmm_decode_f8E4M3FN
// CHECK: %[[B:.*]] = llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK: %[[P:.*]] = llvm.fmul %[[A]], %[[B]] : f32
// CHECK: %[[SUM:.*]] = llvm.fadd %{{.*}}, %[[P]] : f32
// CHECK: llvm.store %[[SUM]], %{{.*}} : f32, !llvm.ptr
// CHECK: llvm.cond_br
// CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr
// CHECK: llvm.return
func.func @gemm(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<16x1xf32>,
                %b: tensor<8x64xf8E4M3FN>, %sb: tensor<1x1xf32>,
                %c: tensor<16x8xbf16>) -> tensor<16x8xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<8x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %d : tensor<16x8xbf16>
}
