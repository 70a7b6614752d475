// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-mma-to-mfma=chip=gfx942 --cse | FileCheck %s

// v_mfma_f32_16x16x32 with e4m3fnuz A and e5m2fnuz B (fp8 x bf8). Lane l
// reads row l % 16 of its wave's rows (the wave starts 16 rows into the A
// tile) and the 8 consecutive K values at 8 * (l / 16) + 32 * step, for
// the two steps of tile K 64. B's fragment is the instruction's first
// operand: the MFMA computes the transposed tile.
// CHECK-LABEL: func.func @fp8_x_bf8_16x16
// CHECK:       workgroup(%[[LA:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x72xf8E5M2FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[LANE:.*]] = arith.remui %[[TID]], %c64
// CHECK:         %[[FROW:.*]] = arith.remui %[[LANE]], %c16
// CHECK:         %[[AROW:.*]] = arith.addi %c16, %[[FROW]]
// CHECK:         %[[GROUP:.*]] = arith.divui %[[LANE]], %c16
// CHECK:         %[[ATROW:.*]] = arith.addi %c0, %[[AROW]]
// CHECK:         %[[K0:.*]] = arith.muli %[[GROUP]], %c8
// CHECK:         %[[AK0:.*]] = arith.addi %c0, %[[K0]]
// CHECK:         %[[A0:.*]] = vector.load %[[LA]][%[[ATROW]], %[[AK0]]] : {{.*}}, vector<8xf8E4M3FNUZ>
// CHECK:         %[[B0:.*]] = vector.load %[[LB]][%{{.*}}, %[[AK0]]] : {{.*}}, vector<8xf8E5M2FNUZ>
// CHECK:         %[[M0:.*]] = amdgpu.mfma 16x16x32 %[[B0]] * %[[A0]] + %{{.*}} blgp = none : vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// CHECK:         %[[K1:.*]] = arith.addi %[[K0]], %c32
// CHECK:         %[[AK1:.*]] = arith.addi %c0, %[[K1]]
// CHECK:         %[[A1:.*]] = vector.load %[[LA]][%[[ATROW]], %[[AK1]]]
// CHECK:         %[[B1:.*]] = vector.load %[[LB]][%{{.*}}, %[[AK1]]]
// CHECK:         %[[M1:.*]] = amdgpu.mfma 16x16x32 %[[B1]] * %[[A1]] + %[[M0]]
// CHECK:         vector.store %[[M1]]
// CHECK-NOT:   qmm.wave_mma
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
// CHECK-LABEL: func.func @bf8_32x32_double_buffered
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[FROW:.*]] = arith.remui %[[LANE]], %c32
// CHECK:         %[[GROUP:.*]] = arith.divui %[[LANE]], %c32
// CHECK:         %[[A0:.*]] = vector.load %[[LA:.*]][%[[STAGE:.*]], %{{.*}}, %{{.*}}] : memref<2x64x24xf8E5M2FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E5M2FNUZ>
// CHECK:         %[[WROW1:.*]] = arith.addi %c0, %c32
// CHECK:         %[[ROW1:.*]] = arith.addi %[[WROW1]], %[[FROW]]
// CHECK:         %[[A1:.*]] = vector.load %[[LA]][%[[STAGE]], %{{.*}}, %{{.*}}]
// CHECK:         %[[B0:.*]] = vector.load %[[LB:.*]][%[[STAGE]], %{{.*}}, %{{.*}}] : memref<2x32x24xf8E5M2FNUZ
// CHECK:         amdgpu.mfma 32x32x16 %[[B0]] * %[[A0]] + %arg2 blgp = none : vector<8xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>, vector<16xf32>
// CHECK:         amdgpu.mfma 32x32x16 %[[B0]] * %[[A1]] + %arg3 blgp = none
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
// CHECK-LABEL: func.func @fp4_converted
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[GROUP:.*]] = arith.divui %[[LANE]], %c16
// CHECK:         %[[K:.*]] = arith.muli %[[GROUP]], %c8
// CHECK:         %[[BITS:.*]] = arith.muli %[[K]], %c4
// CHECK:         %[[BYTE:.*]] = arith.divui %[[BITS]], %c8
// CHECK:         %[[COL:.*]] = arith.addi %c0, %[[BYTE]]
// CHECK:         %[[FRAG:.*]] = vector.load %{{.*}}[%{{.*}}, %[[COL]]] : memref<16x24xf4E2M1FN, #gpu.address_space<workgroup>>, vector<8xf4E2M1FN>
// CHECK:         %[[WORDV:.*]] = vector.bitcast %[[FRAG]] : vector<8xf4E2M1FN> to vector<1xi32>
// CHECK:         vector.extract %[[WORDV]][0] : i32 from vector<1xi32>
// CHECK:         arith.constant dense<[0, 4, 8, 12, 16, 20, 24, 28]> : vector<8xi64>
// CHECK:         arith.constant dense<-120> : vector<8xi32>
// CHECK:         %[[CODES:.*]] = arith.trunci %{{.*}} : vector<8xi32> to vector<8xi8>
// CHECK:         %[[A:.*]] = arith.bitcast %[[CODES]] : vector<8xi8> to vector<8xf8E4M3FNUZ>
// CHECK:         %[[B:.*]] = vector.load {{.*}} vector<8xf8E4M3FNUZ>
// CHECK:         amdgpu.mfma 16x16x32 %[[B]] * %[[A]] + %{{.*}} blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
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
