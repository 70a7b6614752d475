// DeepGEMM's blockwise FP8 GEMM as a frontend writes it: A dequantized with
// 1x128 scales, B stored [N, K] with 128x128 scales, then linalg.matmul
// (the first program of test/Conversion/LinalgToQMM/linalg-to-qmm.mlir).
// test/Install/downstream.test raises and lowers it with both programs of
// this project.
#id = affine_map<(d0, d1) -> (d0, d1)>
#a_scale = affine_map<(d0, d1) -> (d0, d1 floordiv 128)>
#b_scale = affine_map<(d0, d1) -> (d0 floordiv 128, d1 floordiv 128)>
func.func @blockwise(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>,
    %b: tensor<128x256xf8E4M3FN>, %sb: tensor<1x2xf32>) -> tensor<64x128xf32> {
  %ea = tensor.empty() : tensor<64x256xf32>
  %da = linalg.generic {indexing_maps = [#id, #a_scale, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) outs(%ea : tensor<64x256xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  %eb = tensor.empty() : tensor<128x256xf32>
  %db = linalg.generic {indexing_maps = [#id, #b_scale, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<128x256xf8E4M3FN>, tensor<1x2xf32>) outs(%eb : tensor<128x256xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %s, %x : f32
    linalg.yield %y : f32
  } -> tensor<128x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<64x256xf32>, tensor<128x256xf32>)
      outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}
