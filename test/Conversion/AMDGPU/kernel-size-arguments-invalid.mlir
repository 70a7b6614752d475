// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-kernel-size-arguments

// A dynamic operand must have a strided layout: its base, offset, extents
// and strides then say everything about it. A permuted layout does not.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{qmm-kernel-size-arguments: a dynamic memref argument must have a strided layout, got 'memref<?x256xf32, affine_map<(d0, d1) -> (d1, d0)>>'}}
    gpu.func @k(%a: memref<?x256xf32, affine_map<(d0, d1) -> (d1, d0)>>) kernel {
      gpu.return
    }
  }
}
