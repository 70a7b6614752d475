// RUN: fp8-opt %s -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file | fp8-opt -split-input-file | FileCheck %s
// RUN: fp8-opt %s -split-input-file --mlir-print-op-generic | fp8-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @mx_fp4
// CHECK: qmm.dequantize %{{.*}}, %{{.*}} : tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU> encoding #qmm.scale<mx> outs(%{{.*}} : tensor<64x64xf32>) -> tensor<64x64xf32>
func.func @mx_fp4(%q: tensor<64x64xf4E2M1FN>, %s: tensor<64x2xf8E8M0FNU>, %x0: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %x = qmm.dequantize %q, %s : tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU> encoding #qmm.scale<mx>
         outs(%x0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @block_kn_bf16
// CHECK: qmm.dequantize %{{.*}}, %{{.*}} : tensor<256x384xf8E5M2FNUZ>, tensor<3x2xf32> encoding #qmm.scale<block 128x128> layout kn outs(%{{.*}} : tensor<256x384xbf16>) -> tensor<256x384xbf16>
func.func @block_kn_bf16(%q: tensor<256x384xf8E5M2FNUZ>, %s: tensor<3x2xf32>, %x0: tensor<256x384xbf16>) -> tensor<256x384xbf16> {
  %x = qmm.dequantize %q, %s : tensor<256x384xf8E5M2FNUZ>, tensor<3x2xf32> encoding #qmm.scale<block 128x128> layout kn
         outs(%x0 : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %x : tensor<256x384xbf16>
}

// -----

// CHECK-LABEL: func.func @memref_form
// CHECK: qmm.dequantize %{{.*}}, %{{.*}} : memref<10x20xf6E2M3FN>, memref<10x1xf32> encoding #qmm.scale<per_row> outs(%{{.*}} : memref<10x20xf16>){{$}}
func.func @memref_form(%q: memref<10x20xf6E2M3FN>, %s: memref<10x1xf32>, %x: memref<10x20xf16>) {
  qmm.dequantize %q, %s : memref<10x20xf6E2M3FN>, memref<10x1xf32> encoding #qmm.scale<per_row> outs(%x : memref<10x20xf16>)
  return
}
