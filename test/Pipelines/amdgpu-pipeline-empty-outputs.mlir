// RUN: fp8-opt %s -split-input-file --qmm-to-amdgpu-pipeline="chip=gfx942 format=gpu" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-to-amdgpu-pipeline="chip=gfx950 format=isa" | FileCheck %s --check-prefix=ISA
//
// Empty outputs (M = 0 or N = 0; found by fuzzing: qmm-tile-matmul built
// wave ops whose problem size did not verify): nothing to compute or
// write, so no kernel is launched and the function still returns its
// (empty) destination.

// CHECK-LABEL: func.func @empty_n
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// ISA-LABEL: func.func @empty_n
// ISA-NOT:     gpu.launch_func
func.func @empty_n(%a: tensor<88x288xf8E5M2FNUZ>, %sa: tensor<5x2xf32>,
                   %b: tensor<0x288xf8E5M2FNUZ>, %sb: tensor<2x0xf32>,
                   %bias: tensor<0xf32>, %c: tensor<88x0xf16>) -> tensor<88x0xf16> {
  %r = qmm.matmul a(%a, %sa : tensor<88x288xf8E5M2FNUZ>, tensor<5x2xf32>) #qmm.scale<block 19x256>
                  b(%b, %sb : tensor<0x288xf8E5M2FNUZ>, tensor<2x0xf32>) #qmm.scale<block 128x256, mn_major, f32>
                  accumulate bias(%bias : tensor<0xf32>) outs(%c : tensor<88x0xf16>) -> tensor<88x0xf16>
  return %r : tensor<88x0xf16>
}

// -----

// CHECK-LABEL: func.func @empty_m
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// ISA-LABEL: func.func @empty_m
// ISA-NOT:     gpu.launch_func
func.func @empty_m(%a: tensor<0x1872xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                   %b: tensor<245x1872xf8E4M3FNUZ>, %sb: tensor<1x1xf32>,
                   %c: tensor<0x245xbf16>) -> tensor<0x245xbf16> {
  %r = qmm.matmul a(%a, %sa : tensor<0x1872xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<245x1872xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  activation gelu_erf outs(%c : tensor<0x245xbf16>) -> tensor<0x245xbf16>
  return %r : tensor<0x245xbf16>
}

// -----

// A masked grouped matmul of no groups.
// CHECK-LABEL: func.func @no_groups
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// ISA-LABEL: func.func @no_groups
// ISA-NOT:     gpu.launch_func
func.func @no_groups(%a: tensor<0x64x128xf8E4M3FNUZ>, %sa: tensor<0x64x1xf32>,
                     %b: tensor<0x64x128xf8E4M3FNUZ>, %sb: tensor<0x1x1xf32>,
                     %n: tensor<0xi32>, %d: tensor<0x64x64xbf16>) -> tensor<0x64x64xbf16> {
  %0 = qmm.grouped_matmul masked
         a(%a, %sa : tensor<0x64x128xf8E4M3FNUZ>, tensor<0x64x1xf32>) #qmm.scale<block 1x128>
         b(%b, %sb : tensor<0x64x128xf8E4M3FNUZ>, tensor<0x1x1xf32>) #qmm.scale<block 128x128>
         groups(%n : tensor<0xi32>)
         outs(%d : tensor<0x64x64xbf16>) -> tensor<0x64x64xbf16>
  return %0 : tensor<0x64x64xbf16>
}
