// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-mma-to-mfma=chip=gfx950 --cse | FileCheck %s

// f8f6f4 16x16x128 with FP8 operands (CDNA4 ISA guide): lane l holds K
// values 16 * (l / 16) .. +15 and, half the instruction's K (64) further,
// 64 + 16 * (l / 16) .. +15; the two 16-byte loads are joined into the
// vector<32> the instruction reads.
// CHECK-LABEL: func.func @f8f6f4_16x16x128
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[GROUP:.*]] = arith.divui %[[LANE]], %c16
// CHECK:         %[[K:.*]] = arith.muli %[[GROUP]], %c16
// CHECK:         %[[KLO:.*]] = arith.addi %c0, %[[K]]
// CHECK:         %[[LO:.*]] = vector.load %[[LA:.*]][%{{.*}}, %[[KLO]]] : {{.*}}, vector<16xf8E4M3FN>
// CHECK:         %[[K2:.*]] = arith.addi %[[K]], %c64
// CHECK:         %[[KHI:.*]] = arith.addi %c0, %[[K2]]
// CHECK:         %[[HI:.*]] = vector.load %[[LA]][%{{.*}}, %[[KHI]]] : {{.*}}, vector<16xf8E4M3FN>
// CHECK:         %[[AF:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
// CHECK:         %[[BF:.*]] = vector.shuffle {{.*}} : vector<16xf8E5M2>, vector<16xf8E5M2>
// CHECK:         amdgpu.mfma 16x16x128 %[[BF]] * %[[AF]] + %{{.*}} blgp = none : vector<32xf8E5M2>, vector<32xf8E4M3FN>, vector<4xf32>
func.func @f8f6f4_16x16x128(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<16x144xf8E4M3FN, #gpu.address_space<workgroup>>,
                       %lb : memref<16x144xf8E5M2, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = f8f6f4 [16, 16, 128], stages = 1>
           acc(%zero) : memref<16x144xf8E4M3FN, #gpu.address_space<workgroup>>, memref<16x144xf8E5M2, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// 32x32x64: the second run starts 32 further; lanes 32-63 read 16 further.
// CHECK-LABEL: func.func @f8f6f4_32x32x64
// CHECK:         %[[GROUP:.*]] = arith.divui %{{.*}}, %c32
// CHECK:         %[[K:.*]] = arith.muli %[[GROUP]], %c16
// CHECK:         vector.load {{.*}} vector<16xf8E4M3FN>
// CHECK:         arith.addi %[[K]], %c32
// CHECK:         vector.load {{.*}} vector<16xf8E4M3FN>
// CHECK:         amdgpu.mfma 32x32x64 {{.*}} : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<16xf32>
func.func @f8f6f4_32x32x64(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<32x80xf8E4M3FN, #gpu.address_space<workgroup>>,
                       %lb : memref<32x80xf8E4M3FN, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = f8f6f4 [32, 32, 64], stages = 1>
           acc(%zero) : memref<32x80xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x80xf8E4M3FN, #gpu.address_space<workgroup>>, vector<16xf32>
    vector.store %p, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}

// -----

// FNUZ data on gfx950 with mfma = bf16: each 8-byte fragment is converted
// exactly to bf16 (exponent rebias 127 - 8 = 119 for e4m3fnuz, subnormals
// as m * 2^-10 through f32, 0x80 -> NaN 0x7FC0) before the bf16 MFMA.
// CHECK-LABEL: func.func @fnuz_as_bf16
// CHECK:       %[[FRAG:.*]] = vector.load %{{.*}} : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
// CHECK:       %[[BYTES:.*]] = arith.bitcast %[[FRAG]] : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:       arith.extui %[[BYTES]] : vector<8xi8> to vector<8xi16>
// CHECK:       arith.constant dense<119> : vector<8xi16>
// CHECK:       %[[SUBSCALE:.*]] = arith.constant dense<9.765625E-4> : vector<8xf32>
// CHECK:       %[[M:.*]] = arith.uitofp %{{.*}} : vector<8xi16> to vector<8xf32>
// CHECK:       arith.mulf %[[M]], %[[SUBSCALE]] : vector<8xf32>
// CHECK:       arith.constant dense<32704> : vector<8xi16>
// CHECK:       arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK:       amdgpu.mfma 16x16x32 {{.*}} : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
func.func @fnuz_as_bf16(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
                       %lb : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 32], waves = [1, 1], mfma = bf16 [16, 16, 32], stages = 1>
           acc(%zero) : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Scaled MFMA (MX): each lane loads one E8M0 scale per operand and MFMA
// tile: the one of its fragment row (clamped to the last row, 39 for B)
// and of the (l / 16)-th 32-wide block of the 128-wide step, from the
// [rows, K / 32] scale tensors (clamped to the last block, 7). As for the
// data, B's scale goes with the instruction's first operand.
// CHECK-LABEL: func.func @scaled_16x16x128
// CHECK-SAME:    (%[[SA:.*]]: memref<64x8xf8E8M0FNU>, %[[SB:.*]]: memref<40x8xf8E8M0FNU>, %[[SR:.*]]: index, %[[SC:.*]]: index, %[[SK:.*]]: index,
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[FROW:.*]] = arith.remui %[[LANE]], %c16
// CHECK:         %[[GROUP:.*]] = arith.divui %[[LANE]], %c16
// CHECK:         %[[AF:.*]] = vector.shuffle {{.*}} : vector<16xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:         %[[BF:.*]] = vector.shuffle {{.*}} : vector<16xf8E5M2>, vector<16xf8E5M2>
// CHECK:         %[[AR:.*]] = arith.addi %[[SR]], %{{.*}}
// CHECK:         %[[ARC:.*]] = arith.minui %[[AR]], %c63
// CHECK:         %[[KB:.*]] = arith.addi %[[SK]], %[[GROUP]]
// CHECK:         %[[KBC:.*]] = arith.minui %[[KB]], %c7
// CHECK:         %[[AS:.*]] = memref.load %[[SA]][%[[ARC]], %[[KBC]]] : memref<64x8xf8E8M0FNU>
// CHECK:         %[[BR:.*]] = arith.addi %[[SC]], %{{.*}}
// CHECK:         %[[BRC:.*]] = arith.minui %[[BR]], %c39
// CHECK:         %[[BS:.*]] = memref.load %[[SB]][%[[BRC]], %[[KBC]]] : memref<40x8xf8E8M0FNU>
// CHECK:         amdgpu.scaled_mfma 16x16x128 (%[[BS]][0] * %[[BF]]) * (%[[AS]][0] * %[[AF]]) + %{{.*}} : f8E8M0FNU, vector<32xf8E5M2>, f8E8M0FNU, vector<32xf8E4M3FN>, vector<4xf32>
func.func @scaled_16x16x128(%sa: memref<64x8xf8E8M0FNU>, %sb: memref<40x8xf8E8M0FNU>,
                            %srow: index, %scol: index, %skb: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<16x144xf8E4M3FN, #gpu.address_space<workgroup>>,
                       %lb : memref<16x144xf8E5M2, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           scales(%sa[%srow, %skb], %sb[%scol, %skb] : memref<64x8xf8E8M0FNU>, memref<40x8xf8E8M0FNU>)
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
           acc(%zero) : memref<16x144xf8E4M3FN, #gpu.address_space<workgroup>>, memref<16x144xf8E5M2, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// FP4 x FP6 on the scaled 32x32x64 form: each lane reads 32 consecutive
// values at k = 32 * (l / 32): 16 bytes of FP4 from byte 16 * (l / 32), 24
// bytes of FP6 from byte 24 * (l / 32), as the instruction takes them.
// CHECK-LABEL: func.func @fp4_x_fp6_scaled
// CHECK:         %[[GROUP:.*]] = arith.divui %{{.*}}, %c32
// CHECK:         %[[K:.*]] = arith.muli %[[GROUP]], %c32
// CHECK:         %[[K4:.*]] = arith.muli %[[K]], %c4
// CHECK:         %[[BYTE4:.*]] = arith.divui %[[K4]], %c8
// CHECK:         %[[AF:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, vector<32xf4E2M1FN>
// CHECK:         %[[K6:.*]] = arith.muli %[[K]], %c6
// CHECK:         %[[BYTE6:.*]] = arith.divui %[[K6]], %c8
// CHECK:         %[[BF:.*]] = vector.load %{{.*}} : memref<32x72xf6E2M3FN, #gpu.address_space<workgroup>>, vector<32xf6E2M3FN>
// CHECK:         amdgpu.scaled_mfma 32x32x64 (%{{.*}}[0] * %[[BF]]) * (%{{.*}}[0] * %[[AF]]) + %{{.*}} : f8E8M0FNU, vector<32xf6E2M3FN>, f8E8M0FNU, vector<32xf4E2M1FN>, vector<16xf32>
func.func @fp4_x_fp6_scaled(%sa: memref<32x2xf8E8M0FNU>, %sb: memref<32x2xf8E8M0FNU>,
                            %i: index, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>,
                       %lb : memref<32x72xf6E2M3FN, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           scales(%sa[%i, %i], %sb[%i, %i] : memref<32x2xf8E8M0FNU>, memref<32x2xf8E8M0FNU>)
           config #qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = scaled_f8f6f4 [32, 32, 64], stages = 1>
           acc(%zero) : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, memref<32x72xf6E2M3FN, #gpu.address_space<workgroup>>, vector<16xf32>
    vector.store %p, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}
