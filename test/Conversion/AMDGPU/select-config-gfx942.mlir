// RUN: fp8-opt %s -split-input-file --qmm-select-config=chip=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: fp8-opt %s -split-input-file --qmm-select-config="chip=gfx942 override=\"#qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>\"" | FileCheck %s --check-prefix=FORCED

// Expected configurations follow the heuristic documented in Passes.td.

// M, N >= 128: 32x32 MFMA, 128x128 tiles, 2x2 waves. Tile K 128 would take
// 2 x 128 x (128 + 8) = 34816 bytes of LDS, more than half of gfx942's
// 64 KiB, so tile K is halved: 2 x 128 x (64 + 8) = 18432. Double
// buffered that is 36864 bytes, two workgroups 73728 > 65536: stages = 1.
// Split-K: 2 x 2 = 4 workgroups (< 128); 8 K tiles of 64 in ranges of
// 8 / 8 = 1 tile would cut the 128-deep scale blocks, 8 / 4 = 2 tiles
// hold one each: split = 4 (4 x 4 = 16 <= 256 workgroups).
// GFX942-LABEL: func.func @large_blockwise
// GFX942: config #qmm.config<tile = [128, 128, 64], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1, split = 4>
// FORCED-LABEL: func.func @large_blockwise
// FORCED: config #qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
func.func @large_blockwise(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                           %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                           %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}

// -----

// Small M and N: 16x16 MFMA, tiles the next power of two (64 x 64). One
// workgroup; 2 K tiles of 128: split = 2 (the most that divides them).
// GFX942-LABEL: func.func @small_per_tensor
// GFX942: config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
func.func @small_per_tensor(%a: tensor<40x256xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                            %b: tensor<48x256xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                            %d: tensor<40x48xf32>) -> tensor<40x48xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<40x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<48x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<40x48xf32>) -> tensor<40x48xf32>
  return %0 : tensor<40x48xf32>
}

// -----

// K smaller than 128: tile K is K rounded up to the MFMA's K (32 on gfx942).
// GFX942-LABEL: func.func @short_k
// GFX942: config #qmm.config<tile = [16, 32, 64], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 1>
func.func @short_k(%a: tensor<1x64xf8E5M2FNUZ>, %as: tensor<1x1xf32>,
                   %b: tensor<32x64xf8E4M3FNUZ>, %bs: tensor<32x1xf32>,
                   %d: tensor<1x32xf16>) -> tensor<1x32xf16> {
  %0 = qmm.matmul a(%a, %as : tensor<1x64xf8E5M2FNUZ>, tensor<1x1xf32>) #qmm.scale<per_row>
                  b(%b, %bs : tensor<32x64xf8E4M3FNUZ>, tensor<32x1xf32>) #qmm.scale<per_row>
                  outs(%d : tensor<1x32xf16>) -> tensor<1x32xf16>
  return %0 : tensor<1x32xf16>
}

// -----

// A configuration written on the op is kept (and checked).
// GFX942-LABEL: func.func @user_config
// GFX942: config #qmm.config<tile = [64, 32, 32], waves = [2, 1], mfma = fp8 [32, 32, 16], stages = 1>
func.func @user_config(%a: tensor<64x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                       %b: tensor<32x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                       %d: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [64, 32, 32], waves = [2, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%d : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// MXFP8 legalized for gfx942 (FNUZ data, f32 scales of 32-wide K blocks):
// tile K halves from 128 to the scale block, 32. Double buffered the tiles
// take 2 x 2 x 128 x (32 + 8) = 20480 bytes, two workgroups 40960 <= 65536,
// and K = 512 is 16 tiles: stages = 2.
// GFX942-LABEL: func.func @legalized_mxfp8
// GFX942: config #qmm.config<tile = [128, 128, 32], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 2, split = 8>
func.func @legalized_mxfp8(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x16xf32>,
                           %b: tensor<256x512xf8E5M2FNUZ>, %bs: tensor<256x16xf32>,
                           %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x16xf32>) #qmm.scale<block 1x32>
                  b(%b, %bs : tensor<256x512xf8E5M2FNUZ>, tensor<256x16xf32>) #qmm.scale<block 1x32>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}

// -----

// MXFP4 legalized for gfx942 (FP4 data kept, f32 scales of 32-wide
// blocks): the fp8 forms after an in-register conversion, tile K 32.
// The FP4 tile rows are 16 bytes (plus padding), the FP8 ones 32 + 8: two
// workgroups' double-buffered tiles stay far below 64 KiB: stages = 2.
// GFX942-LABEL: func.func @legalized_mxfp4
// GFX942: config #qmm.config<tile = [128, 128, 32], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 2, split = 8>
func.func @legalized_mxfp4(%a: tensor<256x512xf4E2M1FN>, %as: tensor<256x16xf32>,
                           %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<256x16xf32>,
                           %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf4E2M1FN>, tensor<256x16xf32>) #qmm.scale<block 1x32>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<256x16xf32>) #qmm.scale<block 1x32>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
