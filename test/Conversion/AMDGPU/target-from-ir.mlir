// RUN: fp8-opt %s -split-input-file --qmm-select-config | FileCheck %s

// Passes take their chip from the IR's target when their chip option is not
// given. The same OCP FP8 matmul gets gfx950's f8f6f4 form under a gfx950
// target; FNUZ data gets gfx942's fp8 forms under a gfx942 target.

// CHECK-LABEL: func.func @ocp_on_gfx950
// CHECK: mfma = f8f6f4 [16, 16, 128]
module attributes {qmm.target = #rocdl.target<chip = "gfx950">} {
  func.func @ocp_on_gfx950(%a: tensor<64x256xf8E4M3FN>, %as: tensor<1x1xf32>,
                           %b: tensor<64x256xf8E4M3FN>, %bs: tensor<1x1xf32>,
                           %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %0 = qmm.matmul a(%a, %as : tensor<64x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %bs : tensor<64x256xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%d : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %0 : tensor<64x64xf32>
  }
}

// -----

// CHECK-LABEL: func.func @fnuz_on_gfx942
// CHECK: mfma = fp8 [16, 16, 32]
module attributes {qmm.target = #rocdl.target<chip = "gfx942">} {
  func.func @fnuz_on_gfx942(%a: tensor<64x256xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                            %b: tensor<64x256xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                            %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %0 = qmm.matmul a(%a, %as : tensor<64x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    b(%b, %bs : tensor<64x256xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                    outs(%d : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %0 : tensor<64x64xf32>
  }
}
