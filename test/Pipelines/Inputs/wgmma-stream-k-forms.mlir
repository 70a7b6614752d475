// Stream-K forms of the wgmma kernel (nvvm-pipeline-ptxas.test, with
// max-blocks=4: 6 tiles of 32 K tiles, the last 2 split in 2 parts):
// per-tensor scales, and per-row scales with C, bias and GELU (whose
// epilogue after the reduction reloads a few spilled values).

func.func @per_tensor_split(%a: tensor<384x4096xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x4096xf8E4M3FN>, %sb: tensor<1x1xf32>, %c: tensor<384x256xbf16>) -> tensor<384x256xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<384x4096xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<256x4096xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<384x256xbf16>) -> tensor<384x256xbf16>
  return %0 : tensor<384x256xbf16>
}

func.func @per_row_epilogue_split(%a: tensor<384x4096xf8E4M3FN>, %sa: tensor<384x1xf32>, %b: tensor<256x4096xf8E4M3FN>, %sb: tensor<256x1xf32>, %bias: tensor<256xbf16>, %c: tensor<384x256xf32>) -> tensor<384x256xf32> {
  %0 = qmm.matmul a(%a, %sa : tensor<384x4096xf8E4M3FN>, tensor<384x1xf32>) #qmm.scale<per_row> b(%b, %sb : tensor<256x4096xf8E4M3FN>, tensor<256x1xf32>) #qmm.scale<per_row> accumulate bias(%bias : tensor<256xbf16>) activation gelu_tanh outs(%c : tensor<384x256xf32>) -> tensor<384x256xf32>
  return %0 : tensor<384x256xf32>
}
