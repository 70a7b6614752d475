// RUN: fp8-opt %s -split-input-file --qmm-parallel-loops-to-gpu --cse | FileCheck %s

// A 40 x 64 nest: 2560 iterations, 10 workgroups of 256 threads; the linear
// thread id b * 256 + t is split back into (i, j) with j fastest:
// j = (b * 256 + t) mod 64 = t mod 64 (256 is a multiple of 64) and
// i = ((b * 256 + t) floordiv 64) mod 40 = (b * 4 + t floordiv 64) mod 40,
// each one composed affine map.
// CHECK-DAG:   #[[LINEAR:.*]] = affine_map<()[s0, s1] -> (s0 * 256 + s1)>
// CHECK-DAG:   #[[J:.*]] = affine_map<()[s0] -> (s0 mod 64)>
// CHECK-DAG:   #[[I:.*]] = affine_map<()[s0, s1] -> ((s0 * 4 + s1 floordiv 64) mod 40)>
// CHECK:       module attributes {gpu.container_module}
// CHECK-LABEL: func.func @nest
// CHECK-DAG:   %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
// CHECK:       gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C10]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:         %[[ID:.*]] = affine.apply #[[LINEAR]]()[%[[BX]], %[[TX]]]
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[ID]], %c2560
// CHECK:         scf.if %[[IN]] {
// CHECK:           %[[JV:.*]] = affine.apply #[[J]]()[%[[TX]]]
// CHECK:           %[[IV:.*]] = affine.apply #[[I]]()[%[[BX]], %[[TX]]]
// CHECK:           memref.load %arg0[%[[IV]], %[[JV]]]
// CHECK:           arith.mulf
// CHECK:           memref.store %{{.*}}, %arg1[%[[IV]], %[[JV]]]
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

// -----

// Lower bound 2, step 3 up to 11: iterations 2, 5, 8 (3 of them); thread
// (b, t) runs i = 2 + 3 * ((b * 256 + t) mod 3), which MLIR prints with
// the mod expanded: 768 b + 3 t - 9 * ((256 b + t) floordiv 3) + 2.
// CHECK-DAG:   #[[STRIDED:.*]] = affine_map<()[s0, s1] -> (s0 * 768 + s1 * 3 - ((s0 * 256 + s1) floordiv 3) * 9 + 2)>
// CHECK-LABEL: func.func @strided
// CHECK:       gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in
// CHECK:         arith.cmpi ult, %{{.*}}, %c3
// CHECK:           %[[I:.*]] = affine.apply #[[STRIDED]]()[%[[BX]], %[[TX]]]
// CHECK:           memref.store %{{.*}}, %arg0[%[[I]]]
func.func @strided(%out: memref<12xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c11 = arith.constant 11 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c2) to (%c11) step (%c3) {
    memref.store %one, %out[%i] : memref<12xf32>
    scf.reduce
  }
  return
}

// -----

// A dynamic upper bound (an element-wise loop over a dynamic M): M x 64
// iterations, 64 * M / 256 = ceil(M / 4) workgroups, launched only when
// there are any; the row index divides by the static inner extent (64) and
// wraps at the dynamic one (M).
// CHECK-DAG:   #[[TOTAL:.*]] = affine_map<()[s0] -> (s0 * 64)>
// CHECK-DAG:   #[[GRID:.*]] = affine_map<()[s0] -> (s0 ceildiv 4)>
// CHECK-DAG:   #[[LINEAR:.*]] = affine_map<()[s0, s1] -> (s0 * 256 + s1)>
// CHECK-DAG:   #[[J:.*]] = affine_map<()[s0] -> (s0 mod 64)>
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = memref.dim %arg0, %[[C0]]
// CHECK:         %[[N:.*]] = affine.apply #[[TOTAL]]()[%[[M]]]
// CHECK:         %[[ANY:.*]] = arith.cmpi ult, %[[C0]], %[[N]]
// CHECK:         scf.if %[[ANY]] {
// CHECK:           %[[G:.*]] = affine.apply #[[GRID]]()[%[[M]]]
// CHECK:           gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[G]],
// CHECK:             %[[ID:.*]] = affine.apply #[[LINEAR]]()[%[[BX]], %{{.*}}]
// CHECK:             %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[N]]
// CHECK:             scf.if %[[IN]] {
// CHECK:               %[[JV:.*]] = affine.apply #[[J]]()
// CHECK:               %[[Q:.*]] = arith.divui %[[ID]], %c64
// CHECK:               %[[IV:.*]] = arith.remui %[[Q]], %[[M]]
// CHECK:               memref.load %arg0[%[[IV]], %[[JV]]]
// CHECK:               memref.store %{{.*}}, %arg1[%[[IV]], %[[JV]]]
func.func @dynamic_rows(%in: memref<?x64xf32>, %out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %in, %c0 : memref<?x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %c64) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<?x64xf32>
    memref.store %x, %out[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  return
}

// -----

// A loop in a branch of host code (qmm-copy-strided-operands' copy beside
// a matmul that a dynamic M's versioning put in an scf.if) becomes a kernel
// there too.
// CHECK-LABEL: func.func @in_a_branch
// CHECK:         scf.if %arg0 {
// CHECK-NEXT:      %{{.*}} = arith.constant
// CHECK:           gpu.launch
// CHECK:             memref.store
// CHECK-NOT:     scf.parallel
func.func @in_a_branch(%small: i1, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.if %small {
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      memref.store %one, %out[%i] : memref<16xf32>
      scf.reduce
    }
  }
  return
}
