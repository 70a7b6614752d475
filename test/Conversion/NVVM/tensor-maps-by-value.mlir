// RUN: fp8-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(qmm-tensor-maps-by-value))" -verify-diagnostics | FileCheck %s

// The parameters `qmm.tensor_map_arguments` names become 128-byte grid
// constants, 64-byte aligned (a CUtensorMap); the others stay pointers,
// and the attribute is gone.
// CHECK-LABEL: gpu.module @maps
// CHECK:         llvm.func @matmul(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME:      attributes {nvvm.kernel}
// CHECK-NOT:     qmm.tensor_map_arguments
gpu.module @maps {
  llvm.func @matmul(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) attributes {nvvm.kernel, qmm.tensor_map_arguments = array<i32: 0, 2>} {
    llvm.return
  }
}

// -----

// Kernels without the attribute are left alone.
// CHECK-LABEL: gpu.module @none
// CHECK:         llvm.func @matmul(%{{.*}}: !llvm.ptr) attributes {nvvm.kernel}
gpu.module @none {
  llvm.func @matmul(%a: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @not_a_kernel {
  // expected-error @below {{qmm.tensor_map_arguments on a function that is not a kernel}}
  llvm.func @helper(%a: !llvm.ptr) attributes {qmm.tensor_map_arguments = array<i32: 0>} {
    llvm.return
  }
}

// -----

gpu.module @out_of_range {
  // expected-error @below {{qmm.tensor_map_arguments: argument 1 is not a pointer parameter}}
  llvm.func @matmul(%a: !llvm.ptr) attributes {nvvm.kernel, qmm.tensor_map_arguments = array<i32: 1>} {
    llvm.return
  }
}

// -----

gpu.module @not_a_pointer {
  // expected-error @below {{qmm.tensor_map_arguments: argument 0 is not a pointer parameter}}
  llvm.func @matmul(%a: i64) attributes {nvvm.kernel, qmm.tensor_map_arguments = array<i32: 0>} {
    llvm.return
  }
}
