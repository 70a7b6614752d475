// RUN: fp8-opt %s | FileCheck %s
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --mlir-print-op-generic | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// Bias, GELU and the pre-activation output round-trip; on tensors the op
// returns the new values of both destinations.
// CHECK-LABEL: func.func @bias_gelu_aux
// CHECK: %[[R:.*]]:2 = qmm.matmul a(%arg0, %arg1 : {{.*}}) #qmm.scale<per_row> b(%arg2, %arg3 : {{.*}}) #qmm.scale<per_tensor> bias(%arg4 : tensor<32xbf16>) activation gelu_tanh outs(%arg5 : tensor<64x32xbf16>, aux %arg6 : tensor<64x32xf32>) -> tensor<64x32xbf16>, tensor<64x32xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
// Bufferized: both destinations written in place, the function returns
// nothing new.
// BUF-LABEL: func.func @bias_gelu_aux
// BUF: qmm.matmul {{.*}} bias(%arg4 : memref<32xbf16{{.*}}>) activation gelu_tanh outs(%arg5 : memref<64x32xbf16{{.*}}>, aux %arg6 : memref<64x32xf32{{.*}}>){{$}}
// BUF: return %arg5, %arg6
func.func @bias_gelu_aux(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x1xf32>,
                         %b: tensor<32x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                         %bias: tensor<32xbf16>, %c: tensor<64x32xbf16>,
                         %aux: tensor<64x32xf32>) -> (tensor<64x32xbf16>, tensor<64x32xf32>) {
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<per_row>
                    b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    bias(%bias : tensor<32xbf16>) activation gelu_tanh
                    outs(%c : tensor<64x32xbf16>, aux %aux : tensor<64x32xf32>)
                    -> tensor<64x32xbf16>, tensor<64x32xf32>
  return %d#0, %d#1 : tensor<64x32xbf16>, tensor<64x32xf32>
}

// Each part alone: a bias (f32), an activation without aux, accumulate.
// CHECK-LABEL: func.func @parts
// CHECK: qmm.matmul {{.*}} bias(%arg4 : tensor<32xf32>) outs(
// CHECK: qmm.matmul {{.*}} accumulate activation gelu_erf outs(%arg5 : tensor<64x32xf32>) -> tensor<64x32xf32>
func.func @parts(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                 %b: tensor<32x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                 %bias: tensor<32xf32>, %c: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  bias(%bias : tensor<32xf32>)
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %1 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  accumulate activation gelu_erf
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0, %1 : tensor<64x32xf32>, tensor<64x32xf32>
}
