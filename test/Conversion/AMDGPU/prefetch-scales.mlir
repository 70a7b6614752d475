// RUN: fp8-opt %s -split-input-file --qmm-prefetch-scales | FileCheck %s

// Two scale loads of a 4-trip loop (one of them written twice): trip t
// loads the scales of trip t + 1 (t == 3 ? t : t + 1, the last trip
// reloading its own) at the top of its body, and the loop carries them;
// trip 0's are loaded before the loop, at t = 0. The block index t / 2 is
// recomputed for each. Stores to LDS and barriers in the loop do not stop
// it; the duplicate load becomes the same carried value.
// CHECK-DAG:   #[[HALF:map[0-9]*]] = affine_map<(d0) -> (d0 floordiv 2)>
// CHECK-LABEL: func.func @rotated
// CHECK-SAME:    (%[[SA:.*]]: memref<40x2xf32>, %[[SB:.*]]: memref<1x4xf32>, %[[LDS:.*]]: memref<64xf32, #gpu.address_space<workgroup>>, %[[V:.*]]: f32, %[[ROW:.*]]: index)
// CHECK:         %[[KB0:.*]] = affine.apply #[[HALF]](%c0)
// CHECK-NEXT:    %[[A0:.*]] = memref.load %[[SA]][%[[ROW]], %[[KB0]]]
// CHECK-NEXT:    %[[B0:.*]] = memref.load %[[SB]][%c0, %c0]
// CHECK-NEXT:    %[[R:.*]]:3 = scf.for %[[T:.*]] = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}, %[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]]) -> (f32, f32, f32) {
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.cmpi eq, %[[T]], %[[C3]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[T]], %c1
// CHECK-NEXT:      %[[IT:.*]] = arith.select %[[LAST]], %[[T]], %[[NEXT]]
// CHECK-NEXT:      %[[KBN:.*]] = affine.apply #[[HALF]](%[[IT]])
// CHECK-NEXT:      %[[AN:.*]] = memref.load %[[SA]][%[[ROW]], %[[KBN]]]
// CHECK-NEXT:      %[[BN:.*]] = memref.load %[[SB]][%c0, %[[IT]]]
// CHECK-NEXT:      memref.store %[[V]], %[[LDS]][%[[T]]]
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      affine.apply
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[B]]
// CHECK-NEXT:      %[[P2:.*]] = arith.mulf %[[P]], %[[B]]
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[P2]]
// CHECK-NEXT:      scf.yield %[[SUM]], %[[AN]], %[[BN]]
// CHECK-NOT:     memref.load
// CHECK:         return %[[R]]#0
func.func @rotated(%sa: memref<40x2xf32>, %sb: memref<1x4xf32>,
                   %lds: memref<64xf32, #gpu.address_space<workgroup>>,
                   %v: f32, %row: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    memref.store %v, %lds[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %kb = affine.apply affine_map<(d0) -> (d0 floordiv 2)>(%t)
    %a = memref.load %sa[%row, %kb] : memref<40x2xf32>
    %b = memref.load %sb[%c0, %t] : memref<1x4xf32>
    %b2 = memref.load %sb[%c0, %t] : memref<1x4xf32>
    %p = arith.mulf %a, %b : f32
    %p2 = arith.mulf %p, %b2 : f32
    %n = arith.addf %acc, %p2 : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// A step of 2 from 1 to 8: trips at 1, 3, 5, 7; the last is 7.
// CHECK-LABEL: func.func @strided
// CHECK:         memref.load %{{.*}}[%c1]
// CHECK:         scf.for %[[T:.*]] = %c1 to %c8 step %c2 iter_args(%[[ACC:.*]] = %{{.*}}, %[[X:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK-NEXT:      %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.cmpi eq, %[[T]], %[[C7]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[T]], %c2
// CHECK-NEXT:      %[[IT:.*]] = arith.select %[[LAST]], %[[T]], %[[NEXT]]
// CHECK-NEXT:      %[[XN:.*]] = memref.load %{{.*}}[%[[IT]]]
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:      scf.yield %[[SUM]], %[[XN]]
func.func @strided(%s: memref<8xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c1 to %c8 step %c2 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %s[%t] : memref<8xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// A direct-to-LDS copy in the loop (as qmm-promote-operands-to-lds writes
// it for lds_copy = direct): amdgpu.gather_to_lds writes LDS only, and
// rocdl.readfirstlane, which declares no memory effects, reads a register:
// neither stops the rotation.
// CHECK-LABEL: func.func @direct_copy
// CHECK:         memref.load %{{.*}}[%c0]
// CHECK:         scf.for %[[T:.*]] = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}, %[[X:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK:           %[[XN:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK:           rocdl.readfirstlane
// CHECK:           amdgpu.gather_to_lds
// CHECK:           %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:      scf.yield %[[SUM]], %[[XN]]
func.func @direct_copy(%s: memref<4xf32>, %src: memref<256xi8>,
                       %lds: memref<1024xi8, #gpu.address_space<workgroup>>,
                       %row: i32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %wave = rocdl.readfirstlane %row : i32
    %dst = arith.index_cast %wave : i32 to index
    amdgpu.gather_to_lds %src[%t], %lds[%dst] : vector<16xi8>, memref<256xi8>, memref<1024xi8, #gpu.address_space<workgroup>>
    gpu.barrier
    %x = memref.load %s[%t] : memref<4xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %r : f32
}
