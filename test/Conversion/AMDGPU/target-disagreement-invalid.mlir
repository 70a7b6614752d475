// RUN: fp8-opt %s -verify-diagnostics --qmm-tile-matmul=chip=gfx950

// A chip option that disagrees with the IR's target is an error, not a
// silent second target.
// expected-error @+1 {{qmm-tile-matmul: chip=gfx950 disagrees with the IR's target gfx942}}
module attributes {qmm.target = #rocdl.target<chip = "gfx942">} {
  func.func @disagreeing() {
    return
  }
}
