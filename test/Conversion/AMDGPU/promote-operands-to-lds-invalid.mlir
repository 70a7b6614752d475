// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-promote-operands-to-lds=chip=gfx942

func.func @outside_launch(%a: memref<32x128xf8E4M3FNUZ>, %b: memref<32x128xf8E4M3FNUZ>,
                          %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  // expected-error @+1 {{qmm-promote-operands-to-lds: must be inside a gpu.launch}}
  %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         acc(%zero) : memref<32x128xf8E4M3FNUZ>, memref<32x128xf8E4M3FNUZ>, vector<4xf32>
  vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
  return
}

// -----

// Rows may be dynamic (a dynamic M); K may not.
func.func @dynamic_k(%a: memref<16x?xf8E4M3FNUZ>, %b: memref<32x128xf8E4M3FNUZ>,
                         %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{needs [rows, K] or [G, rows, K] global operands of static K and G, got 'memref<16x?xf8E4M3FNUZ>'}}
    %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<16x?xf8E4M3FNUZ>, memref<32x128xf8E4M3FNUZ>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @one_operand_in_lds(%a: memref<32x128xf8E4M3FNUZ>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%lb : memref<16x136xf8E4M3FNUZ, #gpu.address_space<workgroup>>) {
    // expected-error @+1 {{promotes A and B together; one of them is already in LDS}}
    %p = qmm.wave_mma %a[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<32x128xf8E4M3FNUZ>, memref<16x136xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @double_buffer_without_loop(%a: memref<32x128xf8E4M3FNUZ>, %b: memref<32x128xf8E4M3FNUZ>,
                                      %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{with stages = 2 must be in the body of an scf.for}}
    %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 2>
           acc(%zero) : memref<32x128xf8E4M3FNUZ>, memref<32x128xf8E4M3FNUZ>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// The next tile's K comes from a loop-carried value: it cannot be
// recomputed for the next iteration ahead of time.
func.func @double_buffer_carried_index(%a: memref<32x512xf8E4M3FNUZ>, %b: memref<32x512xf8E4M3FNUZ>,
                                       %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero, %k = %c0) -> (vector<4xf32>, index) {
      // expected-error @+1 {{with stages = 2, the tile indices must be computed in the loop without side effects}}
      %p = qmm.wave_mma %a[%c0, %k], %b[%c0, %k] wave_offset [%c0, %c0]
             config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 2>
             acc(%acc) : memref<32x512xf8E4M3FNUZ>, memref<32x512xf8E4M3FNUZ>, vector<4xf32>
      %next = arith.addi %k, %c128 : index
      scf.yield %p, %next : vector<4xf32>, index
    }
    vector.store %r#0, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @packed_tile_k(%a: memref<32x112xf4E2M1FN>, %b: memref<32x112xf8E4M3FNUZ>,
                         %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{packed 'f4E2M1FN' operands need K and tile K to be multiples of 32}}
    %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [16, 16, 32], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
           acc(%zero) : memref<32x112xf4E2M1FN>, memref<32x112xf8E4M3FNUZ>, vector<4xf32>
    vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// stages = 2 clamps the prefetch to the last iteration: the K loop's bounds
// must be constants.
func.func @double_buffered_dynamic_bound(%a: memref<32x256xf8E4M3FNUZ>, %b: memref<16x256xf8E4M3FNUZ>,
                                         %tiles: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %r = scf.for %t = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (vector<4xf32>) {
      %k = arith.muli %t, %c64 : index
      // expected-error @+1 {{with stages = 2, the K loop needs an index induction variable with constant bounds and step}}
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

// ... and its induction variable an index (an i32 loop's next trip would
// mix i32 and index arithmetic).
func.func @double_buffered_i32_loop(%a: memref<32x256xf8E4M3FNUZ>, %b: memref<16x256xf8E4M3FNUZ>,
                                    %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %c4_i32 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %r = scf.for %t = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%acc = %zero) -> (vector<4xf32>) : i32 {
      %ti = arith.index_cast %t : i32 to index
      %k = arith.muli %ti, %c64 : index
      // expected-error @+1 {{with stages = 2, the K loop needs an index induction variable with constant bounds and step}}
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

