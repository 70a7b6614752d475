// RUN: fp8-opt %s -verify-diagnostics --pass-pipeline="builtin.module(gpu.module(qmm-lower-wave-store))"

// IR that names two chips (the module's target and a gpu.module's) is an
// error for a pass that reads the target there, not a silent choice.
module attributes {qmm.target = #rocdl.target<chip = "gfx950">, gpu.container_module} {
  // expected-error @+1 {{qmm-lower-wave-store: the IR names two target chips, gfx942 and gfx950 (on 'builtin.module')}}
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
  }
}
