// RUN: fp8-opt %s -split-input-file -verify-diagnostics

// A config names an instruction of the intrinsic table by family and shape;
// a shape the family does not have is rejected, listing the ones it has.
// expected-error @+1 {{config: no fp8 instruction of shape 16x16x16 (the fp8 forms: 16x16x32 32x32x16)}}
func.func private @fp8_16x16x16() attributes {c = #qmm.config<tile = [16, 16, 16], waves = [1, 1], mfma = fp8 [16, 16, 16], stages = 1>}

// -----

// expected-error @+1 {{config: no scaled_f8f6f4 instruction of shape 16x16x32 (the scaled_f8f6f4 forms: 16x16x128 32x32x64)}}
func.func private @scaled_16x16x32() attributes {c = #qmm.config<tile = [16, 16, 32], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 32], stages = 1>}
