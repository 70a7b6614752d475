// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=2" | FileCheck %s --check-prefix=PAIR
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=2 cluster-reduction=false" | FileCheck %s --check-prefix=GLOBAL
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 max-blocks=4" | FileCheck %s --check-prefix=FOUR
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=64 tile-n=64 max-blocks=2" | FileCheck %s --check-prefix=ONE
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a max-blocks=4" | FileCheck %s --check-prefix=DYN

// The Stream-K parts of a tile reduced in a cluster (cluster-reduction).
// 128 x 128 x 4096: one tile of 32 K tiles. On 2 blocks (max-blocks=2):
// R = 0, L = 1, s = min(2 / 1, 32 / 8) = 2 parts, one per block, no whole
// tile, two consumers: the two blocks run as one cluster of 2 and pass no
// workspace or counters.
// PAIR-LABEL: func.func @one_tile
// PAIR-NOT:     memref.alloc
// PAIR:         gpu.launch_func  @one_tile_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c2,
// PAIR:         gpu.func @matmul(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<1x1xf32>, %{{.*}}: memref<1x1xf32>, %{{.*}}: memref<128x128xbf16>, %{{.*}}: !llvm.ptr) kernel
// The cluster's blocks meet after initializing their barriers (2 per
// consumer beside the ring's), so none arrives on the other's before.
// PAIR:         nvvm.fence.mbarrier.init
// PAIR:         nvvm.cluster.arrive
// PAIR-NEXT:    nvvm.cluster.wait
// After the K loop, both consumer warpgroups (256 threads) meet at named
// barrier 4; the owner (part = consumer) expects one fragment, 64 rows x
// 128 columns of f32 = 32768 bytes, and arrives on the other block's
// `ready` barrier (mapa, release at cluster scope); it reads the fragment
// back from its ring (16 vectors, 128 threads x 16 bytes apart) and adds
// it to its own sums.
// PAIR:         nvvm.barrier id = %c4_i32{{.*}} number_of_threads = %c256_i32
// PAIR:         scf.if %{{.*}} -> (!llvm.struct
// PAIR:           llvm.inline_asm has_side_effects "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %{{.*}}, %c32768_i32
// PAIR:           nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// PAIR-NEXT:      nvvm.mbarrier.arrive %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// PAIR:           nvvm.mbarrier.try_wait.parity
// PAIR:           llvm.inline_asm has_side_effects "ld.shared.v4.f32 {$0, $1, $2, $3}, [$64+0];\0Ald.shared.v4.f32 {$4, $5, $6, $7}, [$64+2048];
// PAIR-SAME:        ld.shared.v4.f32 {$60, $61, $62, $63}, [$64+30720];\0A"
// PAIR-COUNT-64:  arith.addf
// The other part waits for `ready` (acquire at cluster scope), then sends
// its fragment into the owner's ring with st.async, completing its bytes
// on the owner's `received` barrier (both mapped to the owner's block).
// PAIR:         } else {
// PAIR:           "{ .reg .pred done; retry: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [$0], $1; @!done bra retry; }"
// PAIR:           "{ .reg .b32 to, done;\0Amapa.shared::cluster.u32 to, $0, $1;\0Amapa.shared::cluster.u32 done, $2, $1;\0Ast.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [to+0], {$3, $4, $5, $6}, [done];
// PAIR-SAME:        st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [to+30720], {$63, $64, $65, $66}, [done];\0A}"
// The owner runs the epilogue of its consumer's half; no global handshake.
// PAIR-NOT:     atom.acq_rel
// PAIR:         nvgpu.tma.async.store
// No block exits while the other may still write into its ring.
// PAIR:         nvvm.cluster.arrive
// PAIR-NEXT:    nvvm.cluster.wait
// PAIR-NEXT:    gpu.return

// Turned off, the same parts go through the global workspace (2 parts x
// 128 x 128 f32) and the counters (2 consumers), unclustered.
// GLOBAL-LABEL: func.func @one_tile
// GLOBAL:         memref.alloc() : memref<2xi32>
// GLOBAL:         memref.alloc() : memref<32768xf32>
// GLOBAL:         gpu.launch_func  @one_tile_wgmma::@matmul blocks in (%c2,
// GLOBAL-NOT:     st.async
// GLOBAL:         atom.acq_rel.gpu.global.add.u32

// On 4 blocks: s = min(4, 32 / 8) = 4 parts, more than a cluster's 2
// blocks: the global workspace (4 x 16384 f32).
// FOUR-LABEL: func.func @one_tile
// FOUR:         memref.alloc() : memref<65536xf32>
// FOUR:         gpu.launch_func  @one_tile_wgmma::@matmul blocks in (%c4,
// FOUR-NOT:     st.async
func.func @one_tile(%a: memref<128x4096xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<128x4096xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x128xbf16>) {
  qmm.matmul a(%a, %sa : memref<128x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<128x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x128xbf16>)
  return
}

// -----

// Whole tiles before the parts: 384 x 256 x 4096 has 6 tiles; on 4 blocks
// R = 1, L = 2, s = min(4 / 2, 4) = 2 parts, but blocks take a whole tile
// first, so the parts of a tile do not run at once: the workspace.
// FOUR-LABEL: func.func @whole_tiles_first
// FOUR:         memref.alloc() : memref<65536xf32>
// FOUR:         gpu.launch_func  @whole_tiles_first_wgmma::@matmul blocks in (%c4,
// FOUR-NOT:     st.async
func.func @whole_tiles_first(%a: memref<384x4096xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x4096xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<384x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<384x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<384x256xbf16>)
  return
}

// -----

// One consumer (a 64 x 64 tile): one block would finish the whole tile
// alone, so the parts keep the workspace. 64 x 64 x 4096 on 2 blocks:
// 1 tile of 2 parts, 2 x 64 x 64 f32.
// ONE-LABEL: func.func @one_consumer
// ONE:         memref.alloc() : memref<8192xf32>
// ONE:         gpu.launch_func  @one_consumer_wgmma::@matmul blocks in (%c2,
// ONE-NOT:     st.async
func.func @one_consumer(%a: memref<64x4096xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<64x4096xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<64x64xbf16>) {
  qmm.matmul a(%a, %sa : memref<64x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<64x4096xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<64x64xbf16>)
  return
}

// -----

// A run-time M: each version within one tile row takes the static
// schedule, so its tiles of 2 parts reduce in clusters too. 256 x 4096
// with block scales on 4 blocks: the version for M <= 8 (the first; block
// scales and an 8-row box of A keep 128 columns) has 2 tile columns of
// 32 K tiles, s = min(4 / 2, 4) = 2 parts, in clusters of 2 without a
// workspace; the versions for M <= 16 .. 64 take 4 tiles of 64 columns,
// one a block, unsplit (a single tile row takes 64 columns where they
// keep as many blocks busy).
// DYN-LABEL: func.func @run_time_m
// DYN-NOT:      memref.alloc
// DYN:          arith.cmpi ule, %{{.*}}, %c8
// DYN:          gpu.launch_func  @run_time_m_wgmma::@matmul clusters in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) blocks in (%c4,
// DYN:          arith.cmpi ule, %{{.*}}, %c16
// DYN:          gpu.launch_func  @run_time_m_wgmma_0::@matmul blocks in (%c4, %c1, %c1) threads in (%c256,
func.func @run_time_m(%a: memref<?x4096xf8E4M3FN>, %sa: memref<?x32xf32>, %b: memref<256x4096xf8E4M3FN>, %sb: memref<2x32xf32>, %c: memref<?x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<?x4096xf8E4M3FN>, memref<?x32xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<256x4096xf8E4M3FN>, memref<2x32xf32>) #qmm.scale<block 128x128>
             outs(%c : memref<?x256xbf16>)
  return
}
