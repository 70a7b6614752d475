// REQUIRES: numpy
// Integer division by zero and signed division overflow (the minimum value
// by -1) are undefined behaviour in LLVM IR, and trap the host if computed
// there: each is an error naming the op, for every width, on the lanes that
// execute the op (lanes outside the exec mask do not count).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/i64.npy', n.zeros(64, n.int64)); n.save('%t/i32.npy', n.zeros(64, n.int32))"

// By zero, i64 and i32, every division op:
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel divsi_i64 --arg %t/i64.npy --arg i64:7 --arg i64:0 2>&1 | FileCheck %s --check-prefix=DIVSI-ZERO
// DIVSI-ZERO: fp8-run: error: emulator: integer division by zero on lane 0 ('arith.divsi' at {{.*}}integer-division.mlir:[[# @LINE + 59]]:8)
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel remsi_i64 --arg %t/i64.npy --arg i64:7 --arg i64:0 2>&1 | FileCheck %s --check-prefix=REMSI-ZERO
// REMSI-ZERO: integer division by zero on lane 0 ('arith.remsi'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel divui_i64 --arg %t/i64.npy --arg i64:7 --arg i64:0 2>&1 | FileCheck %s --check-prefix=DIVUI-ZERO
// DIVUI-ZERO: integer division by zero on lane 0 ('arith.divui'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel remui_i64 --arg %t/i64.npy --arg i64:7 --arg i64:0 2>&1 | FileCheck %s --check-prefix=REMUI-ZERO
// REMUI-ZERO: integer division by zero on lane 0 ('arith.remui'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel floordivsi_i64 --arg %t/i64.npy --arg i64:7 --arg i64:0 2>&1 | FileCheck %s --check-prefix=FLOOR-ZERO
// FLOOR-ZERO: integer division by zero on lane 0 ('arith.floordivsi'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel ceildivsi_i64 --arg %t/i64.npy --arg i64:7 --arg i64:0 2>&1 | FileCheck %s --check-prefix=CEIL-ZERO
// CEIL-ZERO: integer division by zero on lane 0 ('arith.ceildivsi'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel ceildivui_i64 --arg %t/i64.npy --arg i64:7 --arg i64:0 2>&1 | FileCheck %s --check-prefix=CEILU-ZERO
// CEILU-ZERO: integer division by zero on lane 0 ('arith.ceildivui'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel divsi_i32 --arg %t/i32.npy --arg i32:7 --arg i32:0 2>&1 | FileCheck %s --check-prefix=DIVSI32-ZERO
// DIVSI32-ZERO: integer division by zero on lane 0 ('arith.divsi'

// The minimum value by -1 overflows: i64 (which traps the host) and i32
// (which does not, and was silently INT_MIN, or 0 for remsi).
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel divsi_i64 --arg %t/i64.npy --arg i64:-9223372036854775808 --arg i64:-1 2>&1 | FileCheck %s --check-prefix=DIVSI-MIN
// DIVSI-MIN: fp8-run: error: emulator: signed integer division overflows (-9223372036854775808 / -1) on lane 0 ('arith.divsi' at {{.*}}integer-division.mlir:[[# @LINE + 40]]:8)
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel remsi_i64 --arg %t/i64.npy --arg i64:-9223372036854775808 --arg i64:-1 2>&1 | FileCheck %s --check-prefix=REMSI-MIN
// REMSI-MIN: signed integer division overflows (-9223372036854775808 / -1) on lane 0 ('arith.remsi'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel floordivsi_i64 --arg %t/i64.npy --arg i64:-9223372036854775808 --arg i64:-1 2>&1 | FileCheck %s --check-prefix=FLOOR-MIN
// FLOOR-MIN: signed integer division overflows (-9223372036854775808 / -1) on lane 0 ('arith.floordivsi'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel ceildivsi_i64 --arg %t/i64.npy --arg i64:-9223372036854775808 --arg i64:-1 2>&1 | FileCheck %s --check-prefix=CEIL-MIN
// CEIL-MIN: signed integer division overflows (-9223372036854775808 / -1) on lane 0 ('arith.ceildivsi'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel divsi_i32 --arg %t/i32.npy --arg i32:-2147483648 --arg i32:-1 2>&1 | FileCheck %s --check-prefix=DIVSI32-MIN
// DIVSI32-MIN: signed integer division overflows (-2147483648 / -1) on lane 0 ('arith.divsi'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel remsi_i32 --arg %t/i32.npy --arg i32:-2147483648 --arg i32:-1 2>&1 | FileCheck %s --check-prefix=REMSI32-MIN
// REMSI32-MIN: signed integer division overflows (-2147483648 / -1) on lane 0 ('arith.remsi'

// Defined cases, worked out by hand: signed ops round toward zero (divsi,
// remsi), down (floordivsi) or up (ceildivsi); unsigned ops read -1 as
// 2^64 - 1.
// RUN: fp8-run --device emu --module %s --kernel divsi_i64 --arg %t/i64.npy --arg i64:-7 --arg i64:2 --out %t/divsi
// RUN: fp8-run --device emu --module %s --kernel remsi_i64 --arg %t/i64.npy --arg i64:-7 --arg i64:2 --out %t/remsi
// RUN: fp8-run --device emu --module %s --kernel floordivsi_i64 --arg %t/i64.npy --arg i64:7 --arg i64:-2 --out %t/floor
// RUN: fp8-run --device emu --module %s --kernel ceildivsi_i64 --arg %t/i64.npy --arg i64:-7 --arg i64:2 --out %t/ceil
// RUN: fp8-run --device emu --module %s --kernel ceildivui_i64 --arg %t/i64.npy --arg i64:7 --arg i64:2 --out %t/ceilu
// RUN: fp8-run --device emu --module %s --kernel ceildivui_i64 --arg %t/i64.npy --arg i64:0 --arg i64:5 --out %t/ceilu0
// RUN: fp8-run --device emu --module %s --kernel remui_i64 --arg %t/i64.npy --arg i64:-1 --arg i64:10 --out %t/remui
// RUN: fp8-run --device emu --module %s --kernel remsi_i32 --arg %t/i32.npy --arg i32:-2147483648 --arg i32:3 --out %t/remsi32
// RUN: %python -c "import numpy as n; print(*[n.load('%t/' + d + '/arg0.npy')[63] for d in ['divsi', 'remsi', 'floor', 'ceil', 'ceilu', 'ceilu0', 'remui', 'remsi32']])" | FileCheck %s --check-prefix=VALUES
// VALUES: -3 -1 -4 -3 4 0 5 -2

// Only lanes 33-63 divide (by lane - 32); lane 32 divides by 0 and lane 31
// divides the minimum by -1 outside the exec mask: no error, and
// out[l] = a / (l - 32) on the lanes that divide, 0 elsewhere.
// RUN: fp8-run --device emu --module %s --kernel masked_divsi --arg %t/i64.npy --arg i64:1000 --out %t/masked
// RUN: %python -c "import numpy as n; o = n.load('%t/masked/arg0.npy'); print(o[31], o[32], o[33], o[40], o[63])" | FileCheck %s --check-prefix=MASKED
// MASKED: 0 0 1000 125 32
// RUN: fp8-run --device emu --module %s --kernel masked_divsi --arg %t/i64.npy --arg i64:-9223372036854775808 --out %t/masked-min
// RUN: %python -c "import numpy as n; o = n.load('%t/masked-min/arg0.npy'); print(o[31], o[33], o[34])" | FileCheck %s --check-prefix=MASKED-MIN
// MASKED-MIN: 0 -9223372036854775808 -4611686018427387904

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @divsi_i64(%out: memref<64xi64>, %a: i64, %b: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.divsi %a, %b : i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @remsi_i64(%out: memref<64xi64>, %a: i64, %b: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.remsi %a, %b : i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @divui_i64(%out: memref<64xi64>, %a: i64, %b: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.divui %a, %b : i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @remui_i64(%out: memref<64xi64>, %a: i64, %b: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.remui %a, %b : i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @floordivsi_i64(%out: memref<64xi64>, %a: i64, %b: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.floordivsi %a, %b : i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @ceildivsi_i64(%out: memref<64xi64>, %a: i64, %b: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.ceildivsi %a, %b : i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @ceildivui_i64(%out: memref<64xi64>, %a: i64, %b: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.ceildivui %a, %b : i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @divsi_i32(%out: memref<64xi32>, %a: i32, %b: i32) kernel {
  %lane = gpu.lane_id
  %r = arith.divsi %a, %b : i32
  memref.store %r, %out[%lane] : memref<64xi32>
  gpu.return
}
gpu.func @remsi_i32(%out: memref<64xi32>, %a: i32, %b: i32) kernel {
  %lane = gpu.lane_id
  %r = arith.remsi %a, %b : i32
  memref.store %r, %out[%lane] : memref<64xi32>
  gpu.return
}
gpu.func @masked_divsi(%out: memref<64xi64>, %a: i64) kernel {
  %lane = gpu.lane_id
  %c32 = arith.constant 32 : index
  %d = arith.subi %lane, %c32 : index
  %b = arith.index_cast %d : index to i64
  %min = arith.constant -9223372036854775808 : i64
  %c31 = arith.constant 31 : index
  %is31 = arith.cmpi eq, %lane, %c31 : index
  %dividend = arith.select %is31, %min, %a : i64
  %divides = arith.cmpi ugt, %lane, %c32 : index
  scf.if %divides {
    %q = arith.divsi %dividend, %b : i64
    memref.store %q, %out[%lane] : memref<64xi64>
  }
  gpu.return
}
}
}
