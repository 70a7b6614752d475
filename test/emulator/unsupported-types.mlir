// REQUIRES: numpy
// Element types the emulator does not hold (it keeps integers and floats of
// at most 64 bits, and index): a kernel argument of such a type is bad
// input in launch mode (one line, exit code 2; a complex memref argument
// crashed the runner), and inside a kernel an error naming the op.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/i64.npy', n.zeros(64, n.int64)); n.save('%t/f32.npy', n.zeros(64, n.float32))"

// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel complex_memref --arg %t/i64.npy 2>&1 | FileCheck %s --check-prefix=COMPLEX
// COMPLEX: fp8-run: error: argument 0: element type complex<f32> of memref<64xcomplex<f32>> is not supported
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel vector_memref --arg %t/i64.npy 2>&1 | FileCheck %s --check-prefix=VECTOR
// VECTOR: fp8-run: error: argument 0: element type vector<2xf32> of memref<64xvector<2xf32>> is not supported
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel i128_scalar --arg %t/f32.npy --arg i128:5 2>&1 | FileCheck %s --check-prefix=I128
// I128: fp8-run: error: argument 1: type i128 is not supported
// RUN: %expect-exit 2 fp8-run --device emu --module %s --kernel complex_memref --arg %t/i64.npy 2>&1 | count 1

// Workgroup memory of complex elements (its size crashed the emulator):
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel complex_lds --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=LDS
// LDS: fp8-run: error: emulator: memref<4xcomplex<f32>, #gpu.address_space<workgroup>>: element type complex<f32> is not supported by the emulator ('gpu.func' at {{.*}}unsupported-types.mlir:[[# @LINE + 15]]:1)
// RUN: %expect-exit 1 fp8-run --device emu --module %s --kernel complex_value --arg %t/f32.npy 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: fp8-run: error: emulator: values of type complex<f32> are not supported by the emulator ('complex.create' at {{.*}}unsupported-types.mlir:[[# @LINE + 18]]:8)

module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @complex_memref(%out: memref<64xcomplex<f32>>) kernel {
  gpu.return
}
gpu.func @vector_memref(%out: memref<64xvector<2xf32>>) kernel {
  gpu.return
}
gpu.func @i128_scalar(%out: memref<64xf32>, %x: i128) kernel {
  gpu.return
}
gpu.func @complex_lds(%out: memref<64xf32>) workgroup(%lds : memref<4xcomplex<f32>, #gpu.address_space<workgroup>>) kernel {
  gpu.return
}
gpu.func @complex_value(%out: memref<64xf32>) kernel {
  %f = arith.constant 1.0 : f32
  %c = complex.create %f, %f : complex<f32>
  %r = complex.re %c : complex<f32>
  %lane = gpu.lane_id
  memref.store %r, %out[%lane] : memref<64xf32>
  gpu.return
}
}
}
