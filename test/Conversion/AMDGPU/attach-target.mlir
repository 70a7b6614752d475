// RUN: fp8-opt %s --split-input-file --qmm-attach-target=chip=gfx950 | FileCheck %s

// The module records its chip as an upstream ROCDL target.
// CHECK-LABEL: module attributes {qmm.target = #rocdl.target<chip = "gfx950">}
// CHECK: func.func @empty
func.func @empty() {
  return
}

// -----

// A module that already targets the same chip keeps its target.
// CHECK-LABEL: module attributes {qmm.target = #rocdl.target<chip = "gfx950">}
// CHECK: func.func @already_gfx950
module attributes {qmm.target = #rocdl.target<chip = "gfx950">} {
  func.func @already_gfx950() {
    return
  }
}
