// REQUIRES: numpy
// Launch extents are checked against the chip's limits, as HIP checks them:
// at most 1024 threads per workgroup and 1024 per dimension, and
// gridDim * blockDim below 2^32 in each dimension (the dispatch packet's
// grid is a u32 count of work-items). Out of them: bad input, one line,
// exit code 2 (a grid of 2^32 workgroups used to run for ever).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/f32.npy', n.zeros(64, n.float32))"

// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel empty --block 1024,2 --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: fp8-run: error: --block: at most 1024 threads per workgroup, got 2048
// The product overflows int64:
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel empty --block 4294967296,4294967296 --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=THREADS-OVERFLOW
// THREADS-OVERFLOW: fp8-run: error: --block: at most 1024 threads per workgroup, got 4294967296,4294967296,1

// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel empty --grid 4294967296 --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=GRID-X
// GRID-X: fp8-run: error: --grid: x: 4294967296 workgroups of 64 threads exceed the 4294967295 work-items a grid dimension holds
// 2^26 workgroups of 64 threads along y: 2^32 work-items.
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel empty --grid 1,67108864 --block 1,64 --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=GRID-Y
// GRID-Y: fp8-run: error: --grid: y: 67108864 workgroups of 64 threads exceed the 4294967295 work-items a grid dimension holds
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel empty --grid 1,1,4294967295 --block 1,1,2 --arg %t/f32.npy 2>&1 | count 1

// Within the limits the launch is accepted (and refused by the operation
// limit, at least one op per empty workgroup):
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel empty --grid 67108863 --arg %t/f32.npy --emu-max-ops=10 2>&1 | FileCheck %s --check-prefix=ACCEPTED
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel empty --grid 4294967295 --block 1 --arg %t/f32.npy --emu-max-ops=10 2>&1 | FileCheck %s --check-prefix=ACCEPTED
// ACCEPTED: fp8-run: error: emulator: the launch's {{[0-9]+}} workgroups of 1 waves execute at least {{.*}} operations, above the limit of 10 executed operations
// RUN: fp8-run --device emu --module %s --kernel empty --block 16,16,4 --arg %t/f32.npy --stats | FileCheck %s --check-prefix=FULL
// FULL: kernel @empty on gfx942: 1 workgroups, 16 waves, 16 operations

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @empty(%out: memref<64xf32>) kernel {
  gpu.return
}
}
}
