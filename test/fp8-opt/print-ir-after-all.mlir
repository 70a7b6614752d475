// --mlir-print-ir-after-all dumps the IR after each pass of a pipeline.
// RUN: fp8-opt %s --one-shot-bufferize="bufferize-function-boundaries" --canonicalize \
// RUN:   --mlir-print-ir-after-all 2>&1 | FileCheck %s

// CHECK: IR Dump After OneShotBufferizePass
// CHECK: qmm.dequantize {{.*}} : memref<32x32xf8E4M3FN, {{.*}}>, memref<1x1xf32, {{.*}}> encoding #qmm.scale<per_tensor>
// CHECK: IR Dump After Canonicalizer
// CHECK: qmm.dequantize
func.func @f(%q: tensor<32x32xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<32x32xf32> {
  %x0 = tensor.empty() : tensor<32x32xf32>
  %x = qmm.dequantize %q, %s : tensor<32x32xf8E4M3FN>, tensor<1x1xf32> encoding #qmm.scale<per_tensor>
         outs(%x0 : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %x : tensor<32x32xf32>
}
