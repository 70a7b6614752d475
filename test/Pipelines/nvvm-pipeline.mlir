// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="format=gpu" | FileCheck %s --check-prefix=GPU
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="format=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx" | FileCheck %s --check-prefix=PTX

// A 1x128 x 128x128 blockwise E4M3 x E5M2 GEMM with a bf16 output, through
// the NVIDIA pipeline's first form: the reference lowering's loops as
// kernels (zero fill, the product over K with each block's scales, the
// rounding to bf16), FP8 decoded with integer arithmetic, bare-pointer
// parameters. (Executed on an H100 through fp8-run --chip sm_90a --save and
// qmm-cuda-run; see test/fp8-run/save-nvidia-plan.test.)

// GPU-LABEL: func.func @blockwise
// GPU-COUNT-3: gpu.launch_func
// GPU-NOT:     qmm.
// GPU:         gpu.module
// GPU-NOT:     arith.extf {{.*}} : f8E4M3FN
// GPU-NOT:     arith.extf {{.*}} : f8E5M2
// GPU:         gpu.return

// LLVM:        gpu.module @blockwise_kernel{{.*}} [#nvvm.target<chip = "sm_90a", features = "+ptx80">]
// LLVM:          llvm.func @blockwise_kernel({{.*}}: !llvm.ptr{{.*}} attributes {{{.*}}nvvm.kernel

// PTX:         gpu.binary @blockwise_kernel  [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "{{.*}}.version 8.0\0A.target sm_90a\0A.address_size 64
// PTX-SAME:    .visible .entry blockwise_kernel(
// PTX-SAME:    .param .u64 .ptr .align 1 blockwise_kernel_param_
// PTX:         gpu.binary @blockwise_kernel_0
// PTX-SAME:    ld.global.b8
// PTX:         gpu.binary @blockwise_kernel_1
// PTX-SAME:    cvt.rn.bf16.f32
func.func @blockwise(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>, %b: tensor<128x256xf8E5M2>, %sb: tensor<1x2xf32>, %c: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : tensor<128x256xf8E5M2>, tensor<1x2xf32>) #qmm.scale<block 128x128> outs(%c : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  return %0 : tensor<64x128xbf16>
}
