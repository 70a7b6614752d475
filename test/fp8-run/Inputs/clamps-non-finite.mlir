// A kernel that computes its qmm.matmul but clamps the result into
// [-3e38, 3e38]: NaN and Inf become finite. Where the inputs are not
// finite, fp8-run must reject the finite outputs (nan_mismatches); every
// other element is exact.
#id = affine_map<(i, j) -> (i, j)>
func.func @clamped(%a: tensor<32x256xf8E4M3FNUZ>, %sa: tensor<32x1xf32>,
                   %b: tensor<48x256xf8E4M3FNUZ>, %sb: tensor<48x1xf32>,
                   %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<32x256xf8E4M3FNUZ>, tensor<32x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<48x256xf8E4M3FNUZ>, tensor<48x1xf32>) #qmm.scale<per_row>
                  outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  %e = tensor.empty() : tensor<32x48xf32>
  %low = arith.constant -3.0e38 : f32
  %high = arith.constant 3.0e38 : f32
  %clamped = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<32x48xf32>) outs(%e : tensor<32x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maxnumf %x, %low : f32
    %z = arith.minnumf %y, %high : f32
    linalg.yield %z : f32
  } -> tensor<32x48xf32>
  return %clamped : tensor<32x48xf32>
}
