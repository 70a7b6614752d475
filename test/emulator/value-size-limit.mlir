// REQUIRES: numpy
// Values the emulator would have to allocate without bound (a huge vector
// constant aborted with std::bad_alloc) are rejected before the kernel
// runs, naming the op: a vector holds at most 4096 elements per lane, a
// constant global at most 256 MiB.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/f32.npy', n.zeros(64, n.float32))"

// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel huge_constant --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=CONSTANT
// CONSTANT: fp8-run: error: emulator: vector<1073741824xf32> is above the emulator's limit of 4096 elements per lane ('arith.constant' at {{.*}}value-size-limit.mlir:[[# @LINE + 18]]:8)
// A shape whose element count overflows int64:
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel overflowing_shape --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: fp8-run: error: emulator: vector<4294967296x4294967296xf32> is above the emulator's limit of 4096 elements per lane ('vector.broadcast' at {{.*}}value-size-limit.mlir:[[# @LINE + 23]]:8)
// At the limit and one past it:
// RUN: fp8-run --device emu --module %s --kernel at_limit --arg %t/f32.npy --out %t/at-limit
// RUN: %python -c "import numpy as n; print(n.load('%t/at-limit/arg0.npy')[5])" | FileCheck %s --check-prefix=AT-LIMIT
// AT-LIMIT: 2.0
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel past_limit --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=PAST-LIMIT
// PAST-LIMIT: fp8-run: error: emulator: vector<4097xf32> is above the emulator's limit of 4096 elements per lane ('vector.broadcast'

// A 4 GiB constant global:
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel reads_big_global --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: fp8-run: error: emulator: constant global of type memref<1073741824xf32> is above the emulator's limit of 268435456 bytes ('memref.global' at {{.*}}value-size-limit.mlir:[[# @LINE + 31]]:1)

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @huge_constant(%out: memref<64xf32>) kernel {
  %v = arith.constant dense<0.0> : vector<1073741824xf32>
  %e = vector.extract %v[0] : f32 from vector<1073741824xf32>
  %lane = gpu.lane_id
  memref.store %e, %out[%lane] : memref<64xf32>
  gpu.return
}
gpu.func @overflowing_shape(%out: memref<64xf32>) kernel {
  %f = arith.constant 1.0 : f32
  %v = vector.broadcast %f : f32 to vector<4294967296x4294967296xf32>
  gpu.return
}
gpu.func @at_limit(%out: memref<64xf32>) kernel {
  %f = arith.constant 2.0 : f32
  %v = vector.broadcast %f : f32 to vector<64x64xf32>
  %e = vector.extract %v[63, 63] : f32 from vector<64x64xf32>
  %lane = gpu.lane_id
  memref.store %e, %out[%lane] : memref<64xf32>
  gpu.return
}
gpu.func @past_limit(%out: memref<64xf32>) kernel {
  %f = arith.constant 2.0 : f32
  %v = vector.broadcast %f : f32 to vector<4097xf32>
  gpu.return
}
}
gpu.module @globals {
memref.global "private" constant @big : memref<1073741824xf32> = dense<0.0>
gpu.func @reads_big_global(%out: memref<64xf32>) kernel {
  %g = memref.get_global @big : memref<1073741824xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %g[%c0] : memref<1073741824xf32>
  %lane = gpu.lane_id
  memref.store %v, %out[%lane] : memref<64xf32>
  gpu.return
}
}
}
