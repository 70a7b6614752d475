// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a promotion-k-tiles=1" | FileCheck %s --check-prefix=EVERY
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a promotion-k-tiles=1" | FileCheck %s --check-prefix=ONE-GROUP
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a promotion-k-tiles=2" | FileCheck %s --check-prefix=TWO
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a promotion-k-tiles=8" | FileCheck %s --check-prefix=EIGHT

// promotion-k-tiles: how many K tiles wgmma sums into the fragment before
// the kernel adds it into the f32 accumulator, for per-tensor and per-row
// scales (4 by default: lower-matmul-to-wgmma.mlir). With 1, every K tile
// is issued, waited for with wait_group 0 and added (cuBLASLt's default
// FP8 mode: every 128 products); no group is ever left in flight by a
// wait_group 1.
// ONE-GROUP-NOT:   nvvm.wgmma.wait.group.sync.aligned 1

// K = 1024: 8 K tiles, per-tensor scales.
// EVERY-LABEL: func.func @per_tensor
// K tile 0, issued before the tile loop, is waited for and added into
// zeros; then K tiles 1 .. 7 the same way, each after its issue.
// EVERY:         scf.for
// EVERY:           %[[ZERO:.*]] = llvm.mlir.zero
// EVERY-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// EVERY:           nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// EVERY:           llvm.extractvalue %[[ZERO]][0]
// EVERY:           arith.addf
// No promotion points: every trip waits and adds, one K tile a trip (two
// are for block-scaled kernels: lower-matmul-to-wgmma-k-loop-steps.mlir).
// EVERY:           scf.for %[[KT:.*]] = %c1{{.*}} to %c8{{.*}} step %c1
// EVERY-NOT:         arith.remui %[[KT]],
// EVERY:             nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// EVERY:             nvvm.wgmma.commit.group.sync.aligned
// EVERY-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// EVERY:             nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// EVERY-NOT:         llvm.intr.fma
// EVERY:             arith.addf
// EVERY:             scf.yield
// EVERY-NOT:       step %c2

// With 2 (and 8), the K loop's promotion points are the K tiles whose
// index is a multiple of the interval.
// TWO-LABEL: func.func @per_tensor
// TWO:         scf.for %[[KT:.*]] = %c1{{.*}} to %c8{{.*}} step %c1
// TWO:           arith.remui %[[KT]], %c2
// TWO:           nvvm.wgmma.wait.group.sync.aligned 0
// TWO:         } else {
// TWO:           nvvm.wgmma.wait.group.sync.aligned 1
// EIGHT-LABEL: func.func @per_tensor
// EIGHT:         scf.for %[[KT:.*]] = %c1{{.*}} to %c8{{.*}} step %c1
// EIGHT:           arith.remui %[[KT]], %c8
func.func @per_tensor(%a: memref<256x1024xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// Block scales change every K tile: every interval promotes each one,
// with a fused multiply-add by the K tile's scales.
// EVERY-LABEL: func.func @blockwise
// TWO-LABEL: func.func @blockwise
// TWO-NOT:       arith.remui %{{.*}}, %c2
// TWO:           scf.for %{{.*}} = %c1{{.*}} to %{{.*}} step %c2
// TWO:             nvvm.wgmma.commit.group.sync.aligned
// TWO-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// TWO:             llvm.intr.fma
// EIGHT-LABEL: func.func @blockwise
// EIGHT:         scf.for %{{.*}} = %c1{{.*}} to %{{.*}} step %c2
// EIGHT:           nvvm.wgmma.commit.group.sync.aligned
// EIGHT-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// EIGHT:           llvm.intr.fma
func.func @blockwise(%a: memref<256x1024xf8E4M3FN>, %sa: memref<256x8xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<2x8xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<256x8xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<2x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x256xbf16>)
  return
}
