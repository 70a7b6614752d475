// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @b_rank(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>, %b: tensor<32x128xf8E4M3FN>,
                  %g: tensor<64xi32>, %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.grouped_matmul' op B must be [G, N, K], got rank 2}}
  %0 = qmm.grouped_matmul contiguous a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<64xi32>) outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @b_scales_per_group(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                              %g: tensor<64xi32>, %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.grouped_matmul' op B scales must have shape [2, 1, 1] for #qmm.scale<per_tensor>, got [1, 1]}}
  %0 = qmm.grouped_matmul contiguous a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %s : tensor<2x32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<64xi32>) outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @group_index_type(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                            %sb: tensor<2x1x1xf32>, %g: tensor<64xi64>, %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.grouped_matmul' op groups must be an i32 vector of M = [64] group indices, got 'tensor<64xi64>'}}
  %0 = qmm.grouped_matmul contiguous a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<64xi64>) outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @masked_counts(%a: tensor<2x16x128xf8E4M3FN>, %sa: tensor<2x1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                         %sb: tensor<2x1x1xf32>, %g: tensor<16xi32>, %d: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  // expected-error @+1 {{'qmm.grouped_matmul' op groups must be an i32 vector of G = [2] valid-row counts, got 'tensor<16xi32>'}}
  %0 = qmm.grouped_matmul masked a(%a, %sa : tensor<2x16x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<16xi32>) outs(%d : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %0 : tensor<2x16x32xf32>
}

// -----

func.func @masked_init(%a: tensor<2x16x128xf8E4M3FN>, %sa: tensor<2x1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                       %sb: tensor<2x1x1xf32>, %g: tensor<2xi32>, %d: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'qmm.grouped_matmul' op init must have shape [2, 16, 32], got [32, 32]}}
  %0 = qmm.grouped_matmul masked a(%a, %sa : tensor<2x16x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<2xi32>) outs(%d : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

func.func @a_scales_shape(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x1xf32>, %b: tensor<2x32x256xf8E4M3FN>,
                          %sb: tensor<2x1x2xf32>, %g: tensor<64xi32>, %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.grouped_matmul' op A scales must have shape [64, 2] for #qmm.scale<block 1x128>, got [64, 1]}}
  %0 = qmm.grouped_matmul contiguous a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<block 1x128>
         b(%b, %sb : tensor<2x32x256xf8E4M3FN>, tensor<2x1x2xf32>) #qmm.scale<block 128x128>
         groups(%g : tensor<64xi32>) outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @unknown_layout(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                          %g: tensor<64xi32>, %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{unknown}}
  %0 = qmm.grouped_matmul strided a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %s : tensor<2x32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<64xi32>) outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @bias_shape(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                      %sb: tensor<2x1x1xf32>, %bias: tensor<32xf32>, %g: tensor<64xi32>,
                      %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.grouped_matmul' op bias must have shape [G, N] = [2, 32], got [32]}}
  %0 = qmm.grouped_matmul contiguous a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<64xi32>) bias(%bias : tensor<32xf32>)
         outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @aux_without_activation(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                                  %sb: tensor<2x1x1xf32>, %g: tensor<64xi32>,
                                  %d: tensor<64x32xf32>, %aux: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op aux (the pre-activation output) needs an activation}}
  %0:2 = qmm.grouped_matmul contiguous a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
           b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
           groups(%g : tensor<64xi32>)
           outs(%d : tensor<64x32xf32>, aux %aux : tensor<64x32xf32>) -> tensor<64x32xf32>, tensor<64x32xf32>
  return %0#0, %0#1 : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

func.func @aux_shape(%a: tensor<2x64x128xf8E4M3FN>, %s: tensor<2x1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                     %sb: tensor<2x1x1xf32>, %g: tensor<2xi32>,
                     %d: tensor<2x64x32xf32>, %aux: tensor<64x32xf32>) -> (tensor<2x64x32xf32>, tensor<64x32xf32>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op aux must have init's shape [2, 64, 32], got [64, 32]}}
  %0:2 = qmm.grouped_matmul masked a(%a, %s : tensor<2x64x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
           b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
           groups(%g : tensor<2xi32>) activation gelu_erf
           outs(%d : tensor<2x64x32xf32>, aux %aux : tensor<64x32xf32>) -> tensor<2x64x32xf32>, tensor<64x32xf32>
  return %0#0, %0#1 : tensor<2x64x32xf32>, tensor<64x32xf32>
}

// -----

func.func @aux_type(%a: tensor<64x128xf8E4M3FN>, %s: tensor<1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>,
                    %sb: tensor<2x1x1xf32>, %g: tensor<64xi32>,
                    %d: tensor<64x32xf32>, %aux: tensor<64x32xf8E4M3FN>) -> (tensor<64x32xf32>, tensor<64x32xf8E4M3FN>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op aux element type must be f32, bf16 or f16, got 'f8E4M3FN'}}
  %0:2 = qmm.grouped_matmul contiguous a(%a, %s : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
           b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
           groups(%g : tensor<64xi32>) activation gelu_erf
           outs(%d : tensor<64x32xf32>, aux %aux : tensor<64x32xf8E4M3FN>) -> tensor<64x32xf32>, tensor<64x32xf8E4M3FN>
  return %0#0, %0#1 : tensor<64x32xf32>, tensor<64x32xf8E4M3FN>
}

// -----

// Scales of the wrong rank (found by fuzzing: a rank-3 A scale tensor of a
// contiguous grouped matmul was accepted, its extra extent never read).
func.func @a_scales_rank(%a: tensor<256x128xf8E4M3FN>, %sa: tensor<256x1x3xf32>,
                         %b: tensor<2x64x128xf8E4M3FN>, %sb: tensor<2x1x1xf32>,
                         %g: tensor<256xi32>, %init: tensor<256x64xbf16>) -> tensor<256x64xbf16> {
  // expected-error @+1 {{'qmm.grouped_matmul' op A scales must have shape [256, 1] for #qmm.scale<block 1x128>, got [256, 1, 3]}}
  %r = qmm.grouped_matmul contiguous
         a(%a, %sa : tensor<256x128xf8E4M3FN>, tensor<256x1x3xf32>) #qmm.scale<block 1x128>
         b(%b, %sb : tensor<2x64x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<256xi32>)
         outs(%init : tensor<256x64xbf16>) -> tensor<256x64xbf16>
  return %r : tensor<256x64xbf16>
}
