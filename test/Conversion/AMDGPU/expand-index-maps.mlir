// RUN: fp8-opt %s -split-input-file --qmm-expand-index-maps | FileCheck %s

// A lane's K offset, (tid mod 64) floordiv 32 * 8: unsigned remainder and
// quotient, no compares or selects.
// CHECK-LABEL: func.func @lane_offset
// CHECK-SAME:  (%[[TID:.*]]: index)
// CHECK:       %[[LANE:.*]] = arith.remui %[[TID]], %c64{{(_[0-9]+)?}} : index
// CHECK:       %[[HALF:.*]] = arith.divui %[[LANE]], %c32{{(_[0-9]+)?}} : index
// CHECK:       %[[K:.*]] = arith.muli %[[HALF]], %c8{{(_[0-9]+)?}} : index
// CHECK:       return %[[K]]
// CHECK-NOT:   affine.apply
// CHECK-NOT:   arith.select
func.func @lane_offset(%tid: index) -> index {
  %k = affine.apply affine_map<()[s0] -> (((s0 mod 64) floordiv 32) * 8)>()[%tid]
  return %k : index
}

// -----

// Composition prints (w mod 2) * 64 as w * 64 - (w floordiv 2) * 128; the
// mod comes back (no subtraction).
// CHECK-LABEL: func.func @restored_mod
// CHECK-SAME:  (%[[W:.*]]: index)
// CHECK:       %[[M:.*]] = arith.remui %[[W]], %c2{{(_[0-9]+)?}} : index
// CHECK:       %[[R:.*]] = arith.muli %[[M]], %c64{{(_[0-9]+)?}} : index
// CHECK:       return %[[R]]
// CHECK-NOT:   arith.subi
func.func @restored_mod(%w: index) -> index {
  %r = affine.apply affine_map<()[s0] -> (s0 * 64 - (s0 floordiv 2) * 128)>()[%w]
  return %r : index
}

// -----

// d0 - ((d0 + 1) floordiv 2) * 2 + 1 is (d0 + 1) mod 2, a mod of a sum.
// CHECK-LABEL: func.func @restored_mod_of_sum
// CHECK-SAME:  (%[[I:.*]]: index)
// CHECK:       %[[S:.*]] = arith.addi %[[I]], %c1{{(_[0-9]+)?}} : index
// CHECK:       %[[M:.*]] = arith.remui %[[S]], %c2{{(_[0-9]+)?}} : index
// CHECK:       return %[[M]]
// CHECK-NOT:   arith.subi
func.func @restored_mod_of_sum(%i: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 - ((d0 + 1) floordiv 2) * 2 + 1)>(%i)
  return %r : index
}

// -----

// Loop invariants (symbols) are summed before the loop counter (d0), so
// their partial sum can be hoisted; the constant comes last.
// CHECK-LABEL: func.func @invariants_first
// CHECK-SAME:  (%[[IV:.*]]: index, %[[B:.*]]: index, %[[T:.*]]: index)
// CHECK:       %[[BS:.*]] = arith.muli %[[B]], %c128{{(_[0-9]+)?}} : index
// CHECK:       %[[TS:.*]] = arith.muli %[[T]], %c16{{(_[0-9]+)?}} : index
// CHECK:       %[[INV:.*]] = arith.addi %[[BS]], %[[TS]] : index
// CHECK:       %[[IVS:.*]] = arith.muli %[[IV]], %c128{{(_[0-9]+)?}} : index
// CHECK:       %[[SUM:.*]] = arith.addi %[[INV]], %[[IVS]] : index
// CHECK:       %[[R:.*]] = arith.addi %[[SUM]], %c7{{(_[0-9]+)?}} : index
// CHECK:       return %[[R]]
func.func @invariants_first(%iv: index, %b: index, %t: index) -> index {
  %r = affine.apply affine_map<(d0)[s0, s1] -> (d0 * 128 + s0 * 128 + s1 * 16 + 7)>(%iv)[%b, %t]
  return %r : index
}

// -----

// A negative term that is no mod is subtracted after every positive term
// and the positive constant, so no partial sum goes below the result.
// CHECK-LABEL: func.func @subtract_last
// CHECK-SAME:  (%[[X:.*]]: index, %[[Y:.*]]: index)
// CHECK:       %[[S:.*]] = arith.addi %[[X]], %c3{{(_[0-9]+)?}} : index
// CHECK:       %[[R:.*]] = arith.subi %[[S]], %[[Y]] : index
// CHECK:       return %[[R]]
func.func @subtract_last(%x: index, %y: index) -> index {
  %r = affine.apply affine_map<()[s0, s1] -> (s1 * -1 + s0 + 3)>()[%x, %y]
  return %r : index
}

// -----

// A dividend that may be negative (x - 5 for x < 5) keeps the exact
// signed floor division: -1 floordiv 4 is -1, which divui would not give.
// CHECK-LABEL: func.func @maybe_negative_dividend
// CHECK:       arith.select
// CHECK:       arith.divsi
// CHECK-NOT:   arith.divui
func.func @maybe_negative_dividend(%x: index) -> index {
  %r = affine.apply affine_map<()[s0] -> ((s0 - 5) floordiv 4)>()[%x]
  return %r : index
}
