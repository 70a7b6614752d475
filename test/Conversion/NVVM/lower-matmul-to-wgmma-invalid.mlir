// RUN: fp8-opt %s -verify-diagnostics --qmm-lower-matmul-to-wgmma="chip=sm_90a stages=8"
// RUN: fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 stages=7" | FileCheck %s --check-prefix=SEVEN
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a stages=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a stages=1" 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-rows=3" 2>&1 | FileCheck %s --check-prefix=CLUSTER3
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-rows=16" 2>&1 | FileCheck %s --check-prefix=CLUSTER16
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-rows=-1" 2>&1 | FileCheck %s --check-prefix=CLUSTER-NEGATIVE
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a max-blocks=-1" 2>&1 | FileCheck %s --check-prefix=MAXBLOCKS
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a max-blocks=1 cluster-rows=2" 2>&1 | FileCheck %s --check-prefix=MAXBLOCKS-CLUSTER
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-columns=3" 2>&1 | FileCheck %s --check-prefix=COLUMNS3
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-columns=16" 2>&1 | FileCheck %s --check-prefix=COLUMNS16
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-columns=0" 2>&1 | FileCheck %s --check-prefix=COLUMNS0
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a cluster-rows=2 cluster-columns=2" 2>&1 | FileCheck %s --check-prefix=ROWS-AND-COLUMNS
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a max-blocks=2 cluster-columns=4" 2>&1 | FileCheck %s --check-prefix=MAXBLOCKS-COLUMNS
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a promotion-k-tiles=0" 2>&1 | FileCheck %s --check-prefix=PROMOTION0
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a promotion-k-tiles=-4" 2>&1 | FileCheck %s --check-prefix=PROMOTION-NEGATIVE
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a stages=8 dynamic-schedule=true" 2>&1 | FileCheck %s --check-prefix=DYNAMIC8
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a dynamic-schedule=maybe" 2>&1 | FileCheck %s --check-prefix=DYNAMIC-VALUE
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a check-scales-ahead=sometimes" 2>&1 | FileCheck %s --check-prefix=CHECKS-VALUE
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=96" 2>&1 | FileCheck %s --check-prefix=TILE-M
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-n=32" 2>&1 | FileCheck %s --check-prefix=TILE-N
// RUN: not fp8-opt %s --qmm-to-nvvm-pipeline="format=gpu tile-n=256" 2>&1 | FileCheck %s --check-prefix=TILE-N-PIPELINE
// RUN: not fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=256 tile-n=192" 2>&1 | FileCheck %s --check-prefix=TILE-WAVES-WIDE

// The ring must fit the chip's shared memory per block (227 KiB on sm_90a):
// 8 stages of 32 KiB (and their 8-byte `empty` barriers) plus the 1 KiB
// that aligns them do not; 7 do (128 x 128 tiles: smaller ones keep the
// bytes in more stages).
// SEVEN: dynamic_shared_memory_size %c230456_i32
// A ring of one stage would leave no TMA copy in flight during the wgmma
// steps.
// ZERO: qmm-lower-matmul-to-wgmma: stages must be at least 2 (a ring of one stage never overlaps the copies with the wgmma steps), got 0
// ONE: qmm-lower-matmul-to-wgmma: stages must be at least 2 (a ring of one stage never overlaps the copies with the wgmma steps), got 1
// CHIP: qmm-lower-matmul-to-wgmma: unknown chip 'sm_80' (expected sm_90a)
// Clusters split B's 128-row tile into parts of whole 8-row swizzle atoms
// for at most 8 blocks (the portable cluster size), a power of two.
// CLUSTER3: qmm-lower-matmul-to-wgmma: cluster-rows must be 0 (chosen per matmul) or a power of two from 1 to 8, got 3
// CLUSTER16: qmm-lower-matmul-to-wgmma: cluster-rows must be 0 (chosen per matmul) or a power of two from 1 to 8, got 16
// CLUSTER-NEGATIVE: qmm-lower-matmul-to-wgmma: cluster-rows must be 0 (chosen per matmul) or a power of two from 1 to 8, got -1
// The persistent grid's cap (Stream-K tests) is positive, or 0 for the
// chip's multiprocessors, and holds a cluster.
// MAXBLOCKS: qmm-lower-matmul-to-wgmma: max-blocks must be 0 (one block per multiprocessor) or positive, got -1
// MAXBLOCKS-CLUSTER: qmm-lower-matmul-to-wgmma: max-blocks (1) must hold a cluster of cluster-rows (2) blocks
// Clusters that share A's tile split its rows into parts of whole 8-row
// swizzle atoms (the smallest tile, 64 rows, into 8); a cluster shares one
// operand's tiles, not both.
// COLUMNS3: qmm-lower-matmul-to-wgmma: cluster-columns must be a power of two from 1 to 8, got 3
// COLUMNS16: qmm-lower-matmul-to-wgmma: cluster-columns must be a power of two from 1 to 8, got 16
// COLUMNS0: qmm-lower-matmul-to-wgmma: cluster-columns must be a power of two from 1 to 8, got 0
// ROWS-AND-COLUMNS: qmm-lower-matmul-to-wgmma: cluster-rows (2) and cluster-columns (2) cannot both exceed 1: a cluster shares B's tiles or A's, not both
// MAXBLOCKS-COLUMNS: qmm-lower-matmul-to-wgmma: max-blocks (2) must hold a cluster of cluster-columns (4) blocks
// wgmma sums at least one K tile between promotions.
// PROMOTION0: qmm-lower-matmul-to-wgmma: promotion-k-tiles must be at least 1, got 0
// PROMOTION-NEGATIVE: qmm-lower-matmul-to-wgmma: promotion-k-tiles must be at least 1, got -4
// A dynamic schedule's state counts too: an item slot of 4 bytes a stage,
// the ticket queue's two mbarriers and slot: 8 x (32768 + 8 + 4) + 16 + 4
// + 1024.
// DYNAMIC8: qmm-lower-matmul-to-wgmma: 8 stages need 263284 bytes of shared memory; sm_90a has 232448 per block
// The kernel's tiles: one or two consumer warpgroups of wgmma M (64) rows
// (of two waves each: 256), 64, 128 or 192 columns (0: chosen per
// matmul); two waves hold 128 columns at most (a 192-column fragment and
// two waves' sums are 288 registers a thread).
// TILE-M: qmm-lower-matmul-to-wgmma: tile-m must be 0 (chosen per matmul), 64, 128 or 256, got 96
// TILE-N: qmm-lower-matmul-to-wgmma: tile-n must be 0 (chosen per matmul), 64, 128 or 192, got 32
// TILE-N-PIPELINE: qmm-lower-matmul-to-wgmma: tile-n must be 0 (chosen per matmul), 64, 128 or 192, got 256
// TILE-WAVES-WIDE: qmm-lower-matmul-to-wgmma: tile-m 256 (two waves) takes tile-n 64 or 128, got 192
// dynamic-schedule is a boolean.
// DYNAMIC-VALUE: for the --dynamic-schedule option: 'maybe' is invalid value for boolean argument
// So is check-scales-ahead.
// CHECKS-VALUE: for the --check-scales-ahead option: 'sometimes' is invalid value for boolean argument

// expected-error@+1 {{qmm-lower-matmul-to-wgmma: 8 stages need 263232 bytes of shared memory; sm_90a has 232448 per block}}
module {
  func.func @gemm(%a: memref<128x256xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<128x256xf8E4M3FN>, %d: memref<128x128xbf16>) {
    qmm.matmul a(%a, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
               b(%b, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
               outs(%d : memref<128x128xbf16>)
    return
  }
}
