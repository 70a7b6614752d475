// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-legalize-for-chip=chip=gfx942

func.func @memref_form(%a: memref<32x64xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                       %b: memref<16x64xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                       %d: memref<32x16xf32>) {
  // expected-error @+1 {{qmm-legalize-for-chip runs on the tensor form (before bufferization)}}
  qmm.matmul a(%a, %as : memref<32x64xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<16x64xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<32x16xf32>)
  return
}
