// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-wave-store=chip=gfx942

// Rows may be dynamic (a dynamic M, masked at run time); the width may not.
func.func @dynamic_width(%d: memref<32x?xf32>, %row: index, %col: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{qmm-lower-wave-store: needs an output of static width (N)}}
  qmm.wave_store %acc into %d[%row, %col]
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<32x?xf32>, vector<4xf32>
  return
}
