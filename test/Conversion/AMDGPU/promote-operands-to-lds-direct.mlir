// RUN: fp8-opt %s -split-input-file --qmm-promote-operands-to-lds=chip=gfx950 --cse | FileCheck %s

// lds_copy = direct: each wave's 64 lanes fill 1 KiB of the unpadded LDS
// tile (128-byte rows: 8 rows) in lane order with 16-byte direct loads.
// 32 rows x 8 chunks = 256 chunks for 64 threads: 4 rounds per tile.
// Round r, thread t: LDS slot s = t + 64 r, row s / 8, unit s mod 8; the
// wave's destination is row (64 w + 64 r) / 8 of lane 0 (w read from lane 0,
// so that it is uniform). The lane loads global column 16 * (unit ^ x(row))
// where, for the 32x32x64 f8f6f4 reads (lanes 0-31 rows 0-31 at one 16-byte
// unit), x(row) = ((row / 2) mod 8) ^ 4 * ((row / 16) mod 2): the 16 rows
// one LDS phase serves, in lane order (0-15) and in the hardware's order of
// 128-bit reads (0-7 with 16-23), land on 16 distinct 16-byte bank groups
// (two 128-byte rows per 256 bytes of banks: row parity and x(row) distinct).
// CHECK-DAG:   #[[WAVE:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 64)>
// CHECK-DAG:   #[[UNIT:map[0-9]*]] = affine_map<()[s0] -> (s0 mod 8)>
// CHECK-DAG:   #[[STEP:map[0-9]*]] = affine_map<()[s0] -> (((s0 floordiv 8) floordiv 2) mod 8)>
// CHECK-DAG:   #[[FLIP:map[0-9]*]] = affine_map<()[s0] -> (((s0 floordiv 8) floordiv 16) * 4 - (((s0 floordiv 8) floordiv 16) floordiv 2) * 8)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 8)>
// CHECK-DAG:   #[[COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16)>
// CHECK-DAG:   #[[DST:map[0-9]*]] = affine_map<()[s0] -> (s0 * 8)>
// CHECK-LABEL: func.func @direct_single_stage
// CHECK-SAME:    (%[[A:.*]]: memref<64x256xf8E4M3FN>, %[[B:.*]]: memref<32x256xf8E4M3FN>,
// Unpadded rows (the padded layout has 144 bytes).
// CHECK:       workgroup(%[[LA:.*]] : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>)
// CHECK:         gpu.barrier
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT:    %[[W:.*]] = affine.apply #[[WAVE]]()[%[[TID]]]
// CHECK-NEXT:    %[[WI32:.*]] = arith.index_castui %[[W]] : index to i32
// CHECK-NEXT:    %[[WU:.*]] = rocdl.readfirstlane %[[WI32]] : i32
// CHECK-NEXT:    %[[WUNIFORM:.*]] = arith.index_castui %[[WU]] : i32 to index
// CHECK-NEXT:    %[[X1:.*]] = affine.apply #[[STEP]]()[%[[TID]]]
// CHECK-NEXT:    %[[X2:.*]] = affine.apply #[[FLIP]]()[%[[TID]]]
// CHECK-NEXT:    %[[X:.*]] = arith.xori %[[X1]], %[[X2]] : index
// CHECK-NEXT:    %[[U:.*]] = affine.apply #[[UNIT]]()[%[[TID]]]
// CHECK-NEXT:    %[[SRCUNIT:.*]] = arith.xori %[[U]], %[[X]] : index
// CHECK-NEXT:    %[[R:.*]] = affine.apply #[[ROW]]()[%[[TID]]]
// CHECK-NEXT:    %[[C:.*]] = affine.apply #[[COL]]()[%[[SRCUNIT]]]
// CHECK-NEXT:    %[[D:.*]] = affine.apply #[[DST]]()[%[[WUNIFORM]]]
// CHECK-NEXT:    amdgpu.gather_to_lds %[[A]][%[[R]], %[[C]]], %[[LA]][%[[D]], %c0] : vector<16xf8E4M3FN>, memref<64x256xf8E4M3FN>, memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK-COUNT-3: amdgpu.gather_to_lds %[[A]]
// CHECK-COUNT-4: amdgpu.gather_to_lds %[[B]]
// No LDS stores: the loads write LDS themselves.
// CHECK-NOT:     vector.store
// CHECK:         gpu.barrier
// CHECK-NEXT:    qmm.wave_mma %[[LA]][%c0, %c0], %[[LB]][%c0, %c0]
func.func @direct_single_stage(%a: memref<64x256xf8E4M3FN>, %b: memref<32x256xf8E4M3FN>,
                               %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = f8f6f4 [32, 32, 64], stages = 1, lds_copy = direct>
           acc(%zero) : memref<64x256xf8E4M3FN>, memref<32x256xf8E4M3FN>, vector<16xf32>
    vector.store %p, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}

// -----

// Double buffered: the next tile's direct loads are issued before this
// tile's MFMAs (into the other stage) and nothing is written after them;
// one barrier per trip. The last trip (k = 384) has no next tile: its
// loads are skipped, so its barrier waits for none; the others load the
// tile at k + 128.
// CHECK-LABEL: func.func @direct_double_buffered
// CHECK:         amdgpu.gather_to_lds {{.*}} memref<2x32x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK:         gpu.barrier
// CHECK:         scf.for %[[K:.*]] = %c0 to %c512 step %c128
// CHECK-NOT:         arith.select
// CHECK:           %[[LAST:.*]] = arith.constant 384 : index
// CHECK:           %[[NOTLAST:.*]] = arith.cmpi ne, %[[K]], %[[LAST]] : index
// CHECK-NEXT:      scf.if %[[NOTLAST]] {
// CHECK-NEXT:        arith.addi %[[K]], %c128 : index
// CHECK-COUNT-8:     amdgpu.gather_to_lds
// CHECK-NEXT:      }
// CHECK-NEXT:      amdgpu.sched_barrier
// CHECK:           qmm.wave_mma
// CHECK-NEXT:      amdgpu.sched_barrier
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield
func.func @direct_double_buffered(%a: memref<32x512xf8E4M3FN>, %b: memref<32x512xf8E4M3FN>,
                                  %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %r = scf.for %k = %c0 to %c512 step %c128 iter_args(%acc = %zero) -> vector<16xf32> {
      %p = qmm.wave_mma %a[%c0, %k], %b[%c0, %k] wave_offset [%c0, %c0]
             config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = f8f6f4 [32, 32, 64], stages = 2, lds_copy = direct>
             acc(%acc) : memref<32x512xf8E4M3FN>, memref<32x512xf8E4M3FN>, vector<16xf32>
      scf.yield %p : vector<16xf32>
    }
    vector.store %r, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}

// -----

// Packed FP4: tile rows of 128 values are 64 bytes (4 chunks of 32 values),
// 32 rows x 4 = 128 chunks: two rounds of 64 lanes per tile. The loads read
// a flat byte view of the operand (rows of 256 / 2 = 128 bytes), at byte
// row * 128 + 64 (the K tile at 128 values) + the lane's swizzled column.
// Round 2 reads rows 16-31: 16 x 128 + 64 = 2112.
// CHECK-DAG:   #[[BYTE0:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 * 16 + (s0 floordiv 4) * 128 + 64)>
// CHECK-DAG:   #[[BYTE1:map[0-9]*]] = affine_map<()[s0, s1] -> (s1 * 16 + (s0 floordiv 4) * 128 + 2112)>
// CHECK-LABEL: func.func @direct_fp4
// CHECK-SAME:    (%[[A:.*]]: memref<32x256xf4E2M1FN>, %[[B:.*]]: memref<32x256xf4E2M1FN>,
// CHECK:         workgroup(%[[LA:.*]] : memref<32x64xf4E2M1FN, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<32x64xf4E2M1FN, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[FLAT:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [8192], strides: [1] : memref<32x256xf4E2M1FN> to memref<8192xf4E2M1FN>
// CHECK-NEXT:    %[[BYTE:.*]] = affine.apply #[[BYTE0]]()[%[[TID]], %{{.*}}]
// CHECK-NEXT:    affine.apply
// CHECK-NEXT:    amdgpu.gather_to_lds %[[FLAT]][%[[BYTE]]], %[[LA]][%{{.*}}, %c0] : vector<32xf4E2M1FN>, memref<8192xf4E2M1FN>, memref<32x64xf4E2M1FN, #gpu.address_space<workgroup>>
// CHECK:         affine.apply #[[BYTE1]]()[%[[TID]], %{{.*}}]
// CHECK:         amdgpu.gather_to_lds %[[FLAT]]
// CHECK:         memref.reinterpret_cast %[[B]]
// CHECK-COUNT-2: amdgpu.gather_to_lds
// CHECK-NOT:     vector.store
// CHECK:         gpu.barrier
// CHECK-NEXT:    qmm.wave_mma %[[LA]][%c0, %c0], %[[LB]][%c0, %c0]
func.func @direct_fp4(%a: memref<32x256xf4E2M1FN>, %b: memref<32x256xf4E2M1FN>,
                      %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%c0, %c128], %b[%c0, %c128] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = f8f6f4 [32, 32, 64], stages = 1, lds_copy = direct>
           acc(%zero) : memref<32x256xf4E2M1FN>, memref<32x256xf4E2M1FN>, vector<16xf32>
    vector.store %p, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}
