// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-quantization-to-loops

func.func @tensor_form(%x: tensor<64x256xf32>, %q: tensor<64x256xf8E4M3FN>, %s: tensor<64x2xf32>) -> (tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) {
  // expected-error @+1 {{qmm-lower-quantization-to-loops: runs after bufferization (memrefs)}}
  %r:2 = qmm.quantize %x : tensor<64x256xf32> encoding #qmm.scale<block 1x128>
    outs(%q, %s : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) -> tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
  return %r#0, %r#1 : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
}

// -----

// Packed FP4 rows are addressed by byte: their extents must be known.
func.func @packed_dynamic(%x: memref<?x64xf32>, %q: memref<?x64xf4E2M1FN>, %s: memref<?x2xf8E8M0FNU>) {
  // expected-error @+1 {{qmm-lower-quantization-to-loops: packed 'f4E2M1FN' data needs static shapes (its rows are addressed by byte)}}
  qmm.quantize %x : memref<?x64xf32> encoding #qmm.scale<mx>
    outs(%q, %s : memref<?x64xf4E2M1FN>, memref<?x2xf8E8M0FNU>)
  return
}

// -----

func.func @strided(%x: memref<64x256xf32, strided<[512, 1]>>, %q: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>) {
  // expected-error @+1 {{qmm-lower-quantization-to-loops: needs identity-layout memrefs, got 'memref<64x256xf32, strided<[512, 1]>>'}}
  qmm.quantize %x : memref<64x256xf32, strided<[512, 1]>> encoding #qmm.scale<block 1x128>
    outs(%q, %s : memref<64x256xf8E4M3FN>, memref<64x2xf32>)
  return
}
