// REQUIRES: numpy
// The interpreter runs single-block regions: a kernel with branches is
// rejected before it runs (it used to stop at the first branch and report
// success, the rest of the kernel never run).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/f32.npy', n.zeros(64, n.float32))"
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel branches --arg %t/f32.npy 2>&1 | FileCheck %s
// CHECK: fp8-run: error: emulator: unstructured control flow is not supported by the emulator ('cf.br' at {{.*}}unstructured-control-flow.mlir:[[# @LINE + 7]]:3)

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @branches(%out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %one = arith.constant 1.0 : f32
  cf.br ^store
^store:
  memref.store %one, %out[%lane] : memref<64xf32>
  gpu.return
}
}
}
