// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-mma-to-mfma=chip=gfx942 --cse | FileCheck %s

// v_mfma_f32_16x16x32 with e4m3fnuz A and e5m2fnuz B (fp8 x bf8). Lane l
// reads row l % 16 of its wave's rows (the wave starts 16 rows into the A
// tile) and the 8 consecutive K values at 8 * (l / 16) + 32 * step, for
// the two steps of tile K 64. B's fragment is the instruction's first
// operand: the MFMA computes the transposed tile.
// Index maps over the thread id s0 (lane = s0 mod 64; (s0 mod 64) mod 16
// simplifies to s0 mod 16):
//   A row: wave offset 16 + lane % 16
// CHECK-DAG: #[[A_ROW:.*]] = affine_map<()[s0] -> (s0 mod 16 + 16)>
//   B row: wave offset 0 + lane % 16
// CHECK-DAG: #[[B_ROW:.*]] = affine_map<()[s0] -> (s0 mod 16)>
//   step 0's K: 8 values per quarter-wave
// CHECK-DAG: #[[K0:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 8)>
//   step 1's K: the same, one MFMA K (32) further
// CHECK-DAG: #[[K1:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 8 + 32)>
// CHECK-LABEL: func.func @fp8_x_bf8_16x16
// CHECK:       workgroup(%[[LA:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x72xf8E5M2FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[AROW:.*]] = affine.apply #[[A_ROW]]()[%[[TID]]]
// CHECK:         %[[AK0:.*]] = affine.apply #[[K0]]()[%[[TID]]]
// CHECK:         %[[A0:.*]] = vector.load %[[LA]][%[[AROW]], %[[AK0]]] : {{.*}}, vector<8xf8E4M3FNUZ>
// CHECK:         %[[BROW:.*]] = affine.apply #[[B_ROW]]()[%[[TID]]]
// CHECK:         %[[B0:.*]] = vector.load %[[LB]][%[[BROW]], %[[AK0]]] : {{.*}}, vector<8xf8E5M2FNUZ>
// CHECK:         %[[M0:.*]] = amdgpu.mfma 16x16x32 %[[B0]] * %[[A0]] + %{{.*}} blgp = none : vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// CHECK:         %[[AK1:.*]] = affine.apply #[[K1]]()[%[[TID]]]
// CHECK:         %[[A1:.*]] = vector.load %[[LA]][%[[AROW]], %[[AK1]]]
// CHECK:         %[[B1:.*]] = vector.load %[[LB]][%[[BROW]], %[[AK1]]]
// CHECK:         %[[M1:.*]] = amdgpu.mfma 16x16x32 %[[B1]] * %[[A1]] + %[[M0]]
// CHECK:         vector.store %[[M1]]
// CHECK-NOT:   qmm.wave_mma
// CHECK-NOT:   arith.{{(add|mul|div|rem)}}{{.*}} : index
func.func @fp8_x_bf8_16x16(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
                       %lb : memref<32x72xf8E5M2FNUZ, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c16, %c0]
           config #qmm.config<tile = [32, 32, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x72xf8E5M2FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// v_mfma_f32_32x32x16 out of buffer %stage of a double-buffered tile; one
// wave holding 2 x 1 MFMA tiles of 32 x 32 (tile 64 x 32, tile K 16): two
// A fragments (rows l % 32 and 32 + l % 32), one B fragment, two MFMAs.
//   A rows of tile 0 and B rows: lane % 32
// CHECK-DAG: #[[ROW0:.*]] = affine_map<()[s0] -> (s0 mod 32)>
//   A rows of tile 1: 32 + lane % 32
// CHECK-DAG: #[[ROW1:.*]] = affine_map<()[s0] -> (s0 mod 32 + 32)>
//   K: 8 values per half-wave (K / 2)
// CHECK-DAG: #[[K:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 32) * 8)>
// CHECK-LABEL: func.func @bf8_32x32_double_buffered
// CHECK-SAME:    (%[[STAGE:.*]]: index, %{{.*}}: memref<32xf32>, %[[ACC0:.*]]: vector<16xf32>, %[[ACC1:.*]]: vector<16xf32>)
// CHECK:         workgroup(%[[LA:.*]] : memref<2x64x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<2x32x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R0:.*]] = affine.apply #[[ROW0]]()[%[[TID]]]
// CHECK:         %[[KK:.*]] = affine.apply #[[K]]()[%[[TID]]]
// CHECK:         %[[A0:.*]] = vector.load %[[LA]][%[[STAGE]], %[[R0]], %[[KK]]] : memref<2x64x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E5M2FNUZ>
// CHECK:         %[[R1:.*]] = affine.apply #[[ROW1]]()[%[[TID]]]
// CHECK:         %[[A1:.*]] = vector.load %[[LA]][%[[STAGE]], %[[R1]], %[[KK]]]
// CHECK:         %[[B0:.*]] = vector.load %[[LB]][%[[STAGE]], %[[R0]], %[[KK]]] : memref<2x32x24xf8E5M2FNUZ
// CHECK:         amdgpu.mfma 32x32x16 %[[B0]] * %[[A0]] + %[[ACC0]] blgp = none : vector<8xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>, vector<16xf32>
// CHECK:         amdgpu.mfma 32x32x16 %[[B0]] * %[[A1]] + %[[ACC1]] blgp = none
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
func.func @bf8_32x32_double_buffered(%stage: index, %out: memref<32xf32>, %acc0: vector<16xf32>, %acc1: vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<2x64x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>,
                       %lb : memref<2x32x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>) {
    %p:2 = qmm.wave_mma %la[%stage, %c0, %c0], %lb[%stage, %c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [64, 32, 16], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 2>
           acc(%acc0, %acc1) : memref<2x64x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>, memref<2x32x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>, vector<16xf32>, vector<16xf32>
    vector.store %p#0, %out[%c0] : memref<32xf32>, vector<16xf32>
    vector.store %p#1, %out[%c16] : memref<32xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}

// -----

// FP4 on gfx942 (no FP4 MFMA): lane l reads its 8 consecutive values at
// k = 8 * (l / 16), i.e. 4 packed bytes at byte column 4 * (l / 16), and
// converts them exactly to e4m3fnuz: codes taken from the 32-bit word by
// shifts of 4 * j; normal e2m1 codes rebias their exponent by 8 - 1 = 7 and
// move the mantissa bit up 2; the one subnormal (0.5) goes through its f32
// exponent (-127 + 1 - 1 - 1 + 8 = -120); zeros become +0.
//   A and B row: lane % 16
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0] -> (s0 mod 16)>
//   A's byte column: k = 8 * (lane / 16) FP4 values = 4 bytes per quarter-wave
// CHECK-DAG: #[[BYTE:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 4)>
//   B's (FP8) column: k = 8 * (lane / 16)
// CHECK-DAG: #[[K:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 8)>
// CHECK-LABEL: func.func @fp4_converted
// CHECK:         workgroup(%[[LA:.*]] : memref<16x24xf4E2M1FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<16x40xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]]]
// CHECK:         %[[COL:.*]] = affine.apply #[[BYTE]]()[%[[TID]]]
// CHECK:         %[[FRAG:.*]] = vector.load %[[LA]][%[[R]], %[[COL]]] : memref<16x24xf4E2M1FN, #gpu.address_space<workgroup>>, vector<8xf4E2M1FN>
// CHECK:         %[[WORDV:.*]] = vector.bitcast %[[FRAG]] : vector<8xf4E2M1FN> to vector<1xi32>
// CHECK:         vector.extract %[[WORDV]][0] : i32 from vector<1xi32>
// CHECK:         arith.constant dense<[0, 4, 8, 12, 16, 20, 24, 28]> : vector<8xi64>
// CHECK:         arith.constant dense<-120> : vector<8xi32>
// CHECK:         %[[CODES:.*]] = arith.trunci %{{.*}} : vector<8xi32> to vector<8xi8>
// CHECK:         %[[A:.*]] = arith.bitcast %[[CODES]] : vector<8xi8> to vector<8xf8E4M3FNUZ>
// CHECK:         %[[BK:.*]] = affine.apply #[[K]]()[%[[TID]]]
// CHECK:         %[[B:.*]] = vector.load %[[LB]][%[[R]], %[[BK]]] : {{.*}} vector<8xf8E4M3FNUZ>
// CHECK:         amdgpu.mfma 16x16x32 %[[B]] * %[[A]] + %{{.*}} blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
func.func @fp4_converted(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<16x24xf4E2M1FN, #gpu.address_space<workgroup>>,
                       %lb : memref<16x40xf8E4M3FNUZ, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 32], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<16x24xf4E2M1FN, #gpu.address_space<workgroup>>, memref<16x40xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
