// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-parallel-loops-to-gpu

func.func @dynamic_bound(%in: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{qmm-parallel-loops-to-gpu: needs constant bounds and steps}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %in[%i] : memref<?xf32>
    memref.store %v, %in[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

func.func @reduction(%in: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{qmm-parallel-loops-to-gpu: reductions are not supported}}
  %sum = scf.parallel (%i) = (%c0) to (%c64) step (%c1) init (%zero) -> f32 {
    %v = memref.load %in[%i] : memref<64xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
