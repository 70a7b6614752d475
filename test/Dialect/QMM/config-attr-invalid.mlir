// RUN: fp8-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{config needs tile = [M, N, K], waves = [M, N] and an MFMA shape [m, n, k]}}
func.func @rank() attributes {qmm.c = #qmm.config<tile = [128, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>} {
  return
}

// -----

// expected-error @+1 {{config extents must be positive}}
func.func @zero() attributes {qmm.c = #qmm.config<tile = [128, 0, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>} {
  return
}

// -----

// expected-error @+1 {{config stages must be 1 to 4, got 0}}
func.func @stages() attributes {qmm.c = #qmm.config<tile = [64, 64, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 0>} {
  return
}

// -----

// expected-error @+1 {{tile M (48) must be a multiple of waves x MFMA m (2 x 16)}}
func.func @tile_m() attributes {qmm.c = #qmm.config<tile = [48, 64, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>} {
  return
}

// -----

// expected-error @+1 {{tile N (32) must be a multiple of waves x MFMA n (2 x 32)}}
func.func @tile_n() attributes {qmm.c = #qmm.config<tile = [64, 32, 64], waves = [1, 2], mfma = fp8 [32, 32, 16], stages = 1>} {
  return
}

// -----

// expected-error @+1 {{tile K (64) must be a multiple of MFMA k (128)}}
func.func @tile_k() attributes {qmm.c = #qmm.config<tile = [64, 64, 64], waves = [2, 2], mfma = f8f6f4 [16, 16, 128], stages = 1>} {
  return
}

// -----

// expected-error @+1 {{at most 16 waves (1024 threads) per workgroup, got 8 x 4}}
func.func @waves() attributes {qmm.c = #qmm.config<tile = [512, 256, 64], waves = [8, 4], mfma = fp8 [16, 16, 32], stages = 1>} {
  return
}

// -----

// expected-error @+2 {{to be one of: fp8, f8f6f4, scaled_f8f6f4, bf16}}
// expected-error @+1 {{failed to parse QMM_ConfigAttr parameter 'mfmaKind'}}
func.func @kind() attributes {qmm.c = #qmm.config<tile = [64, 64, 64], waves = [2, 2], mfma = int8 [16, 16, 32], stages = 1>} {
  return
}

// -----

// expected-error @+1 {{config split must be at least 1, got 0}}
func.func @split() attributes {qmm.c = #qmm.config<tile = [64, 64, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1, split = 0>} {
  return
}

// -----

// A wave count whose product with the MFMA extent wraps around to zero
// (2^62 x 16 = 2^66) is rejected before any division by it.
// expected-error @+1 {{at most 16 waves (1024 threads) per workgroup, got 4611686018427387904 x 1}}
func.func @waves_overflow() attributes {qmm.c = #qmm.config<tile = [64, 64, 64], waves = [4611686018427387904, 1], mfma = fp8 [16, 16, 32], stages = 1>} {
  return
}
