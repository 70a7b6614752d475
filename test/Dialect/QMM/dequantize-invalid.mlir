// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @output_type(%q: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>, %x0: tensor<64x64xi32>) {
  // expected-error @+1 {{'qmm.dequantize' op output element type must be f32, bf16 or f16, got 'i32'}}
  %x = qmm.dequantize %q, %s : tensor<64x64xf8E4M3FN>, tensor<1x1xf32> encoding #qmm.scale<per_tensor>
         outs(%x0 : tensor<64x64xi32>) -> tensor<64x64xi32>
  return
}

// -----

func.func @shape(%q: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>, %x0: tensor<64x32xf32>) {
  // expected-error @+1 {{'qmm.dequantize' op init must have the quantized data's shape [64, 64], got [64, 32]}}
  %x = qmm.dequantize %q, %s : tensor<64x64xf8E4M3FN>, tensor<1x1xf32> encoding #qmm.scale<per_tensor>
         outs(%x0 : tensor<64x32xf32>) -> tensor<64x32xf32>
  return
}

// -----

func.func @init_rank(%q: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>, %x0: tensor<4096xf32>) {
  // expected-error @+1 {{'qmm.dequantize' op init must be rank 2, got rank 1}}
  %x = qmm.dequantize %q, %s : tensor<64x64xf8E4M3FN>, tensor<1x1xf32> encoding #qmm.scale<per_tensor>
         outs(%x0 : tensor<4096xf32>) -> tensor<4096xf32>
  return
}

// -----

func.func @data_type(%q: tensor<64x64xf16>, %s: tensor<1x1xf32>, %x0: tensor<64x64xf32>) {
  // expected-error @+1 {{'qmm.dequantize' op quantized element type must be}}
  %x = qmm.dequantize %q, %s : tensor<64x64xf16>, tensor<1x1xf32> encoding #qmm.scale<per_tensor>
         outs(%x0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return
}

// -----

func.func @scale_shape(%q: tensor<64x64xf4E2M1FN>, %s: tensor<64x4xf8E8M0FNU>, %x0: tensor<64x64xf32>) {
  // expected-error @+1 {{'qmm.dequantize' op quantized scales must have shape [64, 2] for #qmm.scale<mx> with rows = [64] and K = [64], got [64, 4]}}
  %x = qmm.dequantize %q, %s : tensor<64x64xf4E2M1FN>, tensor<64x4xf8E8M0FNU> encoding #qmm.scale<mx>
         outs(%x0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return
}

// -----

func.func @scale_type(%q: tensor<64x64xf8E4M3FN>, %s: tensor<64x2xf32>, %x0: tensor<64x64xf32>) {
  // expected-error @+1 {{'qmm.dequantize' op quantized scales have element type 'f32' but #qmm.scale<mx> needs 'f8E8M0FNU'}}
  %x = qmm.dequantize %q, %s : tensor<64x64xf8E4M3FN>, tensor<64x2xf32> encoding #qmm.scale<mx>
         outs(%x0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return
}

// -----

func.func @mixed(%q: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>, %x0: memref<64x64xf32>) {
  // expected-error @+1 {{'qmm.dequantize' op operands must be all tensors or all memrefs, not a mixture}}
  qmm.dequantize %q, %s : tensor<64x64xf8E4M3FN>, tensor<1x1xf32> encoding #qmm.scale<per_tensor>
         outs(%x0 : memref<64x64xf32>)
  return
}
