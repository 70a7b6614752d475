// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-expand-kernel-math

func.func @toward_zero(%x: f32) -> f8E4M3FN {
  // expected-error @+1 {{only round-to-nearest-even truncations to 'f8E4M3FN' can be expanded}}
  %a = arith.truncf %x toward_zero : f32 to f8E4M3FN
  return %a : f8E4M3FN
}

// -----

func.func @from_f64(%x: f64) -> f8E4M3FN {
  // expected-error @+1 {{truncations to 'f8E4M3FN' are expanded from f32, f16 or bf16 only, got 'f64'}}
  %a = arith.truncf %x : f64 to f8E4M3FN
  return %a : f8E4M3FN
}
