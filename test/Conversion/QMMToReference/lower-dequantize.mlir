// RUN: fp8-opt %s --qmm-lower-to-reference | FileCheck %s

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1) -> (d0 floordiv 128, d1 floordiv 128)>
// The dataflow: the code (first input, through the identity map) widened
// to f32, times the scale of its 128x128 block (second input), rounded to
// bf16 and yielded into the output.
// CHECK-LABEL: func.func @block_bf16
// CHECK-SAME: (%[[Q:.*]]: tensor<256x384xf8E5M2>, %[[SC:.*]]: tensor<2x3xf32>, %[[INIT:.*]]: tensor<256x384xbf16>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[S]], #[[X]]], iterator_types = ["parallel", "parallel"]} ins(%[[Q]], %[[SC]] : {{.*}}) outs(%[[INIT]] : {{.*}})
// CHECK: ^bb0(%[[CODE:.*]]: f8E5M2, %[[SCALE:.*]]: f32, %{{.*}}: bf16):
// CHECK:   %[[WIDE:.*]] = arith.extf %[[CODE]] : f8E5M2 to f32
// CHECK:   %[[PROD:.*]] = arith.mulf %[[WIDE]], %[[SCALE]] : f32
// CHECK:   %[[ROUND:.*]] = arith.truncf %[[PROD]] : f32 to bf16
// CHECK:   linalg.yield %[[ROUND]] : bf16
// CHECK: return %[[R]]
func.func @block_bf16(%q: tensor<256x384xf8E5M2>, %s: tensor<2x3xf32>, %x0: tensor<256x384xbf16>) -> tensor<256x384xbf16> {
  %x = qmm.dequantize %q, %s : tensor<256x384xf8E5M2>, tensor<2x3xf32> encoding #qmm.scale<block 128x128>
         outs(%x0 : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %x : tensor<256x384xbf16>
}
