// RUN: fp8-opt %s -split-input-file -verify-diagnostics
//
// Static extents that must agree are checked even when the operand that
// usually fixes the dimension (A for M and K, B for N) is dynamic there.

// M is dynamic in A; init says M = 70, so 64 per-row scales are wrong.
func.func @scale_rows_vs_init_m(%a: tensor<?x128xf8E4M3FN>, %sa: tensor<64x1xf32>,
                                %b: tensor<32x128xf8E4M3FN>, %sb: tensor<32x1xf32>,
                                %c: tensor<70x32xf32>) -> tensor<70x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op A scales must have shape [70, 1] for #qmm.scale<per_row> with rows = [70] and K = [128], got [64, 1]}}
  %d = qmm.matmul a(%a, %sa : tensor<?x128xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row>
                  outs(%c : tensor<70x32xf32>) -> tensor<70x32xf32>
  return %d : tensor<70x32xf32>
}

// -----

// N is dynamic in B and in init; the bias says 33, B's scales say 32.
func.func @bias_vs_b_scales(%a: tensor<16x128xf8E4M3FN>, %sa: tensor<16x1xf32>,
                            %b: tensor<?x128xf8E4M3FN>, %sb: tensor<32x1xf32>,
                            %c: tensor<16x?xf32>, %bias: tensor<33xf32>) -> tensor<16x?xf32> {
  // expected-error @+1 {{'qmm.matmul' op B scales must have shape [33, 1] for #qmm.scale<per_row> with rows = [33] and K = [128], got [32, 1]}}
  %d = qmm.matmul a(%a, %sa : tensor<16x128xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<?x128xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row>
                  bias(%bias : tensor<33xf32>)
                  outs(%c : tensor<16x?xf32>) -> tensor<16x?xf32>
  return %d : tensor<16x?xf32>
}

// -----

// A bias of 33 against init's static N of 32, with B dynamic.
func.func @bias_vs_init_n(%a: tensor<16x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                          %b: tensor<?x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                          %c: tensor<16x32xf32>, %bias: tensor<33xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op bias must have shape [N] = [32], got [33]}}
  %d = qmm.matmul a(%a, %sa : tensor<16x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<?x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  bias(%bias : tensor<33xf32>)
                  outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}

// -----

// K is dynamic in A; B fixes K = 256, so A's 1x128 scales need 2 columns.
func.func @a_scales_vs_b_k(%a: tensor<16x?xf8E4M3FN>, %sa: tensor<16x3xf32>,
                           %b: tensor<32x256xf8E4M3FN>, %sb: tensor<1x2xf32>,
                           %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op A scales must have shape [16, 2] for #qmm.scale<block 1x128> with rows = [16] and K = [256], got [16, 3]}}
  %d = qmm.matmul a(%a, %sa : tensor<16x?xf8E4M3FN>, tensor<16x3xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<32x256xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}

// -----

// MX with K dynamic in A: B's K (48) is not a multiple of 32.
func.func @mx_k_from_b(%a: tensor<16x?xf8E4M3FN>, %sa: tensor<16x?xf8E8M0FNU>,
                       %b: tensor<32x48xf8E4M3FN>, %sb: tensor<32x?xf8E8M0FNU>,
                       %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'qmm.matmul' op K (48) of A must be a multiple of 32 for #qmm.scale<mx>}}
  %d = qmm.matmul a(%a, %sa : tensor<16x?xf8E4M3FN>, tensor<16x?xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %sb : tensor<32x48xf8E4M3FN>, tensor<32x?xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}

// -----

// An FP8 output whose N is dynamic in init and B but static in the bias.
func.func @out_scales_vs_bias(%a: tensor<16x128xf8E4M3FN>, %sa: tensor<1x1xf32>,
                              %b: tensor<?x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                              %c: tensor<16x?xf8E4M3FN>, %s: tensor<16x1xf32>,
                              %bias: tensor<256xf32>) -> tensor<16x?xf8E4M3FN> {
  // expected-error @+1 {{'qmm.matmul' op output scales must have shape [16, 2] for #qmm.scale<block 1x128> with rows = [16] and K = [256], got [16, 1]}}
  %d = qmm.matmul a(%a, %sa : tensor<16x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<?x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  bias(%bias : tensor<256xf32>)
                  outs(%c : tensor<16x?xf8E4M3FN>) out_scales(%s : tensor<16x1xf32>) #qmm.scale<block 1x128>
                  -> tensor<16x?xf8E4M3FN>
  return %d : tensor<16x?xf8E4M3FN>
}

// -----

// Grouped, contiguous: A's M is dynamic; groups fix M = 256.
func.func @grouped_scale_rows_vs_groups(%a: tensor<?x128xf8E4M3FN>, %sa: tensor<128x1xf32>,
                                        %b: tensor<2x64x128xf8E4M3FN>, %sb: tensor<2x1x1xf32>,
                                        %g: tensor<256xi32>, %d: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{'qmm.grouped_matmul' op A scales must have shape [256, 1] for #qmm.scale<block 1x128>, got [128, 1]}}
  %0 = qmm.grouped_matmul contiguous
         a(%a, %sa : tensor<?x128xf8E4M3FN>, tensor<128x1xf32>) #qmm.scale<block 1x128>
         b(%b, %sb : tensor<2x64x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<block 128x128>
         groups(%g : tensor<256xi32>)
         outs(%d : tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %0 : tensor<?x64xbf16>
}

// -----

// Grouped, masked: B's G is dynamic; A says G = 3, the counts say 4.
func.func @grouped_g_vs_counts(%a: tensor<3x64x128xf8E4M3FN>, %sa: tensor<3x64x1xf32>,
                               %b: tensor<?x64x128xf8E4M3FN>, %sb: tensor<?x1x1xf32>,
                               %n: tensor<4xi32>, %d: tensor<?x64x64xbf16>) -> tensor<?x64x64xbf16> {
  // expected-error @+1 {{'qmm.grouped_matmul' op groups must be an i32 vector of G = [3] valid-row counts, got 'tensor<4xi32>'}}
  %0 = qmm.grouped_matmul masked
         a(%a, %sa : tensor<3x64x128xf8E4M3FN>, tensor<3x64x1xf32>) #qmm.scale<block 1x128>
         b(%b, %sb : tensor<?x64x128xf8E4M3FN>, tensor<?x1x1xf32>) #qmm.scale<block 128x128>
         groups(%n : tensor<4xi32>)
         outs(%d : tensor<?x64x64xbf16>) -> tensor<?x64x64xbf16>
  return %0 : tensor<?x64x64xbf16>
}

// -----

// Quantize: the quantized data is dynamic, the input fixes the rows.
func.func @quantize_scales_vs_input(%x: tensor<70x256xbf16>, %q0: tensor<?x256xf8E4M3FN>,
                                    %s0: tensor<64x2xf32>) -> (tensor<?x256xf8E4M3FN>, tensor<64x2xf32>) {
  // expected-error @+1 {{'qmm.quantize' op quantized scales must have shape [70, 2] for #qmm.scale<block 1x128> with rows = [70] and K = [256], got [64, 2]}}
  %q, %s = qmm.quantize %x : tensor<70x256xbf16> encoding #qmm.scale<block 1x128>
             outs(%q0, %s0 : tensor<?x256xf8E4M3FN>, tensor<64x2xf32>)
             -> tensor<?x256xf8E4M3FN>, tensor<64x2xf32>
  return %q, %s : tensor<?x256xf8E4M3FN>, tensor<64x2xf32>
}

// -----

// Dequantize: the data is dynamic, the destination fixes K.
func.func @dequantize_scales_vs_init(%q: tensor<16x?xf8E4M3FN>, %s: tensor<16x1xf32>,
                                     %d0: tensor<16x256xf32>) -> tensor<16x256xf32> {
  // expected-error @+1 {{'qmm.dequantize' op quantized scales must have shape [16, 2] for #qmm.scale<block 1x128> with rows = [16] and K = [256], got [16, 1]}}
  %d = qmm.dequantize %q, %s : tensor<16x?xf8E4M3FN>, tensor<16x1xf32> encoding #qmm.scale<block 1x128>
         outs(%d0 : tensor<16x256xf32>) -> tensor<16x256xf32>
  return %d : tensor<16x256xf32>
}
