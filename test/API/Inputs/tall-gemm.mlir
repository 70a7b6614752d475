// A per-tensor-scaled FP8 GEMM of ROWS x 128 x 256 for gfx942 (the tests
// put the number of rows in for ROWS).
func.func @qmm_gemm(%a: tensor<ROWSx256xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                    %b: tensor<128x256xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                    %c: tensor<ROWSx128xf32>) -> tensor<ROWSx128xf32> {
  %0 = qmm.matmul a(%a, %sa : tensor<ROWSx256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<128x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<ROWSx128xf32>) -> tensor<ROWSx128xf32>
  return %0 : tensor<ROWSx128xf32>
}
