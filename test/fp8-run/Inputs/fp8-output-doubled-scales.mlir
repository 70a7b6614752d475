// A kernel whose scales are twice what the rule gives: fp8-run's exact tier
// must fail it.
func.func @doubled_scales(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>,
                          %b: tensor<96x256xf8E4M3FN>, %sb: tensor<1x2xf32>,
                          %d: tensor<64x96xf8E4M3FN>, %s: tensor<64x1xf32>)
    -> (tensor<64x96xf8E4M3FN>, tensor<64x1xf32>) {
  %r:2 = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128>
                    b(%b, %sb : tensor<96x256xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128>
                    outs(%d : tensor<64x96xf8E4M3FN>) out_scales(%s : tensor<64x1xf32>) #qmm.scale<block 1x128>
                    -> tensor<64x96xf8E4M3FN>, tensor<64x1xf32>
  %empty = tensor.empty() : tensor<64x1xf32>
  %doubled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
      ins(%r#1 : tensor<64x1xf32>) outs(%empty : tensor<64x1xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64x1xf32>
  return %r#0, %doubled : tensor<64x96xf8E4M3FN>, tensor<64x1xf32>
}
