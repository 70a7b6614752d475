// A split-K GEMM (2 ranges of 2 K tiles) for split-k-relaunch.test.
func.func @gemm(%a: tensor<32x512xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                %b: tensor<64x512xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                %d: tensor<32x64xbf16>) -> tensor<32x64xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<32x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<64x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
                  outs(%d : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  return %0 : tensor<32x64xbf16>
}
