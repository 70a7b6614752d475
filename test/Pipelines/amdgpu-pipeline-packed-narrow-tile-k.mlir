// A forced config whose K tile is narrower than a 16-byte copy chunk of
// packed FP4 rows (16 values = 8 bytes) is refused by the config check,
// with the reason, on both chips (qmm-tile-matmul divided by zero chunks
// per row before: SIGFPE).
// RUN: not fp8-opt %s -split-input-file --qmm-to-amdgpu-pipeline="chip=gfx942 format=isa" 2>&1 | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: not fp8-opt %s -split-input-file --qmm-to-amdgpu-pipeline="chip=gfx950 format=isa" 2>&1 | FileCheck %s --check-prefixes=CHECK,GFX950

// MXFP4 x MXFP8 (gfx942 reads the pair with its fp8 forms; on gfx950 only
// the scaled forms read MX operands).
// GFX942: error: 'qmm.matmul' op config: tile K (16) must be a multiple of 32 for 'f4E2M1FN' operands: their tile rows are copied to LDS in whole 16-byte chunks of 32 values
// GFX950: error: 'qmm.matmul' op config: mfma = fp8 does not read 'f4E2M1FN' x 'f8E4M3FN' with MX scales on gfx950
func.func @f(%a: tensor<16x128xf4E2M1FN>, %sa: tensor<16x4xf8E8M0FNU>,
             %b: tensor<64x128xf8E4M3FN>, %sb: tensor<64x4xf8E8M0FNU>,
             %c: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<16x128xf4E2M1FN>, tensor<16x4xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) #qmm.scale<mx>
                  config #qmm.config<tile = [32, 32, 16], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %0 : tensor<16x64xf16>
}

// -----

// Per-tensor scales: the fp8 forms read FP4 on both chips.
// CHECK: error: 'qmm.matmul' op config: tile K (16) must be a multiple of 32 for 'f4E2M1FN' operands
func.func @g(%a: tensor<16x128xf4E2M1FN>, %sa: tensor<1x1xf32>,
             %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
             %c: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<16x128xf4E2M1FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 16], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%c : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %0 : tensor<16x64xf16>
}
