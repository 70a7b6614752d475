// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 cluster-rows=2" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 cluster-rows=4" | FileCheck %s --check-prefix=FOUR

// Clusters (cluster-rows=2): the two blocks of a cluster compute
// consecutive tiles of one column (256 x 256: 2 tile rows, so one cluster
// per column, 2 clusters). B's tile is shared: each block loads its half
// (a 64-row box) and multicasts it into both blocks' shared memory, so
// B's tensor map has 64-row boxes and the launch names the cluster.

// CHECK-LABEL: func.func @two_rows
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<64x128xf8E4M3FN
// CHECK:         gpu.launch_func  @two_rows_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c4, %c1{{.*}}, %c1{{.*}}) threads in (%c384, %c1{{.*}}, %c1{{.*}})  dynamic_shared_memory_size %c165888_i32

// Set-up: `empty` counts one arrival per consumer warp of both blocks
// (16); thread 0 makes the initialization visible to the cluster, and
// the cluster synchronizes before any block multicasts.
// CHECK:       gpu.module @two_rows_wgmma
// CHECK:         %[[RANK:.*]] = gpu.cluster_block_id  x
// CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK:         nvvm.mbarrier.init %{{.*}}, %[[SIXTEEN]]
// CHECK:         nvvm.fence.mbarrier.init
// CHECK:         nvvm.fence.proxy
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NOT:     gpu.barrier

// The producer: units of 2 tiles walked per cluster (block / 2, step
// grid / 2); its tile row is 2 x unit row + rank. It waits for `empty`
// (released by the consumers of both blocks), loads A's tile alone and its half of B's tile, rows
// column + 64 x rank, into the half at 16384 + 8192 x rank of the stage,
// multicast to both blocks (mask 0b11).
// CHECK:         %[[BLOCK:.*]] = gpu.block_id  x
// CHECK:         %[[CLUSTER:.*]] = arith.divui %[[BLOCK]], %c2
// CHECK:         %[[GRID:.*]] = gpu.grid_dim  x
// CHECK:         %[[CLUSTERS:.*]] = arith.divui %[[GRID]], %c2
// CHECK:         scf.for %[[UNIT:.*]] = %[[CLUSTER]] to %c2{{.*}} step %[[CLUSTERS]]
// CHECK:           %[[PAIR:.*]] = arith.muli %{{.*}}, %c2
// CHECK:           %[[TILEROW:.*]] = arith.addi %[[PAIR]], %[[RANK]]
// CHECK:           arith.muli %[[TILEROW]], %c128
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
// CHECK:             nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<128x128xf8E4M3FN
// CHECK-NOT:           multicast_mask
// CHECK:             %[[PART:.*]] = arith.muli %[[RANK]], %c8192
// CHECK:             arith.addi %c16384{{.*}}, %[[PART]]
// CHECK:             %[[VIEW:.*]] = memref.view {{.*}} to memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK:             %[[HALF:.*]] = arith.muli %[[RANK]], %c64
// CHECK:             %[[BROW:.*]] = arith.addi %{{.*}}, %[[HALF]]
// CHECK:             %[[MASK:.*]] = arith.constant 3 : i16
// CHECK:             nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[BROW]]], %{{.*}}[%{{.*}}] to %[[VIEW]] multicast_mask = %[[MASK]]

// The consumers release a stage in both blocks: mapa to each rank's copy
// of the barrier, then arrive (default semantics, as CUTLASS's cluster
// pipelines: release at cluster scope measured 3x slower, as it also
// waits for the previous tile's stores).
// CHECK:         scf.if
// CHECK:           %[[R0:.*]] = arith.constant 0 : i32
// CHECK:           %[[REMOTE0:.*]] = nvvm.mapa %[[BARRIER:.*]], %[[R0]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      nvvm.mbarrier.arrive %[[REMOTE0]] : !llvm.ptr<7>
// CHECK:           %[[R1:.*]] = arith.constant 1 : i32
// CHECK:           %[[REMOTE1:.*]] = nvvm.mapa %{{.*}}, %[[R1]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      nvvm.mbarrier.arrive %[[REMOTE1]] : !llvm.ptr<7>

// No block exits while the other may still write into it.
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    gpu.return

// cluster-rows=4: 4 tile rows (512) make one unit; quarters of B's tile
// (32-row boxes), mask 0b1111, 32 arrivals per `empty`.
// FOUR-LABEL: func.func @two_rows
// FOUR-NOT:     clusters in
// FOUR-LABEL: func.func @four_rows
// FOUR:         box[%c32{{.*}}, %c128{{.*}}]
// FOUR:         gpu.launch_func  @four_rows_wgmma::@matmul clusters in (%c4{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c4{{.*}}, %c1{{.*}}, %c1{{.*}})
// FOUR:       gpu.module @four_rows_wgmma
// FOUR:         arith.constant 32 : i32
// FOUR:         arith.constant 15 : i16
func.func @two_rows(%a: memref<256x384xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x384xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x384xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x384xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// 3 tile rows (M = 300) do not make whole units of 2: no cluster, B's
// tensor map keeps 128-row boxes, no multicast.

// CHECK-LABEL: func.func @odd_rows
// CHECK:         box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK:         box[%c128{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<128x128xf8E4M3FN
// CHECK-NOT:     clusters in
// CHECK:         gpu.launch_func  @odd_rows_wgmma::@matmul blocks in (%c3,
// CHECK:       gpu.module @odd_rows_wgmma
// CHECK-NOT:     multicast_mask
// CHECK-NOT:     nvvm.cluster
// CHECK-NOT:     mapa
// CHECK:         gpu.return
func.func @odd_rows(%a: memref<300x256xf8E4M3FN>, %sa: memref<300x1xf32>, %b: memref<128x256xf8E4M3FN>, %sb: memref<128x1xf32>, %d: memref<300x128xf32>) {
  qmm.matmul a(%a, %sa : memref<300x256xf8E4M3FN>, memref<300x1xf32>) #qmm.scale<per_row>
             b(%b, %sb : memref<128x256xf8E4M3FN>, memref<128x1xf32>) #qmm.scale<per_row>
             outs(%d : memref<300x128xf32>)
  return
}

// -----

func.func @four_rows(%a: memref<512x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<128x256xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<512x128xbf16>) {
  qmm.matmul a(%a, %sa : memref<512x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<512x128xbf16>)
  return
}
