// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-promote-operands-to-lds=chip=gfx950

// A direct load has no room for the zeros past K: K = 200 is not a whole
// number of 128-deep tiles.
func.func @direct_k_tail(%a: memref<32x200xf8E4M3FN>, %b: memref<32x200xf8E4M3FN>,
                         %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{lds_copy = direct needs K (200) to be a multiple of tile K (128)}}
    %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
           config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = f8f6f4 [32, 32, 64], stages = 1, lds_copy = direct>
           acc(%zero) : memref<32x200xf8E4M3FN>, memref<32x200xf8E4M3FN>, vector<16xf32>
    vector.store %p, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.terminator
  }
  return
}
