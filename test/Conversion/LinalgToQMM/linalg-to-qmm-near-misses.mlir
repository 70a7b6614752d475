// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm --remarks-filter-missed=qmm-linalg-to-qmm --remark-format=emitRemark -verify-diagnostics
// RUN: sed "s/expected-remark/remark expected/" %s | fp8-opt -split-input-file --qmm-linalg-to-qmm 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: fp8-opt %s -split-input-file > %t.before
// RUN: fp8-opt %s -split-input-file --qmm-linalg-to-qmm > %t.after
// RUN: diff %t.before %t.after
//
// Near misses: IR that looks like a quantized matmul but is not one qmm
// can express is left exactly as it was (the diff: nothing built for a
// failed attempt is left behind). On request (MLIR's remark filter) the
// pass says for each what stopped it, and nothing else (the second RUN
// line fails on any other diagnostic); without the request, nothing (the
// third).
// QUIET-NOT: {{.}}

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// Integer data: sitofp, not extf of a float type.
// CHECK-LABEL: func.func @integers
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @integers(%a: tensor<32x64xi8>, %sa: tensor<f32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xi8>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: i8, %s: f32, %o: f32):
    %x = arith.sitofp %q : i8 to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: the operands of `arith.mulf` are `arith.sitofp` and a block argument, neither quantized data widened by `arith.extf`}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// A zero point subtracted before the scale.
// CHECK-LABEL: func.func @zero_point
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @zero_point(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %c = arith.constant 1.0 : f32
    %z = arith.subf %x, %c : f32
    %y = arith.mulf %z, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: the operands of `arith.mulf` are `arith.subf` and a block argument}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// A scale per column of A (per element of K): no qmm encoding.
// CHECK-LABEL: func.func @per_k_scale
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @per_k_scale(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<64xf32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #percol, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<64xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: the scale, read through (d0, d1) -> (d1), is no scale encoding}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// A bf16 result: linalg.matmul would accumulate in bf16.
// CHECK-LABEL: func.func @bf16_result
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @bf16_result(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xbf16> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<32x16xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<32x16xbf16>) -> tensor<32x16xbf16>
  // expected-remark @below {{it accumulates in bf16; qmm.matmul accumulates in f32}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xbf16>) -> tensor<32x16xbf16>
  return %d : tensor<32x16xbf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// Only A is quantized.
// CHECK-LABEL: func.func @one_operand
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @one_operand(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>, %db: tensor<16x64xf32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{B: produced by a function argument, not by a dequantizing `linalg.generic`}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// A read transposed by the matmul ([K, M] data).
// CHECK-LABEL: func.func @a_transposed
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @a_transposed(%a: tensor<64x32xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<64x32xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<64x32xf8E4M3FN>, tensor<f32>) outs(%ea : tensor<64x32xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x32xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{no factor is read as A [(batch,) M, K]}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<64x32xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// FNUZ times OCP FP8: the qmm verifier rejects it, so nothing changes.
// CHECK-LABEL: func.func @fnuz_times_ocp
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @fnuz_times_ocp(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<16x64xf8E4M3FNUZ>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FNUZ>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FNUZ, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FNUZ to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{qmm.matmul does not take it: 'qmm.matmul' op A ('f8E4M3FN') and B ('f8E4M3FNUZ') mix FNUZ and OCP}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// E8M0 (MX) scales on FNUZ data: rejected by the verifier.
// CHECK-LABEL: func.func @mx_on_fnuz
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @mx_on_fnuz(%a: tensor<32x64xf8E4M3FNUZ>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<16x64xf8E4M3FNUZ>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FNUZ>, tensor<32x2xf8E8M0FNU>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FNUZ, %s: f8E8M0FNU, %o: f32):
    %x = arith.extf %q : f8E4M3FNUZ to f32
    %t = arith.extf %s : f8E8M0FNU to f32
    %y = arith.mulf %x, %t : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FNUZ>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FNUZ, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FNUZ to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{qmm.matmul does not take it: 'qmm.matmul' op 'mx' encoding of A requires an OCP MX element type}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#one = affine_map<(d0, d1) -> ()>
#percol = affine_map<(d0, d1) -> (d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// A's data read through a transposing map (A stored [K, M]): qmm.matmul
// reads A as [M, K] only. (B's is raised: linalg-to-qmm.mlir.)
// CHECK-LABEL: func.func @a_transposed_data
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK-NOT:   tensor.from_elements
// CHECK:       linalg.matmul
func.func @a_transposed_data(%a: tensor<64x32xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#t, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<64x32xf8E4M3FN>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A's data is stored transposed ([K, M]); qmm.matmul reads A as [M, K]}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0, d1) -> ()>
#row0 = affine_map<(d0, d1) -> (d0, 0)>
#k0 = affine_map<(d0, d1) -> (0, d1)>
// A constant index into a dimension wider than 1 is not a broadcast: the
// first column of a [32, 4] scale tensor (A), a scale per element of K
// read from row 0 of a [1, 64] tensor (B).
// CHECK-LABEL: func.func @constant_index_not_broadcast
// CHECK-NOT:   qmm.matmul
// CHECK-NOT:   tensor.expand_shape
// CHECK:       linalg.matmul
func.func @constant_index_not_broadcast(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x4xf32>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<1x64xf32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #row0, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32x4xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #k0, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<1x64xf32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{B: the scale, read through (d0, d1) -> (0, d1), is no scale encoding}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}


// -----

// arith.scaling_extf with f32 scales: the op rounds them to E8M0 first, which
// no qmm encoding states; left alone.
// CHECK-LABEL: func.func @scaling_extf_f32_scales
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @scaling_extf_f32_scales(%a: tensor<32x64xf4E2M1FN>, %sa: tensor<32x2xf32>,
                                   %b: tensor<16x64xf4E2M1FN>, %sb: tensor<16x2xf32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf4E2M1FN>, tensor<32x2xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f4E2M1FN, %s: f32, %o: f32):
    %y = arith.scaling_extf %q, %s : f4E2M1FN, f32 to f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf4E2M1FN>, tensor<16x2xf32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f4E2M1FN, %s: f32, %o: f32):
    %y = arith.scaling_extf %q, %s : f4E2M1FN, f32 to f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: `arith.scaling_extf` with a scale of type f32, not f8E8M0FNU}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// A view [M, K/128, 128] whose scale is indexed by the position inside
// the block ([M, 128], `(d0, d2)`): a scale per K element, not a block.
// CHECK-LABEL: func.func @view_scale_within_block
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @view_scale_within_block(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x128xf32>,
                           %b: tensor<16x256xf8E4M3FN>, %sb: tensor<f32>) -> tensor<64x16xf32> {
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xf8E4M3FN> into tensor<64x2x128xf8E4M3FN>
  %ea = tensor.empty() : tensor<64x2x128xf32>
  %da = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<64x2x128xf8E4M3FN>, tensor<64x128xf32>) outs(%ea : tensor<64x2x128xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x2x128xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<64x2x128xf32> into tensor<64x256xf32>
  %eb = tensor.empty() : tensor<16x256xf32>
  %db = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x256xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x256xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  // expected-remark @below {{A: the scale, read through (d0, d1) -> (d0, d1 mod 128), is no scale encoding}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%fa, %db : tensor<64x256xf32>, tensor<16x256xf32>) outs(%init : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %d : tensor<64x16xf32>
}

// -----

// A view [M, 128, 2] whose scale follows the fast loop (`k mod 2`): the
// scales alternate along K instead of covering blocks.
// CHECK-LABEL: func.func @view_interleaved_scale
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @view_interleaved_scale(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>,
                           %b: tensor<16x256xf8E4M3FN>, %sb: tensor<f32>) -> tensor<64x16xf32> {
  %av = tensor.expand_shape %a [[0], [1, 2]] output_shape [64, 128, 2] : tensor<64x256xf8E4M3FN> into tensor<64x128x2xf8E4M3FN>
  %ea = tensor.empty() : tensor<64x128x2xf32>
  %da = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%av, %sa : tensor<64x128x2xf8E4M3FN>, tensor<64x2xf32>) outs(%ea : tensor<64x128x2xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x128x2xf32>
  %fa = tensor.collapse_shape %da [[0], [1, 2]] : tensor<64x128x2xf32> into tensor<64x256xf32>
  %eb = tensor.empty() : tensor<16x256xf32>
  %db = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x256xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x256xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  // expected-remark @below {{A: the scale, read through (d0, d1) -> (d0, d1 mod 2), is no scale encoding}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%fa, %db : tensor<64x256xf32>, tensor<16x256xf32>) outs(%init : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %d : tensor<64x16xf32>
}

// -----

// Dequantized values rounded to bf16 before an f32 matmul (which widens
// them back in its body): the product is not the one of the FP8 values.
// CHECK-LABEL: func.func @bf16_rounded_dequantization
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @bf16_rounded_dequantization(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32xf32>,
                                       %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xbf16>
  %da = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32xf32>) outs(%ea : tensor<32x64xbf16>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: bf16):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    %r = arith.truncf %y : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  %eb = tensor.empty() : tensor<16x64xbf16>
  %db = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16xf32>) outs(%eb : tensor<16x64xbf16>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: bf16):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    %r = arith.truncf %y : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<16x64xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: the dequantized value is rounded to bf16 (`arith.truncf`) before the product}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xbf16>, tensor<16x64xbf16>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// A dequantization that writes its result transposed (square, so the
// shapes agree): the product reads A^T, which qmm.matmul cannot.
// CHECK-LABEL: func.func @out_transposed
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @out_transposed(%a: tensor<64x64xf8E4M3FN>, %sa: tensor<f32>,
                          %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<64x16xf32> {
  %ea = tensor.empty() : tensor<64x64xf32>
  %da = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->()>, affine_map<(d0,d1)->(d1,d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<64x64xf8E4M3FN>, tensor<f32>) outs(%ea : tensor<64x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->()>, affine_map<(d0,d1)->(d0,d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  // expected-remark @below {{A: produced by a `linalg.generic` that is not element-wise over the operand's 2 dimensions}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<64x64xf32>, tensor<16x64xf32>) outs(%init : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %d : tensor<64x16xf32>
}

// -----

// A per-tensor scale computed outside the dequantization (the product of
// two extracted scalars): the host code of the emu and hip devices runs no
// scalar arithmetic, so the raised program would not run there.
// CHECK-LABEL: func.func @computed_scalar_scale
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @computed_scalar_scale(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>,
                                 %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %s0 = tensor.extract %sa[] : tensor<f32>
  %s1 = tensor.extract %sb[] : tensor<f32>
  %s = arith.mulf %s0, %s1 : f32
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->(d0,d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->(d0,d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x64xf8E4M3FN>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A's scale does not fit its encoding's shape, or is a scalar computed outside the dequantization}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// A zero point in a dequantization written in steps (extf, subtraction,
// scale, each a generic): the steps fused (as the raising reads them) are
// no dequantization; the fused generics it built are gone again.
// CHECK-LABEL: func.func @zero_point_in_steps
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @zero_point_in_steps(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>,
                               %b: tensor<16x64xf8E4M3FN>, %sb: tensor<f32>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %xa = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->(d0,d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf8E4M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<32x64xf32>
  %za = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->(d0,d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%xa : tensor<32x64xf32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %z = arith.subf %x, %c : f32
    linalg.yield %z : f32
  } -> tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->()>, affine_map<(d0,d1)->(d0,d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%za, %sa : tensor<32x64xf32>, tensor<f32>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [affine_map<(d0,d1)->(d0,d1)>, affine_map<(d0,d1)->()>, affine_map<(d0,d1)->(d0,d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<f32>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: the dequantization also computes `arith.subf`}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// Weight-only FP4: B dequantized (MX), A a bf16 activation: one quantized
// operand only.
// CHECK-LABEL: func.func @weight_only_fp4_bf16_activation
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @weight_only_fp4_bf16_activation(%a: tensor<32x64xbf16>, %b: tensor<16x64xf4E2M1FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf4E2M1FN>, tensor<16x2xf8E8M0FNU>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f4E2M1FN, %s: f8E8M0FNU, %o: f32):
    %y = arith.scaling_extf %q, %s : f4E2M1FN, f8E8M0FNU to f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: produced by a function argument, not by a dequantizing `linalg.generic`}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %db : tensor<32x64xbf16>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// E8M0 bits decoded as 2^(e - 127) without the NaN of exponent 255 (it
// decodes to +Inf here, to NaN in E8M0 and qmm.matmul).
// CHECK-LABEL: func.func @e8m0_decode_without_nan
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @e8m0_decode_without_nan(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xi8>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32x2xi8>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %e: i8, %o: f32):
    %w = arith.extui %e : i8 to i32
    %c127 = arith.constant 127 : i32
    %u = arith.subi %w, %c127 : i32
    %f = arith.sitofp %u : i32 to f32
    %s = math.exp2 %f : f32
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f8E8M0FNU, %o: f32):
    %y = arith.scaling_extf %q, %s : f8E4M3FN, f8E8M0FNU to f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: the scale is computed in the body by `math.exp2`}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// Data divided by E8M0 scales: the reciprocal is no stored scale.
// CHECK-LABEL: func.func @divided_by_e8m0
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @divided_by_e8m0(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %e: f8E8M0FNU, %o: f32):
    %s = arith.extf %e : f8E8M0FNU to f32
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.divf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f8E8M0FNU, %o: f32):
    %y = arith.scaling_extf %q, %s : f8E4M3FN, f8E8M0FNU to f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: a division by an E8M0 scale}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0, d1) -> ()>
// FP8 widened to bf16 and scaled in bf16 (each product rounded to bf16)
// before a bf16 x bf16 -> f32 matmul.
// CHECK-LABEL: func.func @scaled_in_bf16
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @scaled_in_bf16(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<bf16>, %b: tensor<64x16xf8E4M3FN>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xbf16>
  %da = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<bf16>) outs(%ea : tensor<32x64xbf16>) {
  ^bb0(%q: f8E4M3FN, %s: bf16, %o: bf16):
    %x = arith.extf %q : f8E4M3FN to bf16
    %y = arith.mulf %x, %s : bf16
    linalg.yield %y : bf16
  } -> tensor<32x64xbf16>
  %eb = tensor.empty() : tensor<64x16xbf16>
  %db = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x16xf8E4M3FN>) outs(%eb : tensor<64x16xbf16>) {
  ^bb0(%q: f8E4M3FN, %o: bf16):
    %x = arith.extf %q : f8E4M3FN to bf16
    linalg.yield %x : bf16
  } -> tensor<64x16xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: a bf16 value computed by `arith.mulf`: scaled dequantization is read in f32 only}}
  %d = linalg.matmul ins(%da, %db : tensor<32x64xbf16>, tensor<64x16xbf16>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#blk = affine_map<(i, j) -> (i)>
// Blocks of 32 flattened across rows of 48: a block straddles two rows.
// CHECK-LABEL: func.func @blocks_straddling_rows
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @blocks_straddling_rows(%a: tensor<48x32xf8E4M3FN>, %sa: tensor<48xf32>, %b: tensor<16x48xf8E4M3FN>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<48x32xf32>
  %da = linalg.generic {indexing_maps = [#id, #blk, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<48x32xf8E4M3FN>, tensor<48xf32>) outs(%ea : tensor<48x32xf32>) {
  ^bb0(%q: f8E4M3FN, %s: f32, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<48x32xf32>
  %fa = tensor.collapse_shape %da [[0, 1]] : tensor<48x32xf32> into tensor<1536xf32>
  %ra = tensor.expand_shape %fa [[0, 1]] output_shape [32, 48] : tensor<1536xf32> into tensor<32x48xf32>
  %eb = tensor.empty() : tensor<16x48xf32>
  %db = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x48xf8E4M3FN>) outs(%eb : tensor<16x48xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<16x48xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: a reshape of tensor<48x32xf32> to tensor<32x48xf32> that is not whole blocks of each row}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%ra, %db : tensor<32x48xf32>, tensor<16x48xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// Quantized data widened through a type that rounds it (f6E2M3FN has 3
// mantissa bits, f8E5M2 2): not the data's values.
// CHECK-LABEL: func.func @f6_through_e5m2
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @f6_through_e5m2(%a: tensor<32x64xf6E2M3FN>, %b: tensor<64x16xf8E4M3FN>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %wa = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf6E2M3FN>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f6E2M3FN, %o: f32):
    %h = arith.extf %q : f6E2M3FN to f8E5M2
    %x = arith.extf %h : f8E5M2 to f32
    linalg.yield %x : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<64x16xf32>
  %wb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x16xf8E4M3FN>) outs(%eb : tensor<64x16xf32>) {
  ^bb0(%q: f8E4M3FN, %o: f32):
    %x = arith.extf %q : f8E4M3FN to f32
    linalg.yield %x : f32
  } -> tensor<64x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: a f8E5M2 value computed by `arith.extf`}}
  %d = linalg.matmul ins(%wa, %wb : tensor<32x64xf32>, tensor<64x16xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#mx = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// E8M0 bits decoded with uitofp of the signed difference e - 127: for
// e < 127 that is 2^32 - (127 - e), not 2^(e - 127).
// CHECK-LABEL: func.func @e8m0_uitofp_of_difference
// CHECK-NOT:   qmm.matmul
// CHECK:       linalg.matmul
func.func @e8m0_uitofp_of_difference(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xi8>,
                                     %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) -> tensor<32x16xf32> {
  %ea = tensor.empty() : tensor<32x64xf32>
  %da = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : tensor<32x64xf8E4M3FN>, tensor<32x2xi8>) outs(%ea : tensor<32x64xf32>) {
  ^bb0(%q: f8E4M3FN, %e: i8, %o: f32):
    %w = arith.extui %e : i8 to i32
    %c127 = arith.constant 127 : i32
    %u = arith.subi %w, %c127 : i32
    %f = arith.uitofp %u : i32 to f32
    %two = arith.constant 2.0 : f32
    %p = math.powf %two, %f : f32
    %c255 = arith.constant -1 : i8
    %is = arith.cmpi eq, %e, %c255 : i8
    %nan = arith.constant 0x7FC00000 : f32
    %s = arith.select %is, %nan, %p : f32
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %eb = tensor.empty() : tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #mx, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) outs(%eb : tensor<16x64xf32>) {
  ^bb0(%q: f8E4M3FN, %e8: f8E8M0FNU, %o: f32):
    %s = arith.extf %e8 : f8E8M0FNU to f32
    %x = arith.extf %q : f8E4M3FN to f32
    %y = arith.mulf %s, %x : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @below {{A: the scale is computed in the body by `arith.select`}}
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<32x64xf32>, tensor<16x64xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}
