// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx" | FileCheck %s

// An FP8 output through the whole NVVM pipeline: the quad's amax by
// warp shuffles (xor 1 and 2, all 32 lanes), the `none` rule's IEEE
// divisions, the codes two to a 16-bit store into the staging buffer
// (shared memory) and out through a TMA store, the scales stored from
// registers, no libdevice call (the FP8 conversions and |x| are integer
// arithmetic), and the kernel takes the scales after D (then D's tensor
// map, by value).

// CHECK:      gpu.binary @fp8_output_wgmma
// CHECK-NOT:    call
// CHECK-SAME:   .param .u64 .ptr .align 1 matmul_param_4,
// CHECK-SAME:   .param .u64 .ptr .align 1 matmul_param_5,
// CHECK-SAME:   .param .align 64 .b8 matmul_param_6[128]
// CHECK-SAME:   wgmma.mma_async
// CHECK-SAME:   shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-SAME:   shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-SAME:   div.rn.f32
// CHECK-SAME:   st.shared.b16
// CHECK-SAME:   st.global.b32
// CHECK-SAME:   cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT:    call
// CHECK-NOT:    __nv_

func.func @fp8_output(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %b: tensor<256x512xf8E4M3FN>, %sb: tensor<2x4xf32>, %c: tensor<256x256xf8E4M3FN>, %s: tensor<256x2xf32>) -> (tensor<256x256xf8E4M3FN>, tensor<256x2xf32>) {
  %0:2 = qmm.matmul a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128> b(%b, %sb : tensor<256x512xf8E4M3FN>, tensor<2x4xf32>) #qmm.scale<block 128x128> outs(%c : tensor<256x256xf8E4M3FN>) out_scales(%s : tensor<256x2xf32>) #qmm.scale<block 1x128> -> tensor<256x256xf8E4M3FN>, tensor<256x2xf32>
  return %0#0, %0#1 : tensor<256x256xf8E4M3FN>, tensor<256x2xf32>
}
