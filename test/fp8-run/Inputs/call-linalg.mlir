// A linalg program for fp8-run's call mode (call-mode.test): per-row f16
// scales widened in the body, B stored [K, N] with one f32 scale, a dynamic
// M, and a bf16 second result (the product rounded).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#one = affine_map<(d0, d1) -> ()>
func.func @dequant_matmul(%a: tensor<?x64xf8E4M3FN>, %sa: tensor<?xf16>,
                          %b: tensor<64x16xf8E5M2>, %sb: tensor<f32>)
    -> (tensor<?x16xf32>, tensor<?x16xbf16>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x64xf8E4M3FN>
  %ea = tensor.empty(%m) : tensor<?x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<?x64xf8E4M3FN>, tensor<?xf16>) outs(%ea : tensor<?x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f16, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %w = arith.extf %s : f16 to f32
    %y = arith.mulf %x, %w : f32
    linalg.yield %y : f32
  } -> tensor<?x64xf32>
  %eb = tensor.empty() : tensor<64x16xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<64x16xf8E5M2>, tensor<f32>) outs(%eb : tensor<64x16xf32>) {
  ^bb0(%q: f8E5M2, %s: f32, %o: f32):
    %x = arith.extf %q : f8E5M2 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %d = linalg.matmul ins(%da, %db : tensor<?x64xf32>, tensor<64x16xf32>) outs(%init : tensor<?x16xf32>) -> tensor<?x16xf32>
  %eh = tensor.empty(%m) : tensor<?x16xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<?x16xf32>) outs(%eh : tensor<?x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x16xbf16>
  return %d, %h : tensor<?x16xf32>, tensor<?x16xbf16>
}

func.func @scalar_argument(%x: f32) -> f32 {
  return %x : f32
}
