// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-select-config=chip=gfx942

// A forced config's K tile must hold whole 16-byte copy chunks of packed
// rows: 16 FP4 values are 8 bytes, no chunk at all (the LDS copy mapping
// divided by zero chunks per row).
func.func @fp4_a_tile_k_16(%a: tensor<16x128xf4E2M1FN>, %sa: tensor<1x1xf32>,
                           %b: tensor<64x128xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                           %c: tensor<16x64xf16>) -> tensor<16x64xf16> {
  // expected-error @+1 {{config: tile K (16) must be a multiple of 32 for 'f4E2M1FN' operands: their tile rows are copied to LDS in whole 16-byte chunks of 32 values}}
  %0 = qmm.matmul a(%a, %sa : tensor<16x128xf4E2M1FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 16], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %0 : tensor<16x64xf16>
}

// -----

// FP6 rows go in 24-byte chunks (32 values): 16 values are 12 bytes.
func.func @fp6_b_tile_k_16(%a: tensor<32x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                           %b: tensor<32x128xf6E3M2FN>, %sb: tensor<1x1xf32>,
                           %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{config: tile K (16) must be a multiple of 32 for 'f6E3M2FN' operands: their tile rows are copied to LDS in whole 24-byte chunks of 32 values}}
  %0 = qmm.matmul a(%a, %sa : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf6E3M2FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 16], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

// 48 FP6 values are 36 bytes: one 24-byte chunk and half of another (the
// copy would have moved the first only).
func.func @fp6_a_tile_k_48(%a: tensor<32x96xf6E2M3FN>, %sa: tensor<1x1xf32>,
                           %b: tensor<32x96xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                           %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{config: tile K (48) must be a multiple of 32 for 'f6E2M3FN' operands}}
  %0 = qmm.matmul a(%a, %sa : tensor<32x96xf6E2M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x96xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 48], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

// 48 FP4 values are 24 bytes: a chunk and a half.
func.func @fp4_b_tile_k_48(%a: tensor<32x96xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                           %b: tensor<32x96xf4E2M1FN>, %sb: tensor<1x1xf32>,
                           %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{config: tile K (48) must be a multiple of 32 for 'f4E2M1FN' operands}}
  %0 = qmm.matmul a(%a, %sa : tensor<32x96xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x96xf4E2M1FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 48], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

// 2^62 rows: the LDS footprint's product (a padded 32-byte row x 2^62)
// wraps around to 0 in 64 bits and looked like a fit.
func.func @tile_m_beyond_lds(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                             %b: tensor<32x128xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                             %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{config: tile [4611686018427387904, 32, 16] cannot fit in the 65536 bytes of LDS of gfx942}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [4611686018427387904, 32, 16], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// A K tile of 2^61 values: row bytes times rows overflow likewise.
func.func @tile_k_beyond_lds(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                             %b: tensor<32x128xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                             %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{config: tile [32, 32, 2305843009213693952] cannot fit in the 65536 bytes of LDS of gfx942}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 2305843009213693952], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}
