// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx" | FileCheck %s --check-prefix=PTX

// GELU's tanh in the wgmma kernel's epilogue: its polynomial (from
// qmm-expand-kernel-math) in plain PTX, fma.rn.f32 and the sign bit
// cleared, never a call to libdevice (__nv_fmaf, __nv_fabsf). lit runs
// without a CUDA toolkit in its environment, so nothing could link
// libdevice in: a call would stay unresolved in the PTX, which the driver
// then refuses, and ptxas serializes the wgmma steps around calls.

// LLVM:       gpu.module @gelu_wgmma
// LLVM-NOT:     llvm.call
// LLVM:         llvm.intr.fma
// LLVM-NOT:     llvm.call
// LLVM-NOT:     __nv_

// PTX:        gpu.binary @gelu_wgmma
// PTX-NOT:      __nv_
// PTX-NOT:      call
// PTX-SAME:     wgmma.mma_async
// PTX-SAME:     fma.rn.f32
// PTX-NOT:      __nv_
// PTX-NOT:      call

func.func @gelu(%a: tensor<128x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<96x256xf8E4M3FN>, %sb: tensor<1x1xf32>, %bias: tensor<96xbf16>, %c: tensor<128x96xbf16>) -> tensor<128x96xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<128x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<96x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> bias(%bias : tensor<96xbf16>) activation gelu_tanh outs(%c : tensor<128x96xbf16>) -> tensor<128x96xbf16>
  return %0 : tensor<128x96xbf16>
}
