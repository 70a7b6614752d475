// RUN: fp8-opt %s -split-input-file --qmm-promote-operands-to-lds=chip=gfx942 --cse | FileCheck %s

// One LDS buffer per operand, tile rows x (tile K 64 + 8 bytes of padding:
// one 8-byte fragment piece, the smallest padding whose fragment reads are
// conflict-free). 32 rows x 4 chunks of 16 bytes = 128 chunks for 256
// threads: threads 128 and up copy nothing. On gfx942 (32 banks of 4
// bytes) one LDS phase of 16-byte writes is 8 chunks = two rows of 4
// chunks; rows are 18 dwords, and 8 * 18 = 16 (mod 32) = half the banks,
// so a phase writes rows r and r + 8: chunk c goes to row
// 16 * (c / 64) + (c % 64) / 8 + 8 * ((c % 8) / 4), bytes 16 * (c % 4).
// Rows past the matrix read its last row (39 for A, 47 for B).
// CHECK-LABEL: func.func @single_buffer
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%[[LDSA:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         gpu.barrier
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID]], %c128
// CHECK:         scf.if %[[ACTIVE]] {
// CHECK:           %[[GROUP:.*]] = arith.divui %[[TID]], %c64
// CHECK:           %[[IN_GROUP:.*]] = arith.remui %[[TID]], %c64
// CHECK:           %[[IN_PHASE:.*]] = arith.remui %[[IN_GROUP]], %c8
// CHECK:           %[[HALF:.*]] = arith.divui %[[IN_PHASE]], %c4
// CHECK:           %[[PAIR:.*]] = arith.muli %[[HALF]], %c8
// CHECK:           %[[PHASE:.*]] = arith.divui %[[IN_GROUP]], %c8
// CHECK:           %[[GROUP_ROW:.*]] = arith.muli %[[GROUP]], %c16
// CHECK:           %[[R0:.*]] = arith.addi %[[GROUP_ROW]], %[[PHASE]]
// CHECK:           %[[ROW:.*]] = arith.addi %[[R0]], %[[PAIR]]
// CHECK:           %[[CHUNK:.*]] = arith.remui %[[IN_PHASE]], %c4
// CHECK:           %[[COL:.*]] = arith.muli %[[CHUNK]], %c16
// CHECK:           %[[GROW:.*]] = arith.addi %c16, %[[ROW]]
// CHECK:           %[[CLAMPED:.*]] = arith.minui %[[GROW]], %c39
// CHECK:           %[[GK:.*]] = arith.addi %arg2, %[[COL]]
// CHECK:           %[[DATA:.*]] = vector.load %arg0[%[[CLAMPED]], %[[GK]]] : memref<40x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// CHECK:           vector.store %[[DATA]], %[[LDSA]][%[[ROW]], %[[COL]]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<16xf8E4M3FNUZ>
// CHECK:         scf.if %[[ACTIVE]] {
// CHECK:           arith.minui %{{.*}}, %c47
// CHECK:           vector.load %arg1
// CHECK:           vector.store %{{.*}}, %[[LDSB]]
// CHECK:         gpu.barrier
// CHECK:         qmm.wave_mma %[[LDSA]][%c0, %c0], %[[LDSB]][%c0, %c0] wave_offset[%c16, %c0]
// CHECK-SAME:      : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
func.func @single_buffer(%a: memref<40x256xf8E4M3FNUZ>, %b: memref<48x256xf8E4M3FNUZ>,
                         %k: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%c16, %k], %b[%c0, %k] wave_offset [%c16, %c0]
           config #qmm.config<tile = [32, 32, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<40x256xf8E4M3FNUZ>, memref<48x256xf8E4M3FNUZ>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A K tail (K = 80, not a multiple of tile K 64): a chunk wholly inside K
// (start < 80 - 16 + 1) is one vector load, the others are zeros. 32 x 32
// MFMA, one 8-byte piece of padding; 64 rows x 4 chunks = 256 chunks, one
// per thread (no guard).
// CHECK-LABEL: func.func @k_tail
// CHECK-NOT:   arith.cmpi ult, %{{.*}}, %c256
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c65
// CHECK:       scf.if %[[IN]] -> (vector<16xf8E4M3FNUZ>)
// CHECK:         vector.load %arg0
// CHECK:       } else {
// CHECK:         arith.constant dense<0.000000e+00> : vector<16xf8E4M3FNUZ>
func.func @k_tail(%a: memref<33x80xf8E4M3FNUZ>, %b: memref<17x80xf8E4M3FNUZ>,
                  %k: index, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %p:2 = qmm.wave_mma %a[%c0, %k], %b[%c0, %k] wave_offset [%c0, %c0]
           config #qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
           acc(%zero, %zero) : memref<33x80xf8E4M3FNUZ>, memref<17x80xf8E4M3FNUZ>, vector<16xf32>, vector<16xf32>
    vector.store %p#1, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}

// -----

// K = 40, not a multiple of 16: the chunk that crosses K loads byte by
// byte, indices clamped to K - 1 and zeros selected past K.
// CHECK-LABEL: func.func @k_not_multiple_of_16
// CHECK:       %[[WHOLE:.*]] = arith.cmpi ult, %{{.*}}, %c25
// CHECK:       scf.if %[[WHOLE]] -> (vector<16xf8E4M3FNUZ>)
// CHECK:         vector.load %arg0
// CHECK:       } else {
// CHECK:         %[[K:.*]] = arith.minui %{{.*}}, %c39
// CHECK:         memref.load %arg0[%{{.*}}, %[[K]]]
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %c40
// CHECK:         arith.select %[[INSIDE]]
// CHECK:         vector.from_elements {{.*}} : vector<16xf8E4M3FNUZ>
func.func @k_not_multiple_of_16(%a: memref<32x40xf8E4M3FNUZ>, %b: memref<32x40xf8E4M3FNUZ>,
                                %k: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%c0, %k], %b[%c0, %k] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<32x40xf8E4M3FNUZ>, memref<32x40xf8E4M3FNUZ>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// stages = 2: two buffers per operand. The first tile (the loop's lower
// bound, k = 0 * 64) goes into buffer 0 before the loop, then a barrier.
// Iteration t copies tile t + 1 (its k recomputed from t + 1) into buffer
// (t + 1) % 2 when t + 1 < 4, multiplies out of buffer t % 2 and ends with
// the one barrier.
// CHECK-LABEL: func.func @double_buffered
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%[[LDSA:.*]] : memref<2x32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         %[[K0:.*]] = arith.muli %c0, %c64
// CHECK:         %[[STAGE0:.*]] = arith.remui %{{.*}}, %c2
// CHECK:         vector.load %arg0[%{{.*}}, %{{.*}}]
// CHECK:         vector.store %{{.*}}, %[[LDSA]][%[[STAGE0]], %{{.*}}, %{{.*}}]
// CHECK:         vector.store %{{.*}}, %[[LDSB]][%[[STAGE0]], %{{.*}}, %{{.*}}]
// CHECK:         gpu.barrier
// CHECK:         scf.for %[[T:.*]] = %c0 to %c4 step %c1 iter_args(
// CHECK:           %[[NEXT:.*]] = arith.addi %[[T]], %c1
// CHECK:           %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %c4
// CHECK:           scf.if %[[MORE]] {
// CHECK:             %[[KN:.*]] = arith.muli %[[NEXT]], %c64
// CHECK:             %[[NSTAGE:.*]] = arith.remui %[[NEXT]], %c2
// CHECK:             arith.addi %[[KN]],
// CHECK:             vector.store %{{.*}}, %[[LDSA]][%[[NSTAGE]], %{{.*}}, %{{.*}}]
// CHECK:             vector.store %{{.*}}, %[[LDSB]][%[[NSTAGE]], %{{.*}}, %{{.*}}]
// CHECK:           }
// CHECK:           %[[STAGE:.*]] = arith.remui %[[T]], %c2
// CHECK:           qmm.wave_mma %[[LDSA]][%[[STAGE]], %c0, %c0], %[[LDSB]][%[[STAGE]], %c0, %c0]
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.yield
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.terminator
func.func @double_buffered(%a: memref<32x256xf8E4M3FNUZ>, %b: memref<16x256xf8E4M3FNUZ>,
                           %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (vector<4xf32>) {
      %k = arith.muli %t, %c64 : index
      %p = qmm.wave_mma %a[%c0, %k], %b[%c0, %k] wave_offset [%c0, %c0]
             config #qmm.config<tile = [32, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 2>
             acc(%acc) : memref<32x256xf8E4M3FNUZ>, memref<16x256xf8E4M3FNUZ>, vector<4xf32>
      scf.yield %p : vector<4xf32>
    }
    vector.store %r, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Operands already in LDS are left as they are.
// CHECK-LABEL: func.func @already_in_lds
// CHECK-NOT:   gpu.barrier
// CHECK:       qmm.wave_mma %{{.*}}[%c0, %c0], %{{.*}}[%c0, %c0]
func.func @already_in_lds(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%la : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
                       %lb : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>) {
    %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// MX scales stay where they are (read by the MFMA lowering in their
// [rows, K / 32] shape); only the data tiles move into LDS.
// CHECK-LABEL: func.func @scales_stay
// CHECK:       qmm.wave_mma %{{.*}}[%c0, %c0], %{{.*}}[%c0, %c0] wave_offset[%c0, %c0] scales(%arg2[%arg4, %arg5], %arg3[%arg4, %arg5] : memref<16x4xf8E8M0FNU>, memref<16x4xf8E8M0FNU>)
func.func @scales_stay(%a: memref<16x128xf8E4M3FN>, %b: memref<16x128xf8E4M3FN>,
                       %sa: memref<16x4xf8E8M0FNU>, %sb: memref<16x4xf8E8M0FNU>,
                       %row: index, %kb: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
           scales(%sa[%row, %kb], %sb[%row, %kb] : memref<16x4xf8E8M0FNU>, memref<16x4xf8E8M0FNU>)
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
           acc(%zero) : memref<16x128xf8E4M3FN>, memref<16x128xf8E4M3FN>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
