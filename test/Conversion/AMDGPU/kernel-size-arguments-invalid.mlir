// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-kernel-size-arguments

// A dynamic operand must be a dense row-major view: its base and extents
// say everything about it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{qmm-kernel-size-arguments: a dynamic memref argument must have the identity layout, got 'memref<?x256xf32, strided<[512, 1]>>'}}
    gpu.func @k(%a: memref<?x256xf32, strided<[512, 1]>>) kernel {
      gpu.return
    }
  }
}
