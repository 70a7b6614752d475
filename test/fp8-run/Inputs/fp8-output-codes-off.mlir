// A kernel whose codes are one e4m3 step too large (x 1.125): fp8-run's exact tier
// must fail it.
func.func @codes_off_by_one_step(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>,
                          %b: tensor<96x256xf8E4M3FN>, %sb: tensor<1x2xf32>,
                          %d: tensor<64x96xf8E4M3FN>, %s: tensor<64x1xf32>)
    -> (tensor<64x96xf8E4M3FN>, tensor<64x1xf32>) {
  %r:2 = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128>
                    b(%b, %sb : tensor<96x256xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128>
                    outs(%d : tensor<64x96xf8E4M3FN>) out_scales(%s : tensor<64x1xf32>) #qmm.scale<block 1x128>
                    -> tensor<64x96xf8E4M3FN>, tensor<64x1xf32>
  %empty = tensor.empty() : tensor<64x96xf8E4M3FN>
  %bumped = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%r#0 : tensor<64x96xf8E4M3FN>) outs(%empty : tensor<64x96xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %o: f8E4M3FN):
    %wide = arith.extf %x : f8E4M3FN to f32
    %factor = arith.constant 1.125 : f32
    %y = arith.mulf %wide, %factor : f32
    %narrow = arith.truncf %y : f32 to f8E4M3FN
    linalg.yield %narrow : f8E4M3FN
  } -> tensor<64x96xf8E4M3FN>
  return %bumped, %r#1 : tensor<64x96xf8E4M3FN>, tensor<64x1xf32>
}
