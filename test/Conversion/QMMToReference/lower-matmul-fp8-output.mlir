// RUN: fp8-opt %s --qmm-lower-to-reference | FileCheck %s

// An FP8 output is the epilogue's f32 result quantized as qmm.quantize
// would: the product and the epilogue (GELU) into f32 temporaries, the
// amax of each 1x128 block of the row (a reduction into [64, 2]), scales
// amax' / 448 into the op's scale destination with reciprocals
// 448 / amax', then codes sat(rne(x * reciprocal)) into the op's output.
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[BLOCK:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 128)>
// CHECK-LABEL: func.func @gelu_per_token
// CHECK-SAME:    %[[D:[a-z0-9]+]]: tensor<64x192xf8E4M3FN>, %[[S:[a-z0-9]+]]: tensor<64x2xf32>
// CHECK:         %[[PRODUCT:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[POST:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], {{.*}} ins(%[[PRODUCT]] : tensor<64x192xf32>) outs(%{{.*}} : tensor<64x192xf32>)
// CHECK:           math.tanh
// CHECK:         %[[AMAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[BLOCK]]], iterator_types = ["reduction", "reduction"]} ins(%[[POST]] : tensor<64x192xf32>)
// CHECK:           math.absf
// CHECK:           arith.maximumf
// CHECK:         %[[SCALES:.*]]:2 = linalg.generic {{.*}} ins(%[[AMAX]] : tensor<64x2xf32>) outs(%[[S]], %{{.*}} : tensor<64x2xf32>, tensor<64x2xf32>)
// CHECK:           %[[CLAMPED:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.divf %[[CLAMPED]], %{{.*}} : f32
// CHECK:           arith.divf %{{.*}}, %[[CLAMPED]] : f32
// CHECK:         %[[CODES:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[BLOCK]], #[[ID]]], {{.*}} ins(%[[POST]], %[[SCALES]]#1 : tensor<64x192xf32>, tensor<64x2xf32>) outs(%[[D]] : tensor<64x192xf8E4M3FN>)
// CHECK:           arith.mulf
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK:           arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK:         return %[[CODES]], %[[SCALES]]#0
func.func @gelu_per_token(%a: tensor<64x256xf8E4M3FN>, %sa: tensor<64x2xf32>,
                          %b: tensor<192x256xf8E4M3FN>, %sb: tensor<2x2xf32>,
                          %d: tensor<64x192xf8E4M3FN>, %s: tensor<64x2xf32>)
    -> (tensor<64x192xf8E4M3FN>, tensor<64x2xf32>) {
  %r:2 = qmm.matmul a(%a, %sa : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) #qmm.scale<block 1x128>
                    b(%b, %sb : tensor<192x256xf8E4M3FN>, tensor<2x2xf32>) #qmm.scale<block 128x128>
                    activation gelu_tanh
                    outs(%d : tensor<64x192xf8E4M3FN>) out_scales(%s : tensor<64x2xf32>) #qmm.scale<block 1x128>
                    -> tensor<64x192xf8E4M3FN>, tensor<64x2xf32>
  return %r#0, %r#1 : tensor<64x192xf8E4M3FN>, tensor<64x2xf32>
}
