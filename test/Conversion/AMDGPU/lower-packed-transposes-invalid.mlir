// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-packed-transposes

func.func @tensor_form(%src: tensor<64x16xf4E2M1FN>, %dst: tensor<16x64xf4E2M1FN>) -> tensor<16x64xf4E2M1FN> {
  // expected-error @+1 {{qmm-lower-packed-transposes: runs after bufferization (memrefs)}}
  %0 = linalg.transpose ins(%src : tensor<64x16xf4E2M1FN>) outs(%dst : tensor<16x64xf4E2M1FN>) permutation = [1, 0]
  return %0 : tensor<16x64xf4E2M1FN>
}

// -----

func.func @dynamic(%src: memref<?x16xf4E2M1FN>, %dst: memref<16x?xf4E2M1FN>) {
  // expected-error @+1 {{qmm-lower-packed-transposes: a transpose of packed 'f4E2M1FN' data needs a static 2-D identity-layout memref}}
  linalg.transpose ins(%src : memref<?x16xf4E2M1FN>) outs(%dst : memref<16x?xf4E2M1FN>) permutation = [1, 0]
  return
}

// -----

// 66 FP6 elements are 49.5 bytes: the transposed rows would not start on a
// byte.
func.func @k_not_whole_bytes(%src: memref<66x8xf6E2M3FN>, %dst: memref<8x66xf6E2M3FN>) {
  // expected-error @+1 {{qmm-lower-packed-transposes: the rows of 'f6E2M3FN' data must pack into whole bytes after the transpose (K = 66 is not a multiple of 4)}}
  linalg.transpose ins(%src : memref<66x8xf6E2M3FN>) outs(%dst : memref<8x66xf6E2M3FN>) permutation = [1, 0]
  return
}

// -----

func.func @three_d(%src: memref<2x64x16xf4E2M1FN>, %dst: memref<2x16x64xf4E2M1FN>) {
  // expected-error @+1 {{qmm-lower-packed-transposes: only 2-D transposes of packed data are supported}}
  linalg.transpose ins(%src : memref<2x64x16xf4E2M1FN>) outs(%dst : memref<2x16x64xf4E2M1FN>) permutation = [0, 2, 1]
  return
}
