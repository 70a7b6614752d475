// RUN: fp8-opt %s -split-input-file --allow-unregistered-dialect --qmm-prefetch-scales --verify-diagnostics | FileCheck %s

// Loops whose loads the pass must leave where they are (it reports
// nothing: moving a load is an optimization, never required). In each
// case the load stays in the body and the loop gains no carried value.

// The loop writes global memory: a later trip's load could read what this
// trip writes.
// CHECK-LABEL: func.func @writes_global_memory
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NEXT:      memref.load
func.func @writes_global_memory(%s: memref<4xf32>, %out: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %s[%t] : memref<4xf32>
    memref.store %x, %out[%t] : memref<4xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// A call may write anything.
func.func private @opaque()
// CHECK-LABEL: func.func @calls
// CHECK:         scf.for {{.*}} -> (f32) {
// CHECK-NEXT:      memref.load
func.func @calls(%s: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %s[%t] : memref<4xf32>
    func.call @opaque() : () -> ()
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// Bounds not known at compile time (the first trip may not exist), and a
// loop of one trip (nothing to hide).
// CHECK-LABEL: func.func @dynamic_and_single_trip
// CHECK:         scf.for {{.*}} -> (f32) {
// CHECK-NEXT:      memref.load
// CHECK:         scf.for {{.*}} -> (f32) {
// CHECK-NEXT:      memref.load
func.func @dynamic_and_single_trip(%s: memref<4xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %s[%t] : memref<4xf32>
    %m = arith.addf %acc, %x : f32
    scf.yield %m : f32
  }
  %r2 = scf.for %t = %c0 to %c1 step %c1 iter_args(%acc = %r) -> f32 {
    %x = memref.load %s[%t] : memref<4xf32>
    %m = arith.addf %acc, %x : f32
    scf.yield %m : f32
  }
  return %r2 : f32
}

// -----

// Loads the pass does not rotate: from LDS (written in the loop), at an
// index carried by the loop (not computable for another trip), inside a
// branch, and from a memref made in the loop.
// CHECK-LABEL: func.func @loads_left_alone
// CHECK:         scf.for {{.*}} iter_args(%[[I:.*]] = %c0, %{{.*}} = %{{.*}}) -> (index, f32) {
// CHECK:           memref.load %{{.*}}[%[[T:.*]]] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.load %{{.*}}[%[[I]]] : memref<4xf32>
// CHECK:           scf.if
// CHECK-NEXT:        memref.load
// CHECK:           memref.subview
// CHECK-NEXT:      memref.load
// CHECK:           scf.yield
func.func @loads_left_alone(%s: memref<4xf32>, %lds: memref<4xf32, #gpu.address_space<workgroup>>,
                            %c: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%i = %c0, %acc = %zero) -> (index, f32) {
    %x = memref.load %lds[%t] : memref<4xf32, #gpu.address_space<workgroup>>
    memref.store %x, %lds[%t] : memref<4xf32, #gpu.address_space<workgroup>>
    %y = memref.load %s[%i] : memref<4xf32>
    %z = scf.if %c -> f32 {
      %w = memref.load %s[%t] : memref<4xf32>
      scf.yield %w : f32
    } else {
      scf.yield %zero : f32
    }
    %view = memref.subview %s[%t] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: ?>>
    %v = memref.load %view[%c0] : memref<1xf32, strided<[1], offset: ?>>
    %a = arith.addf %acc, %x : f32
    %b = arith.addf %a, %y : f32
    %d = arith.addf %b, %z : f32
    %e = arith.addf %d, %v : f32
    %next = arith.addi %i, %c1 : index
    scf.yield %next, %e : index, f32
  }
  return %r#1 : f32
}

// -----

// An op that declares no memory effects and is not a barrier may write
// anything. An index read from memory in the loop cannot be recomputed for
// another trip: the load through it stays, reading the trip's own index
// (the index load itself, at the trip's position, is rotated and carried).
// CHECK-LABEL: func.func @unknown_effects_and_loaded_index
// CHECK:         scf.for {{.*}} -> (f32) {
// CHECK-NEXT:      memref.load
// CHECK:         %[[J0:.*]] = memref.load %{{.*}}[%c0] : memref<4xindex>
// CHECK-NEXT:    scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[J:.*]] = %[[J0]]) -> (f32, index) {
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<4xindex>
// CHECK-NEXT:      memref.load %{{.*}}[%[[J]]] : memref<4xf32>
func.func @unknown_effects_and_loaded_index(%s: memref<4xf32>, %idx: memref<4xindex>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %s[%t] : memref<4xf32>
    "test.opaque_effects"() : () -> ()
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  %r2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %r) -> f32 {
    %j = memref.load %idx[%t] : memref<4xindex>
    %x = memref.load %s[%j] : memref<4xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %r2 : f32
}

// -----

// An i32 induction variable (the next trip is built in index arithmetic).
// CHECK-LABEL: func.func @i32_loop
// CHECK:         scf.for {{.*}} -> (f32) : i32 {
// CHECK-NEXT:      arith.index_cast
// CHECK-NEXT:      memref.load
func.func @i32_loop(%s: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 : i32 {
    %i = arith.index_cast %t : i32 to index
    %x = memref.load %s[%i] : memref<4xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %r : f32
}
