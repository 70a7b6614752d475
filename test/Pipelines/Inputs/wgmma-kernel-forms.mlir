// The wgmma kernel's forms that differ in their control flow around the
// wgmma groups (nvvm-pipeline-ptxas.test): partial tiles (masked
// epilogue), block scales (per-K-tile factors), per-row scales with C,
// bias and GELU, one K tile (no K loop), FP8 outputs (amax shuffles:
// partial tiles with GELU, and MX blocks in E5M2; with bias or per-row
// scales too, the quantizing epilogue spills a few registers, as its
// results wait for their block's amax beside the next tile's fragment).

func.func @per_tensor_partial(%a: tensor<200x384xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<136x384xf8E5M2>, %sb: tensor<1x1xf32>, %c: tensor<200x136xbf16>) -> tensor<200x136xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<200x384xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<136x384xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<200x136xbf16>) -> tensor<200x136xbf16>
  return %0 : tensor<200x136xbf16>
}

func.func @blockwise(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %b: tensor<256x512xf8E4M3FN>, %sb: tensor<2x4xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128> b(%b, %sb : tensor<256x512xf8E4M3FN>, tensor<2x4xf32>) #qmm.scale<block 128x128> outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

func.func @per_row_epilogue(%a: tensor<128x256xf8E4M3FN>, %sa: tensor<128x1xf32>, %b: tensor<128x256xf8E4M3FN>, %sb: tensor<128x1xf32>, %bias: tensor<128xbf16>, %c: tensor<128x128xf16>) -> tensor<128x128xf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<128x256xf8E4M3FN>, tensor<128x1xf32>) #qmm.scale<per_row> b(%b, %sb : tensor<128x256xf8E4M3FN>, tensor<128x1xf32>) #qmm.scale<per_row> accumulate bias(%bias : tensor<128xbf16>) activation gelu_tanh outs(%c : tensor<128x128xf16>) -> tensor<128x128xf16>
  return %0 : tensor<128x128xf16>
}

func.func @one_k_tile(%a: tensor<256x128xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x128xf8E4M3FN>, %sb: tensor<1x1xf32>, %c: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<256x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<256x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}

func.func @fp8_output_partial(%a: tensor<200x384xf8E4M3FN>, %sa: tensor<200x3xf32>, %b: tensor<136x384xf8E4M3FN>, %sb: tensor<2x3xf32>, %c: tensor<200x136xf8E4M3FN>, %s: tensor<200x2xf32>) -> (tensor<200x136xf8E4M3FN>, tensor<200x2xf32>) {
  %0:2 = qmm.matmul a(%a, %sa : tensor<200x384xf8E4M3FN>, tensor<200x3xf32>) #qmm.scale<block 1x128> b(%b, %sb : tensor<136x384xf8E4M3FN>, tensor<2x3xf32>) #qmm.scale<block 128x128> activation gelu_tanh outs(%c : tensor<200x136xf8E4M3FN>) out_scales(%s : tensor<200x2xf32>) #qmm.scale<block 1x128> -> tensor<200x136xf8E4M3FN>, tensor<200x2xf32>
  return %0#0, %0#1 : tensor<200x136xf8E4M3FN>, tensor<200x2xf32>
}

func.func @mx_output(%a: tensor<128x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<1x1xf32>, %c: tensor<128x256xf8E5M2>, %s: tensor<128x8xf8E8M0FNU>) -> (tensor<128x256xf8E5M2>, tensor<128x8xf8E8M0FNU>) {
  %0:2 = qmm.matmul a(%a, %sa : tensor<128x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<256x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<128x256xf8E5M2>) out_scales(%s : tensor<128x8xf8E8M0FNU>) #qmm.scale<mx> -> tensor<128x256xf8E5M2>, tensor<128x8xf8E8M0FNU>
  return %0#0, %0#1 : tensor<128x256xf8E5M2>, tensor<128x8xf8E8M0FNU>
}
