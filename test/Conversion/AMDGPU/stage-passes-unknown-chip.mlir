// Every stage of the kernel lowering rejects a chip it has no description
// of, naming the chips it knows, and says so when it has no chip at all.
// RUN: not fp8-opt %s --qmm-tile-matmul=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not fp8-opt %s --qmm-promote-operands-to-lds=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not fp8-opt %s --qmm-lower-wave-mma-to-mfma=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=MFMA
// RUN: not fp8-opt %s --qmm-lower-wave-scales=chip=mi300 2>&1 | FileCheck %s --check-prefix=SCALES
// RUN: not fp8-opt %s --qmm-lower-wave-store=chip= 2>&1 | FileCheck %s --check-prefix=STORE

// TILE: error: qmm-tile-matmul: unknown chip 'gfx90a' (expected gfx942 or gfx950)
// LDS: error: qmm-promote-operands-to-lds: unknown chip 'gfx90a' (expected gfx942 or gfx950)
// MFMA: error: qmm-lower-wave-mma-to-mfma: unknown chip 'gfx1100' (expected gfx942 or gfx950)
// SCALES: error: qmm-lower-wave-scales: unknown chip 'mi300' (expected gfx942 or gfx950)
// STORE: error: qmm-lower-wave-store: no target chip: set one with qmm-attach-target (or the pass's chip option), expected gfx942 or gfx950
module {
  func.func @empty() {
    return
  }
}
