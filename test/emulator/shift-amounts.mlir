// REQUIRES: numpy
// Shifts by the bit width or more are poison in LLVM (and undefined on the
// host); the emulator defines them: shli and shrui give 0, shrsi the sign,
// so that a select discarding them stays valid. The amount is read as an
// unsigned number of the operand's width (i8 -1 is 255).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/i32.npy', n.zeros(64, n.int32))"
// RUN: fp8-run --device emu --module %s --kernel shifts --arg %t/i32.npy --arg i32:-8 --arg i32:32 --out %t/by32
// RUN: fp8-run --device emu --module %s --kernel shifts --arg %t/i32.npy --arg i32:-8 --arg i32:-1 --out %t/by-1
// RUN: fp8-run --device emu --module %s --kernel shifts --arg %t/i32.npy --arg i32:-8 --arg i32:1 --out %t/by1
// RUN: %python -c "import numpy as n; print(*[list(n.load('%t/' + d + '/arg0.npy')[:3]) for d in ['by32', 'by-1', 'by1']])" | FileCheck %s
// CHECK: [0, 0, -1] [0, 0, -1] [-16, 2147483644, -4]
// RUN: fp8-run --device emu --module %s --kernel shift_i8 --arg %t/i32.npy --out %t/i8
// RUN: %python -c "import numpy as n; print(*n.load('%t/i8/arg0.npy')[:3])" | FileCheck %s --check-prefix=I8
// I8: 0 0 -1

module attributes {gpu.container_module} {
gpu.module @kernels {
// out = [x << s, x >>u s, x >>s s]
gpu.func @shifts(%out: memref<64xi32>, %x: i32, %s: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %l = arith.shli %x, %s : i32
  %u = arith.shrui %x, %s : i32
  %r = arith.shrsi %x, %s : i32
  memref.store %l, %out[%c0] : memref<64xi32>
  memref.store %u, %out[%c1] : memref<64xi32>
  memref.store %r, %out[%c2] : memref<64xi32>
  gpu.return
}
// i8 -8 shifted by -1 (255), sign-extended to i32.
gpu.func @shift_i8(%out: memref<64xi32>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = arith.constant -8 : i8
  %s = arith.constant -1 : i8
  %l = arith.shli %x, %s : i8
  %u = arith.shrui %x, %s : i8
  %r = arith.shrsi %x, %s : i8
  %l32 = arith.extsi %l : i8 to i32
  %u32 = arith.extsi %u : i8 to i32
  %r32 = arith.extsi %r : i8 to i32
  memref.store %l32, %out[%c0] : memref<64xi32>
  memref.store %u32, %out[%c1] : memref<64xi32>
  memref.store %r32, %out[%c2] : memref<64xi32>
  gpu.return
}
}
}
