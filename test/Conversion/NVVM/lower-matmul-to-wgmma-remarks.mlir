// RUN: fp8-opt %s --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" --remarks-filter-missed=qmm-lower-matmul-to-wgmma --remark-format=emitRemark -verify-diagnostics | FileCheck %s
// RUN: sed 's/expected-remark/remark expected/' %s | fp8-opt --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET

// Why a matmul runs as the reference loops instead of a wgmma kernel: a
// missed-optimization remark per matmul left behind, on request (MLIR's
// remark filters), with the first reason the kernel does not take it.
// Without the request the pass says nothing (the second run, its input
// without the expectations).
// QUIET-NOT: {{.}}

// CHECK-LABEL: func.func @fallbacks
// CHECK:         gpu.launch_func
// CHECK-COUNT-6: qmm.matmul
func.func @fallbacks(%a: memref<128x256xf8E4M3FN>, %s: memref<1x1xf32>, %bkn: memref<256x128xf8E4M3FN>, %b: memref<128x256xf8E4M3FN>, %d: memref<128x128xbf16>,
                     %a2: memref<128x200xf8E4M3FN>, %b2: memref<128x200xf8E4M3FN>,
                     %sa64: memref<128x4xf32>, %sb16: memref<8x2xf32>, %sb128: memref<1x2xf32>,
                     %afnuz: memref<128x256xf8E4M3FNUZ>, %bfnuz: memref<128x256xf8E4M3FNUZ>,
                     %bempty: memref<0x256xf8E4M3FN>, %dempty: memref<128x0xbf16>) {
  // Taken: no remark.
  qmm.matmul a(%a, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x128xbf16>)
  // expected-remark @below {{B stored [K, N]}}
  qmm.matmul a(%a, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%bkn, %s : memref<256x128xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor> layout kn
             outs(%d : memref<128x128xbf16>)
  // expected-remark @below {{K not a positive multiple of 16}}
  qmm.matmul a(%a2, %s : memref<128x200xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b2, %s : memref<128x200xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x128xbf16>)
  // expected-remark @below {{scale blocks not aligned with the kernel's tiles}}
  qmm.matmul a(%a, %sa64 : memref<128x256xf8E4M3FN>, memref<128x4xf32>) #qmm.scale<block 1x64>
             b(%b, %sb128 : memref<128x256xf8E4M3FN>, memref<1x2xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<128x128xbf16>)
  // expected-remark @below {{scale blocks not aligned with the kernel's tiles}}
  qmm.matmul a(%a, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb16 : memref<128x256xf8E4M3FN>, memref<8x2xf32>) #qmm.scale<block 16x128>
             outs(%d : memref<128x128xbf16>)
  // expected-remark @below {{not OCP FP8}}
  qmm.matmul a(%afnuz, %s : memref<128x256xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%bfnuz, %s : memref<128x256xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x128xbf16>)
  // expected-remark @below {{empty or above 2^31 - 1 extents}}
  qmm.matmul a(%a, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%bempty, %s : memref<0x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%dempty : memref<128x0xbf16>)
  return
}
