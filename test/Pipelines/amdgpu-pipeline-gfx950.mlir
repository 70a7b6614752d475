// The AMD pipeline for gfx950 on OCP FP8 with B given as [K, N]: the
// legalization transposes B in a kernel of its own, the GEMM runs on
// v_mfma_f32_32x32x64_f8f6f4 (128x128x128 tiles, 2 x 2 waves).
//
// RUN: fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx950 format=gpu" | FileCheck %s --check-prefix=GPU
// RUN: fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx950 format=isa" | FileCheck %s --check-prefix=ISA

// GPU: func.func @gemm
// GPU:   %[[T:.*]] = memref.alloc() {{.*}} : memref<384x256xf8E4M3FN>
// GPU:   gpu.launch_func @gemm_kernel::@gemm_kernel blocks in (%c384, %c1, %c1) threads in (%c256, %c1, %c1) args(%arg2 : memref<256x384xf8E4M3FN>, %[[T]] : memref<384x256xf8E4M3FN>)
// GPU:   gpu.launch_func @gemm_kernel_0::@gemm_kernel blocks in (%c3, %c4, %c1) threads in (%c256, %c1, %c1) args({{.*}}%[[T]] : memref<384x256xf8E4M3FN>
// GPU:   amdgpu.mfma 32x32x64 {{.*}} : vector<32xf8E4M3FN>, vector<32xf8E5M2>, vector<16xf32>

// The transpose kernel, then the GEMM: 2 x 2 x 2 MFMAs per K tile (LLVM
// may unroll the K loop), only the f8f6f4 form, no scratch, no spills,
// 2 x 128 x (128 + 16) bytes of LDS per stage, double buffered (K = 256
// is two K tiles and two workgroups' 73728 bytes fit the 160 KiB).
// ISA: .private_segment_fixed_size: 0
// ISA-COUNT-8: v_mfma_f32_32x32x64_f8f6f4
// ISA-NOT: v_mfma_f32_{{[0-9x]+}}_{{fp8|bf8}}
// ISA: .group_segment_fixed_size: 73728
// ISA: .private_segment_fixed_size: 0
// ISA: .sgpr_spill_count: 0
// ISA: .vgpr_spill_count: 0

func.func @gemm(%a: tensor<512x256xf8E5M2>, %as: tensor<512x1xf32>,
                %b: tensor<256x384xf8E4M3FN>, %bs: tensor<1x1xf32>,
                %d: tensor<512x384xf32>) -> tensor<512x384xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<512x256xf8E5M2>, tensor<512x1xf32>) #qmm.scale<per_row>
                  b(%b, %bs : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn
                  outs(%d : tensor<512x384xf32>) -> tensor<512x384xf32>
  return %0 : tensor<512x384xf32>
}
