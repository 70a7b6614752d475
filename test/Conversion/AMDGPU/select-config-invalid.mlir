// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-select-config=chip=gfx942

// gfx942 has no f8f6f4 instructions.
func.func @no_such_mfma(%a: tensor<64x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                        %b: tensor<32x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                        %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{config: gfx942 has no f8f6f4 MFMA 16x16x128}}
  %0 = qmm.matmul a(%a, %as : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 32, 128], waves = [2, 1], mfma = f8f6f4 [16, 16, 128], stages = 1>
                  outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// (256 + 256) rows x (256 + 8) bytes = 135168 bytes > 64 KiB.
func.func @lds_overflow(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                        %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                        %d: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{config: the tiles take 135168 bytes of LDS; gfx942 has 65536}}
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [256, 256, 256], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%d : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// OCP data reaches gfx942's matrix cores only after qmm-legalize-for-chip.
func.func @not_legalized(%a: tensor<64x128xf8E4M3FN>, %as: tensor<1x1xf32>,
                         %b: tensor<32x128xf8E4M3FN>, %bs: tensor<1x1xf32>,
                         %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{qmm-select-config: no configuration on gfx942 reads 'f8E4M3FN' x 'f8E4M3FN'}}
  %0 = qmm.matmul a(%a, %as : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// The bf16 forms (for FNUZ data on gfx950) are not gfx942's.
func.func @bf16_on_gfx942(%a: tensor<64x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                                %b: tensor<32x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                                %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{config: gfx942 has no bf16 MFMA 16x16x32}}
  %0 = qmm.matmul a(%a, %as : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 32, 32], waves = [2, 1], mfma = bf16 [16, 16, 32], stages = 1>
                  outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// gfx942 has no scaled MFMA.
func.func @scaled_on_gfx942(%a: tensor<64x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                                  %b: tensor<32x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                                  %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{config: gfx942 has no scaled_f8f6f4 MFMA 16x16x128}}
  %0 = qmm.matmul a(%a, %as : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 32, 128], waves = [2, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
                  outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// A contiguous grouped matmul's tiles must not straddle two groups.
func.func @grouped_tile_m(%a: tensor<256x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                          %b: tensor<2x64x128xf8E4M3FNUZ>, %bs: tensor<2x1x1xf32>,
                          %g: tensor<256xi32>, %d: tensor<256x64xf32>) -> tensor<256x64xf32> {
  // expected-error @+1 {{config: tile M (96) must divide the M alignment of contiguous groups (128)}}
  %0 = qmm.grouped_matmul contiguous a(%a, %as : tensor<256x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
         b(%b, %bs : tensor<2x64x128xf8E4M3FNUZ>, tensor<2x1x1xf32>) #qmm.scale<per_tensor>
         groups(%g : tensor<256xi32>)
         config #qmm.config<tile = [96, 64, 128], waves = [1, 2], mfma = fp8 [32, 32, 16], stages = 1>
         outs(%d : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}

// -----

// A forced configuration that splits an FP8 output's 128-column blocks
// between two waves.
func.func @fp8_output_blocks_split(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                                   %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                                   %d: tensor<256x256xf8E4M3FNUZ>, %s: tensor<256x2xf32>)
    -> (tensor<256x256xf8E4M3FNUZ>, tensor<256x2xf32>) {
  // expected-error @+1 {{config: the FP8 output's blocks of 128 columns must lie within one wave's sub-tile (64 columns), starting at a multiple of the block; use waves = [W, 1] or a tile N that is a multiple of the block}}
  %0:2 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                    b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                    config #qmm.config<tile = [128, 128, 64], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
                    outs(%d : tensor<256x256xf8E4M3FNUZ>) out_scales(%s : tensor<256x2xf32>) #qmm.scale<block 1x128>
                    -> tensor<256x256xf8E4M3FNUZ>, tensor<256x2xf32>
  return %0#0, %0#1 : tensor<256x256xf8E4M3FNUZ>, tensor<256x2xf32>
}

// -----

// Scale blocks 8 deep along K: no K tile of whole 16-byte rows fits one.
func.func @k_blocks_too_narrow(%a: tensor<64x64xf8E4M3FNUZ>, %as: tensor<64x8xf32>,
                               %b: tensor<64x64xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                               %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{qmm-select-config: scale blocks of 8 along K are not a multiple of 16: no K tile of the AMD pipeline fits inside one}}
  %0 = qmm.matmul a(%a, %as : tensor<64x64xf8E4M3FNUZ>, tensor<64x8xf32>) #qmm.scale<block 1x8>
                  b(%b, %bs : tensor<64x64xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// gfx942 loads 4 bytes per lane straight into LDS: a wave's 64 loads fill
// 256 bytes, less than one 512-byte row of a 512-deep FP8 tile.
func.func @direct_row_wider_than_a_wave(%a: tensor<64x1024xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                                        %b: tensor<64x1024xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                                        %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{config: lds_copy = direct needs the 512-byte tile rows of 'f8E4M3FNUZ' to divide 256 (one wave's direct loads fill whole rows)}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x1024xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x1024xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 64, 512], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1, lds_copy = direct>
                  outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
