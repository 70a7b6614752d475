// RUN: fp8-opt %s -verify-diagnostics --qmm-select-config

// A pass that needs a chip and finds none in its options or the IR says so.
// expected-error @+1 {{qmm-select-config: no target chip: set one with qmm-attach-target (or the pass's chip option), expected gfx942 or gfx950}}
module {
  func.func @no_target() {
    return
  }
}
