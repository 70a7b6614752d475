// The AMD pipeline end to end for gfx942 on a 1x128 x 128x128 blockwise
// FP8 GEMM (256 x 256 x 512, bf16 out): qmm-select-config picks 128x128x64
// tiles of 2 x 2 waves on v_mfma_f32_32x32x16_fp8_fp8 and, as 2 x 2 tiles
// cannot fill the GPU, split-K into 4 ranges of one 128-deep scale block:
// grid z = 4, a workspace of 4 x (4 tiles x 256 threads x 64 f32) and 16
// arrival counters (one per wave and tile) around the launch.
//
// RUN: fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx942 format=gpu" | FileCheck %s --check-prefix=GPU
// RUN: fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx942 format=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx942 format=isa" | FileCheck %s --check-prefix=ISA
// RUN: fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx942 format=bin" | FileCheck %s --check-prefix=BIN

// GPU: module attributes {gpu.container_module, qmm.target = #rocdl.target<chip = "gfx942">}
// GPU: func.func @gemm(%{{.*}}: memref<256x512xf8E4M3FNUZ>, %{{.*}}: memref<256x4xf32>, %{{.*}}: memref<256x512xf8E4M3FNUZ>, %{{.*}}: memref<2x4xf32>, %{{.*}}: memref<256x256xbf16>) -> memref<256x256xbf16>
// GPU:   %[[PARTIALS:.*]] = memref.alloc() : memref<4x65536xf32>
// GPU:   %[[ARRIVALS:.*]] = memref.alloc() : memref<16xi32>
// GPU:   gpu.launch_func @gemm_kernel::@gemm_kernel blocks in (%c2, %c2, %c4) threads in (%c256, %c1, %c1)
// GPU:   memref.dealloc %[[ARRIVALS]]
// GPU:   memref.dealloc %[[PARTIALS]]
// GPU: gpu.module @gemm_kernel
// GPU:   gpu.func @gemm_kernel({{.*}}) workgroup(%{{.*}} : memref<128x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %{{.*}} : memref<128x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>) kernel
// GPU:     amdgpu.mfma 32x32x16
// GPU:     llvm.fence syncscope("agent") release
// GPU:     memref.atomic_rmw addi
// GPU:     llvm.fence syncscope("agent") acquire

// LLVM: gpu.module @gemm_kernel [#rocdl.target<chip = "gfx942">]
// LLVM:   llvm.func @gemm_kernel
// LLVM:     rocdl.mfma.f32.32x32x16.fp8.fp8

// 128 x 128 x 64 tile: 4 x 2 x 2 MFMAs per K tile (LLVM may unroll the two
// K tiles of a scale block), only that form, no scratch, no spills,
// 2 x 128 x (64 + 8) bytes of LDS.
// ISA-COUNT-16: v_mfma_f32_32x32x16_fp8_fp8
// ISA-NOT: v_mfma_f32_{{[0-9x]+}}_{{bf8|f8f6f4|bf16}}
// The arrival: partials written back past the XCD's L2 before the count,
// the last wave's L2 lines invalidated before it reads the partials back.
// ISA: buffer_wbl2 sc1
// ISA: global_atomic_add
// ISA: buffer_inv sc1
// ISA: .group_segment_fixed_size: 18432
// ISA: .private_segment_fixed_size: 0
// ISA: .sgpr_spill_count: 0
// ISA: .vgpr_spill_count: 0

// BIN: gpu.binary @gemm_kernel [#gpu.object<#rocdl.target<chip = "gfx942">, bin = "\7FELF

func.func @gemm(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<256x4xf32>,
                %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<2x4xf32>,
                %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<256x4xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<2x4xf32>) #qmm.scale<block 128x128>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
