// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @input_type(%x: tensor<64x128xf64>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op input element type must be f32, bf16 or f16, got 'f64'}}
  %q, %s = qmm.quantize %x : tensor<64x128xf64> encoding #qmm.scale<per_tensor>
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @input_rank(%x: tensor<8x64x128xf32>, %q0: tensor<8x64x128xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op input must be rank 2, got rank 3}}
  %q, %s = qmm.quantize %x : tensor<8x64x128xf32> encoding #qmm.scale<per_tensor>
             outs(%q0, %s0 : tensor<8x64x128xf8E4M3FN>, tensor<1x1xf32>) -> tensor<8x64x128xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @quantized_type(%x: tensor<64x128xf32>, %q0: tensor<64x128xbf16>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op quantized element type must be f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E2M3FN, f6E3M2FN or f4E2M1FN, got 'bf16'}}
  %q, %s = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_tensor>
             outs(%q0, %s0 : tensor<64x128xbf16>, tensor<1x1xf32>) -> tensor<64x128xbf16>, tensor<1x1xf32>
  return
}

// -----

func.func @shape_mismatch(%x: tensor<64x128xf32>, %q0: tensor<64x256xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op quantized data must have the input's shape [64, 128], got [64, 256]}}
  %q, %s = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_tensor>
             outs(%q0, %s0 : tensor<64x256xf8E4M3FN>, tensor<1x1xf32>) -> tensor<64x256xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @scale_shape(%x: tensor<64x256xf32>, %q0: tensor<64x256xf8E4M3FN>, %s0: tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op quantized scales must have shape [64, 2] for #qmm.scale<block 1x128> with rows = [64] and K = [256], got [64, 1]}}
  %q, %s = qmm.quantize %x : tensor<64x256xf32> encoding #qmm.scale<block 1x128>
             outs(%q0, %s0 : tensor<64x256xf8E4M3FN>, tensor<64x1xf32>) -> tensor<64x256xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

// layout kn: the input is [K, rows] = [256, 64], so the scales are [64, 2].
func.func @scale_shape_kn(%x: tensor<256x64xf32>, %q0: tensor<256x64xf8E4M3FN>, %s0: tensor<2x64xf32>) {
  // expected-error @+1 {{'qmm.quantize' op quantized scales must have shape [64, 2] for #qmm.scale<block 1x128> with rows = [64] and K = [256], got [2, 64]}}
  %q, %s = qmm.quantize %x : tensor<256x64xf32> encoding #qmm.scale<block 1x128> layout kn
             outs(%q0, %s0 : tensor<256x64xf8E4M3FN>, tensor<2x64xf32>) -> tensor<256x64xf8E4M3FN>, tensor<2x64xf32>
  return
}

// -----

func.func @mx_k(%x: tensor<64x48xf32>, %q0: tensor<64x48xf4E2M1FN>, %s0: tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'qmm.quantize' op K (48) of quantized must be a multiple of 32 for #qmm.scale<mx>}}
  %q, %s = qmm.quantize %x : tensor<64x48xf32> encoding #qmm.scale<mx>
             outs(%q0, %s0 : tensor<64x48xf4E2M1FN>, tensor<64x2xf8E8M0FNU>) -> tensor<64x48xf4E2M1FN>, tensor<64x2xf8E8M0FNU>
  return
}

// -----

func.func @mx_linear_rounding(%x: tensor<64x64xf32>, %q0: tensor<64x64xf8E4M3FN>, %s0: tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'qmm.quantize' op f8E8M0FNU scales are powers of two: rounding must be pow2_floor or pow2_ceil}}
  %q, %s = qmm.quantize %x : tensor<64x64xf32> encoding #qmm.scale<mx> rounding none
             outs(%q0, %s0 : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return
}

// -----

func.func @zero_min_amax(%x: tensor<64x128xf32>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op min_amax must be positive with rounding 'none': an all-zero block would get a zero scale}}
  %q, %s = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_row> min_amax 0.0
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @negative_min_amax(%x: tensor<64x128xf32>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op min_amax must be finite and non-negative, got -1.000000e+00}}
  %q, %s = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_row> min_amax -1.0
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @nan_min_amax(%x: tensor<64x128xf32>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op min_amax must be finite and non-negative, got nan}}
  %q, %s = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_row> min_amax 0x7FC00000
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @wrong_result_count(%x: tensor<64x128xf32>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %q = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_tensor>
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) -> tensor<64x128xf8E4M3FN>
  return
}

// -----

func.func @mixed(%x: memref<64x128xf32>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op operands must be all tensors or all memrefs, not a mixture}}
  %q, %s = qmm.quantize %x : memref<64x128xf32> encoding #qmm.scale<per_tensor>
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @bad_rounding(%x: tensor<64x128xf32>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{unknown keyword 'nearest', expected one of: none, pow2_floor, pow2_ceil}}
  %q, %s = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_tensor> rounding nearest
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @bad_layout(%x: tensor<64x128xf32>, %q0: tensor<64x128xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{unknown keyword 'mk', expected one of: nk, kn}}
  %q, %s = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_tensor> layout mk
             outs(%q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @generic_f64_min_amax(%x: tensor<4x4xf32>, %q0: tensor<4x4xf8E4M3FN>, %s0: tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.quantize' op attribute 'min_amax' failed to satisfy constraint: 32-bit float attribute}}
  %q:2 = "qmm.quantize"(%x, %q0, %s0) <{encoding = #qmm.scale<per_tensor>, min_amax = 1.0 : f64}>
     : (tensor<4x4xf32>, tensor<4x4xf8E4M3FN>, tensor<1x1xf32>) -> (tensor<4x4xf8E4M3FN>, tensor<1x1xf32>)
  return
}
