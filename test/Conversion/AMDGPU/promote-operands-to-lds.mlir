// RUN: fp8-opt %s -split-input-file --qmm-promote-operands-to-lds=chip=gfx942 --cse | FileCheck %s

// One LDS buffer per operand, tile rows x (tile K 64 + 8 bytes of padding:
// one 8-byte fragment piece, the smallest padding whose fragment reads are
// conflict-free). 32 rows x 4 chunks of 16 bytes = 128 chunks for 256
// threads: threads 128 and up copy nothing. On gfx942 (32 banks of 4
// bytes) one LDS phase of 16-byte writes is 8 chunks = two rows of 4
// chunks; rows are 18 dwords, and 8 * 18 = 16 (mod 32) = half the banks,
// so a phase writes rows r and r + 8 (LdsCopyMapping: 4 chunks per row,
// 2 rows per phase, row stride 8, groups of 2 * 8 rows = 64 chunks):
// chunk c goes to row 16 * (c floordiv 64) + (c mod 64) floordiv 8
// + 8 * ((c mod 8) floordiv 4), byte 16 * (c mod 4). One round: c = thread.
// CHECK-DAG:   #[[COPY_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8)>
// CHECK-DAG:   #[[COPY_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16 - (s0 floordiv 4) * 64)>
// A's tile starts at row 16: global row = 16 + copy row.
// CHECK-DAG:   #[[A_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8 + 16)>
// Global column: k + copy byte (1 byte per value).
// CHECK-DAG:   #[[GLOBAL_K:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 4) * 64)>
// CHECK-LABEL: func.func @single_buffer
// CHECK-SAME:    (%[[A:.*]]: memref<40x256xf8E4M3FNUZ>, %[[B:.*]]: memref<48x256xf8E4M3FNUZ>, %[[K:.*]]: index,
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%[[LDSA:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         gpu.barrier
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID]], %c128
// Threads past the last chunk load the last chunk again (the load is not
// branched around, so all loads of a copy issue back to back); only their
// LDS store is skipped.
// CHECK:         %[[CHUNK:.*]] = arith.minui %[[TID]], %c127
// CHECK-NEXT:    %[[ROW:.*]] = affine.apply #[[COPY_ROW]]()[%[[CHUNK]]]
// CHECK-NEXT:    %[[COL:.*]] = affine.apply #[[COPY_COL]]()[%[[CHUNK]]]
// Neither tile divides its operand's rows (40 and 48 for tiles of 32):
// rows past the matrix read its last row (39 for A, 47 for B).
// CHECK-NEXT:    %[[GROW:.*]] = affine.apply #[[A_ROW]]()[%[[CHUNK]]]
// CHECK-NEXT:    %[[C39:.*]] = arith.constant 39 : index
// CHECK-NEXT:    %[[CLAMPED:.*]] = arith.minui %[[GROW]], %[[C39]]
// CHECK-NEXT:    %[[GK:.*]] = affine.apply #[[GLOBAL_K]]()[%[[CHUNK]], %[[K]]]
// CHECK-NEXT:    %[[DATA:.*]] = vector.load %[[A]][%[[CLAMPED]], %[[GK]]] : memref<40x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// CHECK-NEXT:    scf.if %[[ACTIVE]] {
// CHECK-NEXT:      vector.store %[[DATA]], %[[LDSA]][%[[ROW]], %[[COL]]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<16xf8E4M3FNUZ>
// CHECK-NEXT:    }
// B's tile starts at row 0: the copy row itself is the global row (no add
// of 0), clamped.
// CHECK-NEXT:    %[[C47:.*]] = arith.constant 47 : index
// CHECK-NEXT:    %[[BCLAMPED:.*]] = arith.minui %[[ROW]], %[[C47]]
// CHECK-NEXT:    %[[BDATA:.*]] = vector.load %[[B]][%[[BCLAMPED]], %[[GK]]] : memref<48x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// CHECK-NEXT:    scf.if %[[ACTIVE]] {
// CHECK-NEXT:      vector.store %[[BDATA]], %[[LDSB]][%[[ROW]], %[[COL]]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<16xf8E4M3FNUZ>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
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
// MFMA, one 8-byte piece of padding; A: 64 rows x 4 chunks = 256 chunks
// for the 64 threads, four rounds (chunk = thread + 64 * round) and no
// guard. Same placement as above (64 rows: still row stride 8); chunk
// c + 64 lands 16 rows below chunk c, same byte. Rows are clamped to the
// last row (33 rows in A, 17 in B: tiles of 64 and 32 do not divide them).
// CHECK-DAG:   #[[COPY_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8)>
// CHECK-DAG:   #[[COPY_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16 - (s0 floordiv 4) * 64)>
// CHECK-DAG:   #[[GLOBAL_K:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 4) * 64)>
// Rounds 1, 2, 3: copy row of the thread + 16, + 32, + 48.
// CHECK-DAG:   #[[ROW_R1:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8 + 16)>
// CHECK-DAG:   #[[ROW_R2:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8 + 32)>
// CHECK-DAG:   #[[ROW_R3:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8 + 48)>
// CHECK-LABEL: func.func @k_tail
// CHECK:       workgroup(%[[LDSA:.*]] : memref<64x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:       %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:   arith.cmpi ult, %[[TID]]
// All rounds of an operand load first, then store (the loads' latencies
// overlap).
// CHECK:       %[[ROW0:.*]] = affine.apply #[[COPY_ROW]]()[%[[TID]]]
// CHECK:       %[[COL:.*]] = affine.apply #[[COPY_COL]]()[%[[TID]]]
// CHECK:       %[[C32:.*]] = arith.constant 32 : index
// CHECK:       %[[G0:.*]] = arith.minui %[[ROW0]], %[[C32]]
// CHECK:       %[[GK:.*]] = affine.apply #[[GLOBAL_K]]()[%[[TID]], %arg2]
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[GK]], %c65
// CHECK:       %[[D0:.*]] = scf.if %[[IN]] -> (vector<16xf8E4M3FNUZ>)
// CHECK:         vector.load %arg0[%[[G0]], %[[GK]]]
// CHECK:       } else {
// CHECK:         arith.constant dense<0.000000e+00> : vector<16xf8E4M3FNUZ>
// CHECK:       %[[ROW1:.*]] = affine.apply #[[ROW_R1]]()[%[[TID]]]
// CHECK:       %[[G1:.*]] = arith.minui %[[ROW1]], %[[C32]]
// CHECK:       %[[D1:.*]] = scf.if %[[IN]]
// CHECK:         vector.load %arg0[%[[G1]], %[[GK]]]
// CHECK:       %[[ROW2:.*]] = affine.apply #[[ROW_R2]]()[%[[TID]]]
// CHECK:       %[[G2:.*]] = arith.minui %[[ROW2]], %[[C32]]
// CHECK:       %[[D2:.*]] = scf.if %[[IN]]
// CHECK:         vector.load %arg0[%[[G2]], %[[GK]]]
// CHECK:       %[[ROW3:.*]] = affine.apply #[[ROW_R3]]()[%[[TID]]]
// CHECK:       %[[G3:.*]] = arith.minui %[[ROW3]], %[[C32]]
// CHECK:       %[[D3:.*]] = scf.if %[[IN]]
// CHECK:         vector.load %arg0[%[[G3]], %[[GK]]]
// CHECK-NOT:   vector.store
// CHECK:       vector.store %[[D0]], %[[LDSA]][%[[ROW0]], %[[COL]]]
// CHECK-NEXT:  vector.store %[[D1]], %[[LDSA]][%[[ROW1]], %[[COL]]]
// CHECK-NEXT:  vector.store %[[D2]], %[[LDSA]][%[[ROW2]], %[[COL]]]
// CHECK-NEXT:  vector.store %[[D3]], %[[LDSA]][%[[ROW3]], %[[COL]]]
// B: 32 rows, two rounds, clamped to its last row 16.
// CHECK:       %[[C16:.*]] = arith.constant 16 : index
// CHECK:       %[[H0:.*]] = arith.minui %[[ROW0]], %[[C16]]
// CHECK:       %[[E0:.*]] = scf.if %[[IN]]
// CHECK:         vector.load %arg1[%[[H0]], %[[GK]]]
// CHECK:       %[[H1:.*]] = arith.minui %[[ROW1]], %[[C16]]
// CHECK:       %[[E1:.*]] = scf.if %[[IN]]
// CHECK:         vector.load %arg1[%[[H1]], %[[GK]]]
// CHECK-NOT:   vector.store
// CHECK:       vector.store %[[E0]], %[[LDSB]][%[[ROW0]], %[[COL]]]
// CHECK-NEXT:  vector.store %[[E1]], %[[LDSB]][%[[ROW1]], %[[COL]]]
// CHECK-NOT:   vector.store
// CHECK:       gpu.barrier
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
// byte, indices clamped to K - 1 and zeros selected past K. The tile's 32
// rows divide A's 32: no row clamp, the copy row is the global row.
// CHECK-DAG:   #[[COPY_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8)>
// CHECK-DAG:   #[[GLOBAL_K:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 4) * 64)>
// Byte j of the chunk: global column + j (j = 1 and 15 checked).
// CHECK-DAG:   #[[GLOBAL_K1:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 4) * 64 + 1)>
// CHECK-DAG:   #[[GLOBAL_K15:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 4) * 64 + 15)>
// 128 chunks for 256 threads: the chunk is the thread clamped to 127.
// CHECK-LABEL: func.func @k_not_multiple_of_16
// CHECK:       %[[TID:.*]] = gpu.thread_id x
// CHECK:       %[[CHUNK:.*]] = arith.minui %[[TID]], %c127
// CHECK:       %[[ROW:.*]] = affine.apply #[[COPY_ROW]]()[%[[CHUNK]]]
// CHECK-NOT:   arith.minui
// CHECK:       %[[GK:.*]] = affine.apply #[[GLOBAL_K]]()[%[[CHUNK]], %arg2]
// CHECK:       %[[WHOLE:.*]] = arith.cmpi ult, %[[GK]], %c25
// CHECK:       scf.if %[[WHOLE]] -> (vector<16xf8E4M3FNUZ>)
// CHECK:         vector.load %arg0[%[[ROW]], %[[GK]]]
// CHECK:       } else {
// CHECK:         %[[K:.*]] = arith.minui %[[GK]], %c39
// CHECK:         memref.load %arg0[%[[ROW]], %[[K]]]
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %[[GK]], %c40
// CHECK:         arith.select %[[INSIDE]]
// CHECK:         %[[GK1:.*]] = affine.apply #[[GLOBAL_K1]]()[%[[CHUNK]], %arg2]
// CHECK:         %[[K1:.*]] = arith.minui %[[GK1]], %c39
// CHECK:         memref.load %arg0[%[[ROW]], %[[K1]]]
// CHECK:         arith.cmpi ult, %[[GK1]], %c40
// CHECK:         %[[GK15:.*]] = affine.apply #[[GLOBAL_K15]]()[%[[CHUNK]], %arg2]
// CHECK:         arith.minui %[[GK15]], %c39
// CHECK:         memref.load
// CHECK-NOT:     memref.load
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
// Iteration t issues the global loads of tile t + 1 (clamped to the last
// tile, 3: the last iteration reloads its own tile instead of branching)
// before the MFMAs on buffer t mod 2, and stores them into buffer
// (t + 1) mod 2 after the MFMAs, so the loads' latency hides under them;
// the one barrier ends the iteration. 128 threads: A (32 rows) is 128
// chunks, one each; B (16 rows) is 64: threads 64 and up reload chunk 63
// and skip the store. Both tiles divide their operands' rows: no row
// clamp. The placement does not depend on t: computed once, before the
// loop.
// CHECK-DAG:   #[[COPY_ROW:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 64) * 16 + (s0 mod 64) floordiv 8 + ((s0 mod 8) floordiv 4) * 8)>
// CHECK-DAG:   #[[COPY_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16 - (s0 floordiv 4) * 64)>
// Global column: copy byte + the tile's k (a symbol before the loop, a
// dimension inside it).
// CHECK-DAG:   #[[K_FIRST:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 4) * 64)>
// CHECK-DAG:   #[[K_NEXT:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 + s0 * 16 - (s0 floordiv 4) * 64)>
// Tile t + 1's buffer (t + 1) mod 2, as MLIR simplifies it; t's buffer.
// CHECK-DAG:   #[[NEXT_STAGE:map[0-9]*]] = affine_map<(d0) -> (d0 - ((d0 + 1) floordiv 2) * 2 + 1)>
// CHECK-DAG:   #[[STAGE:map[0-9]*]] = affine_map<(d0) -> (d0 mod 2)>
// CHECK-LABEL: func.func @double_buffered
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%[[LDSA:.*]] : memref<2x32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         %[[K0:.*]] = arith.muli %c0, %c64
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT:    %[[ROW:.*]] = affine.apply #[[COPY_ROW]]()[%[[TID]]]
// CHECK-NEXT:    %[[COL:.*]] = affine.apply #[[COPY_COL]]()[%[[TID]]]
// CHECK-NEXT:    %[[GK0:.*]] = affine.apply #[[K_FIRST]]()[%[[TID]], %[[K0]]]
// CHECK-NEXT:    %[[A0:.*]] = vector.load %arg0[%[[ROW]], %[[GK0]]] : memref<32x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// Buffer 0 (0 mod 2 folded to the constant).
// CHECK-NEXT:    vector.store %[[A0]], %[[LDSA]][%c0, %[[ROW]], %[[COL]]]
// CHECK-NEXT:    %[[BACTIVE:.*]] = arith.cmpi ult, %[[TID]], %c64
// CHECK:         %[[BCHUNK:.*]] = arith.minui %[[TID]], %c63
// CHECK-NEXT:    %[[BROW:.*]] = affine.apply #[[COPY_ROW]]()[%[[BCHUNK]]]
// CHECK-NEXT:    %[[BCOL:.*]] = affine.apply #[[COPY_COL]]()[%[[BCHUNK]]]
// CHECK-NEXT:    %[[BGK0:.*]] = affine.apply #[[K_FIRST]]()[%[[BCHUNK]], %[[K0]]]
// CHECK-NEXT:    %[[B0:.*]] = vector.load %arg1[%[[BROW]], %[[BGK0]]] : memref<16x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// CHECK-NEXT:    scf.if %[[BACTIVE]] {
// CHECK-NEXT:      vector.store %[[B0]], %[[LDSB]][%c0, %[[BROW]], %[[BCOL]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.for %[[T:.*]] = %c0 to %c4 step %c1 iter_args(
// The tile loaded: t == 3 ? t : t + 1 (a compare with the last trip, which
// LLVM peels).
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[IS_LAST:.*]] = arith.cmpi eq, %[[T]], %[[C3]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[T]], %c1
// CHECK-NEXT:      %[[LOADED:.*]] = arith.select %[[IS_LAST]], %[[T]], %[[NEXT]]
// CHECK-NEXT:      %[[KN:.*]] = arith.muli %[[LOADED]], %c64
// CHECK-NEXT:      %[[NSTAGE:.*]] = affine.apply #[[NEXT_STAGE]](%[[T]])
// CHECK-NEXT:      %[[GKN:.*]] = affine.apply #[[K_NEXT]](%[[KN]])[%[[TID]]]
// CHECK-NEXT:      %[[AN:.*]] = vector.load %arg0[%[[ROW]], %[[GKN]]]
// CHECK-NEXT:      %[[BGKN:.*]] = affine.apply #[[K_NEXT]](%[[KN]])[%[[BCHUNK]]]
// CHECK-NEXT:      %[[BN:.*]] = vector.load %arg1[%[[BROW]], %[[BGKN]]]
// Scheduling fences: the loads stay above the MFMAs, the stores below.
// CHECK-NEXT:      amdgpu.sched_barrier allow = <none>
// CHECK-NEXT:      %[[CUR:.*]] = affine.apply #[[STAGE]](%[[T]])
// CHECK-NEXT:      qmm.wave_mma %[[LDSA]][%[[CUR]], %c0, %c0], %[[LDSB]][%[[CUR]], %c0, %c0]
// CHECK-NEXT:      amdgpu.sched_barrier allow = <none>
// CHECK-NEXT:      vector.store %[[AN]], %[[LDSA]][%[[NSTAGE]], %[[ROW]], %[[COL]]]
// CHECK-NEXT:      scf.if %[[BACTIVE]] {
// CHECK-NEXT:        vector.store %[[BN]], %[[LDSB]][%[[NSTAGE]], %[[BROW]], %[[BCOL]]]
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
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

// Two K tiles per trip (one scale block of two tiles, as qmm-tile-matmul
// unrolls it): both wave_mma ops share one pair of double buffers and one
// prefetch chain. Tile 2t + j lives in buffer j (the trip has an even
// number of tiles, so the buffer indices fold to constants). Op 0 loads
// op 1's tile (k = (t + 1) * 64, inside the trip: no clamp) and ends with a
// barrier that publishes it; op 1 loads the next trip's first tile
// (t == 2 ? t : t + 2, the last trip reloading its own) and the trip ends
// with the barrier.
// CHECK-LABEL: func.func @two_tiles_per_trip
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%[[LDSA:.*]] : memref<2x32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>) {
// CHECK:         vector.store {{.*}}, %[[LDSA]][%c0,
// CHECK:         gpu.barrier
// CHECK:         scf.for %[[T:.*]] = %c0 to %c4 step %c2 iter_args(
// Op 0 loads op 1's tile: k = (t + 1) * 64.
// CHECK-NEXT:      %[[T1:.*]] = arith.addi %[[T]], %c1 :
// CHECK-NEXT:      %[[K1:.*]] = arith.muli %[[T1]], %c64 :
// CHECK-NEXT:      %[[GK1:.*]] = affine.apply #{{.*}}(%[[K1]])
// CHECK-NEXT:      %[[A1:.*]] = vector.load %arg0[%{{.*}}, %[[GK1]]]
// CHECK-NEXT:      %[[BGK1:.*]] = affine.apply #{{.*}}(%[[K1]])
// CHECK-NEXT:      %[[B1:.*]] = vector.load %arg1[%{{.*}}, %[[BGK1]]]
// CHECK-NEXT:      amdgpu.sched_barrier allow = <none>
// CHECK-NEXT:      %[[P0:.*]] = qmm.wave_mma %[[LDSA]][%c0, %c0, %c0], %[[LDSB]][%c0, %c0, %c0]
// CHECK-NEXT:      amdgpu.sched_barrier allow = <none>
// CHECK-NEXT:      vector.store %[[A1]], %[[LDSA]][%c1,
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        vector.store %[[B1]], %[[LDSB]][%c1,
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// Op 1 loads the next trip's first tile: k = (t == 2 ? t : t + 2) * 64.
// CHECK-NEXT:      %[[IS_LAST:.*]] = arith.cmpi eq, %[[T]], %c2 :
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[T]], %c2 :
// CHECK-NEXT:      %[[LOADED:.*]] = arith.select %[[IS_LAST]], %[[T]], %[[NEXT]]
// CHECK-NEXT:      %[[KN:.*]] = arith.muli %[[LOADED]], %c64 :
// CHECK-NEXT:      %[[GKN:.*]] = affine.apply #{{.*}}(%[[KN]])
// CHECK-NEXT:      %[[AN:.*]] = vector.load %arg0[%{{.*}}, %[[GKN]]]
// CHECK-NEXT:      %[[BGKN:.*]] = affine.apply #{{.*}}(%[[KN]])
// CHECK-NEXT:      %[[BN:.*]] = vector.load %arg1[%{{.*}}, %[[BGKN]]]
// CHECK-NEXT:      amdgpu.sched_barrier allow = <none>
// CHECK-NEXT:      %[[P1:.*]] = qmm.wave_mma %[[LDSA]][%c1, %c0, %c0], %[[LDSB]][%c1, %c0, %c0]
// CHECK-SAME:        acc(%[[P0]])
// CHECK-NEXT:      amdgpu.sched_barrier allow = <none>
// CHECK-NEXT:      vector.store %[[AN]], %[[LDSA]][%c0,
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        vector.store %[[BN]], %[[LDSB]][%c0,
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield %[[P1]]
func.func @two_tiles_per_trip(%a: memref<32x256xf8E4M3FNUZ>, %b: memref<16x256xf8E4M3FNUZ>,
                              %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %r = scf.for %t = %c0 to %c4 step %c2 iter_args(%acc = %zero) -> (vector<4xf32>) {
      %k0 = arith.muli %t, %c64 : index
      %p0 = qmm.wave_mma %a[%c0, %k0], %b[%c0, %k0] wave_offset [%c0, %c0]
              config #qmm.config<tile = [32, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 2>
              acc(%acc) : memref<32x256xf8E4M3FNUZ>, memref<16x256xf8E4M3FNUZ>, vector<4xf32>
      %t1 = arith.addi %t, %c1 : index
      %k1 = arith.muli %t1, %c64 : index
      %p1 = qmm.wave_mma %a[%c0, %k1], %b[%c0, %k1] wave_offset [%c0, %c0]
              config #qmm.config<tile = [32, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 2>
              acc(%p0) : memref<32x256xf8E4M3FNUZ>, memref<16x256xf8E4M3FNUZ>, vector<4xf32>
      scf.yield %p1 : vector<4xf32>
    }
    vector.store %r, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Two wave_mma ops of one block on different matrices (two weights sharing
// the activations) keep buffers of their own: a pair each, each op copying
// its own B.
// CHECK-LABEL: func.func @two_matrices
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%[[A0:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[B0:.*]] : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[A1:.*]] : memref<32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[B1:.*]] : memref<16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         vector.load %arg1[
// CHECK:         vector.store {{.*}}, %[[B0]][
// CHECK:         qmm.wave_mma %[[A0]][%c0, %c0], %[[B0]][%c0, %c0]
// CHECK:         vector.load %arg2[
// CHECK:         vector.store {{.*}}, %[[B1]][
// CHECK:         qmm.wave_mma %[[A1]][%c0, %c0], %[[B1]][%c0, %c0]
func.func @two_matrices(%a: memref<32x64xf8E4M3FNUZ>, %b0: memref<16x64xf8E4M3FNUZ>,
                        %b1: memref<16x64xf8E4M3FNUZ>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %p0 = qmm.wave_mma %a[%c0, %c0], %b0[%c0, %c0] wave_offset [%c0, %c0]
            config #qmm.config<tile = [32, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 1>
            acc(%zero) : memref<32x64xf8E4M3FNUZ>, memref<16x64xf8E4M3FNUZ>, vector<4xf32>
    %p1 = qmm.wave_mma %a[%c0, %c0], %b1[%c0, %c0] wave_offset [%c0, %c0]
            config #qmm.config<tile = [32, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 1>
            acc(%p0) : memref<32x64xf8E4M3FNUZ>, memref<16x64xf8E4M3FNUZ>, vector<4xf32>
    vector.store %p1, %out[%c0] : memref<4xf32>, vector<4xf32>
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

// -----

// The row clamp exists only where the tile does not divide the operand's
// rows. Both tiles start at row 32 (the second row of tiles). A has 40
// rows (32 does not divide them): rows past 39 read row 39. B has 64
// (32 divides them): every row of the tile exists, no clamp. Tile K 128:
// rows of 8 chunks, one 8-chunk LDS phase per row, so row after row
// (row stride 0): chunk c goes to row c floordiv 8, byte 16 * (c mod 8);
// 32 x 8 = 256 chunks for 256 threads, one round, no guard.
// CHECK-DAG:   #[[COPY_ROW:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 8)>
// CHECK-DAG:   #[[COPY_COL:map[0-9]*]] = affine_map<()[s0] -> (s0 * 16 - (s0 floordiv 8) * 128)>
// Global row 32 + copy row, global column k + copy byte.
// CHECK-DAG:   #[[GLOBAL_ROW:map[0-9]*]] = affine_map<()[s0] -> (s0 floordiv 8 + 32)>
// CHECK-DAG:   #[[GLOBAL_K:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 * 16 + s1 - (s0 floordiv 8) * 128)>
// CHECK-LABEL: func.func @row_clamp
// CHECK-SAME:    (%[[A:.*]]: memref<40x256xf8E4M3FNUZ>, %[[B:.*]]: memref<64x256xf8E4M3FNUZ>, %[[K:.*]]: index,
// CHECK:         workgroup(%[[LDSA:.*]] : memref<32x136xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<32x136xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT:    %[[ROW:.*]] = affine.apply #[[COPY_ROW]]()[%[[TID]]]
// CHECK-NEXT:    %[[COL:.*]] = affine.apply #[[COPY_COL]]()[%[[TID]]]
// CHECK-NEXT:    %[[GROW:.*]] = affine.apply #[[GLOBAL_ROW]]()[%[[TID]]]
// A: clamped.
// CHECK-NEXT:    %[[C39:.*]] = arith.constant 39 : index
// CHECK-NEXT:    %[[CLAMPED:.*]] = arith.minui %[[GROW]], %[[C39]]
// CHECK-NEXT:    %[[GK:.*]] = affine.apply #[[GLOBAL_K]]()[%[[TID]], %[[K]]]
// CHECK-NEXT:    %[[DA:.*]] = vector.load %[[A]][%[[CLAMPED]], %[[GK]]] : memref<40x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// CHECK-NEXT:    vector.store %[[DA]], %[[LDSA]][%[[ROW]], %[[COL]]]
// B: the global row as it is.
// CHECK-NEXT:    %[[DB:.*]] = vector.load %[[B]][%[[GROW]], %[[GK]]] : memref<64x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// CHECK-NEXT:    vector.store %[[DB]], %[[LDSB]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:    gpu.barrier
func.func @row_clamp(%a: memref<40x256xf8E4M3FNUZ>, %b: memref<64x256xf8E4M3FNUZ>,
                     %k: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %p = qmm.wave_mma %a[%c32, %k], %b[%c32, %k] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<40x256xf8E4M3FNUZ>, memref<64x256xf8E4M3FNUZ>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
