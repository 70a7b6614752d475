// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="format=gpu tile-m=128 tile-n=128" | FileCheck %s --check-prefix=GPU
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="format=llvm tile-m=128 tile-n=128" | FileCheck %s --check-prefix=LLVM
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx tile-m=128 tile-n=128" | FileCheck %s --check-prefix=PTX
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx tile-m=128 tile-n=128" | FileCheck %s --check-prefix=PRODUCER
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx tile-m=128 tile-n=128" | FileCheck %s --check-prefix=DECL
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx tile-m=128 tile-n=128" | FileCheck %s --check-prefix=SERIAL
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx tile-m=128 tile-n=128" | FileCheck %s --check-prefix=NOFENCE
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="format=gpu matmul-kernels=reference" | FileCheck %s --check-prefix=REFGPU
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="format=ptx matmul-kernels=reference" | FileCheck %s --check-prefix=REFPTX

// A 1x128 x 128x128 blockwise E4M3 x E5M2 GEMM with a bf16 output through
// the NVIDIA pipeline. By default the matmul becomes the TMA / wgmma kernel
// (qmm-lower-matmul-to-wgmma; its structure is tested there): on the host,
// three tensor maps (A, B and D) and one launch with dynamic shared memory;
// in the PTX,
// the dynamic shared memory declared extern and atom-aligned (never a
// 1-byte static variable the mbarriers could overlap), TMA copies
// completing on mbarriers, wgmma m64n128k32 of E4M3 x E5M2 into f32, the
// register cap that warp specialization needs, and the epilogue's bf16
// pairs staged in shared memory, then stored with TMA after a proxy fence
// and a named barrier of the consumer's 128 threads. With
// matmul-kernels=reference: the reference lowering's loops as kernels
// (zero fill, the product over K with each block's scales, the rounding to
// bf16), FP8 decoded with integer arithmetic, bare-pointer parameters.
// (Both executed on an H100 through fp8-run --chip sm_90a --save and
// qmm-cuda-run: benchmarks/nvidia_plans.sh validate.)

// GPU-LABEL: func.func @blockwise
// GPU:         nvgpu.tma.create.descriptor
// GPU:         nvgpu.tma.create.descriptor
// GPU:         nvgpu.tma.create.descriptor
// GPU:         gpu.launch_func  @blockwise_wgmma::@matmul {{.*}} threads in (%c384{{.*}} dynamic_shared_memory_size %c165888_i32
// GPU-NOT:     gpu.launch_func
// GPU-NOT:     qmm.
// GPU:         gpu.module @blockwise_wgmma
// GPU:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]

// LLVM:        gpu.module @blockwise_wgmma [#nvvm.target<chip = "sm_90a", features = "+ptx83">]
// LLVM:          llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// The tensor maps (A, B, D) as 128-byte grid constants
// (qmm-tensor-maps-by-value), the scales and D as pointers.
// LLVM:          llvm.func @matmul(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {{{.*}}nvvm.kernel
// LLVM-NOT:      qmm.tensor_map_arguments
// LLVM-NOT:      nvgpu.
// LLVM:          llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2

// The tensor maps are grid constants: no tensor-map proxy fence anywhere
// (the fence a map in global memory needs cost about 2 us a launch).
// NOFENCE:     gpu.binary @blockwise_wgmma
// NOFENCE-NOT: fence.proxy.tensormap

// PTX:         gpu.binary @blockwise_wgmma  [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx83">, {{.*}}assembly = "{{.*}}.version 8.3\0A.target sm_90a\0A.address_size 64
// PTX-SAME:    .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX-SAME:    .visible .entry matmul(
// PTX-SAME:    .param .align 64 .b8 matmul_param_0[128],\0A\09.param .align 64 .b8 matmul_param_1[128],\0A\09.param .u64 .ptr .align 1 matmul_param_2,
// PTX-SAME:    .maxntid 384, 1, 1
// PTX-SAME:    .minnctapersm 1
// PTX-SAME:    mbarrier.init.shared.b64
// PTX-SAME:    fence.proxy.async.shared::cta
// PTX-NOT:     fence.proxy.tensormap
// PTX-SAME:    prefetch.{{(param.)?}}tensormap
// PTX-SAME:    bar.sync
// PTX-SAME:    setmaxnreg.inc.sync.aligned.u32 \09232;
// PTX-SAME:    mbarrier.try_wait.parity.shared.b64
// PTX-SAME:    wgmma.fence.sync.aligned
// PTX-SAME:    wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2
// PTX-SAME:    wgmma.commit_group.sync.aligned
// PTX-SAME:    wgmma.wait_group.sync.aligned \090;
// PTX-SAME:    mbarrier.arrive.shared.b64
// PTX-SAME:    cp.async.bulk.wait_group.read \090;
// PTX-SAME:    bar.sync \09%r{{[0-9]+}}, 128;
// PTX-SAME:    cvt.rn.bf16x2.f32
// PTX-SAME:    st.shared.b32
// PTX-SAME:    fence.proxy.async.shared::cta;
// PTX-SAME:    bar.sync \09%r{{[0-9]+}}, 128;
// PTX-SAME:    cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-SAME:    cp.async.bulk.commit_group;
// PTX-SAME:    cp.async.bulk.wait_group \090;

// The producer's side (LLVM places the two roles' blocks in either order).
// PRODUCER:    gpu.binary @blockwise_wgmma
// PRODUCER-SAME: setmaxnreg.dec.sync.aligned.u32 \0940;
// PRODUCER-SAME: mbarrier.arrive.expect_tx.shared.b64
// PRODUCER-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// No 1-byte static declaration of the dynamic shared memory anywhere; the
// promotion's fused multiply-adds inline.
// DECL-NOT:    .b8 __dynamic_shmem__0;
// DECL:        .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// DECL:        fma.rn.f32
// DECL-NOT:    .b8 __dynamic_shmem__0;

// Nothing that makes ptxas serialize the wgmma steps: no call (such as
// libdevice's __nv_fmaf) and no wgmma group left in flight by a wait
// (wait_group 1 with the group's registers read).
// SERIAL-NOT:  __nv_
// SERIAL-NOT:  call.uni
// SERIAL-NOT:  wgmma.wait_group.sync.aligned \091;

// REFGPU-LABEL: func.func @blockwise
// REFGPU-COUNT-3: gpu.launch_func
// REFGPU-NOT:     qmm.
// REFGPU-NOT:     nvgpu.tma.create.descriptor
// REFGPU:         gpu.module
// REFGPU-NOT:     arith.extf {{.*}} : f8E4M3FN
// REFGPU-NOT:     arith.extf {{.*}} : f8E5M2
// REFGPU:         gpu.return

// REFPTX:         gpu.binary @blockwise_kernel  [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx83">, {{.*}}assembly = "{{.*}}.version 8.3\0A.target sm_90a\0A.address_size 64
// REFPTX-SAME:    .visible .entry blockwise_kernel(
// REFPTX-SAME:    .param .u64 .ptr .align 1 blockwise_kernel_param_
// REFPTX:         gpu.binary @blockwise_kernel_0
// REFPTX-SAME:    ld.global.b8
// REFPTX:         gpu.binary @blockwise_kernel_1
// REFPTX-SAME:    cvt.rn.bf16.f32
func.func @blockwise(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>, %b: tensor<128x256xf8E5M2>, %sb: tensor<1x2xf32>, %c: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : tensor<128x256xf8E5M2>, tensor<1x2xf32>) #qmm.scale<block 128x128> outs(%c : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  return %0 : tensor<64x128xbf16>
}
