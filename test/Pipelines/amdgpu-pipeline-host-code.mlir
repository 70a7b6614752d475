// The host side the AMD pipeline leaves for the emu and hip devices to walk
// (lib/Runtime/HostProgram.cpp): only constants, buffer allocations and
// copies, kernel launches and the return. Two chained matmuls whose first
// result is still returned make bufferization copy it.
// RUN: fp8-opt %s --qmm-to-amdgpu-pipeline="chip=gfx942 format=gpu" | FileCheck %s

// CHECK-LABEL: func.func @chained
// CHECK-NOT:     qmm.
// CHECK:         gpu.launch_func @chained_kernel::@chained_kernel
// CHECK:         %[[COPY:.*]] = memref.alloc() {{.*}} : memref<32x16xf32>
// CHECK:         memref.copy %arg4, %[[COPY]]
// CHECK:         gpu.launch_func @chained_kernel_0::@chained_kernel {{.*}} %[[COPY]] : memref<32x16xf32>
// CHECK:         return %arg4, %[[COPY]]
func.func @chained(%a: tensor<32x64xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                   %b: tensor<16x64xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                   %d: tensor<32x16xf32>) -> (tensor<32x16xf32>, tensor<32x16xf32>) {
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<16x64xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<32x16xf32>) -> tensor<32x16xf32>
  %1 = qmm.matmul a(%a, %as : tensor<32x64xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<16x64xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor> accumulate
                  outs(%0 : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0, %1 : tensor<32x16xf32>, tensor<32x16xf32>
}
