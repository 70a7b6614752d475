// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-select-config=chip=gfx950

// Direct copies move whole 16-byte loads of 8-bit or packed 4-bit values:
// FP6 rows (96 bytes at tile K 128) are not copied that way.
func.func @direct_fp6(%a: tensor<64x256xf6E2M3FN>, %sa: tensor<1x1xf32>,
                      %b: tensor<64x256xf6E2M3FN>, %sb: tensor<1x1xf32>,
                      %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{config: lds_copy = direct copies 8-bit and packed 4-bit operands only, got 'f6E2M3FN'}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x256xf6E2M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x256xf6E2M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = f8f6f4 [32, 32, 64], stages = 2, lds_copy = direct>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Packed FP4 rows of tile K 192 are 96 bytes: six 16-byte loads, but a
// wave's 1 KiB does not hold whole rows of them.
func.func @direct_fp4_rows_not_dividing_a_wave(%a: tensor<64x384xf4E2M1FN>, %sa: tensor<1x1xf32>,
                                               %b: tensor<64x384xf4E2M1FN>, %sb: tensor<1x1xf32>,
                                               %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{config: lds_copy = direct needs the 96-byte tile rows of 'f4E2M1FN' to divide 1024 (one wave's direct loads fill whole rows)}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x384xf4E2M1FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x384xf4E2M1FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 64, 192], waves = [1, 1], mfma = f8f6f4 [32, 32, 64], stages = 1, lds_copy = direct>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// A wave's 64 loads fill 1 KiB: 48-byte rows (tile K 48) do not divide it.
func.func @direct_tile_k_48(%a: tensor<64x192xf8E4M3FN>, %sa: tensor<1x1xf32>,
                            %b: tensor<64x192xf8E4M3FN>, %sb: tensor<1x1xf32>,
                            %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{config: lds_copy = direct needs the 48-byte tile rows of 'f8E4M3FN' to divide 1024 (one wave's direct loads fill whole rows)}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x192xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x192xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 64, 48], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1, lds_copy = direct>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// 16 rows x 8 chunks = 128 chunks for 256 threads: not every thread has one.
func.func @direct_partial_round(%a: tensor<16x256xf8E4M3FN>, %sa: tensor<1x1xf32>,
                                %b: tensor<64x256xf8E4M3FN>, %sb: tensor<1x1xf32>,
                                %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{config: lds_copy = direct needs each tile's 16-byte chunks (16 x 8) to be a multiple of the 256 threads}}
  %0 = qmm.matmul a(%a, %sa : tensor<16x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [16, 64, 128], waves = [1, 4], mfma = f8f6f4 [16, 16, 128], stages = 1, lds_copy = direct>
                  outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// K = 200 has a tail that a direct load cannot pad with zeros.
func.func @direct_k_tail(%a: tensor<64x200xf8E4M3FN>, %sa: tensor<1x1xf32>,
                         %b: tensor<64x200xf8E4M3FN>, %sb: tensor<1x1xf32>,
                         %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{config: lds_copy = direct needs K (200) to be a multiple of tile K (64)}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x200xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x200xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 64, 64], waves = [2, 2], mfma = f8f6f4 [32, 32, 64], stages = 1, lds_copy = direct>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// An unknown copy kind.
func.func @bad_copy_kind(%a: tensor<64x256xf8E4M3FN>) {
  // expected-error @+1 {{expected lds_copy = registers or direct, got 'dma'}}
  %x = arith.constant {c = #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = f8f6f4 [32, 32, 64], stages = 2, lds_copy = dma>} 0 : index
  return
}
