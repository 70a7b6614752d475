// RUN: fp8-opt %s -split-input-file --qmm-expand-index-maps -verify-diagnostics

// The expansion assumes non-negative operands; a negative constant breaks
// that visibly and is reported, not divided unsigned.
func.func @negative_operand() -> index {
  %c = arith.constant -3 : index
  // expected-error @+1 {{qmm-expand-index-maps: operand -3 is negative; kernel indices must not be}}
  %r = affine.apply affine_map<()[s0] -> (s0 floordiv 2)>()[%c]
  return %r : index
}
