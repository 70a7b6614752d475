// REQUIRES: numpy
// affine.apply's mod, floordiv and ceildiv by a symbol: the affine lowering
// (expandAffineExpr) assumes a positive divisor, so a zero (which trapped
// the host) or negative one is an error naming the op, on the lanes that
// execute it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/i64.npy', n.zeros(64, n.int64))"

// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel mod --arg %t/i64.npy --arg index:-7 --arg index:0 2>&1 | FileCheck %s --check-prefix=MOD-ZERO
// MOD-ZERO: fp8-run: error: emulator: mod, floordiv or ceildiv by 0 on lane 0 (the affine lowering needs positive divisors) ('affine.apply' at {{.*}}affine-divisors.mlir:[[# @LINE + 29]]:8)
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel floordiv --arg %t/i64.npy --arg index:-7 --arg index:0 2>&1 | FileCheck %s --check-prefix=FLOOR-ZERO
// FLOOR-ZERO: mod, floordiv or ceildiv by 0 on lane 0 {{.*}}('affine.apply'
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel ceildiv --arg %t/i64.npy --arg index:-7 --arg index:0 2>&1 | FileCheck %s --check-prefix=CEIL-ZERO
// CEIL-ZERO: mod, floordiv or ceildiv by 0 on lane 0 {{.*}}('affine.apply'
// A negative divisor: the lowering would give -4 for -7 mod -3, not the
// mathematical 2 the emulator used to return.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel mod --arg %t/i64.npy --arg index:-7 --arg index:-3 2>&1 | FileCheck %s --check-prefix=MOD-NEGATIVE
// MOD-NEGATIVE: mod, floordiv or ceildiv by -3 on lane 0 {{.*}}('affine.apply'

// Positive divisors: -7 mod 3 = 2, -7 floordiv 3 = -3, -7 ceildiv 3 = -2,
// 7 ceildiv 3 = 3.
// RUN: fp8-run --device emu --module %s --kernel mod --arg %t/i64.npy --arg index:-7 --arg index:3 --out %t/mod
// RUN: fp8-run --device emu --module %s --kernel floordiv --arg %t/i64.npy --arg index:-7 --arg index:3 --out %t/floor
// RUN: fp8-run --device emu --module %s --kernel ceildiv --arg %t/i64.npy --arg index:-7 --arg index:3 --out %t/ceil
// RUN: fp8-run --device emu --module %s --kernel ceildiv --arg %t/i64.npy --arg index:7 --arg index:3 --out %t/ceil-positive
// RUN: %python -c "import numpy as n; print(*[n.load('%t/' + d + '/arg0.npy')[5] for d in ['mod', 'floor', 'ceil', 'ceil-positive']])" | FileCheck %s --check-prefix=VALUES
// VALUES: 2 -3 -2 3

// The divisor is lane - 32, and only lanes 33-63 evaluate the map:
// out[l] = 100 mod (l - 32) there (lane 40: 4, lane 63: 7), 0 elsewhere.
// RUN: fp8-run --device emu --module %s --kernel masked_mod --arg %t/i64.npy --out %t/masked
// RUN: %python -c "import numpy as n; o = n.load('%t/masked/arg0.npy'); print(o[0], o[32], o[33], o[40], o[63])" | FileCheck %s --check-prefix=MASKED
// MASKED: 0 0 0 4 7

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @mod(%out: memref<64xi64>, %a: index, %s: index) kernel {
  %lane = gpu.lane_id
  %r = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%a)[%s]
  %v = arith.index_cast %r : index to i64
  memref.store %v, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @floordiv(%out: memref<64xi64>, %a: index, %s: index) kernel {
  %lane = gpu.lane_id
  %r = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%a)[%s]
  %v = arith.index_cast %r : index to i64
  memref.store %v, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @ceildiv(%out: memref<64xi64>, %a: index, %s: index) kernel {
  %lane = gpu.lane_id
  %r = affine.apply affine_map<(d0)[s0] -> (d0 ceildiv s0)>(%a)[%s]
  %v = arith.index_cast %r : index to i64
  memref.store %v, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @masked_mod(%out: memref<64xi64>) kernel {
  %lane = gpu.lane_id
  %c32 = arith.constant 32 : index
  %c100 = arith.constant 100 : index
  %s = arith.subi %lane, %c32 : index
  %evaluates = arith.cmpi ugt, %lane, %c32 : index
  scf.if %evaluates {
    %r = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%c100)[%s]
    %v = arith.index_cast %r : index to i64
    memref.store %v, %out[%lane] : memref<64xi64>
  }
  gpu.return
}
}
}
