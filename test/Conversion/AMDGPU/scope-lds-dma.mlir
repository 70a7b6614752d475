// RUN: fp8-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(qmm-scope-lds-dma))' | FileCheck %s

// A kernel with a direct load to LDS: the load in one scope, LDS reads in
// another declared not to alias it; the global load keeps no scopes.
// CHECK-DAG: #[[DOMAIN:.*]] = #llvm.alias_scope_domain<id = distinct[{{.*}}]<>, description = "k LDS">
// CHECK-DAG: #[[DMA:.*]] = #llvm.alias_scope<id = distinct[{{.*}}]<>, domain = #[[DOMAIN]], description = "direct loads to LDS">
// CHECK-DAG: #[[READS:.*]] = #llvm.alias_scope<id = distinct[{{.*}}]<>, domain = #[[DOMAIN]], description = "LDS reads">
// CHECK-LABEL: llvm.func @k
// CHECK:         rocdl.load.to.lds {{.*}} {alias_scopes = [#[[DMA]]]}
// CHECK:         llvm.load %{{.*}} {alias_scopes = [#[[READS]]], noalias_scopes = [#[[DMA]]]} : !llvm.ptr<3> -> vector<4xi32>
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<1> -> i32
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @k(%g: !llvm.ptr<1>, %l: !llvm.ptr<3>) -> vector<4xi32> {
      rocdl.load.to.lds %g, %l, 16, 0, 0 : !llvm.ptr<1>
      %v = llvm.load %l : !llvm.ptr<3> -> vector<4xi32>
      %x = llvm.load %g : !llvm.ptr<1> -> i32
      llvm.return %v : vector<4xi32>
    }
  }
}

// -----

// Without direct loads, LDS reads keep no scopes (LLVM's own analysis).
// CHECK-LABEL: llvm.func @no_dma
// CHECK-NOT:     alias_scopes
// CHECK:         llvm.return
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @no_dma(%l: !llvm.ptr<3>) -> vector<4xi32> {
      %v = llvm.load %l : !llvm.ptr<3> -> vector<4xi32>
      llvm.return %v : vector<4xi32>
    }
  }
}
