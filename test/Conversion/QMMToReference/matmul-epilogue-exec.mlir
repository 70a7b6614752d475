// The matmul epilogue executed on the host through the reference
// lowering. A = [[1], [2]] and B = [[1], [-1]] along K (all other values 0,
// e4m3fn 0x38 = 1, 0x40 = 2, 0xB8 = -1), unit scales: A B^T = [[1, -1],
// [2, -2]]; bias [0.5, 0.25] gives the pre-activations [[1.5, -0.75],
// [2.5, -1.75]], written to aux exactly. GELU values from the definitions,
// computed separately in f64 (Python math.erf / math.tanh) and printed to 6
// digits: erf form 1.39979, -0.169971, 2.48448, -0.0701035; tanh form
// 1.39957, -0.170039, 2.48492, -0.0702046.
//
// RUN: fp8-opt %s --qmm-cpu-pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

func.func private @print2x2(%t: tensor<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v00 = tensor.extract %t[%c0, %c0] : tensor<2x2xf32>
  %v01 = tensor.extract %t[%c0, %c1] : tensor<2x2xf32>
  %v10 = tensor.extract %t[%c1, %c0] : tensor<2x2xf32>
  %v11 = tensor.extract %t[%c1, %c1] : tensor<2x2xf32>
  vector.print %v00 : f32
  vector.print %v01 : f32
  vector.print %v10 : f32
  vector.print %v11 : f32
  return
}

func.func private @inputs() -> (tensor<2x32xf8E4M3FN>, tensor<2x32xf8E4M3FN>, tensor<1x1xf32>, tensor<2xf32>) {
  %a = arith.constant dense<"0x38000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000000"> : tensor<2x32xf8E4M3FN>
  %b = arith.constant dense<"0x3800000000000000000000000000000000000000000000000000000000000000B800000000000000000000000000000000000000000000000000000000000000"> : tensor<2x32xf8E4M3FN>
  %s = arith.constant dense<1.0> : tensor<1x1xf32>
  %bias = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  return %a, %b, %s, %bias : tensor<2x32xf8E4M3FN>, tensor<2x32xf8E4M3FN>, tensor<1x1xf32>, tensor<2xf32>
}

func.func @main() {
  %a, %b, %s, %bias = call @inputs() : () -> (tensor<2x32xf8E4M3FN>, tensor<2x32xf8E4M3FN>, tensor<1x1xf32>, tensor<2xf32>)
  %d0 = tensor.empty() : tensor<2x2xf32>
  %aux0 = tensor.empty() : tensor<2x2xf32>
  %d:2 = qmm.matmul a(%a, %s : tensor<2x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %s : tensor<2x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    bias(%bias : tensor<2xf32>) activation gelu_erf
                    outs(%d0 : tensor<2x2xf32>, aux %aux0 : tensor<2x2xf32>)
                    -> tensor<2x2xf32>, tensor<2x2xf32>
  // CHECK: 1.39979
  // CHECK-NEXT: -0.169971
  // CHECK-NEXT: 2.48448
  // CHECK-NEXT: -0.0701035
  call @print2x2(%d#0) : (tensor<2x2xf32>) -> ()
  // CHECK-NEXT: 1.5
  // CHECK-NEXT: -0.75
  // CHECK-NEXT: 2.5
  // CHECK-NEXT: -1.75
  call @print2x2(%d#1) : (tensor<2x2xf32>) -> ()
  %t0 = tensor.empty() : tensor<2x2xf32>
  %t = qmm.matmul a(%a, %s : tensor<2x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %s : tensor<2x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  bias(%bias : tensor<2xf32>) activation gelu_tanh
                  outs(%t0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: 1.39957
  // CHECK-NEXT: -0.170039
  // CHECK-NEXT: 2.48492
  // CHECK-NEXT: -0.0702046
  call @print2x2(%t) : (tensor<2x2xf32>) -> ()
  return
}
