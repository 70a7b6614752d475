// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 dynamic-schedule=true" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 dynamic-schedule=true max-blocks=4" | FileCheck %s --check-prefix=CAP4
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 dynamic-schedule=true max-blocks=100 stream-k=false" | FileCheck %s --check-prefix=CAP100
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 dynamic-schedule=true cluster-rows=2" | FileCheck %s --check-prefix=CLUSTER

// dynamic-schedule: block i takes work item i, then gridDim + t for each
// ticket t its ticket drawer (the producer warpgroup's thread 32) draws
// from a global counter; the producer writes each stage's item into the
// stage's slot, the consumers read it at an item's first stage. The
// ring's tail, worked out by hand for 4 stages of 32 KiB (131072 bytes):
// the `empty` mbarriers at 131072 + 8 s, the ticket queue's `full` and
// `empty` mbarriers at + 32 and + 40 (131104, 131112), the stages' item
// slots at + 48 + 4 s (131120 + 4 s), the queue's slot at + 64 (131136).

// 8192^3: 4096 tiles of 64 K tiles, 31 rounds on 132 blocks: all 132 run
// (the static schedule balances them on 128), with the counters (tickets
// drawn, blocks done) zeroed by the host code and freed after the launch.
// CHECK-LABEL: func.func @many_rounds
// CHECK:         %[[COUNTERS:.*]] = memref.alloc() : memref<2xi32>
// CHECK:         gpu.memset %[[COUNTERS]], %{{.*}} : memref<2xi32>, i32
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch_func  @many_rounds_wgmma::@matmul blocks in (%c132, {{.*}} args({{.*}}, %[[COUNTERS]] : memref<2xi32>)
// CHECK:         memref.dealloc %[[COUNTERS]]

// The queue's mbarriers expect one arrival each.
// CHECK:       gpu.func @matmul({{.*}}, %{{.*}}: memref<2xi32>) kernel
// CHECK:         arith.constant 131104 : index
// CHECK:         nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK:         arith.constant 131112 : index
// CHECK:         nvvm.mbarrier.init %{{.*}}, %c1_i32

// The producer thread: from the block's index while below the 4096 items;
// the ring iteration of an item's first K tile is 64 x the items taken
// before. Each stage's item goes into its slot (+ 48 + 4 stage) before
// the stage's `full` arrival; after the item's K tiles, the next item
// from the queue (phase `taken` of its `full` barrier, the slot at + 64,
// then the queue's `empty` arrival), plus gridDim.
// CHECK:         %[[BLOCK:.*]] = gpu.block_id  x
// CHECK:         %[[PRODUCER:.*]]:2 = scf.while (%[[ITEM:.*]] = %[[BLOCK]], %[[TAKEN:.*]] = %c0{{.*}}) : (index, index) -> (index, index) {
// CHECK:           %[[MORE:.*]] = arith.cmpi ult, %[[ITEM]], %c4096
// CHECK:           scf.condition(%[[MORE]]) %[[ITEM]], %[[TAKEN]]
// CHECK:         } do {
// CHECK:         ^bb0(%[[ITEM2:.*]]: index, %[[TAKEN2:.*]]: index):
// CHECK:           arith.muli %[[TAKEN2]], %c64
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             arith.addi %c131120{{.*}}, %{{.*}} : index
// CHECK:             %[[ITEM32:.*]] = arith.index_castui %[[ITEM2]] : index to i32
// CHECK:             llvm.store %[[ITEM32]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK-NEXT:        %[[BYTES:.*]] = arith.constant 32768
// CHECK-NEXT:        nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES]]
// CHECK:           arith.andi %[[TAKEN2]], %c1
// CHECK:           arith.constant 131104 : index
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           arith.constant 131136 : index
// CHECK:           %[[TICKET:.*]] = llvm.load volatile %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK:           arith.constant 131112 : index
// CHECK:           nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK:           %[[T:.*]] = arith.index_castui %[[TICKET]] : i32 to index
// CHECK:           %[[GRID:.*]] = gpu.grid_dim  x
// CHECK:           %[[NEXT:.*]] = arith.addi %[[GRID]], %[[T]]
// CHECK:           %[[TAKEN3:.*]] = arith.addi %[[TAKEN2]], %c1
// CHECK:           scf.yield %[[NEXT]], %[[TAKEN3]]
// Past the items: the stage after the last item's (ring iteration 64 x
// the items taken) once free holds the end, and its `full` barrier
// completes without bytes.
// CHECK:         arith.muli %[[PRODUCER]]#1, %c64
// CHECK:         nvvm.mbarrier.try_wait.parity
// CHECK:         %[[END32:.*]] = arith.index_castui %[[PRODUCER]]#0 : index to i32
// CHECK:         llvm.store %[[END32]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK-NEXT:    %[[NO_BYTES:.*]] = arith.constant 0 : index
// CHECK-NEXT:    nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %[[NO_BYTES]]

// The ticket drawer: thread 32. Draw j: a relaxed atomic add on the
// tickets, then (phase j - 1 of the queue's `empty`) the ticket into the
// slot and the `full` arrival; it stops after the first ticket past the
// items (gridDim + ticket >= 4096). Then its block counts itself done
// (acquire-release); the last of gridDim blocks zeroes both counters.
// CHECK:         %[[IS_DRAWER:.*]] = arith.cmpi eq, %{{.*}}, %c32
// CHECK:         scf.if %[[IS_DRAWER]] {
// CHECK:           scf.while (%[[DRAW:.*]] = %c0{{.*}}) : (index) -> index {
// CHECK:             %[[DRAWN:.*]] = llvm.inline_asm has_side_effects "atom.relaxed.gpu.global.add.u32 $0, [$1], 1;", "=r,l"
// CHECK:             %[[DRAWNX:.*]] = arith.index_castui %[[DRAWN]] : i32 to index
// CHECK:             %[[DRAWN_ITEM:.*]] = arith.addi %{{.*}}, %[[DRAWNX]]
// CHECK:             arith.andi %[[DRAW]], %c1
// CHECK:             arith.constant 131112 : index
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             arith.constant 131136 : index
// CHECK:             llvm.store %[[DRAWN]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK:             arith.constant 131104 : index
// CHECK:             nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK:             %[[GO_ON:.*]] = arith.cmpi ult, %[[DRAWN_ITEM]], %c4096
// CHECK:             scf.condition(%[[GO_ON]])
// CHECK:           %[[DONE:.*]] = llvm.inline_asm has_side_effects "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;", "=r,l"
// CHECK:           %[[DONE1:.*]] = arith.addi %[[DONE]], %c1_i32
// CHECK:           %[[LAST:.*]] = arith.cmpi eq, %[[DONE1]], %{{.*}} : i32
// CHECK:           scf.if %[[LAST]] {
// CHECK-COUNT-2:     llvm.store %{{.*}}, %{{.*}} atomic syncscope("device") monotonic

// The consumers: the same loop, carrying the fragment in flight; before
// the epilogue, the next item from the slot of the stage after this
// item's, after the wait for it: its first K tile is issued if it is
// below the items.
// CHECK:         scf.while (%[[CITEM:.*]] = %{{.*}}, %{{.*}} = %c0{{.*}}, %{{.*}} = %{{.*}}) : (index, index, !llvm.struct
// CHECK:           arith.cmpi ult, %[[CITEM]], %c4096
// CHECK:         } do {
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK:           %[[CNEXT32:.*]] = llvm.load volatile %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK:           %[[CNEXT:.*]] = arith.index_castui %[[CNEXT32]] : i32 to index
// CHECK:           %[[HAS_NEXT:.*]] = arith.cmpi ult, %[[CNEXT]], %c4096
// CHECK:           scf.if %[[HAS_NEXT]] -> (!llvm.struct
// CHECK:             nvvm.wgmma.mma_async
// CHECK:           nvgpu.tma.async.store
// CHECK:           scf.yield %[[CNEXT]],
func.func @many_rounds(%a: memref<8192x8192xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<8192x8192xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<8192x8192xbf16>) {
  qmm.matmul a(%a, %sa : memref<8192x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<8192x8192xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<8192x8192xbf16>)
  return
}

// -----

// Where the schedule stays static:
// - one round (4 tiles on 132 blocks, or 4 on 4): nothing to hand out;
// CHECK-LABEL: func.func @one_round
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch_func  @one_round_wgmma::@matmul blocks in (%c4,
// CHECK-NOT:     scf.while
// CHECK-NOT:     atom.relaxed
// CAP4-LABEL: func.func @one_round
// CAP4-NOT:      memref.alloc
// CAP4-NOT:      scf.while
func.func @one_round(%a: memref<256x512xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x512xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x512xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x512xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// - a split last round (384 x 256 x 4096 on 4 blocks: 6 tiles of 32 K
//   tiles, R = 1, L = 2, split in 2 parts, as in
//   lower-matmul-to-wgmma-stream-k.mlir): Stream-K's counters (4) and
//   workspace, no tickets (on 132 blocks the 6 tiles are a last round
//   alone, split in 4 parts each: 24 blocks).
// CHECK-LABEL: func.func @split_last_round
// CHECK:         memref.alloc() : memref<12xi32>
// CHECK:         gpu.launch_func  @split_last_round_wgmma::@matmul blocks in (%c24,
// CHECK-NOT:     atom.relaxed
// CAP4-LABEL: func.func @split_last_round
// CAP4:         memref.alloc() : memref<4xi32>
// CAP4:         memref.alloc() : memref<65536xf32>
// CAP4:         gpu.launch_func  @split_last_round_wgmma::@matmul blocks in (%c4,
// CAP4-NOT:     atom.relaxed
func.func @split_last_round(%a: memref<384x4096xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x4096xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<384x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<384x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<384x256xbf16>)
  return
}

// -----

// 1024 x 4224: 8 x 33 = 264 tiles. On at most 100 blocks the static
// schedule takes 3 rounds on 88 (lower-matmul-to-wgmma-balanced-grid.mlir);
// the dynamic one runs all 100, drawing items below 264 (on 132
// blocks, 2 whole rounds, all 132 run the static schedule or this one).
// CHECK-LABEL: func.func @two_whole_rounds
// CHECK:         memref.alloc() : memref<2xi32>
// CHECK:         gpu.launch_func  @two_whole_rounds_wgmma::@matmul blocks in (%c132,
// CHECK:         atom.relaxed.gpu.global.add.u32
// CAP4-LABEL: func.func @two_whole_rounds
// CAP100-LABEL: func.func @two_whole_rounds
// CAP100:         memref.alloc() : memref<2xi32>
// CAP100:         gpu.launch_func  @two_whole_rounds_wgmma::@matmul blocks in (%c100,
// CAP100:         arith.cmpi ult, %{{.*}}, %c264
// CAP100:         atom.relaxed.gpu.global.add.u32
// CLUSTER-LABEL: func.func @two_whole_rounds
// - clusters (whose blocks take units of tiles together): 264 tiles in
//   132 units of 2 on 66 clusters, 2 whole rounds, static.
// CLUSTER-NOT:   memref.alloc
// CLUSTER:       gpu.launch_func  @two_whole_rounds_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c132,
// CLUSTER-NOT:   atom.relaxed
func.func @two_whole_rounds(%a: memref<1024x512xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<4224x512xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<1024x4224xbf16>) {
  qmm.matmul a(%a, %sa : memref<1024x512xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<4224x512xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<1024x4224xbf16>)
  return
}
