// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-wave-scales=chip=gfx950

func.func @mx_scales(%sa: memref<16x4xf32>, %sb: memref<16x4xf32>, %row: index, %col: index, %k: index,
                     %p: vector<4xf32>, %acc: vector<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{qmm-lower-wave-scales: MX (E8M0) scales are applied by the scaled MFMA (the MX kernel carries them into qmm.wave_mma), never by this op}}
  %r = qmm.wave_scale_accumulate %p into %acc at [%row, %col, %k] problem_size [16, 16, 128]
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = f8f6f4 [16, 16, 128], stages = 1>
         a_scales(%sa : memref<16x4xf32>, #qmm.scale<mx>)
         b_scales(%sb : memref<16x4xf32>, #qmm.scale<mx>) : vector<4xf32>
  vector.store %r, %out[%c0] : memref<4xf32>, vector<4xf32>
  return
}
