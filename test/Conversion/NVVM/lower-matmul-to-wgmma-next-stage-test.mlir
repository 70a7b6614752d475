// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 check-scales-ahead=false max-blocks=2" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 check-scales-ahead=false" | FileCheck %s --check-prefix=SINGLE
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=192 check-scales-ahead=false max-blocks=2" | FileCheck %s --check-prefix=WIDE

// Where blocks have several work items (4 tiles of 128 x 128 on 2 blocks),
// the block-scaled K loop tests (mbarrier.test_wait, which never suspends
// the thread) whether the next K tile's stage is full while a K tile's
// group is in flight, before wait_group 0; after the promotion it waits
// for that stage only where the test found it empty and there is a next
// K tile; the next trip issues without a wait of its own
// (WgmmaPlan::testsNextStage).
// K tile 0 (before the loop): the items have 8 K tiles each, so K tile 1
// exists and only the test's verdict decides.
// CHECK-LABEL: func.func @eight_k_tiles
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK:         nvgpu.mbarrier.get
// CHECK:         %[[FULL0:.*]] = nvvm.mbarrier.test.wait
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         llvm.intr.fma
// CHECK:         %[[EMPTY0:.*]] = arith.cmpi eq, %[[FULL0]], %false{{.*}} : i1
// CHECK-NEXT:    scf.if %[[EMPTY0]] {
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT:    }
// K tiles 1 .. 7, one a trip: issued without a wait, then the test of
// kt + 1's stage, the promotion, and the wait where kt + 1 < 8 and the
// stage was empty.
// CHECK:         scf.for %[[KT:.*]] = %c1{{.*}} to %c8{{.*}} step %c1{{.*}} iter_args
// CHECK-NOT:       nvgpu.mbarrier.try_wait.parity
// CHECK-COUNT-4:   nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK:           %[[NEXT:.*]] = arith.addi %[[KT]], %c1{{.*}} : index
// CHECK:           nvgpu.mbarrier.get
// CHECK:           %[[FULL:.*]] = nvvm.mbarrier.test.wait
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           llvm.intr.fma
// CHECK:           %[[HAS_NEXT:.*]] = arith.cmpi ult, %[[NEXT]], %c8{{.*}} : index
// CHECK:           %[[EMPTY:.*]] = arith.cmpi eq, %[[FULL]], %false{{.*}} : i1
// CHECK-NEXT:      %[[WAIT:.*]] = arith.andi %[[EMPTY]], %[[HAS_NEXT]] : i1
// CHECK-NEXT:      scf.if %[[WAIT]] {
// CHECK:             nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield
// Where each block has a single work item, each K tile waits for its
// stage before its issue, and nothing is tested.
// SINGLE-LABEL: func.func @eight_k_tiles
// SINGLE-NOT:     nvvm.mbarrier.test.wait
// SINGLE:         scf.for %{{.*}} step %c2{{.*}} iter_args
// SINGLE:           nvgpu.mbarrier.try_wait.parity
// SINGLE-NOT:       nvvm.mbarrier.test.wait
// SINGLE:           nvvm.wgmma.mma_async
// SINGLE-NOT:     nvvm.mbarrier.test.wait
// SINGLE-LABEL: func.func @unscaled
func.func @eight_k_tiles(%a: memref<256x1024xf8E4M3FN>, %sa: memref<256x8xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<2x8xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<256x8xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<2x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// Per-tensor scales (wgmma sums 4 K tiles between promotions) keep
// waiting for each stage at its issue, in blocks of several items too.
// CHECK-LABEL: func.func @unscaled
// CHECK-NOT:     nvvm.mbarrier.test.wait
// CHECK:         return
func.func @unscaled(%a: memref<256x1024xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// Tiles of 192 columns (2 x 2 tiles of 256 x 384 on 2 blocks) keep waiting
// for each stage at its issue (kMaxNextStageTestColumns).
// WIDE-LABEL: func.func @wide_tiles
// WIDE:         gpu.launch_func
// WIDE-SAME:      blocks in (%c2
// WIDE-NOT:     nvvm.mbarrier.test.wait
// WIDE-LABEL:   gpu.module @wide_tiles_wgmma
// WIDE:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 192, k = 32>
// WIDE-NOT:     nvvm.mbarrier.test.wait
// WIDE:         return
func.func @wide_tiles(%a: memref<256x1024xf8E4M3FN>, %sa: memref<256x8xf32>, %b: memref<384x1024xf8E4M3FN>, %sb: memref<3x8xf32>, %d: memref<256x384xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x1024xf8E4M3FN>, memref<256x8xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<384x1024xf8E4M3FN>, memref<3x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x384xbf16>)
  return
}
