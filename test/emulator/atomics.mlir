// REQUIRES: numpy
// memref.atomic_rmw on integers: every active lane reads, combines and
// writes back one at a time, and gets the value it read. Two workgroups of
// 64 lanes each add 1 to one counter: the counter ends at 128 and the values
// read are 0..127, each once. Signed and unsigned max/min, and (a no-op for
// the emulator, which completes every access when it executes) llvm.fence.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/seen.npy', n.zeros(128, n.int32)); n.save('%t/cells.npy', n.array([0, -5, -5, 7, 7, 3, 100], n.int32))"
// RUN: fp8-run --device emu --module %s --kernel count --grid 2,1,1 --block 64,1,1 --arg %t/seen.npy --arg %t/cells.npy --out %t/out
// RUN: %python -c "import numpy as n; s = n.load('%t/out/arg0.npy'); c = n.load('%t/out/arg1.npy'); print(sorted(s.tolist()) == list(range(128)), c.tolist())" | FileCheck %s
// Counter 128; maxs(-5, 2) = 2 and maxu(-5, 2) = -5 (0xfffffffb); mins(7, -1)
// = -1 and minu(7, -1) = 7; ori(3, 4) = 7; assign 9 over 100.
// CHECK: True [128, 2, -5, -1, 7, 7, 9]
// With the workgroups run in reverse, workgroup 1 counts first.
// RUN: fp8-run --device emu --module %s --kernel count --grid 2,1,1 --block 64,1,1 --arg %t/seen.npy --arg %t/cells.npy --out %t/reverse --emu-workgroup-order reverse
// RUN: %python -c "import numpy as n; s = n.load('%t/reverse/arg0.npy'); print(s[64], s[0])" | FileCheck %s --check-prefix=REVERSE
// REVERSE: 0 64

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @count(%seen: memref<128xi32>, %cells: memref<7xi32>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %minus1 = arith.constant -1 : i32
  %four = arith.constant 4 : i32
  %nine = arith.constant 9 : i32
  %block = gpu.block_id x
  %lane = gpu.thread_id x
  %first = arith.muli %block, %c64 : index
  %slot = arith.addi %first, %lane : index
  llvm.fence syncscope("agent") release
  %before = memref.atomic_rmw addi %one, %cells[%c0] : (i32, memref<7xi32>) -> i32
  llvm.fence syncscope("agent") acquire
  memref.store %before, %seen[%slot] : memref<128xi32>
  %is0 = arith.cmpi eq, %slot, %c0 : index
  scf.if %is0 {
    %a = memref.atomic_rmw maxs %two, %cells[%c1] : (i32, memref<7xi32>) -> i32
    %b = memref.atomic_rmw maxu %two, %cells[%c2] : (i32, memref<7xi32>) -> i32
    %c = memref.atomic_rmw mins %minus1, %cells[%c3] : (i32, memref<7xi32>) -> i32
    %d = memref.atomic_rmw minu %minus1, %cells[%c4] : (i32, memref<7xi32>) -> i32
    %e = memref.atomic_rmw ori %four, %cells[%c5] : (i32, memref<7xi32>) -> i32
    %f = memref.atomic_rmw assign %nine, %cells[%c6] : (i32, memref<7xi32>) -> i32
  }
  gpu.return
}
}
}
