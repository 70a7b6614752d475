// RUN: fp8-opt %s -verify-diagnostics --pass-pipeline="builtin.module(gpu.module(qmm-extern-dynamic-shared-memory{alignment=48}))"

// The alignment must be a power of two.

// expected-error@+1 {{qmm-extern-dynamic-shared-memory: alignment must be a power of two, got 48}}
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}
