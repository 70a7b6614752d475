// REQUIRES: numpy
// Launch mode's scalar arguments must be well-formed numbers within their
// type's range (i32:2147483648 used to wrap silently): unsigned types take
// [0, 2^w - 1], signed and signless ones the signed range, i1 0 and 1. And
// flags launch mode does not read (GEMM mode's) are rejected rather than
// ignored. Each error is one line with exit code 2.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/i64.npy', n.zeros(8, n.int64))"

// The extremes are accepted, and arrive as they were written.
// RUN: fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:-128 --arg i32:2147483647 --arg i64:-9223372036854775808 --arg index:9223372036854775807 --arg ui8:255 --out %t/ok
// RUN: %python -c "import numpy as n; print(*n.load('%t/ok/arg0.npy')[:5])" | FileCheck %s --check-prefix=OK
// OK: 1 -128 2147483647 -9223372036854775808 9223372036854775807
// RUN: fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:0 --arg i8:127 --arg i32:-2147483648 --arg i64:0x7fffffffffffffff --arg index:-9223372036854775808 --arg ui8:0 --out %t/ok2
// RUN: %python -c "import numpy as n; print(*n.load('%t/ok2/arg0.npy')[:5])" | FileCheck %s --check-prefix=OK2
// OK2: 0 127 -2147483648 9223372036854775807 -9223372036854775808

// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:2147483648 --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=I32-HIGH
// I32-HIGH: fp8-run: error: --arg 3: 2147483648 is out of range for i32 [-2147483648, 2147483647]
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:2147483648 --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | count 1
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:-2147483649 --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=I32-LOW
// I32-LOW: fp8-run: error: --arg 3: -2147483649 is out of range for i32 [-2147483648, 2147483647]
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:128 --arg i32:0 --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=I8
// I8: fp8-run: error: --arg 2: 128 is out of range for i8 [-128, 127]
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:2 --arg i8:0 --arg i32:0 --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=I1
// I1: fp8-run: error: --arg 1: 2 is out of range for i1 [0, 1]
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:0 --arg i64:9223372036854775808 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=I64
// I64: fp8-run: error: --arg 4: 9223372036854775808 is out of range for i64 [-9223372036854775808, 9223372036854775807]
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:0 --arg i64:0 --arg index:-99999999999999999999999 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: fp8-run: error: --arg 5: -99999999999999999999999 is out of range for index [-9223372036854775808, 9223372036854775807]
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:0 --arg i64:0 --arg index:0 --arg ui8:256 2>&1 | FileCheck %s --check-prefix=UI8
// UI8: fp8-run: error: --arg 6: 256 is out of range for ui8 [0, 255]
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:0 --arg i64:0 --arg index:0 --arg ui8:-1 2>&1 | FileCheck %s --check-prefix=UI8-NEGATIVE
// UI8-NEGATIVE: fp8-run: error: --arg 6: -1 is out of range for ui8 [0, 255]

// Malformed numbers:
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:12a --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=SUFFIX
// SUFFIX: fp8-run: error: --arg 3: '12a' is not an integer
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32: --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: fp8-run: error: --arg 3: '' is not an integer
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel scalars --arg %t/i64.npy --arg i1:1 --arg i8:0 --arg i32:-+5 --arg i64:0 --arg index:0 --arg ui8:0 2>&1 | FileCheck %s --check-prefix=SIGNS
// SIGNS: fp8-run: error: --arg 3: '-+5' is not an integer
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1e40 2>&1 | FileCheck %s --check-prefix=F32-RANGE
// F32-RANGE: fp8-run: error: --arg 1: 1e40 is out of range for f32
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1.5x 2>&1 | FileCheck %s --check-prefix=F32-MALFORMED
// F32-MALFORMED: fp8-run: error: --arg 1: '1.5x' is not a number

// GEMM-mode flags:
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1 --gemm 64x64x64 2>&1 | FileCheck %s --check-prefix=GEMM
// GEMM: fp8-run: error: --gemm is not used in launch mode (--module)
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1 --json 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: fp8-run: error: --json is not used in launch mode (--module)
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1 --load %t 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: fp8-run: error: --load is not used in launch mode (--module)
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1 --a-type f8E4M3FN 2>&1 | FileCheck %s --check-prefix=A-TYPE
// A-TYPE: fp8-run: error: --a-type is not used in launch mode (--module)
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1 --accumulate 2>&1 | FileCheck %s --check-prefix=ACCUMULATE
// ACCUMULATE: fp8-run: error: --accumulate is not used in launch mode (--module)
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel float --arg %t/i64.npy --arg f32:1 --seed 3 --save %t/s 2>&1 | count 1
// Launch mode's own flags (--chip, --stats, --iters, --emu-max-ops) are read:
// RUN: fp8-run --device emu --chip gfx950 --module %s --kernel float --arg %t/i64.npy --arg f32:1 --stats --iters 2 --emu-max-ops=100 | FileCheck %s --check-prefix=OWN
// OWN: note: --iters times hip launches; the emulator ran the kernel once
// OWN: kernel @float on gfx950: 1 workgroups, 1 waves, 1 operations

module attributes {gpu.container_module} {
gpu.module @kernels {
// out = [a, b, c, d, e] (a zero-extended, the others sign-extended)
gpu.func @scalars(%out: memref<8xi64>, %a: i1, %b: i8, %c: i32, %d: i64, %e: index, %f: ui8) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a64 = arith.extui %a : i1 to i64
  %b64 = arith.extsi %b : i8 to i64
  %c64 = arith.extsi %c : i32 to i64
  %e64 = arith.index_cast %e : index to i64
  memref.store %a64, %out[%c0] : memref<8xi64>
  memref.store %b64, %out[%c1] : memref<8xi64>
  memref.store %c64, %out[%c2] : memref<8xi64>
  memref.store %d, %out[%c3] : memref<8xi64>
  memref.store %e64, %out[%c4] : memref<8xi64>
  gpu.return
}
gpu.func @float(%out: memref<8xi64>, %x: f32) kernel {
  gpu.return
}
}
}
