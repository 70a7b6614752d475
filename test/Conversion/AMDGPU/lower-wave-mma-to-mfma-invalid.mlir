// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-wave-mma-to-mfma=chip=gfx942

func.func @global_operands(%a: memref<16x128xf8E4M3FNUZ>, %b: memref<16x128xf8E4M3FNUZ>,
                           %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  // expected-error @+1 {{qmm-lower-wave-mma-to-mfma: reads its operands from LDS; run qmm-promote-operands-to-lds first}}
  %p = qmm.wave_mma %a[%c0, %c0], %b[%c0, %c0] wave_offset [%c0, %c0]
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         acc(%zero) : memref<16x128xf8E4M3FNUZ>, memref<16x128xf8E4M3FNUZ>, vector<4xf32>
  vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
  return
}

// -----

// gfx942 has no f8f6f4 MFMA.
func.func @instruction_not_on_chip(%la: memref<16x144xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
                                   %lb: memref<16x144xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
                                   %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  // expected-error @+1 {{config: gfx942 has no f8f6f4 MFMA 16x16x128}}
  %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = f8f6f4 [16, 16, 128], stages = 1>
         acc(%zero) : memref<16x144xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<16x144xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<4xf32>
  vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
  return
}

// -----

// OCP data on gfx942 must have been legalized to FNUZ first.
func.func @type_not_native(%la: memref<16x72xf8E4M3FN, #gpu.address_space<workgroup>>,
                           %lb: memref<16x72xf8E4M3FN, #gpu.address_space<workgroup>>,
                           %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  // expected-error @+1 {{config: mfma = fp8 does not read 'f8E4M3FN' x 'f8E4M3FN' on gfx942}}
  %p = qmm.wave_mma %la[%c0, %c0], %lb[%c0, %c0] wave_offset [%c0, %c0]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         acc(%zero) : memref<16x72xf8E4M3FN, #gpu.address_space<workgroup>>, memref<16x72xf8E4M3FN, #gpu.address_space<workgroup>>, vector<4xf32>
  vector.store %p, %out[%c0] : memref<4xf32>, vector<4xf32>
  return
}
