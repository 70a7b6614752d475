// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-parallel-loops-to-gpu

// Upper bounds may be dynamic (an element-wise loop over a dynamic M);
// lower bounds and steps may not.
func.func @dynamic_lower_bound(%in: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{qmm-parallel-loops-to-gpu: needs constant lower bounds and steps}}
  scf.parallel (%i) = (%n) to (%c64) step (%c1) {
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
