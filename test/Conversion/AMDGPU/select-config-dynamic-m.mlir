// RUN: fp8-opt %s -split-input-file --qmm-attach-target=chip=gfx950 --qmm-select-config=builtin-tuning=false | FileCheck %s --check-prefix=BUCKET256
// RUN: fp8-opt %s -split-input-file --qmm-attach-target=chip=gfx950 --qmm-select-config="builtin-tuning=false dynamic-m=1" | FileCheck %s --check-prefix=BUCKET1
// RUN: not fp8-opt %s --qmm-attach-target=chip=gfx950 --qmm-select-config=dynamic-m=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx950 dynamic-m=-4" 2>&1 | FileCheck %s --check-prefix=PIPELINE

// ZERO: error: qmm-select-config: dynamic-m must be positive, got 0
// PIPELINE: error: qmm-to-amdgpu-pipeline: dynamic-m must be positive

// A dynamic M is configured as if M were `dynamic-m` (default 256), by
// the documented heuristic: at M = 256 (and N = 4096 >= 128) 32x32 MFMAs
// and 128-row tiles of 2 x 2 waves; at M = 1, 16x16 MFMAs and tile M = 16
// (the MFMA's), one wave along M. K = 4096 spans many tiles: double
// buffering. Never split-K, which a static M = 1 grid of 32 workgroups
// would get (its workspace depends on M).
// BUCKET256: qmm.matmul {{.*}} config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = f8f6f4 [32, 32, 64], stages = 2>
// BUCKET1:   qmm.matmul {{.*}} config #qmm.config<tile = [16, 128, 128], waves = [1, 2], mfma = f8f6f4 [16, 16, 128], stages = 2>
// BUCKET1-NOT: split
func.func @dynamic_m(%a: tensor<?x4096xf8E4M3FN>, %as: tensor<?x32xf32>,
                     %b: tensor<4096x4096xf8E4M3FN>, %bs: tensor<32x32xf32>,
                     %d: tensor<?x4096xbf16>) -> tensor<?x4096xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<4096x4096xf8E4M3FN>, tensor<32x32xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
  return %0 : tensor<?x4096xbf16>
}
