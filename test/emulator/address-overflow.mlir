// REQUIRES: numpy
// Address arithmetic is checked: an element or byte offset that overflows
// int64 is an out-of-bounds access (a stride of 2^62 wrapped every lane's
// f32 store onto element 0, without error), and LDS sizes that overflow are
// over the chip's limit (they wrapped to a 0-byte LDS, or to a negative
// size).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/f32.npy', n.zeros(64, n.float32))"

// Lane 1's byte offset is 2^62 * 4 = 2^64.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel strided_store --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: fp8-run: error: emulator: out-of-bounds access to global on lane 1: the byte offset of index [1] overflows (offset 0, strides [4611686018427387904]) ('memref.store' at {{.*}}address-overflow.mlir:[[# @LINE + 29]]:3)
// The same through a fat raw buffer, whose range check happens on the
// offset: the overflow is an error, not an out-of-range 0.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel strided_buffer_load --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=BUFFER
// BUFFER: fp8-run: error: emulator: out-of-bounds access to global on lane 1: the byte offset of index [1] overflows {{.*}}('memref.load'
// A subview at element 4 of that layout starts at 2^64:
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel strided_subview --arg %t/f32.npy --arg index:4 2>&1 | FileCheck %s --check-prefix=SUBVIEW
// SUBVIEW: fp8-run: error: emulator: the subview's offset or strides overflow on lane 0 ('memref.subview' at {{.*}}address-overflow.mlir:[[# @LINE + 38]]:8)

// 2^62 f32 elements of LDS: 2^64 bytes.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel huge_lds --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=HUGE-LDS
// HUGE-LDS: fp8-run: error: emulator: LDS above the chip's limit: the kernel allocates more than 9223372036854775807 bytes of workgroup memory, gfx942 has 65536
// Two allocations of 2^62 bytes: the sum overflows.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel two_huge_lds --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=HUGE-LDS
// 2^30 f32 elements: 4 GiB, no overflow.
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel large_lds --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=LARGE-LDS
// LARGE-LDS: fp8-run: error: emulator: LDS above the chip's limit: the kernel allocates 4294967296 bytes of workgroup memory, gfx942 has 65536

// Within range, the strided view works: lane l writes element 2 l.
// RUN: fp8-run --device emu --module %s --kernel stride_two --arg %t/f32.npy --out %t/two
// RUN: %python -c "import numpy as n; o = n.load('%t/two/arg0.npy'); print(o[0], o[1], o[62], o[63])" | FileCheck %s --check-prefix=TWO
// TWO: 0.0 0.0 31.0 0.0

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @strided_store(%out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %one = arith.constant 1.0 : f32
  %v = memref.reinterpret_cast %out to offset: [0], sizes: [64], strides: [4611686018427387904] : memref<64xf32> to memref<64xf32, strided<[4611686018427387904]>>
  memref.store %one, %v[%lane] : memref<64xf32, strided<[4611686018427387904]>>
  gpu.return
}
gpu.func @strided_buffer_load(%out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %c0 = arith.constant 0 : index
  %v = memref.reinterpret_cast %out to offset: [0], sizes: [64], strides: [4611686018427387904] : memref<64xf32> to memref<64xf32, strided<[4611686018427387904]>>
  %fat = amdgpu.fat_raw_buffer_cast %v : memref<64xf32, strided<[4611686018427387904]>> to memref<64xf32, strided<[4611686018427387904]>, #amdgpu.address_space<fat_raw_buffer>>
  %x = memref.load %fat[%lane] : memref<64xf32, strided<[4611686018427387904]>, #amdgpu.address_space<fat_raw_buffer>>
  memref.store %x, %out[%c0] : memref<64xf32>
  gpu.return
}
gpu.func @strided_subview(%out: memref<64xf32>, %at: index) kernel {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %v = memref.reinterpret_cast %out to offset: [0], sizes: [64], strides: [4611686018427387904] : memref<64xf32> to memref<64xf32, strided<[4611686018427387904]>>
  %s = memref.subview %v[%at] [2] [1] : memref<64xf32, strided<[4611686018427387904]>> to memref<2xf32, strided<[4611686018427387904], offset: ?>>
  memref.store %one, %s[%c0] : memref<2xf32, strided<[4611686018427387904], offset: ?>>
  gpu.return
}
gpu.func @huge_lds(%out: memref<64xf32>) workgroup(%lds : memref<4611686018427387904xf32, #gpu.address_space<workgroup>>) kernel {
  %lane = gpu.lane_id
  %one = arith.constant 1.0 : f32
  memref.store %one, %lds[%lane] : memref<4611686018427387904xf32, #gpu.address_space<workgroup>>
  gpu.return
}
gpu.func @two_huge_lds(%out: memref<64xf32>) workgroup(%a : memref<4611686018427387904xi8, #gpu.address_space<workgroup>>, %b : memref<4611686018427387904xi8, #gpu.address_space<workgroup>>) kernel {
  gpu.return
}
gpu.func @large_lds(%out: memref<64xf32>) workgroup(%lds : memref<1073741824xf32, #gpu.address_space<workgroup>>) kernel {
  gpu.return
}
gpu.func @stride_two(%out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %c32 = arith.constant 32 : index
  %inside = arith.cmpi ult, %lane, %c32 : index
  scf.if %inside {
    %i = arith.index_cast %lane : index to i32
    %f = arith.sitofp %i : i32 to f32
    %v = memref.reinterpret_cast %out to offset: [0], sizes: [32], strides: [2] : memref<64xf32> to memref<32xf32, strided<[2]>>
    memref.store %f, %v[%lane] : memref<32xf32, strided<[2]>>
  }
  gpu.return
}
}
}
