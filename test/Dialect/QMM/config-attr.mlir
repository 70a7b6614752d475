// RUN: fp8-opt %s | FileCheck %s
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --mlir-print-op-generic | fp8-opt | FileCheck %s

// Every MFMA kind round-trips, on the op and as a standalone attribute.
// CHECK-LABEL: func.func @on_matmul
// CHECK: config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
func.func @on_matmul(%a: tensor<256x512xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                     %b: tensor<256x512xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                     %d: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<256x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<256x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [128, 128, 128], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
                  outs(%d : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}

// CHECK-LABEL: func.func @kinds
// CHECK-SAME: qmm.a = #qmm.config<tile = [16, 128, 128], waves = [1, 2], mfma = f8f6f4 [16, 16, 128], stages = 2>
// CHECK-SAME: qmm.b = #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = scaled_f8f6f4 [32, 32, 64], stages = 1>
// CHECK-SAME: qmm.c = #qmm.config<tile = [64, 32, 64], waves = [2, 1], mfma = bf16 [16, 16, 32], stages = 4>
// split-K is printed when it is not 1 (the default, elided).
// CHECK-SAME: qmm.d = #qmm.config<tile = [16, 32, 512], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 2, split = 8>
// CHECK-SAME: qmm.e = #qmm.config<tile = [16, 32, 512], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 2>
// CHECK-SAME: {
func.func @kinds() attributes {
    qmm.a = #qmm.config<tile = [16, 128, 128], waves = [1, 2], mfma = f8f6f4 [16, 16, 128], stages = 2>,
    qmm.b = #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = scaled_f8f6f4 [32, 32, 64], stages = 1>,
    qmm.c = #qmm.config<tile = [64, 32, 64], waves = [2, 1], mfma = bf16 [16, 16, 32], stages = 4>,
    qmm.d = #qmm.config<tile = [16, 32, 512], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 2, split = 8>,
    qmm.e = #qmm.config<tile = [16, 32, 512], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 2, split = 1>} {
  return
}
