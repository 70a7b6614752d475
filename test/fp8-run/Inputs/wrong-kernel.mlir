// A kernel that does not compute what its qmm.matmul says: it doubles the
// result. fp8-run must catch it in the exact tier.
#id = affine_map<(i, j) -> (i, j)>
func.func @doubled(%a: tensor<64x256xf8E4M3FNUZ>, %sa: tensor<64x1xf32>,
                   %b: tensor<32x256xf8E4M3FNUZ>, %sb: tensor<32x1xf32>,
                   %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FNUZ>, tensor<64x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<32x256xf8E4M3FNUZ>, tensor<32x1xf32>) #qmm.scale<per_row>
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<64x32xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64x32xf32>
  return %twice : tensor<64x32xf32>
}
