// A blockwise-scaled FP8 GEMM in the DeepSeek-V3 / DeepGEMM recipe:
//   D[M, N] = A[M, K] · B[N, K]^T, bf16 output,
//   A (activations) with one f32 scale per 1x128 block (per token, per 128 K),
//   B (weights, stored [N, K]) with one f32 scale per 128x128 block.
// M = 256, N = 1024, K = 512: A scales [256, 4], B scales [8, 4].
//
// The activations arrive in bf16 and are quantized by qmm.quantize; the
// weights are already quantized.

func.func @blockwise_fp8_matmul(%x: tensor<256x512xbf16>,
                                %w: tensor<1024x512xf8E4M3FN>,
                                %w_scales: tensor<8x4xf32>) -> tensor<256x1024xbf16> {
  %q0 = tensor.empty() : tensor<256x512xf8E4M3FN>
  %s0 = tensor.empty() : tensor<256x4xf32>
  %a, %a_scales = qmm.quantize %x : tensor<256x512xbf16>
      encoding #qmm.scale<block 1x128>
      outs(%q0, %s0 : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>)
      -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>

  %init = tensor.empty() : tensor<256x1024xbf16>
  %d = qmm.matmul
      a(%a, %a_scales : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
      b(%w, %w_scales : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
      outs(%init : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
