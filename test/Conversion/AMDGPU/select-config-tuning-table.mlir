// RUN: fp8-opt %s -split-input-file --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table.json" | FileCheck %s --check-prefix=GFX942
// RUN: fp8-opt %s -split-input-file --qmm-select-config="chip=gfx950 tuning-table=%S/Inputs/tuning-table.json" | FileCheck %s --check-prefix=GFX950
// The table also reaches the selector through the pipeline.
// RUN: fp8-opt %s -split-input-file --qmm-to-amdgpu-pipeline="chip=gfx942 format=gpu tuning-table=%S/Inputs/tuning-table.json" | FileCheck %s --check-prefix=PIPELINE

// Inputs/tuning-table.json has one gfx942 and one gfx950 entry for
// f8E4M3FNUZ x f8E4M3FNUZ, block 1x128 x 128x128 scales, bf16 output and
// the bucket M 256, N 256, K 512; its configs differ from the heuristic's
// (see select-config-gfx942/950.mlir), so taking them shows.

// The key matches exactly: the table's config on each chip.
// GFX942-LABEL: func.func @in_table
// GFX942: config #qmm.config<tile = [64, 128, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
// GFX950-LABEL: func.func @in_table
// GFX950: config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = bf16 [16, 16, 32], stages = 1>
// 64x128 tiles: a grid of 256 / 128 = 2 (N) x 256 / 64 = 4 (M)
// workgroups of 2 x 2 waves (256 threads).
// PIPELINE-LABEL: func.func @in_table
// PIPELINE: gpu.launch_func @in_table_kernel::@in_table_kernel blocks in (%c2, %c4, %c1) threads in (%c256, %c1, %c1)
func.func @in_table(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                    %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                    %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}

// -----

// Extents are bucketed by rounding up to a power of two: M 200 -> 256,
// N 160 -> 256, K 384 -> 512 is the same key.
// GFX942-LABEL: func.func @same_bucket
// GFX942: config #qmm.config<tile = [64, 128, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
// 160 / 128 -> 2 x 200 / 64 -> 4 workgroups (the heuristic's 128x128
// tiles would launch 2 x 2).
// PIPELINE-LABEL: func.func @same_bucket
// PIPELINE: gpu.launch_func @same_bucket_kernel::@same_bucket_kernel blocks in (%c2, %c4, %c1) threads in (%c256, %c1, %c1)
func.func @same_bucket(%a: tensor<200x384xf8E4M3FNUZ>, %as: tensor<200x3xf32>,
                       %b: tensor<160x384xf8E4M3FNUZ>, %bs: tensor<2x3xf32>,
                       %d: tensor<200x160xbf16>) -> tensor<200x160xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<200x384xf8E4M3FNUZ>, tensor<200x3xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<160x384xf8E4M3FNUZ>, tensor<2x3xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<200x160xbf16>) -> tensor<200x160xbf16>
  return %0 : tensor<200x160xbf16>
}

// -----

// A different bucket (M 512) or output type (f32) has no entry of its own:
// the entry of the nearest shape with the same chip, operand types and
// scales (here the only one, one power of two away in M; output types
// differ only in the epilogue) decides. Other scales (per-row instead of
// blockwise) are not near: the rule's choice (select-config-gfx942.mlir's
// @large_blockwise for the same shape).
// GFX942-LABEL: func.func @other_bucket
// GFX942: config #qmm.config<tile = [64, 128, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
// GFX942-LABEL: func.func @other_output
// GFX942: config #qmm.config<tile = [64, 128, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
// GFX942-LABEL: func.func @other_scales
// GFX942: config #qmm.config<tile = [128, 128, 64], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1, split = 8>
func.func @other_bucket(%a: tensor<512x512xf8E4M3FNUZ>, %as: tensor<512x4xf32>,
                        %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                        %d: tensor<512x256xbf16>) -> tensor<512x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<512x512xf8E4M3FNUZ>, tensor<512x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<512x256xbf16>) -> tensor<512x256xbf16>
  return %0 : tensor<512x256xbf16>
}
func.func @other_output(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                        %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                        %d: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
func.func @other_scales(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x1xf32>,
                        %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<256x1xf32>,
                        %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x1xf32>) #qmm.scale<per_row>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<256x1xf32>) #qmm.scale<per_row>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
