// RUN: fp8-opt %s | FileCheck %s
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --mlir-print-op-generic | fp8-opt | FileCheck %s

// Every form of #qmm.scale, and the canonical spelling each prints as:
// the kind's default scale type and k_major are not printed.

// CHECK-LABEL: func.func private @per_tensor
// CHECK-SAME: a = #qmm.scale<per_tensor>
// CHECK-SAME: b = #qmm.scale<per_tensor>
func.func private @per_tensor() attributes {
  a = #qmm.scale<per_tensor>,
  b = #qmm.scale<per_tensor, f32, k_major>
}

// CHECK-LABEL: func.func private @per_row
// CHECK-SAME: a = #qmm.scale<per_row>
// CHECK-SAME: b = #qmm.scale<per_row, mn_major>
func.func private @per_row() attributes {
  a = #qmm.scale<per_row>,
  b = #qmm.scale<per_row, mn_major>
}

// CHECK-LABEL: func.func private @block
// CHECK-SAME: act = #qmm.scale<block 1x128>
// CHECK-SAME: act_t = #qmm.scale<block 1x128, mn_major>
// CHECK-SAME: odd = #qmm.scale<block 3x5>
// CHECK-SAME: weight = #qmm.scale<block 128x128>
func.func private @block() attributes {
  act = #qmm.scale<block 1x128>,
  act_t = #qmm.scale<block 1x128, mn_major>,
  weight = #qmm.scale<block 128x128, f32>,
  odd = #qmm.scale<block 3x5>
}

// CHECK-LABEL: func.func private @mx
// CHECK-SAME: a = #qmm.scale<mx>
// CHECK-SAME: b = #qmm.scale<mx>
// CHECK-SAME: c = #qmm.scale<mx, mn_major>
func.func private @mx() attributes {
  a = #qmm.scale<mx>,
  b = #qmm.scale<mx, f8E8M0FNU>,
  c = #qmm.scale<mx, mn_major>
}

// Options may come in any order.
// CHECK-LABEL: func.func private @option_order
// CHECK-SAME: a = #qmm.scale<block 1x128, mn_major>
// CHECK-SAME: b = #qmm.scale<mx, mn_major>
func.func private @option_order() attributes {
  a = #qmm.scale<block 1x128, mn_major, f32>,
  b = #qmm.scale<mx, mn_major, f8E8M0FNU>
}
