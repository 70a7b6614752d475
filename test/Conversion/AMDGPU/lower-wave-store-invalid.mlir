// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-wave-store=chip=gfx942

func.func @dynamic_output(%d: memref<?x32xf32>, %row: index, %col: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{qmm-lower-wave-store: needs an output of static shape}}
  qmm.wave_store %acc into %d[%row, %col]
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<?x32xf32>, vector<4xf32>
  return
}
