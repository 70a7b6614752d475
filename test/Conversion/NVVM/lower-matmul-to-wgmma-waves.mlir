// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=256 tile-n=128 cluster-rows=1 check-scales-ahead=false" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=256 tile-n=128" --remarks-filter-missed=qmm-lower-matmul-to-wgmma --remark-format=emitRemark -verify-diagnostics -o /dev/null

// tile-m=256: two consumer warpgroups of 128 rows each, which each K tile
// computes as two waves of wgmma M (64) rows through one fragment: wave 0
// issued, waited for and promoted into the accumulator's first 64
// elements, then wave 1 (A's rows 64 further down the stage) into the
// last 64; the stage is released after the second wait only.

// 512 x 256 x 1024, 1x128 x 128x128: A's box holds the tile's 256 rows;
// 4 stages of (256 + 128) x 128 bytes, their barriers, a staging buffer
// of 128 x 128 bf16 (a wave of each consumer): 197632 + 32768 + 1024.
// CHECK-LABEL: func.func @blockwise
// CHECK:         !nvgpu.tensormap.descriptor<tensor = memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK:         gpu.launch_func @blockwise_wgmma::@matmul blocks in (%c4{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384{{.*}}, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c231424_i32
// The consumer's index (broadcast from lane 0); its rows start at
// consumer x 128 in the tile.
// CHECK:         %[[LANE0:.*]] = nvvm.shfl.sync idx
// CHECK-NEXT:    %[[CONSUMER:.*]] = arith.index_cast %[[LANE0]] : i32 to index
// The K loop carries the accumulator (128 f32: two waves), the fragment
// (64) and the K tile's scales (B's, then the thread's 4 rows of A: two
// per wave).
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:[^ ]*]] = {{.*}}, %[[FRAG:[^ ]*]] = {{.*}}, %[[SB:[^ ]*]] = {{.*}}, %[[SA0:[^ ]*]] = {{.*}}, %[[SA1:[^ ]*]] = {{.*}}, %[[SA2:[^ ]*]] = {{.*}}, %[[SA3:[^ ]*]] = {{.*}}) -> (!llvm.struct<([[F128:(f32, ){127}f32]])>, !llvm.struct<([[F64:(f32, ){63}f32]])>, f32, f32, f32, f32, f32)
// CHECK:           nvgpu.mbarrier.try_wait.parity
// Wave 0: the consumer's first 64 rows of A's stage, x 128 bytes a row.
// CHECK:           %[[ROW0:.*]] = arith.muli %[[CONSUMER]], %c128{{.*}} : index
// CHECK-NEXT:      arith.constant 128 : index
// CHECK-NEXT:      arith.muli %[[ROW0]], %c128
// CHECK:           nvvm.wgmma.mma_async {{.*}}, %[[FRAG]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK-COUNT-3:   nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:       nvvm.mbarrier.arrive
// Its promotion: the thread's first two rows' scales.
// CHECK:           arith.mulf %[[SA0]], %[[SB]] : f32
// CHECK:           arith.mulf %[[SA1]], %[[SB]] : f32
// CHECK:           llvm.insertvalue %{{.*}}, %[[ACC]][0] : !llvm.struct<([[F128]])>
// CHECK-NOT:       llvm.insertvalue %{{.*}}[64]
// CHECK:           llvm.insertvalue %{{.*}}[63] : !llvm.struct<([[F128]])>
// (the exactness test's other branch)
// CHECK:         } else {
// Wave 1: 64 rows further down.
// CHECK:           %[[ROW1:.*]] = arith.muli %[[CONSUMER]], %c128{{.*}} : index
// CHECK-NEXT:      arith.constant 64 : index
// CHECK-NEXT:      %[[WAVE1:.*]] = arith.addi %[[ROW1]], %c64{{.*}} : index
// CHECK-NEXT:      arith.constant 128 : index
// CHECK-NEXT:      arith.muli %[[WAVE1]], %c128
// CHECK:           nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK-COUNT-3:   nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           nvvm.mbarrier.arrive
// Its promotion: the thread's last two rows' scales.
// CHECK:           arith.mulf %[[SA2]], %[[SB]] : f32
// CHECK:           arith.mulf %[[SA3]], %[[SB]] : f32
// CHECK:           llvm.insertvalue %{{.*}}[64] : !llvm.struct<([[F128]])>
// CHECK:           llvm.insertvalue %{{.*}}[127] : !llvm.struct<([[F128]])>
// CHECK:           scf.yield
// The epilogue, a wave at a time: wave 0's 64 fragment elements staged and
// stored (2 boxes of 64 columns), then, once TMA has read the buffer,
// wave 1's from row 64 of the consumer's part.
// CHECK:         llvm.extractvalue %{{.*}}[0] : !llvm.struct<([[F128]])>
// CHECK:         nvgpu.tma.async.store
// CHECK:         nvgpu.tma.async.store
// CHECK:         arith.addi %{{.*}}, %c64
// CHECK-NEXT:    llvm.mlir.poison : !llvm.struct<([[F64]])>
// CHECK-NEXT:    llvm.extractvalue %{{.*}}[64] : !llvm.struct<([[F128]])>
// CHECK:         nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK:         nvgpu.tma.async.store
// CHECK:         nvgpu.tma.async.store
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK:         gpu.return
func.func @blockwise(%a: memref<512x1024xf8E4M3FN>, %sa: memref<512x8xf32>, %b: memref<256x1024xf8E4M3FN>, %sb: memref<2x8xf32>, %d: memref<512x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x1024xf8E4M3FN>, memref<512x8xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<256x1024xf8E4M3FN>, memref<2x8xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<512x256xbf16>)
  return
}

// -----

// Waves share one fragment promoted every K tile, which only block scales
// ask for: per-tensor scales are left to the reference loops.
// CHECK-LABEL: func.func @per_tensor
// CHECK-NOT:     gpu.launch_func
// CHECK:         qmm.matmul
func.func @per_tensor(%a: memref<512x1024xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<256x1024xf8E4M3FN>, %d: memref<512x256xbf16>) {
  // expected-remark @below {{a tile of 256 rows (tile-m) without block scales or in a grouped matmul}}
  qmm.matmul a(%a, %s : memref<512x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<256x1024xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<512x256xbf16>)
  return
}
