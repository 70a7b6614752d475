// The legalization must not change the product: the program is run on the
// host through the reference lowering once as written (OCP codes) and once
// legalized for gfx942 (FNUZ codes, doubled scales). Expected values are
// worked out by hand from the OCP FP8 definitions:
//   e4m3fn 0x7E = 448, 0x01 = 2^-9 (subnormal), 0x80 = -0, 0xB8 = -1,
//          0x7F = NaN, 0x38 = 1;
//   e5m2   0x7B = 57344, 0xC0 = -2, 0x3C = 1, 0x01 = 2^-16 (subnormal),
//          0x7C = +Inf (FNUZ has no Inf: legalized, it reads as NaN).
//
// RUN: fp8-opt %s --qmm-cpu-pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefixes=CHECK,OCP
// RUN: fp8-opt %s --qmm-legalize-for-chip=chip=gfx942 --qmm-cpu-pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefixes=CHECK,FNUZ

func.func private @printRow(%d: tensor<3x1xf32>, %row: index) {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %d[%row, %c0] : tensor<3x1xf32>
  %bits = arith.bitcast %v : f32 to i32
  %isnan = arith.cmpf uno, %v, %v : f32
  vector.print %bits : i32
  vector.print %isnan : i1
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index

  // Rows: 448 + 2^-9 + (-0) - 1, NaN, 0.
  %a4 = arith.constant dense<"0x7E0180B87F00000000000000"> : tensor<3x4xf8E4M3FN>
  %b4 = arith.constant dense<"0x38383838"> : tensor<1x4xf8E4M3FN>
  %as4 = arith.constant dense<0.5> : tensor<1x1xf32>
  %bs4 = arith.constant dense<3.0> : tensor<1x1xf32>
  %d4init = tensor.empty() : tensor<3x1xf32>
  %d4 = qmm.matmul a(%a4, %as4 : tensor<3x4xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                   b(%b4, %bs4 : tensor<1x4xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                   outs(%d4init : tensor<3x1xf32>) -> tensor<3x1xf32>
  // 447.001953125 * 1.5 = 670.5029296875 = 0x4427A030
  // CHECK: 1143447600
  // CHECK-NEXT: 0
  call @printRow(%d4, %c0) : (tensor<3x1xf32>, index) -> ()
  // CHECK-NEXT: {{-?[0-9]+}}
  // CHECK-NEXT: 1
  call @printRow(%d4, %c1) : (tensor<3x1xf32>, index) -> ()
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  call @printRow(%d4, %c2) : (tensor<3x1xf32>, index) -> ()

  // Rows: 57344 + (-0) - 2 + 1, 2^-16 + 2^-16, +Inf.
  %a5 = arith.constant dense<"0x7B80C03C010180007C000000"> : tensor<3x4xf8E5M2>
  %b5 = arith.constant dense<"0x3C3C3C3C"> : tensor<1x4xf8E5M2>
  %as5 = arith.constant dense<0.25> : tensor<3x1xf32>
  %bs5 = arith.constant dense<2.0> : tensor<1x1xf32>
  %d5init = tensor.empty() : tensor<3x1xf32>
  %d5 = qmm.matmul a(%a5, %as5 : tensor<3x4xf8E5M2>, tensor<3x1xf32>) #qmm.scale<per_row>
                   b(%b5, %bs5 : tensor<1x4xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                   outs(%d5init : tensor<3x1xf32>) -> tensor<3x1xf32>
  // 57343 * 0.5 = 28671.5 = 0x46DFFF00
  // CHECK-NEXT: 1189084928
  // CHECK-NEXT: 0
  call @printRow(%d5, %c0) : (tensor<3x1xf32>, index) -> ()
  // 2^-15 * 0.5 = 2^-16 = 0x37800000
  // CHECK-NEXT: 931135488
  // CHECK-NEXT: 0
  call @printRow(%d5, %c1) : (tensor<3x1xf32>, index) -> ()
  // +Inf = 0x7F800000 as written; NaN once legalized.
  // OCP-NEXT: 2139095040
  // OCP-NEXT: 0
  // FNUZ-NEXT: {{-?[0-9]+}}
  // FNUZ-NEXT: 1
  call @printRow(%d5, %c2) : (tensor<3x1xf32>, index) -> ()

  // MXFP8 (legalized for gfx942: FNUZ data, f32 block-32 scales doubled).
  // K = 32, one block; B all 1.0 (e4m3fn 0x38) with scale 2^0 (E8M0 0x7F).
  // A rows: 448 (0x7E) with scale 2^-127 (0x00): 448 * 2^-127 = 7 * 2^-121;
  //         1 (0x38) with scale 2^127 (0xFE): 2^127;
  //         1 (0x38) with scale NaN (0xFF).
  %a6 = arith.constant dense<"0x7E0000000000000000000000000000000000000000000000000000000000000038000000000000000000000000000000000000000000000000000000000000003800000000000000000000000000000000000000000000000000000000000000"> : tensor<3x32xf8E4M3FN>
  %b6 = arith.constant dense<"0x3838383838383838383838383838383838383838383838383838383838383838"> : tensor<1x32xf8E4M3FN>
  %as6 = arith.constant dense<"0x00FEFF"> : tensor<3x1xf8E8M0FNU>
  %bs6 = arith.constant dense<"0x7F"> : tensor<1x1xf8E8M0FNU>
  %d6init = tensor.empty() : tensor<3x1xf32>
  %d6 = qmm.matmul a(%a6, %as6 : tensor<3x32xf8E4M3FN>, tensor<3x1xf8E8M0FNU>) #qmm.scale<mx>
                   b(%b6, %bs6 : tensor<1x32xf8E4M3FN>, tensor<1x1xf8E8M0FNU>) #qmm.scale<mx>
                   outs(%d6init : tensor<3x1xf32>) -> tensor<3x1xf32>
  // 7 * 2^-121: exponent field 127 - 121 + 2 = 8, mantissa 0.75: 0x04600000
  // CHECK-NEXT: 73400320
  // CHECK-NEXT: 0
  call @printRow(%d6, %c0) : (tensor<3x1xf32>, index) -> ()
  // 2^127 = 0x7F000000 as written. Legalized, the doubled scale 2^128 is
  // +Inf in f32 (the one E8M0 scale whose double f32 cannot hold), and the
  // block's zeros times Inf are NaN: the documented limit of this mapping.
  // OCP-NEXT: 2130706432
  // OCP-NEXT: 0
  // FNUZ-NEXT: {{-?[0-9]+}}
  // FNUZ-NEXT: 1
  call @printRow(%d6, %c1) : (tensor<3x1xf32>, index) -> ()
  // CHECK-NEXT: {{-?[0-9]+}}
  // CHECK-NEXT: 1
  call @printRow(%d6, %c2) : (tensor<3x1xf32>, index) -> ()
  return
}
