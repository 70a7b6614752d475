// RUN: fp8-opt %s -verify-diagnostics --qmm-tile-matmul

// A module compiled for an NVIDIA chip is not an AMD pass's.
// expected-error @+1 {{qmm-tile-matmul: unknown chip 'sm_90a' (expected gfx942 or gfx950)}}
module attributes {qmm.target = #nvvm.target<chip = "sm_90a">} {
  func.func @nvidia() {
    return
  }
}
