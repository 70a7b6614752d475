// REQUIRES: numpy
// Float to integer conversions of NaN and out-of-range values, which LLVM
// leaves poison (and C++ leaves undefined on the host): defined as the
// hardware's v_cvt_i32_f32 / v_cvt_u32_f32 do, toward zero, saturated to
// the result type's range, NaN to 0. Integer to float conversions round
// once (an i64 was rounded twice, through f64).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/i32.npy', n.zeros(64, n.int32)); n.save('%t/i64.npy', n.zeros(64, n.int64)); n.save('%t/f32.npy', n.zeros(64, n.float32))"

// fptosi to i32: 3e9 and -3e9 saturate, -1.5 goes toward zero.
// RUN: fp8-run --device emu --module %s --kernel fptosi_i32 --arg %t/i32.npy --arg f32:3e9 --out %t/si-high
// RUN: fp8-run --device emu --module %s --kernel fptosi_i32 --arg %t/i32.npy --arg f32:-3e9 --out %t/si-low
// RUN: fp8-run --device emu --module %s --kernel fptosi_i32 --arg %t/i32.npy --arg f32:-1.5 --out %t/si-small
// RUN: %python -c "import numpy as n; print(*[n.load('%t/' + d + '/arg0.npy')[7] for d in ['si-high', 'si-low', 'si-small']])" | FileCheck %s --check-prefix=SI32
// SI32: 2147483647 -2147483648 -1

// fptoui to i32: negative values give 0, 5e9 saturates to 2^32 - 1.
// RUN: fp8-run --device emu --module %s --kernel fptoui_i32 --arg %t/i32.npy --arg f32:-5.0 --out %t/ui-negative
// RUN: fp8-run --device emu --module %s --kernel fptoui_i32 --arg %t/i32.npy --arg f32:5e9 --out %t/ui-high
// RUN: %python -c "import numpy as n; print(*[n.load('%t/' + d + '/arg0.npy').view(n.uint32)[7] for d in ['ui-negative', 'ui-high']])" | FileCheck %s --check-prefix=UI32
// UI32: 0 4294967295

// fptosi to i64: 1e19 and -1e19 saturate.
// RUN: fp8-run --device emu --module %s --kernel fptosi_i64 --arg %t/i64.npy --arg f32:1e19 --out %t/si64-high
// RUN: fp8-run --device emu --module %s --kernel fptosi_i64 --arg %t/i64.npy --arg f32:-1e19 --out %t/si64-low
// RUN: %python -c "import numpy as n; print(*[n.load('%t/' + d + '/arg0.npy')[7] for d in ['si64-high', 'si64-low']])" | FileCheck %s --check-prefix=SI64
// SI64: 9223372036854775807 -9223372036854775808

// NaN (0.0 / 0.0) gives 0, signed and unsigned.
// RUN: fp8-run --device emu --module %s --kernel nan_to_int --arg %t/i32.npy --out %t/nan
// RUN: %python -c "import numpy as n; print(*n.load('%t/nan/arg0.npy')[:2])" | FileCheck %s --check-prefix=NAN
// NAN: 0 0

// 2^62 + 2^38 + 1 lies just above the midpoint of two f32 neighbours
// (2^62 and 2^62 + 2^39): it rounds up. Through f64 it loses its last bit,
// lands on the midpoint and rounds to even, 2^62.
// RUN: fp8-run --device emu --module %s --kernel sitofp_i64 --arg %t/f32.npy --arg i64:4611686293305294849 --out %t/rounding
// RUN: %python -c "import numpy as n; o = n.load('%t/rounding/arg0.npy'); print('once' if o[0] == n.float32(2**62 + 2**39) else ('twice' if o[0] == n.float32(2**62) else o[0]))" | FileCheck %s --check-prefix=ROUNDING
// ROUNDING: once

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @fptosi_i32(%out: memref<64xi32>, %x: f32) kernel {
  %lane = gpu.lane_id
  %r = arith.fptosi %x : f32 to i32
  memref.store %r, %out[%lane] : memref<64xi32>
  gpu.return
}
gpu.func @fptoui_i32(%out: memref<64xi32>, %x: f32) kernel {
  %lane = gpu.lane_id
  %r = arith.fptoui %x : f32 to i32
  memref.store %r, %out[%lane] : memref<64xi32>
  gpu.return
}
gpu.func @fptosi_i64(%out: memref<64xi64>, %x: f32) kernel {
  %lane = gpu.lane_id
  %r = arith.fptosi %x : f32 to i64
  memref.store %r, %out[%lane] : memref<64xi64>
  gpu.return
}
gpu.func @nan_to_int(%out: memref<64xi32>) kernel {
  %zero = arith.constant 0.0 : f32
  %nan = arith.divf %zero, %zero : f32
  %s = arith.fptosi %nan : f32 to i32
  %u = arith.fptoui %nan : f32 to i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  memref.store %s, %out[%c0] : memref<64xi32>
  memref.store %u, %out[%c1] : memref<64xi32>
  gpu.return
}
gpu.func @sitofp_i64(%out: memref<64xf32>, %x: i64) kernel {
  %lane = gpu.lane_id
  %r = arith.sitofp %x : i64 to f32
  memref.store %r, %out[%lane] : memref<64xf32>
  gpu.return
}
}
}
