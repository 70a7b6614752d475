// RUN: fp8-opt %s -split-input-file --qmm-select-config=chip=gfx950 | FileCheck %s --check-prefix=GFX950

// Expected configurations follow the heuristic documented in Passes.td.
// Every case below is double buffered (stages = 2): its K spans at least two
// K tiles, and on gfx950's 160 KiB of LDS two workgroups' double-buffered
// tiles fit even for the largest, 128x128x128 FP8 with at most 16 bytes of
// row padding: 2 x (2 x 2 x 128 x 144) = 147456 <= 163840 bytes.

// OCP data on gfx950: the f8f6f4 forms; M = 1 takes one 16-row MFMA tile.
// 4096 / 128 = 32 workgroups (< 128): split = 8 (32 x 8 = 256 workgroups,
// 32 K tiles in ranges of 4, at least two each for double buffering).
// @decode_ocp_large (512x384x256) has 4 x 3 workgroups, but its 2 K tiles
// cannot give two to each of 2 ranges: no split.
// GFX950-LABEL: func.func @decode_ocp
// GFX950: config #qmm.config<tile = [16, 128, 128], waves = [1, 2], mfma = f8f6f4 [16, 16, 128], stages = 2, split = 8>
// GFX950-LABEL: func.func @decode_ocp_large
// GFX950: config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = f8f6f4 [32, 32, 64], stages = 2>
func.func @decode_ocp(%a: tensor<1x4096xf8E4M3FN>, %as: tensor<1x32xf32>,
                      %b: tensor<4096x4096xf8E4M3FN>, %bs: tensor<32x32xf32>,
                      %d: tensor<1x4096xbf16>) -> tensor<1x4096xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<1x4096xf8E4M3FN>, tensor<1x32xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<4096x4096xf8E4M3FN>, tensor<32x32xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<1x4096xbf16>) -> tensor<1x4096xbf16>
  return %0 : tensor<1x4096xbf16>
}
func.func @decode_ocp_large(%a: tensor<512x256xf8E5M2>, %as: tensor<512x1xf32>,
                            %b: tensor<384x256xf8E4M3FN>, %bs: tensor<1x1xf32>,
                            %d: tensor<512x384xf32>) -> tensor<512x384xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<512x256xf8E5M2>, tensor<512x1xf32>) #qmm.scale<per_row>
                  b(%b, %bs : tensor<384x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<512x384xf32>) -> tensor<512x384xf32>
  return %0 : tensor<512x384xf32>
}


// -----

// FNUZ data on gfx950: no FP8 form reads it, so the fragments are converted
// to bf16 in registers and run on the bf16 MFMAs (16x16x32 / 32x32x16).
// GFX950-LABEL: func.func @fnuz_on_gfx950
// GFX950: config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = bf16 [16, 16, 32], stages = 2>
// GFX950-LABEL: func.func @fnuz_on_gfx950_large
// GFX950: config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = bf16 [32, 32, 16], stages = 2>
func.func @fnuz_on_gfx950(%a: tensor<64x256xf8E4M3FNUZ>, %as: tensor<64x2xf32>,
                          %b: tensor<64x256xf8E5M2FNUZ>, %bs: tensor<1x2xf32>,
                          %d: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<64x256xf8E4M3FNUZ>, tensor<64x2xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<64x256xf8E5M2FNUZ>, tensor<1x2xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
func.func @fnuz_on_gfx950_large(%a: tensor<256x256xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                                %b: tensor<256x256xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                                %d: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<256x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<256x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// MX operands on gfx950: the scaled forms, which apply the E8M0 scales
// themselves, so the 32-wide scale blocks do not bound tile K (128).
// Split-K: 4 workgroups, 4 K tiles; double buffering keeps two per range:
// split = 2.
// GFX950-LABEL: func.func @mx_scaled
// GFX950: config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = scaled_f8f6f4 [32, 32, 64], stages = 2, split = 2>
// GFX950-LABEL: func.func @mx_scaled_small
// GFX950: config #qmm.config<tile = [64, 32, 128], waves = [2, 2], mfma = scaled_f8f6f4 [16, 16, 128], stages = 2>
func.func @mx_scaled(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                     %b: tensor<256x512xf8E5M2>, %bs: tensor<256x16xf8E8M0FNU>,
                     %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<256x512xf8E5M2>, tensor<256x16xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
func.func @mx_scaled_small(%a: tensor<40x256xf8E4M3FN>, %as: tensor<40x8xf8E8M0FNU>,
                           %b: tensor<20x256xf8E4M3FN>, %bs: tensor<20x8xf8E8M0FNU>,
                           %d: tensor<40x20xf32>) -> tensor<40x20xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<40x256xf8E4M3FN>, tensor<40x8xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<20x256xf8E4M3FN>, tensor<20x8xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%d : tensor<40x20xf32>) -> tensor<40x20xf32>
  return %0 : tensor<40x20xf32>
}

// -----

// MXFP4 x MXFP6 on gfx950: the scaled forms read FP4/FP6 as they are.
// GFX950-LABEL: func.func @mxfp4_mxfp6
// GFX950: config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = scaled_f8f6f4 [32, 32, 64], stages = 2, split = 2>
func.func @mxfp4_mxfp6(%a: tensor<256x512xf4E2M1FN>, %as: tensor<256x16xf8E8M0FNU>,
                       %b: tensor<256x512xf6E3M2FN>, %bs: tensor<256x16xf8E8M0FNU>,
                       %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf4E2M1FN>, tensor<256x16xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<256x512xf6E3M2FN>, tensor<256x16xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}

// -----

// Scale blocks 48 deep along K: the K tile is gcd(128, 48) = 16, which
// the f8f6f4 forms (64 or 128 K per step) and fp8 16x16x32 cannot step
// through; the selector falls back to fp8 32x32x16. Split-K: one
// workgroup, 12 K tiles; 8 does not divide them, 4 gives ranges of 3 tiles
// (one 48-deep block each, at least two tiles).
// GFX950-LABEL: func.func @k_blocks_of_48
// GFX950: config #qmm.config<tile = [64, 64, 16], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 2, split = 4>
func.func @k_blocks_of_48(%a: tensor<64x192xf8E4M3FN>, %as: tensor<64x4xf32>,
                          %b: tensor<64x192xf8E4M3FN>, %bs: tensor<64x4xf32>,
                          %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<64x192xf8E4M3FN>, tensor<64x4xf32>) #qmm.scale<block 1x48>
                  b(%b, %bs : tensor<64x192xf8E4M3FN>, tensor<64x4xf32>) #qmm.scale<block 1x48>
                  outs(%d : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
