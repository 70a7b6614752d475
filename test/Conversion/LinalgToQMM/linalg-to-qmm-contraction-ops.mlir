// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
//
// Contractions spelled by the other named ops frontends use: linalg.contract
// (MLIR's generic named contraction), and linalg.batch_matmul with B read
// [B, N, K] through its indexing_maps.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @contract_op
// CHECK:         qmm.matmul a(%{{.*}} : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%{{.*}} : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row> outs
// CHECK-NOT:     linalg.contract
func.func @contract_op(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>,
                       %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16xf32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id3 = affine_map<(b, r, k) -> (b, r, k)>
#tok = affine_map<(b, r, k) -> (b, r)>
// CHECK-LABEL: func.func @batch_matmul_b_transposed
// CHECK-COUNT-2: qmm.matmul a(%{{.*}} : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%{{.*}} : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row> outs
// CHECK-NOT:     linalg.batch_matmul
func.func @batch_matmul_b_transposed(%a: tensor<2x32x64xf8E4M3FN>, %sa: tensor<2x32xf32>,
                                     %b: tensor<2x16x64xf8E4M3FN>, %sb: tensor<2x16xf32>) -> tensor<2x32x16xf32> {
  %ea = tensor.empty() : tensor<2x32x64xf32>
  %da = linalg.generic {indexing_maps = [#id3, #tok, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %sa : tensor<2x32x64xf8E4M3FN>, tensor<2x32xf32>) outs(%ea : tensor<2x32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x32x64xf32>
  %eb = tensor.empty() : tensor<2x16x64xf32>
  %db = linalg.generic {indexing_maps = [#id3, #tok, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b, %sb : tensor<2x16x64xf8E4M3FN>, tensor<2x16xf32>) outs(%eb : tensor<2x16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x16xf32>) -> tensor<2x32x16xf32>
  %d = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%da, %db : tensor<2x32x64xf32>, tensor<2x16x64xf32>) outs(%init : tensor<2x32x16xf32>) -> tensor<2x32x16xf32>
  return %d : tensor<2x32x16xf32>
}
