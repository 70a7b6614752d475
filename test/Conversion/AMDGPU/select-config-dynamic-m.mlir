// RUN: fp8-opt %s -split-input-file --qmm-attach-target=chip=gfx950 --qmm-select-config=builtin-tuning=false | FileCheck %s --check-prefixes=CHECK,BUCKET256
// RUN: fp8-opt %s -split-input-file --qmm-attach-target=chip=gfx950 --qmm-select-config="builtin-tuning=false dynamic-m=1" | FileCheck %s --check-prefixes=CHECK,BUCKET1
// RUN: not fp8-opt %s --qmm-attach-target=chip=gfx950 --qmm-select-config=dynamic-m=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx950 dynamic-m=-4" 2>&1 | FileCheck %s --check-prefix=PIPELINE

// ZERO: error: qmm-select-config: dynamic-m must be positive, got 0
// PIPELINE: error: qmm-to-amdgpu-pipeline: dynamic-m must be positive

// A dynamic M is versioned by M: M <= 64 runs a copy marked qmm.max_m =
// 64 and configured as if M were 64, by the documented heuristic: 16x16
// MFMAs (M < 128), tile M 64 (the next power of two of 64), 2 x 2 waves,
// double buffering (K = 4096 spans many tiles) and, as 64x128 tiles make a
// grid of 32 workgroups (< 128), split-K 8 (the most that keeps the grid
// within 256 workgroups): the bound sizes its workspace. Larger M runs a
// copy configured as if M were `dynamic-m` (default 256): 32x32 MFMAs
// (M and N >= 128) on 128-row tiles, never split-K (its workspace would
// depend on M); with dynamic-m = 1, tile M 16, one wave along M.
// CHECK-LABEL: func.func @dynamic_m
// CHECK:         %[[M:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4096xf8E4M3FN>
// CHECK:         %[[SMALL:.*]] = arith.cmpi ule, %[[M]], %c64
// CHECK:         scf.if %[[SMALL]] -> (tensor<?x4096xbf16>) {
// CHECK:           qmm.matmul {{.*}} config #qmm.config<tile = [64, 128, 128], waves = [2, 2], mfma = f8f6f4 [16, 16, 128], stages = 2, split = 8> {{.*}} {qmm.max_m = 64 : i64}
// CHECK:         } else {
// BUCKET256:       qmm.matmul {{.*}} config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = f8f6f4 [32, 32, 64], stages = 2> outs
// BUCKET1:         qmm.matmul {{.*}} config #qmm.config<tile = [16, 128, 128], waves = [1, 2], mfma = f8f6f4 [16, 16, 128], stages = 2> outs
// CHECK-NOT:       max_m
// CHECK:         }
func.func @dynamic_m(%a: tensor<?x4096xf8E4M3FN>, %as: tensor<?x32xf32>,
                     %b: tensor<4096x4096xf8E4M3FN>, %bs: tensor<32x32xf32>,
                     %d: tensor<?x4096xbf16>) -> tensor<?x4096xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<4096x4096xf8E4M3FN>, tensor<32x32xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
  return %0 : tensor<?x4096xbf16>
}
