// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @masked_scales_without_groups(%a: tensor<2x32x128xf8E4M3FNUZ>, %sa: tensor<2x32x1xf32>,
                                        %b: tensor<2x128x128xf8E4M3FNUZ>, %sb: tensor<2x1x1xf32>,
                                        %g: tensor<2xi32>, %d: tensor<2x32x128xf8E4M3FNUZ>,
                                        %s: tensor<32x1xf32>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op output scales must have shape [2, 32, 1] for #qmm.scale<block 1x128>, got [32, 1]}}
  %r:2 = qmm.grouped_matmul masked
           a(%a, %sa : tensor<2x32x128xf8E4M3FNUZ>, tensor<2x32x1xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<2x128x128xf8E4M3FNUZ>, tensor<2x1x1xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<2xi32>)
           outs(%d : tensor<2x32x128xf8E4M3FNUZ>)
           out_scales(%s : tensor<32x1xf32>) #qmm.scale<block 1x128>
           -> tensor<2x32x128xf8E4M3FNUZ>, tensor<32x1xf32>
  return
}

// -----

func.func @masked_scale_shape(%a: tensor<2x32x128xf8E4M3FNUZ>, %sa: tensor<2x32x1xf32>,
                              %b: tensor<2x256x128xf8E4M3FNUZ>, %sb: tensor<2x2x1xf32>,
                              %g: tensor<2xi32>, %d: tensor<2x32x256xf8E4M3FNUZ>,
                              %s: tensor<2x32x1xf32>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op output scales must have shape [2, 32, 2] for #qmm.scale<block 1x128>, got [2, 32, 1]}}
  %r:2 = qmm.grouped_matmul masked
           a(%a, %sa : tensor<2x32x128xf8E4M3FNUZ>, tensor<2x32x1xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<2x256x128xf8E4M3FNUZ>, tensor<2x2x1xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<2xi32>)
           outs(%d : tensor<2x32x256xf8E4M3FNUZ>)
           out_scales(%s : tensor<2x32x1xf32>) #qmm.scale<block 1x128>
           -> tensor<2x32x256xf8E4M3FNUZ>, tensor<2x32x1xf32>
  return
}

// -----

func.func @no_scales(%a: tensor<128x128xf8E4M3FNUZ>, %sa: tensor<128x1xf32>,
                     %b: tensor<2x128x128xf8E4M3FNUZ>, %sb: tensor<2x1x1xf32>,
                     %g: tensor<128xi32>, %d: tensor<128x128xf8E4M3FNUZ>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op an 'f8E4M3FNUZ' output needs scales: out_scales(%s : type) #qmm.scale<block 1xC> or #qmm.scale<mx>}}
  %r = qmm.grouped_matmul contiguous
           a(%a, %sa : tensor<128x128xf8E4M3FNUZ>, tensor<128x1xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<2x128x128xf8E4M3FNUZ>, tensor<2x1x1xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<128xi32>)
           outs(%d : tensor<128x128xf8E4M3FNUZ>)
           -> tensor<128x128xf8E4M3FNUZ>
  return
}

// -----

func.func @accumulated(%a: tensor<128x128xf8E4M3FNUZ>, %sa: tensor<128x1xf32>,
                       %b: tensor<2x128x128xf8E4M3FNUZ>, %sb: tensor<2x1x1xf32>,
                       %g: tensor<128xi32>, %d: tensor<128x128xf8E4M3FNUZ>,
                       %s: tensor<128x1xf32>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op an FP8 output cannot be accumulated into}}
  %r:2 = qmm.grouped_matmul contiguous
           a(%a, %sa : tensor<128x128xf8E4M3FNUZ>, tensor<128x1xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<2x128x128xf8E4M3FNUZ>, tensor<2x1x1xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<128xi32>)
           accumulate
           outs(%d : tensor<128x128xf8E4M3FNUZ>)
           out_scales(%s : tensor<128x1xf32>) #qmm.scale<block 1x128>
           -> tensor<128x128xf8E4M3FNUZ>, tensor<128x1xf32>
  return
}

// -----

func.func @mx_partial_block(%a: tensor<128x64xf8E4M3FN>, %sa: tensor<128x2xf8E8M0FNU>,
                            %b: tensor<2x48x64xf8E4M3FN>, %sb: tensor<2x48x2xf8E8M0FNU>,
                            %g: tensor<128xi32>, %d: tensor<128x48xf8E4M3FN>,
                            %s: tensor<128x2xf8E8M0FNU>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op N (48) must be a multiple of 32 for an #qmm.scale<mx> output}}
  %r:2 = qmm.grouped_matmul contiguous
           a(%a, %sa : tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) #qmm.scale<mx>
           b(%b, %sb : tensor<2x48x64xf8E4M3FN>, tensor<2x48x2xf8E8M0FNU>) #qmm.scale<mx>
           groups(%g : tensor<128xi32>)
           outs(%d : tensor<128x48xf8E4M3FN>)
           out_scales(%s : tensor<128x2xf8E8M0FNU>) #qmm.scale<mx>
           -> tensor<128x48xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
  return
}

// -----

func.func @scales_on_bf16(%a: tensor<128x128xf8E4M3FNUZ>, %sa: tensor<128x1xf32>,
                          %b: tensor<2x128x128xf8E4M3FNUZ>, %sb: tensor<2x1x1xf32>,
                          %g: tensor<128xi32>, %d: tensor<128x128xbf16>,
                          %s: tensor<128x1xf32>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op output scales, their encoding and rule go with an FP8 output only, not 'bf16'}}
  %r:2 = qmm.grouped_matmul contiguous
           a(%a, %sa : tensor<128x128xf8E4M3FNUZ>, tensor<128x1xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<2x128x128xf8E4M3FNUZ>, tensor<2x1x1xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<128xi32>)
           outs(%d : tensor<128x128xbf16>)
           out_scales(%s : tensor<128x1xf32>) #qmm.scale<block 1x128>
           -> tensor<128x128xbf16>, tensor<128x1xf32>
  return
}

// -----

func.func @mn_major_scales(%a: tensor<128x128xf8E4M3FNUZ>, %sa: tensor<128x1xf32>,
                           %b: tensor<2x128x128xf8E4M3FNUZ>, %sb: tensor<2x1x1xf32>,
                           %g: tensor<128xi32>, %d: tensor<128x128xf8E4M3FNUZ>,
                           %s: tensor<1x128xf32>) {
  // expected-error @+1 {{'qmm.grouped_matmul' op output scales must be per token along N (#qmm.scale<block 1xC>) or #qmm.scale<mx>, K-major; got #qmm.scale<block 1x128, mn_major>}}
  %r:2 = qmm.grouped_matmul contiguous
           a(%a, %sa : tensor<128x128xf8E4M3FNUZ>, tensor<128x1xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<2x128x128xf8E4M3FNUZ>, tensor<2x1x1xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<128xi32>)
           outs(%d : tensor<128x128xf8E4M3FNUZ>)
           out_scales(%s : tensor<1x128xf32>) #qmm.scale<block 1x128, mn_major>
           -> tensor<128x128xf8E4M3FNUZ>, tensor<1x128xf32>
  return
}
