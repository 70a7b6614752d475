// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @missing_scales(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                          %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                          %c: tensor<64x64xf8E4M3FN>) -> tensor<64x64xf8E4M3FN> {
  // expected-error @+1 {{'qmm.matmul' op an 'f8E4M3FN' output needs scales: out_scales(%s : type) #qmm.scale<block 1xC> or #qmm.scale<mx>}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf8E4M3FN>) -> tensor<64x64xf8E4M3FN>
  return %d : tensor<64x64xf8E4M3FN>
}

// -----

func.func @scales_on_bf16(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                          %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                          %c: tensor<64x64xbf16>, %s: tensor<64x1xf32>) -> (tensor<64x64xbf16>, tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.matmul' op output scales, their encoding and rule go with an FP8 output only, not 'bf16'}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x64xbf16>) out_scales(%s : tensor<64x1xf32>) #qmm.scale<block 1x128>
                    -> tensor<64x64xbf16>, tensor<64x1xf32>
  return %d#0, %d#1 : tensor<64x64xbf16>, tensor<64x1xf32>
}

// -----

func.func @accumulate(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                      %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<64x64xf8E4M3FN>, %s: tensor<64x1xf32>) -> (tensor<64x64xf8E4M3FN>, tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.matmul' op an FP8 output cannot be accumulated into}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    accumulate
                    outs(%c : tensor<64x64xf8E4M3FN>) out_scales(%s : tensor<64x1xf32>) #qmm.scale<block 1x128>
                    -> tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
  return %d#0, %d#1 : tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
}

// -----

// Scales that span rows would need a reduction across workgroups.
func.func @block_of_rows(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                         %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                         %c: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) -> (tensor<64x64xf8E4M3FN>, tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.matmul' op output scales must be per token along N (#qmm.scale<block 1xC>) or #qmm.scale<mx>, K-major; got #qmm.scale<block 128x128>}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x64xf8E4M3FN>) out_scales(%s : tensor<1x1xf32>) #qmm.scale<block 128x128>
                    -> tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
  return %d#0, %d#1 : tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
}

// -----

func.func @per_tensor(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                      %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) -> (tensor<64x64xf8E4M3FN>, tensor<1x1xf32>) {
  // expected-error @+1 {{'qmm.matmul' op output scales must be per token along N (#qmm.scale<block 1xC>) or #qmm.scale<mx>, K-major; got #qmm.scale<per_tensor>}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x64xf8E4M3FN>) out_scales(%s : tensor<1x1xf32>) #qmm.scale<per_tensor>
                    -> tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
  return %d#0, %d#1 : tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
}

// -----

func.func @wrong_scale_shape(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                             %b: tensor<200x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                             %c: tensor<64x200xf8E4M3FN>, %s: tensor<64x1xf32>) -> (tensor<64x200xf8E4M3FN>, tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.matmul' op output scales must have shape [64, 2] for #qmm.scale<block 1x128> with rows = [64] and K = [200], got [64, 1]}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<200x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x200xf8E4M3FN>) out_scales(%s : tensor<64x1xf32>) #qmm.scale<block 1x128>
                    -> tensor<64x200xf8E4M3FN>, tensor<64x1xf32>
  return %d#0, %d#1 : tensor<64x200xf8E4M3FN>, tensor<64x1xf32>
}

// -----

func.func @mx_fnuz(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                   %b: tensor<64x128xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                   %c: tensor<64x64xf8E4M3FNUZ>, %s: tensor<64x2xf8E8M0FNU>) -> (tensor<64x64xf8E4M3FNUZ>, tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'qmm.matmul' op 'mx' encoding of output requires an OCP MX element type}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x64xf8E4M3FNUZ>) out_scales(%s : tensor<64x2xf8E8M0FNU>) #qmm.scale<mx>
                    -> tensor<64x64xf8E4M3FNUZ>, tensor<64x2xf8E8M0FNU>
  return %d#0, %d#1 : tensor<64x64xf8E4M3FNUZ>, tensor<64x2xf8E8M0FNU>
}

// -----

func.func @mx_partial_block(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                            %b: tensor<48x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                            %c: tensor<64x48xf8E4M3FN>, %s: tensor<64x2xf8E8M0FNU>) -> (tensor<64x48xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'qmm.matmul' op N (48) must be a multiple of 32 for an #qmm.scale<mx> output}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<48x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x48xf8E4M3FN>) out_scales(%s : tensor<64x2xf8E8M0FNU>) #qmm.scale<mx>
                    -> tensor<64x48xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %d#0, %d#1 : tensor<64x48xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
}

// -----

func.func @e8m0_without_pow2(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                             %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                             %c: tensor<64x64xf8E4M3FN>, %s: tensor<64x2xf8E8M0FNU>) -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'qmm.matmul' op f8E8M0FNU scales are powers of two: rounding must be pow2_floor or pow2_ceil}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x64xf8E4M3FN>) out_scales(%s : tensor<64x2xf8E8M0FNU>) #qmm.scale<mx> rounding none
                    -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %d#0, %d#1 : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
}

// -----

func.func @zero_min_amax(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                         %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                         %c: tensor<64x64xf8E4M3FN>, %s: tensor<64x1xf32>) -> (tensor<64x64xf8E4M3FN>, tensor<64x1xf32>) {
  // expected-error @+1 {{'qmm.matmul' op min_amax must be positive with rounding 'none': an all-zero block would get a zero scale}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x64xf8E4M3FN>) out_scales(%s : tensor<64x1xf32>) #qmm.scale<block 1x128> min_amax 0.0
                    -> tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
  return %d#0, %d#1 : tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
}

// -----

func.func @fp4_output(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                      %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<64x64xf4E2M1FN>, %s: tensor<64x2xf8E8M0FNU>) -> (tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'qmm.matmul' op output element type must be f32, bf16, f16 or an FP8 type (with scales), got 'f4E2M1FN'}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%c : tensor<64x64xf4E2M1FN>) out_scales(%s : tensor<64x2xf8E8M0FNU>) #qmm.scale<mx>
                    -> tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU>
  return %d#0, %d#1 : tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU>
}
