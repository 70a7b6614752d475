// RUN: not fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx942 format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx942 config=bogus" 2>&1 | FileCheck %s --check-prefix=CONFIG

// CHIP: error: qmm-to-amdgpu-pipeline: unknown chip 'gfx90a' (expected gfx942 or gfx950)
// FORMAT: error: qmm-to-amdgpu-pipeline: unknown format 'elf' (expected gpu, llvm, isa or bin)
// CONFIG: error: qmm-select-config: override 'bogus' is not a #qmm.config<...>

func.func @gemm(%a: tensor<32x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                %b: tensor<32x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                %d: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}
