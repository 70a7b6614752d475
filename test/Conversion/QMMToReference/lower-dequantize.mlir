// RUN: fp8-opt %s --qmm-lower-to-reference | FileCheck %s

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1) -> (d0 floordiv 128, d1 floordiv 128)>
// CHECK-LABEL: func.func @block_bf16
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[S]], #[[X]]], iterator_types = ["parallel", "parallel"]}
// CHECK:   arith.extf %{{.*}} : f8E5M2 to f32
// CHECK:   arith.mulf
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
func.func @block_bf16(%q: tensor<256x384xf8E5M2>, %s: tensor<2x3xf32>, %x0: tensor<256x384xbf16>) -> tensor<256x384xbf16> {
  %x = qmm.dequantize %q, %s : tensor<256x384xf8E5M2>, tensor<2x3xf32> encoding #qmm.scale<block 128x128>
         outs(%x0 : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %x : tensor<256x384xbf16>
}
