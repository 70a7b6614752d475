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

// -----

// Packed FP4 rows cannot be transposed by the byte-wise transpose kernels.
func.func @fp4_kn(%a: tensor<32x64xf4E2M1FN>, %as: tensor<32x2xf8E8M0FNU>,
                  %b: tensor<64x16xf4E2M1FN>, %bs: tensor<16x2xf8E8M0FNU>,
                  %d: tensor<32x16xf32>) -> tensor<32x16xf32> {
  // expected-error @+1 {{qmm-legalize-for-chip: B of 'f4E2M1FN' with layout kn is not supported; store B as [N, K]}}
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<64x16xf4E2M1FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> layout kn
                  outs(%d : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}
