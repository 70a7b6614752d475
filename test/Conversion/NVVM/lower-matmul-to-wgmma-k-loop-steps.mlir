// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 check-scales-ahead=false" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 check-scales-ahead=false max-blocks=2" | FileCheck %s --check-prefix=ROUNDS

// Where each block has a single work item (here 4 tiles of 128 x 128 on 4
// blocks), a block-scaled K loop takes two K tiles a trip, each issued,
// waited for with wait_group 0 and promoted by its own scales before the
// next one's issue; the K tiles left over (K tiles - 1 odd) run one a trip
// after it. With 2 blocks (two tiles each) it takes one K tile a trip
// (WgmmaPlan::kTilesPerTrip).
// ROUNDS-LABEL: func.func @eight_k_tiles
// ROUNDS:         scf.for %{{.*}} = %c1{{.*}} to %c8{{.*}} step %c1{{.*}} iter_args
// ROUNDS-COUNT-4:   nvvm.wgmma.mma_async
// ROUNDS:           nvvm.wgmma.wait.group.sync.aligned 0
// ROUNDS-NOT:       nvvm.wgmma.mma_async
// ROUNDS:           scf.yield
// ROUNDS-NOT:     step %c2
// K = 1024: K tile 0 before the loop, then K tiles 1 .. 7: the paired loop
// runs from 1 to 1 + (7 / 2) x 2 = 7 (K tiles 1 .. 6), the single loop
// from 7 to 8.
// CHECK-LABEL: func.func @eight_k_tiles
// CHECK:         %[[LAST:.*]] = arith.subi %c8{{.*}}, %c1{{.*}} : index
// CHECK:         %[[PAIRS:.*]] = arith.divui %[[LAST]], %c2{{.*}} : index
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.muli %[[PAIRS]], %c2{{.*}} : index
// CHECK-NEXT:    %[[REST:.*]] = arith.addi %c1{{.*}}, %[[WHOLE]] : index
// CHECK:         %[[PAIRED:.*]]:5 = scf.for %[[KT:.*]] = %c1{{.*}} to %[[REST]] step %c2{{.*}} iter_args
// First step: K tile kt. The next K tile's scales from global memory
// (kt + 1, at most the last), then the stage's wait.
// CHECK-NEXT:      %[[NEXT0:.*]] = arith.addi %[[KT]], %c1{{.*}} : index
// CHECK-NEXT:      arith.minui %[[NEXT0]], %[[LAST]] : index
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK-COUNT-4:   nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           llvm.intr.fma
// Second step: K tile kt + 1, after the first one's promotion: its scales
// ahead are kt + 2's, its ring iteration the item's first plus kt + 1.
// CHECK:           %[[KT1:.*]] = arith.addi %[[KT]], %c1{{.*}} : index
// CHECK-NEXT:      %[[NEXT1:.*]] = arith.addi %[[KT1]], %c1{{.*}} : index
// CHECK-NEXT:      arith.minui %[[NEXT1]], %[[LAST]] : index
// CHECK:           arith.addi %{{.*}}, %[[KT1]] : index
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK-COUNT-4:   nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           llvm.intr.fma
// CHECK-NOT:       nvvm.wgmma.mma_async
// CHECK:           scf.yield
// The K tile left: one step a trip, from the paired loop's sums, spare
// fragment and scales loaded ahead.
// CHECK:         scf.for %{{.*}} = %[[REST]] to %c8{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %[[PAIRED]]#0, %{{.*}} = %[[PAIRED]]#1, %{{.*}} = %[[PAIRED]]#2, %{{.*}} = %[[PAIRED]]#3, %{{.*}} = %[[PAIRED]]#4)
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK-COUNT-4:   nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           llvm.intr.fma
// CHECK-NOT:       nvvm.wgmma.mma_async
// CHECK:           scf.yield
func.func @eight_k_tiles(%a: memref<256x1024xf8E4M3FN>, %sa: memref<256x8xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<2x8xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<256x8xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<2x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// Two K tiles (K = 256): K tile 1 alone is left, the paired loop runs
// from 1 to 1 + (1 / 2) x 2 = 1, no trip.
// CHECK-LABEL: func.func @two_k_tiles
// CHECK:         %[[LAST:.*]] = arith.subi %c2{{.*}}, %c1{{.*}} : index
// CHECK:         %[[PAIRS:.*]] = arith.divui %[[LAST]], %c2{{.*}} : index
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.muli %[[PAIRS]], %c2{{.*}} : index
// CHECK-NEXT:    %[[REST:.*]] = arith.addi %c1{{.*}}, %[[WHOLE]] : index
// CHECK:         scf.for %{{.*}} = %c1{{.*}} to %[[REST]] step %c2{{.*}} iter_args
// CHECK:         scf.for %{{.*}} = %[[REST]] to %c2{{.*}} step %c1{{.*}} iter_args
func.func @two_k_tiles(%a: memref<256x256xf8E4M3FN>, %sa: memref<256x2xf32>, %b: memref<256x256xf8E4M3FN>, %sb: memref<2x2xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x256xf8E4M3FN>, memref<256x2xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<256x256xf8E4M3FN>, memref<2x2xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// Per-tensor scales sum 4 K tiles before each promotion: that loop keeps
// one K tile a trip (its promotion points are K tiles whose index is a
// multiple of 4).
// CHECK-LABEL: func.func @per_tensor
// CHECK:         scf.for %[[KT:.*]] = %c1{{.*}} to %c8{{.*}} step %c1
// CHECK:           arith.remui %[[KT]], %c4
// CHECK-NOT:     step %c2
func.func @per_tensor(%a: memref<256x1024xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x256xbf16>)
  return
}
