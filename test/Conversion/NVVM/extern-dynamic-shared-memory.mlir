// RUN: fp8-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(qmm-extern-dynamic-shared-memory))" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(qmm-extern-dynamic-shared-memory{alignment=128}))" | FileCheck %s --check-prefix=ALIGN128

// What convert-gpu-to-nvvm makes of gpu.dynamic_shared_memory (an internal
// zero-sized shared array) becomes an external declaration aligned to the
// option; static shared variables, zero-sized arrays of other address
// spaces and initialized globals stay as they are.

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK:         llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
// CHECK:         llvm.mlir.global internal @zero_sized_global() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// ALIGN128:      llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 128 : i64}
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  llvm.mlir.global internal @zero_sized_global() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}

// -----

// A module without dynamic shared memory is left alone.

// CHECK-LABEL: gpu.module @no_dynamic
// CHECK:         llvm.mlir.global internal @table() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<8 x f32>
gpu.module @no_dynamic {
  llvm.mlir.global internal @table() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<8 x f32>
}
