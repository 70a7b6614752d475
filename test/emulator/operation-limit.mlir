// REQUIRES: numpy
// Work is bounded: every op a wave executes counts (terminators included),
// and a launch that passes fp8-run's --emu-max-ops (default 2^26) stops with
// an error naming the op it reached. scf.for steps must be positive at run
// time (upstream requires it; such loops never ended).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/i64.npy', n.zeros(64, n.int64))"

// @sum with n = 10 executes 4 ops, the scf.for, 10 iterations of 3 ops,
// the store and the return: 37.
// RUN: fp8-run --device emu --module %s --kernel sum --arg %t/i64.npy --arg index:10 --stats | FileCheck %s --check-prefix=COUNT
// COUNT: kernel @sum on gfx942: 1 workgroups, 1 waves, 37 operations
// RUN: fp8-run --device emu --module %s --kernel sum --arg %t/i64.npy --arg index:10 --emu-max-ops=37 --out %t/sum
// RUN: %python -c "import numpy as n; print(n.load('%t/sum/arg0.npy')[9])" | FileCheck %s --check-prefix=SUM
// SUM: 45
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel sum --arg %t/i64.npy --arg index:10 --emu-max-ops=36 2>&1 | FileCheck %s --check-prefix=RETURN
// RETURN: fp8-run: error: emulator: the launch reached the limit of 36 executed operations ('gpu.return' at {{.*}}operation-limit.mlir:[[# @LINE + 60]]:3)

// 2^40 iterations: with a limit of 1000, the 5 ops before the loop and 331
// iterations take 998; the 332nd iteration's yield is op 1001.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel sum --arg %t/i64.npy --arg index:1099511627776 --emu-max-ops=1000 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: fp8-run: error: emulator: the launch reached the limit of 1000 executed operations ('scf.yield' at {{.*}}operation-limit.mlir:[[# @LINE + 52]]:5)

// A grid of 1000 empty workgroups of one wave: one op (the return) each;
// with two waves per workgroup, 2000.
// RUN: fp8-run --device emu --module %s --kernel empty --grid 100,10 --arg %t/i64.npy --emu-max-ops=1000 --stats | FileCheck %s --check-prefix=GRID
// GRID: kernel @empty on gfx942: 1000 workgroups, 1000 waves, 1000 operations
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel empty --grid 100,10 --block 128 --arg %t/i64.npy --emu-max-ops=1999 2>&1 | FileCheck %s --check-prefix=GRID-LIMIT
// GRID-LIMIT: the launch's 1000 workgroups of 2 waves execute at least 1000 x 2 operations, above the limit of 1999 executed operations

// A workgroup's start also counts one per 64 bytes of LDS it clears:
// @cleared has 4096 bytes, so 10 workgroups count 10 x (64 + 1) = 650.
// RUN: fp8-run --device emu --module %s --kernel cleared --grid 10 --arg %t/i64.npy --emu-max-ops=650 --stats | FileCheck %s --check-prefix=CLEARED
// CLEARED: kernel @cleared on gfx942: 10 workgroups, 10 waves, 10 operations
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel cleared --grid 10 --arg %t/i64.npy --emu-max-ops=649 2>&1 | FileCheck %s --check-prefix=CLEARED-LIMIT
// CLEARED-LIMIT: fp8-run: error: emulator: the launch reached the limit of 649 executed operations ('gpu.return'

// A grid whose waves alone pass the limit is refused before it runs
// (2^48 workgroups used to run for hours under the old default, 2^30, as
// the clearing was not counted); so is one just past it.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel cleared --grid 65536,65536,65536 --arg %t/i64.npy 2>&1 | FileCheck %s --check-prefix=HUGE-GRID
// HUGE-GRID: fp8-run: error: emulator: the launch's 281474976710656 workgroups of 1 waves execute at least 281474976710656 x 1 operations, above the limit of 67108864 executed operations (--emu-max-ops)
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel empty --grid 1001 --arg %t/i64.npy --emu-max-ops=1000 2>&1 | FileCheck %s --check-prefix=PAST-GRID
// PAST-GRID: the launch's 1001 workgroups of 1 waves execute at least 1001 x 1 operations, above the limit of 1000
// The default limit, 2^26, ends a loop that never stops (within seconds).
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel sum --arg %t/i64.npy --arg index:1099511627776 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: fp8-run: error: emulator: the launch reached the limit of 67108864 executed operations ('scf.

// Steps that do not advance:
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel stepped --arg %t/i64.npy --arg index:0 2>&1 | FileCheck %s --check-prefix=STEP-ZERO
// STEP-ZERO: fp8-run: error: emulator: scf.for step 0 on lane 0 is not positive ('scf.for' at {{.*}}operation-limit.mlir:[[# @LINE + 37]]:3)
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel stepped --arg %t/i64.npy --arg index:-2 2>&1 | FileCheck %s --check-prefix=STEP-NEGATIVE
// STEP-NEGATIVE: scf.for step -2 on lane 0 is not positive ('scf.for'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel stepped_unsigned --arg %t/i64.npy --arg index:0 2>&1 | FileCheck %s --check-prefix=STEP-UNSIGNED
// STEP-UNSIGNED: scf.for step 0 on lane 0 is not positive ('scf.for'

// The limit reaches GEMM mode too (the emulator device's launches).
// RUN: not fp8-run --device emu --gemm 64x64x128 --emu-max-ops=50 2>&1 | FileCheck %s --check-prefix=GEMM
// GEMM: fp8-run: error: emulator: the launch reached the limit of 50 executed operations ('
// RUN: %expect-exit 2 fp8-run --device emu --gemm 64x64x128 --emu-max-ops=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: fp8-run: error: --emu-max-ops: expected a positive count, got 0

module attributes {gpu.container_module} {
gpu.module @kernels {
// out[lane] = 0 + 1 + ... + (n - 1)
gpu.func @sum(%out: memref<64xi64>, %n: index) kernel {
  %lane = gpu.lane_id
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> i64 {
    %v = arith.index_cast %i : index to i64
    %s = arith.addi %acc, %v : i64
    scf.yield %s : i64
  }
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @empty(%out: memref<64xi64>) kernel {
  gpu.return
}
gpu.func @cleared(%out: memref<64xi64>) workgroup(%lds : memref<1024xf32, #gpu.address_space<workgroup>>) kernel {
  gpu.return
}
gpu.func @stepped(%out: memref<64xi64>, %step: index) kernel {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %step {
  }
  gpu.return
}
gpu.func @stepped_unsigned(%out: memref<64xi64>, %step: index) kernel {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  scf.for unsigned %i = %c0 to %c10 step %step {
  }
  gpu.return
}
}
}
