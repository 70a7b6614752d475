// REQUIRES: numpy
// qmm-expand-kernel-math decodes every code of every small float type with
// integer arithmetic (what qmm.dequantize kernels run on the chip): each
// kernel below reads all 2^w codes, one per thread, and writes arith.extf
// of it; the emulator runs the expanded kernels and an independent decoder
// written from the formats' definitions (Inputs/small_float_reference.py)
// checks every value, bit for bit, signed zeros, subnormals, Inf and NaN
// included.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fp8-opt %s --qmm-expand-kernel-math -o %t/expanded.mlir
// RUN: %python -c "import numpy as n; n.save('%t/codes.npy', n.arange(256, dtype=n.uint8)); n.save('%t/out.npy', n.zeros(256, n.float32)); n.save('%t/out16.npy', n.zeros(256, n.float16))"
// RUN: not grep "arith.extf" %t/expanded.mlir
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e4m3fn --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e4m3fn
// RUN: %python %S/Inputs/small_float_reference.py f8E4M3FN %t/e4m3fn/arg1.npy | FileCheck %s --check-prefix=E4M3FN
// E4M3FN: f8E4M3FN: 256 of 256 codes decode exactly
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e5m2 --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e5m2
// RUN: %python %S/Inputs/small_float_reference.py f8E5M2 %t/e5m2/arg1.npy | FileCheck %s --check-prefix=E5M2
// E5M2: f8E5M2: 256 of 256 codes decode exactly
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e4m3fnuz --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e4m3fnuz
// RUN: %python %S/Inputs/small_float_reference.py f8E4M3FNUZ %t/e4m3fnuz/arg1.npy | FileCheck %s --check-prefix=E4M3FNUZ
// E4M3FNUZ: f8E4M3FNUZ: 256 of 256 codes decode exactly
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e5m2fnuz --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e5m2fnuz
// RUN: %python %S/Inputs/small_float_reference.py f8E5M2FNUZ %t/e5m2fnuz/arg1.npy | FileCheck %s --check-prefix=E5M2FNUZ
// E5M2FNUZ: f8E5M2FNUZ: 256 of 256 codes decode exactly
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e8m0 --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e8m0
// RUN: %python %S/Inputs/small_float_reference.py f8E8M0FNU %t/e8m0/arg1.npy | FileCheck %s --check-prefix=E8M0
// E8M0: f8E8M0FNU: 256 of 256 codes decode exactly
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e2m3 --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e2m3
// RUN: %python %S/Inputs/small_float_reference.py f6E2M3FN %t/e2m3/arg1.npy | FileCheck %s --check-prefix=E2M3
// E2M3: f6E2M3FN: 64 of 64 codes decode exactly
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e3m2 --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e3m2
// RUN: %python %S/Inputs/small_float_reference.py f6E3M2FN %t/e3m2/arg1.npy | FileCheck %s --check-prefix=E3M2
// E3M2: f6E3M2FN: 64 of 64 codes decode exactly
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e2m1 --block 256,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e2m1
// RUN: %python %S/Inputs/small_float_reference.py f4E2M1FN %t/e2m1/arg1.npy | FileCheck %s --check-prefix=E2M1
// E2M1: f4E2M1FN: 16 of 16 codes decode exactly
// An extension to f16 (e5m2 values are all f16 values: exact again).
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e5m2_to_f16 --block 256,1,1 --arg %t/codes.npy --arg %t/out16.npy --out %t/e5m2-f16
// RUN: %python %S/Inputs/small_float_reference.py f8E5M2 %t/e5m2-f16/arg1.npy | FileCheck %s --check-prefix=E5M2
// Vectors are decoded element by element: 64 threads, 4 codes each.
// RUN: fp8-run --device emu --module %t/expanded.mlir --kernel e4m3fn_vector --block 64,1,1 --arg %t/codes.npy --arg %t/out.npy --out %t/e4m3fn-vector
// RUN: %python %S/Inputs/small_float_reference.py f8E4M3FN %t/e4m3fn-vector/arg1.npy | FileCheck %s --check-prefix=E4M3FN
module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @e4m3fn_vector(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c4 = arith.constant 4 : index
  %i = arith.muli %t, %c4 : index
  %c = vector.load %codes[%i] : memref<256xi8>, vector<4xi8>
  %x = arith.bitcast %c : vector<4xi8> to vector<4xf8E4M3FN>
  %v = arith.extf %x : vector<4xf8E4M3FN> to vector<4xf32>
  vector.store %v, %out[%i] : memref<256xf32>, vector<4xf32>
  gpu.return
}
gpu.func @e4m3fn(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %x = arith.bitcast %c : i8 to f8E4M3FN
  %v = arith.extf %x : f8E4M3FN to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e5m2(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %x = arith.bitcast %c : i8 to f8E5M2
  %v = arith.extf %x : f8E5M2 to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e4m3fnuz(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %x = arith.bitcast %c : i8 to f8E4M3FNUZ
  %v = arith.extf %x : f8E4M3FNUZ to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e5m2fnuz(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %x = arith.bitcast %c : i8 to f8E5M2FNUZ
  %v = arith.extf %x : f8E5M2FNUZ to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e8m0(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %x = arith.bitcast %c : i8 to f8E8M0FNU
  %v = arith.extf %x : f8E8M0FNU to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e2m3(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %n = arith.trunci %c : i8 to i6
  %x = arith.bitcast %n : i6 to f6E2M3FN
  %v = arith.extf %x : f6E2M3FN to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e3m2(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %n = arith.trunci %c : i8 to i6
  %x = arith.bitcast %n : i6 to f6E3M2FN
  %v = arith.extf %x : f6E3M2FN to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e2m1(%codes: memref<256xi8>, %out: memref<256xf32>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %n = arith.trunci %c : i8 to i4
  %x = arith.bitcast %n : i4 to f4E2M1FN
  %v = arith.extf %x : f4E2M1FN to f32
  memref.store %v, %out[%t] : memref<256xf32>
  gpu.return
}
gpu.func @e5m2_to_f16(%codes: memref<256xi8>, %out: memref<256xf16>) kernel {
  %t = gpu.thread_id x
  %c = memref.load %codes[%t] : memref<256xi8>
  %x = arith.bitcast %c : i8 to f8E5M2
  %v = arith.extf %x : f8E5M2 to f16
  memref.store %v, %out[%t] : memref<256xf16>
  gpu.return
}
}
}
