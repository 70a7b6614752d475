// RUN: fp8-opt %s -split-input-file -canonicalize | FileCheck %s

// On tensors the ops are pure: an unused result lets them be erased.
// CHECK-LABEL: func.func @dead_tensor_ops
// CHECK-NOT: qmm.
// CHECK: return
func.func @dead_tensor_ops(%a: tensor<16x32xf8E4M3FN>, %sa: tensor<1x1xf32>,
                           %c: tensor<16x16xf32>, %x: tensor<16x32xf32>) {
  %d = qmm.matmul a(%a, %sa : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%a, %sa : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %q, %s = qmm.quantize %x : tensor<16x32xf32> encoding #qmm.scale<per_tensor>
             outs(%a, %sa : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) -> tensor<16x32xf8E4M3FN>, tensor<1x1xf32>
  %y = qmm.dequantize %a, %sa : tensor<16x32xf8E4M3FN>, tensor<1x1xf32> encoding #qmm.scale<per_tensor>
         outs(%x : tensor<16x32xf32>) -> tensor<16x32xf32>
  return
}

// -----

// On memrefs they write their destinations and must stay.
// CHECK-LABEL: func.func @memref_ops_stay
// CHECK: qmm.quantize
// CHECK: qmm.dequantize
// CHECK: qmm.matmul
func.func @memref_ops_stay(%a: memref<16x32xf8E4M3FN>, %sa: memref<1x1xf32>,
                           %c: memref<16x16xf32>, %x: memref<16x32xf32>) {
  qmm.quantize %x : memref<16x32xf32> encoding #qmm.scale<per_tensor>
    outs(%a, %sa : memref<16x32xf8E4M3FN>, memref<1x1xf32>)
  qmm.dequantize %a, %sa : memref<16x32xf8E4M3FN>, memref<1x1xf32> encoding #qmm.scale<per_tensor>
    outs(%x : memref<16x32xf32>)
  qmm.matmul a(%a, %sa : memref<16x32xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%a, %sa : memref<16x32xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%c : memref<16x16xf32>)
  return
}
