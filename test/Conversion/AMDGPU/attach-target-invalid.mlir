// RUN: fp8-opt %s --split-input-file --verify-diagnostics --qmm-attach-target=chip=gfx942
// RUN: not fp8-opt %s --split-input-file --qmm-attach-target=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// A module compiled for one chip is not silently retargeted.
// expected-error @+1 {{qmm-attach-target: chip=gfx942 disagrees with the IR's target gfx950}}
module attributes {qmm.target = #rocdl.target<chip = "gfx950">} {
  func.func @already_gfx950() {
    return
  }
}

// -----

// UNKNOWN: qmm-attach-target: unknown chip 'gfx90a' (expected gfx942, gfx950 or sm_90a)
func.func @any() {
  return
}
