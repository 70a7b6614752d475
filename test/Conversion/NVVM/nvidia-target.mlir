// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-matmul-to-wgmma | FileCheck %s

// The NVIDIA passes read their chip from the IR, as the AMD passes do:
// a module attached to sm_90a (qmm-attach-target records #nvvm.target) is
// lowered without a chip option.
// CHECK-LABEL: func.func @attached
// CHECK:         gpu.launch_func @attached_wgmma::@matmul
module attributes {qmm.target = #nvvm.target<chip = "sm_90a", features = "+ptx83">} {
  func.func @attached(%a: memref<128x256xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<128x256xf8E4M3FN>, %d: memref<128x128xbf16>) {
    qmm.matmul a(%a, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
               b(%b, %s : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
               outs(%d : memref<128x128xbf16>)
    return
  }
}

// -----

// No chip in the IR and none in the option.
// expected-error @+1 {{qmm-lower-matmul-to-wgmma: no target chip: set one with qmm-attach-target (or the pass's chip option), expected sm_90a}}
module {
  func.func @untargeted() {
    return
  }
}

// -----

// A module compiled for an AMD chip is not an NVIDIA pass's.
// expected-error @+1 {{qmm-lower-matmul-to-wgmma: unknown chip 'gfx950' (expected sm_90a)}}
module attributes {qmm.target = #rocdl.target<chip = "gfx950">} {
  func.func @amd() {
    return
  }
}
