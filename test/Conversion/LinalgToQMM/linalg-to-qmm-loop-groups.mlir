// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
// RUN: fp8-opt %s -split-input-file --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --canonicalize --qmm-linalg-to-qmm | FileCheck %s --check-prefix=FUSED
//
// Loops read as the (batch,) m, n, k of a matmul by grouping consecutive
// loops: K split into blocks in the operands' types ([R, K/32, 32], as
// IREE and MX frontends pass data; no tensor.expand_shape to look
// through), and M over several loops ([batch, seq, K] activations against
// a shared 2-D weight). The data is collapsed to [R, K] (a view), the
// result expanded back. Also TOSA's batch-of-1 batch_matmul with rank-3
// scales, and blocks flattened across rows ([R*K/32, 32], a loop split
// into rows and blocks). Before fusion and after (the same qmm.matmul).

#a4 = affine_map<(m, n, kb, ki) -> (m, kb, ki)>
#sa4 = affine_map<(m, n, kb, ki) -> (m, kb)>
#b4 = affine_map<(m, n, kb, ki) -> (n, kb, ki)>
#sb4 = affine_map<(m, n, kb, ki) -> (n, kb)>
#o4 = affine_map<(m, n, kb, ki) -> (m, n)>
// CHECK-LABEL: func.func @split_k_mx_in_body
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x2x32xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<32x2xf8E8M0FNU>, %[[B:[a-z0-9]+]]: tensor<16x2x32xf8E4M3FN>, %[[SB:[a-z0-9]+]]: tensor<16x2xf8E8M0FNU>
// CHECK-DAG:     %[[FA:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0], [1, 2]] : tensor<32x2x32xf8E4M3FN> into tensor<32x64xf8E4M3FN>
// CHECK-DAG:     %[[FB:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0], [1, 2]] : tensor<16x2x32xf8E4M3FN> into tensor<16x64xf8E4M3FN>
// CHECK:         qmm.matmul a(%[[FA]], %[[SA]] : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx> b(%[[FB]], %[[SB]] : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> outs
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @split_k_mx_in_body
// FUSED:         qmm.matmul {{.*}} #qmm.scale<mx> {{.*}} #qmm.scale<mx> outs
// FUSED-NOT:     linalg.generic
func.func @split_k_mx_in_body(%a: tensor<32x2x32xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>,
                              %b: tensor<16x2x32xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.generic {indexing_maps = [#a4, #sa4, #b4, #sb4, #o4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %sa, %b, %sb : tensor<32x2x32xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<16x2x32xf8E4M3FN>, tensor<16x2xf8E8M0FNU>)
      outs(%init : tensor<32x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %ea: f8E8M0FNU, %qb: f8E4M3FN, %eb: f8E8M0FNU, %acc: f32):
    %xa = arith.scaling_extf %qa, %ea : f8E4M3FN, f8E8M0FNU to f32
    %xb = arith.scaling_extf %qb, %eb : f8E4M3FN, f8E8M0FNU to f32
    %p = arith.mulf %xa, %xb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id3 = affine_map<(r, kb, ki) -> (r, kb, ki)>
#s3 = affine_map<(r, kb, ki) -> (r, kb)>
#sb3 = affine_map<(r, kb, ki) -> (r floordiv 128, kb)>
#a4 = affine_map<(m, n, kb, ki) -> (m, kb, ki)>
#b4 = affine_map<(m, n, kb, ki) -> (n, kb, ki)>
#o4 = affine_map<(m, n, kb, ki) -> (m, n)>
// CHECK-LABEL: func.func @split_k_blockwise_generics
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<64x2x128xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<64x2xf32>, %[[B:[a-z0-9]+]]: tensor<128x2x128xf8E4M3FN>, %[[SB:[a-z0-9]+]]: tensor<1x2xf32>
// CHECK-DAG:     %[[FA:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0], [1, 2]] : tensor<64x2x128xf8E4M3FN> into tensor<64x256xf8E4M3FN>
// CHECK-DAG:     %[[FB:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0], [1, 2]] : tensor<128x2x128xf8E4M3FN> into tensor<128x256xf8E4M3FN>
// CHECK:         qmm.matmul a(%[[FA]], %[[SA]] : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128> b(%[[FB]], %[[SB]] : tensor<128x256xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128> outs
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @split_k_blockwise_generics
// FUSED:         qmm.matmul {{.*}} #qmm.scale<block 1x128> {{.*}} #qmm.scale<block 128x128> outs
// FUSED-NOT:     linalg.generic
func.func @split_k_blockwise_generics(%a: tensor<64x2x128xf8E4M3FN>, %sa: tensor<64x2xf32>,
                                      %b: tensor<128x2x128xf8E4M3FN>, %sb: tensor<1x2xf32>) -> tensor<64x128xf32> {
  %ea = tensor.empty() : tensor<64x2x128xf32>
  %da = linalg.generic {indexing_maps = [#id3, #s3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %sa : tensor<64x2x128xf8E4M3FN>, tensor<64x2xf32>) outs(%ea : tensor<64x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x2x128xf32>
  %eb = tensor.empty() : tensor<128x2x128xf32>
  %db = linalg.generic {indexing_maps = [#id3, #sb3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b, %sb : tensor<128x2x128xf8E4M3FN>, tensor<1x2xf32>) outs(%eb : tensor<128x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<128x2x128xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %d = linalg.generic {indexing_maps = [#a4, #b4, #o4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%da, %db : tensor<64x2x128xf32>, tensor<128x2x128xf32>) outs(%init : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}

// -----

#id3 = affine_map<(b, s, k) -> (b, s, k)>
#tok = affine_map<(b, s, k) -> (b, s)>
#id2 = affine_map<(n, k) -> (n, k)>
#row = affine_map<(n, k) -> (n)>
#a = affine_map<(b, s, n, k) -> (b, s, k)>
#w = affine_map<(b, s, n, k) -> (n, k)>
#o = affine_map<(b, s, n, k) -> (b, s, n)>
// CHECK-LABEL: func.func @tokens_over_batch_and_seq
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<2x16x64xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<2x16xf32>, %[[B:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[SB:[a-z0-9]+]]: tensor<32xf32>
// CHECK-DAG:     %[[FA:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<2x16x64xf8E4M3FN> into tensor<32x64xf8E4M3FN>
// CHECK-DAG:     %[[FSA:.*]] = tensor.collapse_shape %[[SA]] {{\[\[}}0, 1]] : tensor<2x16xf32> into tensor<32xf32>
// CHECK-DAG:     %[[CSA:.*]] = tensor.expand_shape %[[FSA]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK-DAG:     %[[CSB:.*]] = tensor.expand_shape %[[SB]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK:         %[[D:.*]] = qmm.matmul a(%[[FA]], %[[CSA]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b(%[[B]], %[[CSB]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> outs({{.*}} : tensor<32x32xf32>) -> tensor<32x32xf32>
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2]] output_shape [2, 16, 32] : tensor<32x32xf32> into tensor<2x16x32xf32>
// CHECK:         return %[[R]]
// FUSED-LABEL: func.func @tokens_over_batch_and_seq
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row> outs({{.*}} : tensor<32x32xf32>)
// FUSED:         tensor.expand_shape {{.*}} output_shape [2, 16, 32]
// FUSED-NOT:     linalg.generic
func.func @tokens_over_batch_and_seq(%a: tensor<2x16x64xf8E4M3FN>, %sa: tensor<2x16xf32>,
                                     %b: tensor<32x64xf8E4M3FN>, %sb: tensor<32xf32>) -> tensor<2x16x32xf32> {
  %ea = tensor.empty() : tensor<2x16x64xf32>
  %da = linalg.generic {indexing_maps = [#id3, #tok, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %sa : tensor<2x16x64xf8E4M3FN>, tensor<2x16xf32>) outs(%ea : tensor<2x16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x16x64xf32>
  %eb = tensor.empty() : tensor<32x64xf32>
  %db = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<32x64xf8E4M3FN>, tensor<32xf32>) outs(%eb : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %d = linalg.generic {indexing_maps = [#a, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%da, %db : tensor<2x16x64xf32>, tensor<32x64xf32>) outs(%init : tensor<2x16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x16x32xf32>
  return %d : tensor<2x16x32xf32>
}

// -----

#id3 = affine_map<(b, r, k) -> (b, r, k)>
#tok = affine_map<(b, r, k) -> (b, r, 0)>
#col = affine_map<(b, k, n) -> (b, 0, n)>
#idb = affine_map<(b, k, n) -> (b, k, n)>
// CHECK-LABEL: func.func @tosa_batch_of_one
// CHECK-COUNT-1: qmm.matmul {{.*}} : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row> b({{.*}} : tensor<64x16xf8E4M3FN>, tensor<1x16xf32>) #qmm.scale<per_row, mn_major> layout kn
// CHECK-NOT:     qmm.matmul
// CHECK-NOT:     linalg.batch_matmul
// FUSED-LABEL: func.func @tosa_batch_of_one
// FUSED:         qmm.matmul {{.*}} #qmm.scale<per_row> {{.*}} #qmm.scale<per_row, mn_major> layout kn
// FUSED-NOT:     linalg.generic
func.func @tosa_batch_of_one(%a: tensor<1x32x64xf8E4M3FN>, %sa: tensor<1x32x1xf32>,
                             %b: tensor<1x64x16xf8E4M3FN>, %sb: tensor<1x1x16xf32>) -> tensor<1x32x16xf32> {
  %ea = tensor.empty() : tensor<1x32x64xf32>
  %da = linalg.generic {indexing_maps = [#id3, #tok, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %sa : tensor<1x32x64xf8E4M3FN>, tensor<1x32x1xf32>) outs(%ea : tensor<1x32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x32x64xf32>
  %eb = tensor.empty() : tensor<1x64x16xf32>
  %db = linalg.generic {indexing_maps = [#idb, #col, #idb], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b, %sb : tensor<1x64x16xf8E4M3FN>, tensor<1x1x16xf32>) outs(%eb : tensor<1x64x16xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x64x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16xf32>) -> tensor<1x32x16xf32>
  %d = linalg.batch_matmul ins(%da, %db : tensor<1x32x64xf32>, tensor<1x64x16xf32>) outs(%init : tensor<1x32x16xf32>) -> tensor<1x32x16xf32>
  return %d : tensor<1x32x16xf32>
}

// -----

#a4 = affine_map<(m, n, kb, ki) -> (m, kb, ki)>
#sa4 = affine_map<(m, n, kb, ki) -> (m, kb)>
#b4 = affine_map<(m, n, kb, ki) -> (n, kb, ki)>
#sb4 = affine_map<(m, n, kb, ki) -> (n, kb)>
#o4 = affine_map<(m, n, kb, ki) -> (m, n)>
// A dynamic M: the collapsed data keeps it.
// CHECK-LABEL: func.func @split_k_mx_dynamic_m
// CHECK:         %[[FA:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<?x2x32xf8E4M3FN> into tensor<?x64xf8E4M3FN>
// CHECK:         qmm.matmul a(%[[FA]], %{{.*}} : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>) #qmm.scale<mx> b({{.*}}) #qmm.scale<mx> outs({{.*}} : tensor<?x16xf32>) -> tensor<?x16xf32>
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @split_k_mx_dynamic_m
// FUSED:         qmm.matmul {{.*}} outs({{.*}} : tensor<?x16xf32>)
func.func @split_k_mx_dynamic_m(%a: tensor<?x2x32xf8E4M3FN>, %sa: tensor<?x2xf8E8M0FNU>,
                                %b: tensor<16x2x32xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x2x32xf8E4M3FN>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %d = linalg.generic {indexing_maps = [#a4, #sa4, #b4, #sb4, #o4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %sa, %b, %sb : tensor<?x2x32xf8E4M3FN>, tensor<?x2xf8E8M0FNU>, tensor<16x2x32xf8E4M3FN>, tensor<16x2xf8E8M0FNU>)
      outs(%init : tensor<?x16xf32>) {
  ^bb0(%qa: f8E4M3FN, %ea: f8E8M0FNU, %qb: f8E4M3FN, %eb: f8E8M0FNU, %acc: f32):
    %xa = arith.scaling_extf %qa, %ea : f8E4M3FN, f8E8M0FNU to f32
    %xb = arith.scaling_extf %qb, %eb : f8E4M3FN, f8E8M0FNU to f32
    %p = arith.mulf %xa, %xb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x16xf32>
  return %d : tensor<?x16xf32>
}

// -----

#id3 = affine_map<(b, s, k) -> (b, s, k)>
#tok = affine_map<(b, s, k) -> (b, s)>
#id2 = affine_map<(n, k) -> (n, k)>
#row = affine_map<(n, k) -> (n)>
#a = affine_map<(b, s, n, k) -> (b, s, k)>
#w = affine_map<(b, s, n, k) -> (n, k)>
#o = affine_map<(b, s, n, k) -> (b, s, n)>
// A dynamic batch (the outer of M's loops).
// CHECK-LABEL: func.func @tokens_dynamic_batch
// CHECK:         %[[FA:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x16x64xf8E4M3FN> into tensor<?x64xf8E4M3FN>
// CHECK:         %[[D:.*]] = qmm.matmul a(%[[FA]], %{{.*}} : tensor<?x64xf8E4M3FN>, tensor<?x1xf32>) #qmm.scale<per_row> b({{.*}}) #qmm.scale<per_row> outs({{.*}} : tensor<?x32xf32>) -> tensor<?x32xf32>
// CHECK:         tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 16, 32] : tensor<?x32xf32> into tensor<?x16x32xf32>
// FUSED-LABEL: func.func @tokens_dynamic_batch
// FUSED:         qmm.matmul {{.*}} outs({{.*}} : tensor<?x32xf32>)
func.func @tokens_dynamic_batch(%a: tensor<?x16x64xf8E4M3FN>, %sa: tensor<?x16xf32>,
                                %b: tensor<32x64xf8E4M3FN>, %sb: tensor<32xf32>) -> tensor<?x16x32xf32> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %a, %c0 : tensor<?x16x64xf8E4M3FN>
  %ea = tensor.empty(%nb) : tensor<?x16x64xf32>
  %da = linalg.generic {indexing_maps = [#id3, #tok, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %sa : tensor<?x16x64xf8E4M3FN>, tensor<?x16xf32>) outs(%ea : tensor<?x16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<?x16x64xf32>
  %eb = tensor.empty() : tensor<32x64xf32>
  %db = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<32x64xf8E4M3FN>, tensor<32xf32>) outs(%eb : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%nb) : tensor<?x16x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16x32xf32>) -> tensor<?x16x32xf32>
  %d = linalg.generic {indexing_maps = [#a, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%da, %db : tensor<?x16x64xf32>, tensor<32x64xf32>) outs(%init : tensor<?x16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x16x32xf32>
  return %d : tensor<?x16x32xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#blk = affine_map<(i, j) -> (i)>
// Blocks flattened across rows ([R*K/32, 32] data, a rank-1 E8M0 scale,
// as MX frontends pass them; the dequantized blocks reshaped to [R, K]
// through one dimension): read as [R, K/32, 32], MX.
// CHECK-LABEL: func.func @blocks_flattened_across_rows
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<64x32xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<64xf8E8M0FNU>
// CHECK-DAG:     %[[VA:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [32, 2, 32]
// CHECK-DAG:     %[[VSA:.*]] = tensor.expand_shape %[[SA]] {{\[\[}}0, 1]] output_shape [32, 2] : tensor<64xf8E8M0FNU> into tensor<32x2xf8E8M0FNU>
// CHECK-DAG:     %[[FA:.*]] = tensor.collapse_shape %[[VA]] {{\[\[}}0], [1, 2]] : tensor<32x2x32xf8E4M3FN> into tensor<32x64xf8E4M3FN>
// CHECK:         qmm.matmul a(%[[FA]], %[[VSA]] : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx> b({{.*}} : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> outs
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @blocks_flattened_across_rows
// FUSED:         qmm.matmul {{.*}} #qmm.scale<mx> {{.*}} #qmm.scale<mx> outs
// FUSED-NOT:     linalg.generic
func.func @blocks_flattened_across_rows(%a: tensor<64x32xf8E4M3FN>, %sa: tensor<64xf8E8M0FNU>,
                                        %b: tensor<32x32xf8E4M3FN>, %sb: tensor<32xf8E8M0FNU>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<64x32xf32>
  %da = linalg.generic {indexing_maps = [#id, #blk, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<64x32xf8E4M3FN>, tensor<64xf8E8M0FNU>) outs(%ea : tensor<64x32xf32>) {
  ^bb0(%q: f8E4M3FN, %e: f8E8M0FNU, %o: f32):
    %y = arith.scaling_extf %q, %e : f8E4M3FN, f8E8M0FNU to f32
    linalg.yield %y : f32
  } -> tensor<64x32xf32>
  %fa = tensor.collapse_shape %da [[0, 1]] : tensor<64x32xf32> into tensor<2048xf32>
  %ra = tensor.expand_shape %fa [[0, 1]] output_shape [32, 64] : tensor<2048xf32> into tensor<32x64xf32>
  %eb = tensor.empty() : tensor<32x32xf32>
  %db = linalg.generic {indexing_maps = [#id, #blk, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<32x32xf8E4M3FN>, tensor<32xf8E8M0FNU>) outs(%eb : tensor<32x32xf32>) {
  ^bb0(%q: f8E4M3FN, %e: f8E8M0FNU, %o: f32):
    %s = arith.extf %e : f8E8M0FNU to f32
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  %fb = tensor.collapse_shape %db [[0, 1]] : tensor<32x32xf32> into tensor<1024xf32>
  %rb = tensor.expand_shape %fb [[0, 1]] output_shape [16, 64] : tensor<1024xf32> into tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%ra, %rb : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#s3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// A view with a size-1 dimension (torch's unflatten: [M, K] as [M, 1, K],
// scales [M, 1, 1]), dequantized and collapsed back.
// CHECK-LABEL: func.func @size_one_views
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<32x64xf8E4M3FN>, %[[SA:[a-z0-9]+]]: tensor<32x1x1xf32>
// CHECK:         %[[CSA:.*]] = tensor.collapse_shape %[[SA]] {{\[\[}}0], [1, 2]] : tensor<32x1x1xf32> into tensor<32x1xf32>
// CHECK:         qmm.matmul a(%[[A]], %[[CSA]] : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<block 1x64> b({{.*}}) #qmm.scale<per_row> outs
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @size_one_views
// FUSED:         qmm.matmul {{.*}} #qmm.scale<block 1x64> {{.*}} #qmm.scale<per_row> outs
func.func @size_one_views(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x1x1xf32>,
                          %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [32, 1, 64] : tensor<32x64xf8E4M3FN> into tensor<32x1x64xf8E4M3FN>
  %ea = tensor.empty() : tensor<32x1x64xf32>
  %da = linalg.generic {indexing_maps = [#id3, #s3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<32x1x64xf8E4M3FN>, tensor<32x1x1xf32>) outs(%ea : tensor<32x1x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x1x64xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<32x1x64xf32> into tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16xf32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%fa, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
