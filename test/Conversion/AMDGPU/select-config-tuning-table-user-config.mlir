// RUN: fp8-opt %s --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table.json" | FileCheck %s --check-prefix=GFX942

// The matmul's key has an entry in Inputs/tuning-table.json (tile
// [64, 128, 128]), but its own config is kept.
// GFX942-LABEL: func.func @user_config
// GFX942: config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
func.func @user_config(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                       %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                       %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                  config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
