func.func @f(%a: tensor<16x32xf8E4M3FN>, %s: tensor<1x1xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = qmm.matmul a(%a, %s : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%a, %s : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = qmm.matmul a(%a, %s : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%a, %s : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %e : tensor<16x16xf32>
}
