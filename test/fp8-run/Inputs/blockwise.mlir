// A user's GEMM: OCP FP8 blockwise, B stored [K, N], f32 output with C.
func.func @my_gemm(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>,
                   %b: tensor<256x96xf8E4M3FN>, %sb: tensor<1x2xf32>,
                   %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<256x96xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128> layout kn
                  accumulate outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %d : tensor<64x96xf32>
}
