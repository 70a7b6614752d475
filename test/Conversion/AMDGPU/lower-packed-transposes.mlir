// RUN: fp8-opt %s -split-input-file --qmm-lower-packed-transposes --canonicalize | FileCheck %s
//
// Packed transposes move u x u blocks (u = 2 for FP4, 4 for FP6) through
// flat byte-slot views. The slots below are worked out by hand from the
// storage rule (a row of E elements of w bits takes ceil(E * w / 8)
// bytes): source row k, group i at k * rowBytes + i * (u * w / 8).

// FP4, K = 64, N = 16: source rows of 8 bytes, target rows of 32; the
// block (i, j) reads rows 2j, 2j + 1 at byte i (16 j + i, 16 j + 8 + i)
// and writes rows 2i, 2i + 1 at byte j (64 i + j, 64 i + 32 + j).
// CHECK-DAG:   #[[R0:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 16)>
// CHECK-DAG:   #[[R1:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 16 + 8)>
// CHECK-DAG:   #[[W0:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 64)>
// CHECK-DAG:   #[[W1:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 64 + 32)>
// CHECK-LABEL: func.func @fp4
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[FROM:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [1024], strides: [1] : memref<64x16xf4E2M1FN> to memref<1024xf4E2M1FN>
// CHECK-DAG:     %[[TO:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [1024], strides: [1] : memref<16x64xf4E2M1FN> to memref<1024xf4E2M1FN>
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to (%[[C8]], %[[C32]])
// CHECK:           %[[S0:.*]] = affine.apply #[[R0]](%[[I]], %[[J]])
// CHECK:           %[[V0:.*]] = vector.load %[[FROM]][%[[S0]]] : memref<1024xf4E2M1FN>, vector<2xf4E2M1FN>
// CHECK:           %[[S1:.*]] = affine.apply #[[R1]](%[[I]], %[[J]])
// CHECK:           %[[V1:.*]] = vector.load %[[FROM]][%[[S1]]] : memref<1024xf4E2M1FN>, vector<2xf4E2M1FN>
// CHECK:           %[[A:.*]] = vector.extract %[[V0]][0]
// CHECK:           %[[B:.*]] = vector.extract %[[V1]][0]
// CHECK:           %[[C:.*]] = vector.from_elements %[[A]], %[[B]] : vector<2xf4E2M1FN>
// CHECK:           %[[T0:.*]] = affine.apply #[[W0]](%[[J]], %[[I]])
// CHECK:           vector.store %[[C]], %[[TO]][%[[T0]]]
// CHECK:           %[[D:.*]] = vector.extract %[[V0]][1]
// CHECK:           %[[E:.*]] = vector.extract %[[V1]][1]
// CHECK:           %[[F:.*]] = vector.from_elements %[[D]], %[[E]] : vector<2xf4E2M1FN>
// CHECK:           %[[T1:.*]] = affine.apply #[[W1]](%[[J]], %[[I]])
// CHECK:           vector.store %[[F]], %[[TO]][%[[T1]]]
// CHECK-NOT:     linalg.transpose
func.func @fp4(%src: memref<64x16xf4E2M1FN>, %dst: memref<16x64xf4E2M1FN>) {
  linalg.transpose ins(%src : memref<64x16xf4E2M1FN>) outs(%dst : memref<16x64xf4E2M1FN>) permutation = [1, 0]
  return
}

// -----

// FP6, K = 128, N = 70: source rows of ceil(70 * 6 / 8) = 53 bytes, groups
// of 4 elements in 3 bytes; 17 whole groups, then a tail group of 70 % 4 =
// 2 columns (bytes 51, 52 of each row: vectors of 2) written to target
// rows 68 and 69 (96 bytes each: slots 6528 + 3 j and 6624 + 3 j).
// CHECK-DAG:   #[[M0:.*]] = affine_map<(d0, d1) -> (d0 * 212 + d1 * 3)>
// CHECK-DAG:   #[[M3:.*]] = affine_map<(d0, d1) -> (d0 * 212 + d1 * 3 + 159)>
// CHECK-DAG:   #[[N3:.*]] = affine_map<(d0, d1) -> (d0 * 384 + d1 * 3 + 288)>
// CHECK-DAG:   #[[TAIL_R0:.*]] = affine_map<(d0) -> (d0 * 212 + 51)>
// CHECK-DAG:   #[[TAIL_R3:.*]] = affine_map<(d0) -> (d0 * 212 + 210)>
// CHECK-DAG:   #[[TAIL_W0:.*]] = affine_map<(d0) -> (d0 * 3 + 6528)>
// CHECK-DAG:   #[[TAIL_W1:.*]] = affine_map<(d0) -> (d0 * 3 + 6624)>
// CHECK-LABEL: func.func @fp6_tail
// CHECK-DAG:     %[[C17:.*]] = arith.constant 17 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to (%[[C17]], %[[C32]])
// CHECK:           affine.apply #[[M0]](%[[J]], %[[I]])
// CHECK:           vector.load {{.*}} : memref<8960xf6E3M2FN>, vector<4xf6E3M2FN>
// CHECK:           affine.apply #[[M3]](%[[J]], %[[I]])
// CHECK:           vector.load {{.*}} : memref<8960xf6E3M2FN>, vector<4xf6E3M2FN>
// CHECK-COUNT-3:   vector.store {{.*}} : memref<8960xf6E3M2FN>, vector<4xf6E3M2FN>
// CHECK:           affine.apply #[[N3]](%[[I]], %[[J]])
// CHECK:           vector.store {{.*}} : memref<8960xf6E3M2FN>, vector<4xf6E3M2FN>
// CHECK:         scf.parallel (%[[T:.*]]) = ({{.*}}) to (%[[C32]])
// CHECK:           affine.apply #[[TAIL_R0]](%[[T]])
// CHECK:           vector.load {{.*}} : memref<8960xf6E3M2FN>, vector<2xf6E3M2FN>
// CHECK:           affine.apply #[[TAIL_R3]](%[[T]])
// CHECK:           affine.apply #[[TAIL_W0]](%[[T]])
// CHECK:           vector.store {{.*}} : memref<8960xf6E3M2FN>, vector<4xf6E3M2FN>
// CHECK:           affine.apply #[[TAIL_W1]](%[[T]])
// CHECK:           vector.store {{.*}} : memref<8960xf6E3M2FN>, vector<4xf6E3M2FN>
// CHECK-NOT:       vector.store
func.func @fp6_tail(%src: memref<128x70xf6E3M2FN>, %dst: memref<70x128xf6E3M2FN>) {
  linalg.transpose ins(%src : memref<128x70xf6E3M2FN>) outs(%dst : memref<70x128xf6E3M2FN>) permutation = [1, 0]
  return
}

// -----

// Whole-byte data is left to the element-wise loops.
// CHECK-LABEL: func.func @fp8_untouched
// CHECK:         linalg.transpose
func.func @fp8_untouched(%src: memref<64x16xf8E4M3FN>, %dst: memref<16x64xf8E4M3FN>) {
  linalg.transpose ins(%src : memref<64x16xf8E4M3FN>) outs(%dst : memref<16x64xf8E4M3FN>) permutation = [1, 0]
  return
}
