// RUN: fp8-opt %s -split-input-file -verify-diagnostics

// qmm.wave_store's in_bounds: one entry per output dimension (rows,
// columns), and `true` only where the wave's sub-tile (tile / waves) can
// lie inside that dimension.

func.func @in_bounds_one_entry(%d: memref<16x16xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op in_bounds needs 2 entries (rows, columns), got 1}}
  qmm.wave_store %acc into %d[%i, %i] in_bounds [true]
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf32>, vector<4xf32>
  return
}

// -----

func.func @in_bounds_three_entries(%d: memref<16x16xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op in_bounds needs 2 entries (rows, columns), got 3}}
  qmm.wave_store %acc into %d[%i, %i] in_bounds [true, true, false]
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf32>, vector<4xf32>
  return
}

// -----

func.func @in_bounds_empty(%d: memref<16x16xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op in_bounds needs 2 entries (rows, columns), got 0}}
  qmm.wave_store %acc into %d[%i, %i] in_bounds []
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf32>, vector<4xf32>
  return
}

// -----

// Wave sub-tile of 64 / 2 = 32 rows claimed inside 16 rows.
func.func @in_bounds_rows_too_few(%d: memref<16x64xf32>, %i: index, %acc0: vector<4xf32>, %acc1: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op in_bounds claims a wave sub-tile of 32 inside dimension 0 of 16}}
  qmm.wave_store %acc0, %acc1 into %d[%i, %i] in_bounds [true, false]
    config(#qmm.config<tile = [64, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x64xf32>, vector<4xf32>, vector<4xf32>
  return
}

// -----

// Wave sub-tile of 32 columns claimed inside 24 columns.
func.func @in_bounds_columns_too_few(%d: memref<64x24xf32>, %i: index, %acc0: vector<4xf32>, %acc1: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op in_bounds claims a wave sub-tile of 32 inside dimension 1 of 24}}
  qmm.wave_store %acc0, %acc1 into %d[%i, %i] in_bounds [false, true]
    config(#qmm.config<tile = [16, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<64x24xf32>, vector<4xf32>, vector<4xf32>
  return
}

// -----

// Near misses, all valid: a sub-tile exactly as large as the output, a
// `false` entry on a dimension smaller than the sub-tile, and a dynamic
// dimension (its size is not known here).
func.func @in_bounds_valid(%d: memref<32x32xf32>, %e: memref<16x64xf32>, %f: memref<?x16xf32>, %i: index,
                           %acc0: vector<4xf32>, %acc1: vector<4xf32>, %acc2: vector<4xf32>, %acc3: vector<4xf32>) {
  qmm.wave_store %acc0, %acc1, %acc2, %acc3 into %d[%i, %i] in_bounds [true, true]
    config(#qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<32x32xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  qmm.wave_store %acc0, %acc1 into %e[%i, %i] in_bounds [false, true]
    config(#qmm.config<tile = [64, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x64xf32>, vector<4xf32>, vector<4xf32>
  qmm.wave_store %acc0, %acc1 into %f[%i, %i] in_bounds [true, true]
    config(#qmm.config<tile = [32, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<?x16xf32>, vector<4xf32>, vector<4xf32>
  return
}
