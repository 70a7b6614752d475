// RUN: fp8-opt %s -split-input-file --qmm-select-config=chip=gfx942 | FileCheck %s

// An FP8 output's blocks must not be split between waves. 1x128 scales on
// a 256 x 256 output: the 2 x 2 waves of a 128-wide tile would hold 64
// columns each, so all 4 waves go along M (128 / 4 = 32 rows each) and a
// wave holds the block's 128 columns. (Split-K, as for any small grid of
// select-config-gfx942.mlir's @large_blockwise: 4 ranges of 2 K tiles.)
// CHECK-LABEL: func.func @per_token_128
// CHECK: config #qmm.config<tile = [128, 128, 64], waves = [4, 1], mfma = fp8 [32, 32, 16], stages = 1, split = 4>
func.func @per_token_128(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                         %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                         %d: tensor<256x256xf8E4M3FNUZ>, %s: tensor<256x2xf32>)
    -> (tensor<256x256xf8E4M3FNUZ>, tensor<256x2xf32>) {
  %0:2 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                    b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                    outs(%d : tensor<256x256xf8E4M3FNUZ>) out_scales(%s : tensor<256x2xf32>) #qmm.scale<block 1x128>
                    -> tensor<256x256xf8E4M3FNUZ>, tensor<256x2xf32>
  return %0#0, %0#1 : tensor<256x256xf8E4M3FNUZ>, tensor<256x2xf32>
}

// -----

// 32-column blocks fit the 64-column sub-tiles of 2 x 2 waves: the usual
// configuration.
// CHECK-LABEL: func.func @per_token_32
// CHECK: config #qmm.config<tile = [128, 128, 64], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1, split = 4>
func.func @per_token_32(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                        %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                        %d: tensor<256x256xf8E4M3FNUZ>, %s: tensor<256x8xf32>)
    -> (tensor<256x256xf8E4M3FNUZ>, tensor<256x8xf32>) {
  %0:2 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                    b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                    outs(%d : tensor<256x256xf8E4M3FNUZ>) out_scales(%s : tensor<256x8xf32>) #qmm.scale<block 1x32>
                    -> tensor<256x256xf8E4M3FNUZ>, tensor<256x8xf32>
  return %0#0, %0#1 : tensor<256x256xf8E4M3FNUZ>, tensor<256x8xf32>
}

// -----

// N = 48 < 128: one 64-wide tile holds the whole row, split between two
// waves by default; with one wave along N its (partial) block stays whole.
// CHECK-LABEL: func.func @narrow
// CHECK: config #qmm.config<tile = [64, 64, 128], waves = [4, 1], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
func.func @narrow(%a: tensor<40x256xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                  %b: tensor<48x256xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                  %d: tensor<40x48xf8E4M3FNUZ>, %s: tensor<40x1xf32>)
    -> (tensor<40x48xf8E4M3FNUZ>, tensor<40x1xf32>) {
  %0:2 = qmm.matmul a(%a, %as : tensor<40x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %bs : tensor<48x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%d : tensor<40x48xf8E4M3FNUZ>) out_scales(%s : tensor<40x1xf32>) #qmm.scale<block 1x128>
                    -> tensor<40x48xf8E4M3FNUZ>, tensor<40x1xf32>
  return %0#0, %0#1 : tensor<40x48xf8E4M3FNUZ>, tensor<40x1xf32>
}
