// RUN: fp8-opt %s -split-input-file --qmm-lower-to-reference -verify-diagnostics

func.func @dynamic_m(%a: tensor<?x128xf8E4M3FN>, %sa: tensor<?x1xf32>,
                     %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                     %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op qmm-lower-to-reference needs static shapes, got 'tensor<?x128xf8E4M3FN>'}}
  %d = qmm.matmul a(%a, %sa : tensor<?x128xf8E4M3FN>, tensor<?x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %d : tensor<?x64xf32>
}

// -----

func.func @dynamic_quantize(%x: tensor<?x128xf32>, %q0: tensor<?x128xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op qmm-lower-to-reference needs static shapes, got 'tensor<?x128xf32>'}}
  %q, %s = qmm.quantize %x : tensor<?x128xf32> encoding #qmm.scale<per_tensor>
             outs(%q0, %s0 : tensor<?x128xf8E4M3FN>, tensor<1x1xf32>) -> tensor<?x128xf8E4M3FN>, tensor<1x1xf32>
  return
}
