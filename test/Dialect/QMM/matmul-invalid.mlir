// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @a_rank(%a: tensor<2x64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                  %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                  %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A must be rank 2, got rank 3}}
  %d = qmm.matmul a(%a, %sa : tensor<2x64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @scale_rank(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<f32>,
                      %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A scales must be rank 2, got rank 0}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<f32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @b_element_type(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                          %b: tensor<64x128xbf16>, %sb: tensor<1x1xf32>,
                          %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op B element type must be f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E2M3FN, f6E3M2FN or f4E2M1FN, got 'bf16'}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xbf16>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @integer_data(%a: tensor<64x128xi8>, %sa: tensor<1x1xf32>,
                        %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                        %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A element type must be}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xi8>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @fnuz_mixed_with_ocp(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                               %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                               %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A ('f8E4M3FNUZ') and B ('f8E4M3FN') mix FNUZ and OCP formats; both must be FNUZ (gfx942) or both OCP}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}


// -----

func.func @k_mismatch_nk(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                         %b: tensor<64x256xf8E4M3FN>, %sb: tensor<1x1xf32>,
                         %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op K of A (128) and K of B (256) differ; B is [N, K] (layout nk)}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// A [K, N] B passed without `layout kn`: K of B reads as 32.
func.func @k_mismatch_forgot_kn(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                                %b: tensor<128x32xf8E4M3FN>, %sb: tensor<1x1xf32>,
                                %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op K of A (128) and K of B (32) differ; B is [N, K] (layout nk)}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<128x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

func.func @k_mismatch_kn(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                         %b: tensor<64x32xf8E4M3FN>, %sb: tensor<1x1xf32>,
                         %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op K of A (128) and K of B (64) differ; B is [K, N] (layout kn)}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

func.func @output_type(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                       %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                       %c: tensor<64x64xf64>) -> tensor<64x64xf64> {
  // expected-error @+1 {{'qmm.matmul' op output element type must be f32, bf16, f16 or an FP8 type (with scales), got 'f64'}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf64>) -> tensor<64x64xf64>
  return %d : tensor<64x64xf64>
}

// -----


func.func @init_shape(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                      %b: tensor<32x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op init must have shape [M, N] = [64, 32], got [64, 64]}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @init_rank(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                     %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                     %c: tensor<4096xf32>) -> tensor<4096xf32> {
  // expected-error @+1 {{'qmm.matmul' op init must be rank 2, got rank 1}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<4096xf32>) -> tensor<4096xf32>
  return %d : tensor<4096xf32>
}

// -----

func.func @result_type(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                       %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                       %c: tensor<64x64xf32>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{'qmm.matmul' op expected type of operand #4 ('tensor<64x64xf32>') to match type of corresponding result ('tensor<64x64xbf16>')}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xbf16>
  return %d : tensor<64x64xbf16>
}

// -----

func.func @missing_result(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                          %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                          %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'qmm.matmul' op expected the number of tensor results (0) to be equal to the number of output tensors (1)}}
  qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
             outs(%c : tensor<64x64xf32>)
  return
}

// -----

func.func @mixed_tensor_memref(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                               %b: memref<64x128xf8E4M3FN>, %sb: memref<1x1xf32>,
                               %c: memref<64x64xf32>) {
  // expected-error @+1 {{'qmm.matmul' op operands must be all tensors or all memrefs, not a mixture}}
  qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<64x128xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @vector_operand(%a: vector<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                          %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                          %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op operand #0 must be ranked tensor or memref, but got 'vector<64x128xf8E4M3FN>'}}
  %d = qmm.matmul a(%a, %sa : vector<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @scale_type_vs_encoding(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x1xbf16>,
                                  %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                                  %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A scales have element type 'bf16' but #qmm.scale<per_row> needs 'f32'}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x1xbf16>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// e8m0 scale data under a non-MX encoding.
func.func @e8m0_scales_non_mx(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x1xf8E8M0FNU>,
                              %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                              %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A scales have element type 'f8E8M0FNU' but #qmm.scale<per_row> needs 'f32'}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x1xf8E8M0FNU>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// MX scales must be E8M0: f32 scale data under #qmm.scale<mx>.
func.func @mx_with_f32_scales(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x4xf32>,
                              %b: tensor<64x128xf8E4M3FN>, %sb: tensor<64x4xf8E8M0FNU>,
                              %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A scales have element type 'f32' but #qmm.scale<mx> needs 'f8E8M0FNU'}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x4xf32>) #qmm.scale<mx>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @mx_fnuz(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<64x4xf8E8M0FNU>,
                   %b: tensor<64x128xf8E4M3FNUZ>, %sb: tensor<64x4xf8E8M0FNU>,
                   %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op 'mx' encoding of A requires an OCP MX element type (f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, f4E2M1FN), got 'f8E4M3FNUZ'}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<64x4xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %sb : tensor<64x128xf8E4M3FNUZ>, tensor<64x4xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @mx_k_not_divisible(%a: tensor<64x80xf4E2M1FN>, %sa: tensor<64x3xf8E8M0FNU>,
                              %b: tensor<64x80xf4E2M1FN>, %sb: tensor<64x3xf8E8M0FNU>,
                              %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op K (80) of A must be a multiple of 32 for #qmm.scale<mx>}}
  %d = qmm.matmul a(%a, %sa : tensor<64x80xf4E2M1FN>, tensor<64x3xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %sb : tensor<64x80xf4E2M1FN>, tensor<64x3xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @block_scale_shape(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x2xf32>,
                             %b: tensor<1024x512xf8E4M3FN>, %sb: tensor<8x4xf32>,
                             %c: tensor<256x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'qmm.matmul' op A scales must have shape [256, 4] for #qmm.scale<block 1x128> with rows = [256] and K = [512], got [256, 2]}}
  %d = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x2xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// Partial blocks round up: N = 1000 needs ceil(1000/128) = 8 block rows.
func.func @partial_block_rounds_up(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>,
                                   %b: tensor<1000x512xf8E4M3FN>, %sb: tensor<7x4xf32>,
                                   %c: tensor<256x1000xbf16>) -> tensor<256x1000xbf16> {
  // expected-error @+1 {{'qmm.matmul' op B scales must have shape [8, 4] for #qmm.scale<block 128x128> with rows = [1000] and K = [512], got [7, 4]}}
  %d = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<1000x512xf8E4M3FN>, tensor<7x4xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<256x1000xbf16>) -> tensor<256x1000xbf16>
  return %d : tensor<256x1000xbf16>
}

// -----

// K-major scales given where the encoding says mn_major.
func.func @mn_major_shape(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>,
                          %b: tensor<1024x512xf8E4M3FN>, %sb: tensor<8x4xf32>,
                          %c: tensor<256x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'qmm.matmul' op A scales must have shape [4, 256] for #qmm.scale<block 1x128, mn_major> with rows = [256] and K = [512], got [256, 4]}}
  %d = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128, mn_major>
                  b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// B [K, N]: its scales follow (N, K), not the storage order.
func.func @kn_scale_shape(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>,
                          %b: tensor<512x1024xf8E4M3FN>, %sb: tensor<4x8xf32>,
                          %c: tensor<256x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'qmm.matmul' op B scales must have shape [8, 4] for #qmm.scale<block 128x128> with rows = [1024] and K = [512], got [4, 8]}}
  %d = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<512x1024xf8E4M3FN>, tensor<4x8xf32>) #qmm.scale<block 128x128> layout kn
                  outs(%c : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

func.func @per_tensor_scale_shape(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x2xf32>,
                                  %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                                  %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op A scales must have shape [1, 1] for #qmm.scale<per_tensor> with rows = [64] and K = [128], got [1, 2]}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @per_row_scale_shape(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                               %b: tensor<32x128xf8E4M3FN>, %sb: tensor<64x1xf32>,
                               %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op B scales must have shape [32, 1] for #qmm.scale<per_row> with rows = [32] and K = [128], got [64, 1]}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<per_row>
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

// With a dynamic M the scales' M extent can still be wrong where static.
func.func @dynamic_m_scale_k(%a: tensor<?x512xf8E4M3FN>, %sa: tensor<?x8xf32>,
                             %b: tensor<1024x512xf8E4M3FN>, %sb: tensor<8x4xf32>,
                             %c: tensor<?x1024xbf16>) -> tensor<?x1024xbf16> {
  // expected-error @+1 {{'qmm.matmul' op A scales must have shape [?, 4] for #qmm.scale<block 1x128> with rows = [?] and K = [512], got [?, 8]}}
  %d = qmm.matmul a(%a, %sa : tensor<?x512xf8E4M3FN>, tensor<?x8xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
  return %d : tensor<?x1024xbf16>
}

// -----

func.func @missing_encoding(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                            %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                            %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{expected attribute value}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>)
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @wrong_attribute_kind(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                                %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                                %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm<layout nk>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// The generic form is verified as strictly as the custom one.
func.func @generic_missing_attr(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                                %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                                %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op requires attribute 'b_encoding'}}
  %d = "qmm.matmul"(%a, %sa, %b, %sb, %c) <{a_encoding = #qmm.scale<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0, 0>}>
     : (tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @generic_wrong_operand_count(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                                       %b: tensor<64x128xf8E4M3FN>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'qmm.matmul' op expected 5 or more operands, but found 4}}
  %d = "qmm.matmul"(%a, %sa, %b, %c) <{a_encoding = #qmm.scale<per_tensor>, b_encoding = #qmm.scale<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 0>}>
     : (tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<64x128xf8E4M3FN>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

func.func @unranked_memref(%a: memref<*xf8E4M3FN>, %sa: memref<1x1xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{'qmm.matmul' op operand #0 must be ranked tensor or memref, but got 'memref<*xf8E4M3FN>'}}
  qmm.matmul a(%a, %sa : memref<*xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%a, %sa : memref<*xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%c : memref<4x4xf32>)
  return
}

// -----

func.func @generic_bad_layout(%a: tensor<4x4xf8E4M3FN>, %sa: tensor<1x1xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{Invalid attribute `b_layout` in property conversion: 1 : i32}}
  %d = "qmm.matmul"(%a, %sa, %a, %sa, %c) <{a_encoding = #qmm.scale<per_tensor>, b_encoding = #qmm.scale<per_tensor>, b_layout = 1 : i32}>
     : (tensor<4x4xf8E4M3FN>, tensor<1x1xf32>, tensor<4x4xf8E4M3FN>, tensor<1x1xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}
