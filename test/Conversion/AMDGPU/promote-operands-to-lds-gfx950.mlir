// RUN: fp8-opt %s -split-input-file --qmm-promote-operands-to-lds=chip=gfx950 --cse | FileCheck %s

// Packed FP4 and FP6 tiles (the dialect's storage: rows of K * w / 8 bytes,
// addressed by byte). Tile K 128: an FP4 tile row is 64 bytes, copied as 4
// chunks of 16 bytes (32 values); an FP6 row is 96 bytes, 4 chunks of 24
// bytes (32 values; 16 bytes would end inside a value). Global reads go
// through a flat view of the operand at byte row * (K * w / 8) + k * w / 8
// (K = 256: rows of 128 and 192 bytes); LDS columns are bytes, rows padded
// to conflict-free fragment reads (64 + 16 and 96 + 48 bytes).
// CHECK-LABEL: func.func @packed_tiles
// CHECK:       workgroup(%[[LA:.*]] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x144xf6E2M3FN, #gpu.address_space<workgroup>>)
// gfx950 writes 16 chunks (64 banks) per LDS phase: 4 FP4 rows of 80
// bytes, which collide row after row; rows 4 apart fill the banks, so
// chunk c goes to row 16 * (c / 64) + (c % 64) / 16 + 4 * ((c % 16) / 4),
// byte 16 * (c % 4).
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         scf.if
// CHECK:           %[[GROUP:.*]] = arith.divui %[[TID]], %c64
// CHECK:           %[[IN_GROUP:.*]] = arith.remui %[[TID]], %c64
// CHECK:           %[[IN_PHASE:.*]] = arith.remui %[[IN_GROUP]], %c16
// CHECK:           %[[K4:.*]] = arith.divui %[[IN_PHASE]], %c4
// CHECK:           %[[STRIDED:.*]] = arith.muli %[[K4]], %c4
// CHECK:           %[[PHASE:.*]] = arith.divui %[[IN_GROUP]], %c16
// CHECK:           %[[GROUP_ROW:.*]] = arith.muli %[[GROUP]], %c16
// CHECK:           %[[R0:.*]] = arith.addi %[[GROUP_ROW]], %[[PHASE]]
// CHECK:           %[[ROW:.*]] = arith.addi %[[R0]], %[[STRIDED]]
// CHECK:           %[[CHUNK:.*]] = arith.remui %[[IN_PHASE]], %c4
// CHECK:           %[[COL:.*]] = arith.muli %[[CHUNK]], %c16
// CHECK:           %[[GROW:.*]] = arith.minui %{{.*}}, %c39
// CHECK:           %[[KBITS:.*]] = arith.muli %[[COL]], %c8
// CHECK:           %[[KOFF:.*]] = arith.divui %[[KBITS]], %c4
// CHECK:           %[[K:.*]] = arith.addi %arg2, %[[KOFF]]
// CHECK:           %[[FLAT:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [10240], strides: [1] : memref<40x256xf4E2M1FN> to memref<10240xf4E2M1FN>
// CHECK:           %[[KB:.*]] = arith.muli %[[K]], %c4
// CHECK:           %[[KBYTE:.*]] = arith.divui %[[KB]], %c8
// CHECK:           %[[ROWBYTE:.*]] = arith.muli %[[GROW]], %c128
// CHECK:           %[[AT:.*]] = arith.addi %[[ROWBYTE]], %[[KBYTE]]
// CHECK:           %[[DATA:.*]] = vector.load %[[FLAT]][%[[AT]]] : memref<10240xf4E2M1FN>, vector<32xf4E2M1FN>
// CHECK:           vector.store %[[DATA]], %[[LA]][%[[ROW]], %[[COL]]] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, vector<32xf4E2M1FN>
// CHECK:         scf.if
// CHECK:           %[[COL6:.*]] = arith.muli %{{.*}}, %c24
// CHECK:           memref.reinterpret_cast %arg1 to offset: [0], sizes: [12288], strides: [1]
// CHECK:           arith.muli %{{.*}}, %c192
// CHECK:           %[[DATA6:.*]] = vector.load %{{.*}} : memref<12288xf6E2M3FN>, vector<32xf6E2M3FN>
// CHECK:           vector.store %[[DATA6]], %[[LB]][%{{.*}}, %[[COL6]]] : memref<32x144xf6E2M3FN, #gpu.address_space<workgroup>>, vector<32xf6E2M3FN>
func.func @packed_tiles(%a: memref<40x256xf4E2M1FN>, %b: memref<48x256xf6E2M3FN>,
                        %k: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%c0, %k], %b[%c0, %k] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = f8f6f4 [16, 16, 128], stages = 1>
           acc(%zero) : memref<40x256xf4E2M1FN>, memref<48x256xf6E2M3FN>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A group's matrix of a [G, rows, K] operand (grouped matmuls): 8-bit data
// loads with the group as leading index; packed FP4 data takes the group's
// rows from the operand's start: flat row g * 64 + row, 128 bytes each.
// CHECK-LABEL: func.func @group_operands
// CHECK-SAME:    (%[[A:.*]]: memref<2x32x256xf8E4M3FN>, %[[B:.*]]: memref<3x64x256xf4E2M1FN>, %[[G:.*]]: index, %[[K:.*]]: index,
// CHECK:         vector.load %[[A]][%[[G]], %{{.*}}, %{{.*}}] : memref<2x32x256xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:         %[[GROUP_ROW:.*]] = arith.muli %[[G]], %c64
// CHECK:         %[[FLAT_ROW:.*]] = arith.addi %[[GROUP_ROW]], %{{.*}}
// CHECK:         arith.muli %[[FLAT_ROW]], %c128
// CHECK:         vector.load %{{.*}} : memref<49152xf4E2M1FN>, vector<32xf4E2M1FN>
func.func @group_operands(%a: memref<2x32x256xf8E4M3FN>, %b: memref<3x64x256xf4E2M1FN>,
                          %g: index, %k: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%g, %c0, %k], %b[%g, %c0, %k] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = f8f6f4 [16, 16, 128], stages = 1>
           acc(%zero) : memref<2x32x256xf8E4M3FN>, memref<3x64x256xf4E2M1FN>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
