// RUN: fp8-opt %s -split-input-file --qmm-lower-wave-mma-to-mfma=chip=gfx950 --cse | FileCheck %s

// f8f6f4 16x16x128 with FP8 operands (CDNA4 ISA guide): lane l holds K
// values 16 * (l / 16) .. +15 and, half the instruction's K (64) further,
// 64 + 16 * (l / 16) .. +15; the two 16-byte loads are joined into the
// vector<32> the instruction reads.
// Index maps over the thread id s0 (lane = s0 mod 64):
//   A and B row: lane % 16
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0] -> (s0 mod 16)>
//   first run: 16 values per quarter-wave
// CHECK-DAG: #[[KLO:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 16)>
//   second run: half the instruction's K (64) further
// CHECK-DAG: #[[KHI:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 16 + 64)>
// CHECK-LABEL: func.func @f8f6f4_16x16x128
// CHECK:         workgroup(%[[LA:.*]] : memref<16x144xf8E4M3FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<16x144xf8E5M2, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]]]
// CHECK:         %[[K:.*]] = affine.apply #[[KLO]]()[%[[TID]]]
// CHECK:         %[[LO:.*]] = vector.load %[[LA]][%[[R]], %[[K]]] : {{.*}}, vector<16xf8E4M3FN>
// CHECK:         %[[K2:.*]] = affine.apply #[[KHI]]()[%[[TID]]]
// CHECK:         %[[HI:.*]] = vector.load %[[LA]][%[[R]], %[[K2]]] : {{.*}}, vector<16xf8E4M3FN>
// CHECK:         %[[AF:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
// CHECK:         %[[BLO:.*]] = vector.load %[[LB]][%[[R]], %[[K]]] : {{.*}}, vector<16xf8E5M2>
// CHECK:         %[[BHI:.*]] = vector.load %[[LB]][%[[R]], %[[K2]]] : {{.*}}, vector<16xf8E5M2>
// CHECK:         %[[BF:.*]] = vector.shuffle %[[BLO]], %[[BHI]] {{.*}} : vector<16xf8E5M2>, vector<16xf8E5M2>
// CHECK:         amdgpu.mfma 16x16x128 %[[BF]] * %[[AF]] + %{{.*}} blgp = none : vector<32xf8E5M2>, vector<32xf8E4M3FN>, vector<4xf32>
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
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
//   A and B row: lane % 32
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0] -> (s0 mod 32)>
//   first run: 16 values per half-wave
// CHECK-DAG: #[[KLO:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 32) * 16)>
//   second run: half the instruction's K (32) further
// CHECK-DAG: #[[KHI:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 32) * 16 + 32)>
// CHECK-LABEL: func.func @f8f6f4_32x32x64
// CHECK:         workgroup(%[[LA:.*]] : memref<32x80xf8E4M3FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x80xf8E4M3FN, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]]]
// CHECK:         %[[K:.*]] = affine.apply #[[KLO]]()[%[[TID]]]
// CHECK:         %[[LO:.*]] = vector.load %[[LA]][%[[R]], %[[K]]] : {{.*}}, vector<16xf8E4M3FN>
// CHECK:         %[[K2:.*]] = affine.apply #[[KHI]]()[%[[TID]]]
// CHECK:         %[[HI:.*]] = vector.load %[[LA]][%[[R]], %[[K2]]] : {{.*}}, vector<16xf8E4M3FN>
// CHECK:         %[[AF:.*]] = vector.shuffle %[[LO]], %[[HI]]
// CHECK:         %[[BLO:.*]] = vector.load %[[LB]][%[[R]], %[[K]]]
// CHECK:         %[[BHI:.*]] = vector.load %[[LB]][%[[R]], %[[K2]]]
// CHECK:         %[[BF:.*]] = vector.shuffle %[[BLO]], %[[BHI]]
// CHECK:         amdgpu.mfma 32x32x64 %[[BF]] * %[[AF]] + %{{.*}} : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<16xf32>
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
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
//   A and B row: lane % 16
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0] -> (s0 mod 16)>
//   K: 8 values per quarter-wave
// CHECK-DAG: #[[K:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 8)>
// CHECK-LABEL: func.func @fnuz_as_bf16
// CHECK:       workgroup(%[[LA:.*]] : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:       %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:   arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:       %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]]]
// CHECK:       %[[KK:.*]] = affine.apply #[[K]]()[%[[TID]]]
// CHECK:       %[[FRAG:.*]] = vector.load %[[LA]][%[[R]], %[[KK]]] : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
// CHECK:       %[[BYTES:.*]] = arith.bitcast %[[FRAG]] : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:       arith.extui %[[BYTES]] : vector<8xi8> to vector<8xi16>
// CHECK:       arith.constant dense<119> : vector<8xi16>
// CHECK:       %[[SUBSCALE:.*]] = arith.constant dense<9.765625E-4> : vector<8xf32>
// CHECK:       %[[M:.*]] = arith.uitofp %{{.*}} : vector<8xi16> to vector<8xf32>
// CHECK:       arith.mulf %[[M]], %[[SUBSCALE]] : vector<8xf32>
// CHECK:       arith.constant dense<32704> : vector<8xi16>
// CHECK:       %[[A:.*]] = arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK:       vector.load %[[LB]][%[[R]], %[[KK]]] : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
// CHECK:       %[[B:.*]] = arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK:       amdgpu.mfma 16x16x32 %[[B]] * %[[A]] {{.*}} : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
// CHECK-NOT:   arith.{{(add|mul|div|rem)}}{{.*}} : index
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
//   data: row and two K runs as in @f8f6f4_16x16x128
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0] -> (s0 mod 16)>
// CHECK-DAG: #[[KLO:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 16)>
// CHECK-DAG: #[[KHI:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 16) * 16 + 64)>
//   scale row: s1 (scale row origin) + lane % 16, which MLIR prints with
//   s0 mod 16 expanded to s0 - (s0 floordiv 16) * 16
// CHECK-DAG: #[[SROW:.*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 16) * 16)>
//   scale K block: s1 (K block origin) + lane / 16
// CHECK-DAG: #[[SBLK:.*]] = affine_map<()[s0, s1] -> (s1 + (s0 mod 64) floordiv 16)>
// CHECK-LABEL: func.func @scaled_16x16x128
// CHECK-SAME:    (%[[SA:.*]]: memref<64x8xf8E8M0FNU>, %[[SB:.*]]: memref<40x8xf8E8M0FNU>, %[[SR:.*]]: index, %[[SC:.*]]: index, %[[SK:.*]]: index,
// CHECK:         workgroup(%[[LA:.*]] : memref<16x144xf8E4M3FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<16x144xf8E5M2, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]]]
// CHECK:         %[[K:.*]] = affine.apply #[[KLO]]()[%[[TID]]]
// CHECK:         vector.load %[[LA]][%[[R]], %[[K]]]
// CHECK:         %[[K2:.*]] = affine.apply #[[KHI]]()[%[[TID]]]
// CHECK:         vector.load %[[LA]][%[[R]], %[[K2]]]
// CHECK:         %[[AF:.*]] = vector.shuffle {{.*}} : vector<16xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:         vector.load %[[LB]][%[[R]], %[[K]]]
// CHECK:         vector.load %[[LB]][%[[R]], %[[K2]]]
// CHECK:         %[[BF:.*]] = vector.shuffle {{.*}} : vector<16xf8E5M2>, vector<16xf8E5M2>
// CHECK:         %[[AR:.*]] = affine.apply #[[SROW]]()[%[[TID]], %[[SR]]]
// CHECK:         %[[ARC:.*]] = arith.minui %[[AR]], %c63
// CHECK:         %[[KB:.*]] = affine.apply #[[SBLK]]()[%[[TID]], %[[SK]]]
// CHECK:         %[[KBC:.*]] = arith.minui %[[KB]], %c7
// CHECK:         %[[AS:.*]] = memref.load %[[SA]][%[[ARC]], %[[KBC]]] : memref<64x8xf8E8M0FNU>
// CHECK:         %[[BR:.*]] = affine.apply #[[SROW]]()[%[[TID]], %[[SC]]]
// CHECK:         %[[BRC:.*]] = arith.minui %[[BR]], %c39
// CHECK:         %[[BS:.*]] = memref.load %[[SB]][%[[BRC]], %[[KBC]]] : memref<40x8xf8E8M0FNU>
// CHECK:         amdgpu.scaled_mfma 16x16x128 (%[[BS]][0] * %[[BF]]) * (%[[AS]][0] * %[[AF]]) + %{{.*}} : f8E8M0FNU, vector<32xf8E5M2>, f8E8M0FNU, vector<32xf8E4M3FN>, vector<4xf32>
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
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
//   A and B row: lane % 32
// CHECK-DAG: #[[ROW:.*]] = affine_map<()[s0] -> (s0 mod 32)>
//   FP4 byte: 32 values = 16 bytes per half-wave
// CHECK-DAG: #[[BYTE4:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 32) * 16)>
//   FP6 byte: 32 values = 24 bytes per half-wave
// CHECK-DAG: #[[BYTE6:.*]] = affine_map<()[s0] -> (((s0 mod 64) floordiv 32) * 24)>
//   scale row: s1 + lane % 32 (printed expanded)
// CHECK-DAG: #[[SROW:.*]] = affine_map<()[s0, s1] -> (s0 + s1 - (s0 floordiv 32) * 32)>
//   scale K block: s1 + lane / 32
// CHECK-DAG: #[[SBLK:.*]] = affine_map<()[s0, s1] -> (s1 + (s0 mod 64) floordiv 32)>
// CHECK-LABEL: func.func @fp4_x_fp6_scaled
// CHECK-SAME:    (%[[SA:.*]]: memref<32x2xf8E8M0FNU>, %[[SB:.*]]: memref<32x2xf8E8M0FNU>, %[[I:.*]]: index,
// CHECK:         workgroup(%[[LA:.*]] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x72xf6E2M3FN, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
// CHECK:         %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]]]
// CHECK:         %[[C4:.*]] = affine.apply #[[BYTE4]]()[%[[TID]]]
// CHECK:         %[[AF:.*]] = vector.load %[[LA]][%[[R]], %[[C4]]] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, vector<32xf4E2M1FN>
// CHECK:         %[[C6:.*]] = affine.apply #[[BYTE6]]()[%[[TID]]]
// CHECK:         %[[BF:.*]] = vector.load %[[LB]][%[[R]], %[[C6]]] : memref<32x72xf6E2M3FN, #gpu.address_space<workgroup>>, vector<32xf6E2M3FN>
//   A's and B's scale indices coincide here (same origin, same extents):
// CHECK:         %[[SR:.*]] = affine.apply #[[SROW]]()[%[[TID]], %[[I]]]
// CHECK:         %[[SRC:.*]] = arith.minui %[[SR]], %c31
// CHECK:         %[[KB:.*]] = affine.apply #[[SBLK]]()[%[[TID]], %[[I]]]
// CHECK:         %[[KBC:.*]] = arith.minui %[[KB]], %c1
// CHECK:         %[[AS:.*]] = memref.load %[[SA]][%[[SRC]], %[[KBC]]]
// CHECK:         %[[BS:.*]] = memref.load %[[SB]][%[[SRC]], %[[KBC]]]
// CHECK:         amdgpu.scaled_mfma 32x32x64 (%[[BS]][0] * %[[BF]]) * (%[[AS]][0] * %[[AF]]) + %{{.*}} : f8E8M0FNU, vector<32xf6E2M3FN>, f8E8M0FNU, vector<32xf4E2M1FN>, vector<16xf32>
// CHECK-NOT:     arith.{{(add|mul|div|rem)}}{{.*}} : index
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
