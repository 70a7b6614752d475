// RUN: fp8-opt %s -split-input-file --qmm-parallel-loops-to-gpu --cse | FileCheck %s

// A 40 x 64 nest: 2560 iterations, 10 workgroups of 256 threads; the linear
// thread id is split back into (i, j) with j fastest.
// CHECK:       module attributes {gpu.container_module}
// CHECK-LABEL: func.func @nest
// CHECK-DAG:   %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
// CHECK:       gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C10]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:         %[[MUL:.*]] = arith.muli %[[BX]], %{{.*}}
// CHECK:         %[[ID:.*]] = arith.addi %[[MUL]], %[[TX]]
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[ID]], %c2560
// CHECK:         scf.if %[[IN]] {
// CHECK:           %[[J:.*]] = arith.remui %[[ID]], %c64
// CHECK:           %[[REST:.*]] = arith.divui %[[ID]], %c64
// CHECK:           %[[I:.*]] = arith.remui %[[REST]], %c40
// CHECK:           memref.load %arg0[%{{.*}}, %{{.*}}]
// CHECK:           arith.mulf
// CHECK:           memref.store
// CHECK:         gpu.terminator
// CHECK-NOT:   scf.parallel
func.func @nest(%in: memref<40x64xf32>, %out: memref<40x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c40, %c64) step (%c1, %c1) {
    %v = memref.load %in[%i, %j] : memref<40x64xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %out[%i, %j] : memref<40x64xf32>
    scf.reduce
  }
  return
}
