// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @bias_shape(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                      %b: tensor<32x128xf8E4M3FN>, %bias: tensor<64xf32>,
                      %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op bias must have shape [N] = [32], got [64]}}
  %0 = qmm.matmul a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  bias(%bias : tensor<64xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @bias_type(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                     %b: tensor<32x128xf8E4M3FN>, %bias: tensor<32xf16>,
                     %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op bias element type must be f32 or bf16, got 'f16'}}
  %0 = qmm.matmul a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  bias(%bias : tensor<32xf16>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @aux_without_activation(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                                  %b: tensor<32x128xf8E4M3FN>, %c: tensor<64x32xf32>,
                                  %aux: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  // expected-error @+1 {{'qmm.matmul' op aux (the pre-activation output) needs an activation}}
  %0:2 = qmm.matmul a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x32xf32>, aux %aux : tensor<64x32xf32>) -> tensor<64x32xf32>, tensor<64x32xf32>
  return %0#0, %0#1 : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

func.func @aux_shape(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                     %b: tensor<32x128xf8E4M3FN>, %c: tensor<64x32xf32>,
                     %aux: tensor<32x64xbf16>) -> (tensor<64x32xf32>, tensor<32x64xbf16>) {
  // expected-error @+1 {{'qmm.matmul' op aux must have shape [M, N] = [64, 32], got [32, 64]}}
  %0:2 = qmm.matmul a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    activation gelu_erf
                    outs(%c : tensor<64x32xf32>, aux %aux : tensor<32x64xbf16>) -> tensor<64x32xf32>, tensor<32x64xbf16>
  return %0#0, %0#1 : tensor<64x32xf32>, tensor<32x64xbf16>
}

// -----

func.func @aux_type(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                    %b: tensor<32x128xf8E4M3FN>, %c: tensor<64x32xf32>,
                    %aux: tensor<64x32xf8E4M3FN>) -> (tensor<64x32xf32>, tensor<64x32xf8E4M3FN>) {
  // expected-error @+1 {{'qmm.matmul' op aux element type must be f32, bf16 or f16, got 'f8E4M3FN'}}
  %0:2 = qmm.matmul a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    activation gelu_erf
                    outs(%c : tensor<64x32xf32>, aux %aux : tensor<64x32xf8E4M3FN>) -> tensor<64x32xf32>, tensor<64x32xf8E4M3FN>
  return %0#0, %0#1 : tensor<64x32xf32>, tensor<64x32xf8E4M3FN>
}

// -----

func.func @unknown_activation(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                              %b: tensor<32x128xf8E4M3FN>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = qmm.matmul a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  // expected-error @+1 {{unknown}}
                  activation relu
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @missing_aux_result(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                              %b: tensor<32x128xf8E4M3FN>, %c: tensor<64x32xf32>,
                              %aux: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %0 = qmm.matmul a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  activation gelu_erf
                  outs(%c : tensor<64x32xf32>, aux %aux : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}
