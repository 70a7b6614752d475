// RUN: fp8-opt %s -split-input-file --qmm-promote-operands-to-lds=chip=gfx950 --cse | FileCheck %s

// Packed FP4 and FP6 tiles (the dialect's storage: rows of K * w / 8 bytes,
// addressed by byte). Tile K 128: an FP4 tile row is 64 bytes, copied as 4
// chunks of 16 bytes (32 values); an FP6 row is 96 bytes, 4 chunks of 24
// bytes (32 values; 16 bytes would end inside a value). Global reads go
// through a flat view of the operand at byte row * (K * w / 8) + k * w / 8
// (K = 256: rows of 128 and 192 bytes); LDS columns are bytes, rows padded
// to conflict-free fragment reads (64 + 16 and 96 + 48 bytes). 32 rows x 4
// chunks = 128 chunks for 256 threads: threads 128 and up copy nothing.
// gfx950 writes 16 chunks (64 banks) per LDS phase: 4 FP4 rows of 80
// bytes, which collide row after row; rows 4 apart fill the banks
// (LdsCopyMapping: 4 chunks per row, 4 rows per phase, row stride 4,
// groups of 16 rows = 64 chunks), so chunk c goes to row
// 16 * (c floordiv 64) + (c mod 64) floordiv 16 + 4 * ((c mod 16) floordiv 4),
// byte 16 * (c mod 4).
// CHECK-DAG:   #[[FP4_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 16 + ((s0 mod 16) floordiv 4) * 4)>
// CHECK-DAG:   #[[FP4_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16 - (s0 floordiv 4) * 64)>
// A's flat byte: (clamped row) * 128 + k * 4 / 8 + the copy byte (value
// k + 2 * byte).
// CHECK-DAG:   #[[FP4_AT:map[0-9]*]] = affine_map<()[s0, s1, s2] -> (s0 * 128 + s1 * 16 + s2 floordiv 2 - (s1 floordiv 4) * 64)>
// FP6: 24-byte chunks, 10 per 256-byte phase (not whole rows): row after
// row (row stride 0), chunk c at row c floordiv 4, byte 24 * (c mod 4).
// CHECK-DAG:   #[[FP6_ROW:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 4)>
// CHECK-DAG:   #[[FP6_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 24 - (s0 floordiv 4) * 96)>
// B's flat byte: (clamped row) * 192 + k * 6 / 8 + the copy byte (value
// k + 32 * (c mod 4)).
// CHECK-DAG:   #[[FP6_AT:map[0-9]*]] = affine_map<()[s0, s1, s2] -> (s0 * 192 + s1 * 24 + (s2 * 3) floordiv 4 - (s1 floordiv 4) * 96)>
// CHECK-LABEL: func.func @packed_tiles
// CHECK-SAME:    (%[[A:.*]]: memref<40x256xf4E2M1FN>, %[[B:.*]]: memref<48x256xf6E2M3FN>, %[[K:.*]]: index,
// CHECK:       workgroup(%[[LA:.*]] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x144xf6E2M3FN, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID]], %c128
// Threads 128 and up load chunk 127 again and skip the store.
// CHECK:         %[[CHUNK:.*]] = arith.minui %[[TID]], %c127
// CHECK-NEXT:    %[[ROW:.*]] = affine.apply #[[FP4_ROW]]()[%[[CHUNK]]]
// CHECK-NEXT:    %[[COL:.*]] = affine.apply #[[FP4_COL]]()[%[[CHUNK]]]
// Rows past the matrix (40 rows, 48 rows: tiles of 32 divide neither) read
// its last row.
// CHECK:         %[[GROW:.*]] = arith.minui %[[ROW]], %c39
// CHECK-NEXT:    %[[FLAT:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [10240], strides: [1] : memref<40x256xf4E2M1FN> to memref<10240xf4E2M1FN>
// CHECK-NEXT:    %[[AT:.*]] = affine.apply #[[FP4_AT]]()[%[[GROW]], %[[CHUNK]], %[[K]]]
// CHECK-NEXT:    %[[DATA:.*]] = vector.load %[[FLAT]][%[[AT]]] : memref<10240xf4E2M1FN>, vector<32xf4E2M1FN>
// CHECK-NEXT:    scf.if %[[ACTIVE]] {
// CHECK-NEXT:      vector.store %[[DATA]], %[[LA]][%[[ROW]], %[[COL]]] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>, vector<32xf4E2M1FN>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ROW6:.*]] = affine.apply #[[FP6_ROW]]()[%[[CHUNK]]]
// CHECK-NEXT:    %[[COL6:.*]] = affine.apply #[[FP6_COL]]()[%[[CHUNK]]]
// CHECK:         %[[GROW6:.*]] = arith.minui %[[ROW6]], %c47
// CHECK-NEXT:    %[[FLAT6:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [12288], strides: [1] : memref<48x256xf6E2M3FN> to memref<12288xf6E2M3FN>
// CHECK-NEXT:    %[[AT6:.*]] = affine.apply #[[FP6_AT]]()[%[[GROW6]], %[[CHUNK]], %[[K]]]
// CHECK-NEXT:    %[[DATA6:.*]] = vector.load %[[FLAT6]][%[[AT6]]] : memref<12288xf6E2M3FN>, vector<32xf6E2M3FN>
// CHECK-NEXT:    scf.if %[[ACTIVE]] {
// CHECK-NEXT:      vector.store %[[DATA6]], %[[LB]][%[[ROW6]], %[[COL6]]] : memref<32x144xf6E2M3FN, #gpu.address_space<workgroup>>, vector<32xf6E2M3FN>
// CHECK-NEXT:    }
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
// Tiles of 32 rows divide both operands' rows (32, 64): no row clamp.
// FP8 A, rows of 128 bytes = 8 chunks, 2 rows per 16-chunk phase, row
// stride 8 (groups of 16 rows = 128 chunks): chunk c goes to row
// 16 * (c floordiv 128) + (c mod 128) floordiv 16 + 8 * ((c mod 16) floordiv 8),
// byte 16 * (c mod 8); 256 chunks, one per thread, no guard.
// CHECK-DAG:   #[[FP8_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 128) * 16 + (s0 mod 128) floordiv 16 + ((s0 mod 16) floordiv 8) * 8)>
// CHECK-DAG:   #[[FP8_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16 - (s0 floordiv 8) * 128)>
// CHECK-DAG:   #[[FP8_K:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 8) * 128)>
// FP4 B: the placement of @packed_tiles.
// CHECK-DAG:   #[[FP4_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 16 + ((s0 mod 16) floordiv 4) * 4)>
// CHECK-DAG:   #[[FP4_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16 - (s0 floordiv 4) * 64)>
// Flat byte (g * 64 + copy row) * 128 + copy byte + k / 2, the copy row
// expanded: g * 8192 + 2048 * (c floordiv 64) + 128 * ((c mod 64) floordiv 16)
// + 512 * ((c mod 16) floordiv 4) + 16 * (c mod 4) + k floordiv 2.
// CHECK-DAG:   #[[FP4_AT:map[0-9]*]] = affine_map<()[s0, s1, s2] -> (s0 * 8192 + s1 * 16 + s2 floordiv 2 - (s1 floordiv 4) * 64 + (s1 floordiv 64) * 2048 + ((s1 mod 64) floordiv 16) * 128 + ((s1 mod 16) floordiv 4) * 512)>
// CHECK-LABEL: func.func @group_operands
// CHECK-SAME:    (%[[A:.*]]: memref<2x32x256xf8E4M3FN>, %[[B:.*]]: memref<3x64x256xf4E2M1FN>, %[[G:.*]]: index, %[[K:.*]]: index,
// CHECK:         workgroup(%[[LA:.*]] : memref<32x144xf8E4M3FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x80xf4E2M1FN, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT:    %[[ROW:.*]] = affine.apply #[[FP8_ROW]]()[%[[TID]]]
// CHECK-NEXT:    %[[COL:.*]] = affine.apply #[[FP8_COL]]()[%[[TID]]]
// CHECK-NEXT:    %[[GK:.*]] = affine.apply #[[FP8_K]]()[%[[TID]], %[[K]]]
// CHECK-NEXT:    %[[DATA:.*]] = vector.load %[[A]][%[[G]], %[[ROW]], %[[GK]]] : memref<2x32x256xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK-NEXT:    vector.store %[[DATA]], %[[LA]][%[[ROW]], %[[COL]]]
// B: 128 chunks, threads clamped to 127 as in @packed_tiles.
// CHECK:         %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID]], %c128
// CHECK:         %[[CHUNK:.*]] = arith.minui %[[TID]], %c127
// CHECK-NEXT:    %[[ROW4:.*]] = affine.apply #[[FP4_ROW]]()[%[[CHUNK]]]
// CHECK-NEXT:    %[[COL4:.*]] = affine.apply #[[FP4_COL]]()[%[[CHUNK]]]
// CHECK-NEXT:    %[[FLAT:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [49152], strides: [1]
// CHECK-NEXT:    %[[AT:.*]] = affine.apply #[[FP4_AT]]()[%[[G]], %[[CHUNK]], %[[K]]]
// CHECK-NEXT:    %[[DATA4:.*]] = vector.load %[[FLAT]][%[[AT]]] : memref<49152xf4E2M1FN>, vector<32xf4E2M1FN>
// CHECK-NEXT:    scf.if %[[ACTIVE]] {
// CHECK-NEXT:      vector.store %[[DATA4]], %[[LB]][%[[ROW4]], %[[COL4]]]
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
