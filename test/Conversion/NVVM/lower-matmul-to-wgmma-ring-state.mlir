// RUN: fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 stages=5" | FileCheck %s --check-prefix=FIVE
// RUN: fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 stages=5" | FileCheck %s --check-prefix=INDEX
// RUN: fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 stages=4" | FileCheck %s --check-prefix=FOUR

// The ring's state of an iteration (its stage, and the parity of its round
// of the ring) is computed in 32 bits: by a stage count that is not a power
// of two, the index (64-bit) remainder and quotient would become 64-bit
// multiply-highs, which the GPU emulates with several 32-bit ones between
// two K tiles. Stage i of 5: i mod 5; its round's parity: (i / 5) & 1.
// FIVE-LABEL: gpu.func @matmul
// FIVE:         %[[ITER:.*]] = arith.index_castui %{{.*}} : index to i32
// FIVE:         %[[STAGE32:.*]] = arith.remui %[[ITER]], %c5_i32{{(_[0-9]+)?}} : i32
// FIVE-NEXT:    %[[STAGE:.*]] = arith.index_castui %[[STAGE32]] : i32 to index
// FIVE-NEXT:    %[[ROUND:.*]] = arith.divui %[[ITER]], %c5_i32{{(_[0-9]+)?}} : i32
// FIVE:         %[[PARITY32:.*]] = arith.andi %[[ROUND]], %c1_i32{{(_[0-9]+)?}} : i32
// FIVE-NEXT:    %[[PARITY:.*]] = arith.index_castui %[[PARITY32]] : i32 to index
// The producer waits for the stage's previous round to be released: on the
// parity of the round before (the first round's wait returns at once).
// FIVE:         arith.cmpi eq, %[[PARITY]], %c0{{(_[0-9]+)?}} : index
// No index remainder or quotient by the stage count anywhere.
// INDEX-NOT:    arith.{{remui|divui}} %{{.*}}, %c5{{(_[0-9]+)?}} : index

// A power of two: the same ops, by 4 (LLVM makes them a mask and a shift).
// FOUR-LABEL: gpu.func @matmul
// FOUR:         %[[ITER:.*]] = arith.index_castui %{{.*}} : index to i32
// FOUR:         arith.remui %[[ITER]], %c4_i32{{(_[0-9]+)?}} : i32

func.func @per_tensor(%a: memref<256x1024xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x256xbf16>)
  return
}
