// RUN: fp8-opt %s -split-input-file --qmm-legalize-for-chip=chip=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: fp8-opt %s -split-input-file --qmm-legalize-for-chip=chip=gfx950 | FileCheck %s --check-prefix=GFX950

// OCP e4m3fn on gfx942: the data is reinterpreted as e4m3fnuz (same bits,
// half the value), so the scales double; -0 (magnitude 0) becomes +0 and
// NaN (magnitude 0x7F) becomes FNUZ NaN 0x80.
// GFX942-LABEL: func.func @ocp_e4m3_on_gfx942
// GFX942:       %[[A:.*]] = linalg.generic
// GFX942:         arith.bitcast %{{.*}} : f8E4M3FN to i8
// GFX942:         arith.andi %{{.*}}, %c127_i8
// GFX942:         arith.cmpi eq, %{{.*}}, %c127_i8
// GFX942:         arith.cmpi eq, %{{.*}}, %c0_i8
// GFX942:         arith.select %{{.*}}, %c0_i8
// GFX942:         arith.select %{{.*}}, %c-128_i8
// GFX942:         arith.bitcast %{{.*}} : i8 to f8E4M3FNUZ
// GFX942:       } -> tensor<32x64xf8E4M3FNUZ>
// GFX942:       %[[AS:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32x1xf32>)
// GFX942:         ^bb0(%[[SCALE:.*]]: f32, %{{.*}}: f32):
// GFX942:         %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// GFX942:         %[[DOUBLED:.*]] = arith.mulf %[[SCALE]], %[[TWO]] : f32
// GFX942:         linalg.yield %[[DOUBLED]] : f32
// GFX942:       } -> tensor<32x1xf32>
// GFX942:       %[[B:.*]] = linalg.generic
// GFX942:       } -> tensor<16x64xf8E4M3FNUZ>
// GFX942:       %[[BS:.*]] = linalg.generic {{.*}} ins(%arg3 : tensor<1x1xf32>)
// GFX942:         arith.constant 2.000000e+00 : f32
// GFX942:       qmm.matmul a(%[[A]], %[[AS]] : tensor<32x64xf8E4M3FNUZ>, tensor<32x1xf32>) #qmm.scale<per_row> b(%[[B]], %[[BS]] : tensor<16x64xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs
// On gfx950 OCP is native and nothing changes.
// GFX950-LABEL: func.func @ocp_e4m3_on_gfx942
// GFX950-NOT:   linalg.generic
// GFX950:       qmm.matmul a(%arg0, %arg1 : tensor<32x64xf8E4M3FN>
func.func @ocp_e4m3_on_gfx942(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>,
                              %b: tensor<16x64xf8E4M3FN>, %bs: tensor<1x1xf32>,
                              %d: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) #qmm.scale<per_row>
                  b(%b, %bs : tensor<16x64xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// e5m2: NaN and Inf (magnitude >= 0x7C) both become FNUZ NaN.
// GFX942-LABEL: func.func @ocp_e5m2_on_gfx942
// GFX942:         arith.cmpi uge, %{{.*}}, %c124_i8
// GFX942:         arith.bitcast %{{.*}} : i8 to f8E5M2FNUZ
// GFX942:       qmm.matmul a(%{{.*}}, %{{.*}} : tensor<32x64xf8E5M2FNUZ>
func.func @ocp_e5m2_on_gfx942(%a: tensor<32x64xf8E5M2>, %as: tensor<1x1xf32>,
                              %b: tensor<16x64xf8E5M2>, %bs: tensor<1x1xf32>,
                              %d: tensor<32x16xbf16>) -> tensor<32x16xbf16> {
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<16x64xf8E5M2>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<32x16xbf16>) -> tensor<32x16xbf16>
  return %0 : tensor<32x16xbf16>
}

// -----

// B given as [K, N] is transposed to [N, K]; its (N, K) scales stay as they
// are. FNUZ data on gfx942 is native: no conversion.
// GFX942-LABEL: func.func @kn_layout
// GFX942-NOT:   linalg.generic
// GFX942:       %[[T:.*]] = linalg.transpose ins(%arg2 : tensor<256x128xf8E4M3FNUZ>) outs(%{{.*}} : tensor<128x256xf8E4M3FNUZ>) permutation = [1, 0]
// GFX942:       qmm.matmul a(%arg0, %arg1 : {{.*}}) #qmm.scale<block 1x128> b(%[[T]], %arg3 : tensor<128x256xf8E4M3FNUZ>, tensor<1x2xf32>) #qmm.scale<block 128x128> outs
// GFX942-NOT:   layout kn
// GFX950-LABEL: func.func @kn_layout
// GFX950:       linalg.transpose
func.func @kn_layout(%a: tensor<64x256xf8E4M3FNUZ>, %as: tensor<64x2xf32>,
                     %b: tensor<256x128xf8E4M3FNUZ>, %bs: tensor<1x2xf32>,
                     %d: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<64x256xf8E4M3FNUZ>, tensor<64x2xf32>) #qmm.scale<block 1x128>
                  b(%b, %bs : tensor<256x128xf8E4M3FNUZ>, tensor<1x2xf32>) #qmm.scale<block 128x128> layout kn
                  outs(%d : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// Packed FP4 B given as [K, N]: the same transpose (qmm-lower-packed-transposes
// moves its packed rows after bufferization); FP4 stays FP4 on both chips.
// GFX942-LABEL: func.func @fp4_kn
// GFX942:       %[[T:.*]] = linalg.transpose ins(%arg2 : tensor<64x16xf4E2M1FN>) outs(%{{.*}} : tensor<16x64xf4E2M1FN>) permutation = [1, 0]
// GFX942:       qmm.matmul {{.*}} b(%[[T]], %{{.*}} : tensor<16x64xf4E2M1FN>, tensor<16x2xf32>) #qmm.scale<block 1x32> outs
// GFX950-LABEL: func.func @fp4_kn
// GFX950:       %[[T:.*]] = linalg.transpose ins(%arg2 : tensor<64x16xf4E2M1FN>) outs(%{{.*}} : tensor<16x64xf4E2M1FN>) permutation = [1, 0]
// GFX950:       qmm.matmul {{.*}} b(%[[T]], %arg3 : tensor<16x64xf4E2M1FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> outs
// GFX950-NOT:   layout kn
func.func @fp4_kn(%a: tensor<32x64xf4E2M1FN>, %as: tensor<32x2xf8E8M0FNU>,
                  %b: tensor<64x16xf4E2M1FN>, %bs: tensor<16x2xf8E8M0FNU>,
                  %d: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<64x16xf4E2M1FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx> layout kn
                  outs(%d : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// MXFP8 on gfx942 (no scaled MFMA): the data is reinterpreted as FNUZ as
// above and each E8M0 scale 2^(e - 127) becomes the f32 2^(e - 126) (f32
// exponent field e + 1, NaN 0xFF kept as NaN), the same blocks of 32 along
// K as a `block 1x32` encoding, majorness kept. On gfx950 the scaled MFMA
// reads MX operands as they are.
// GFX942-LABEL: func.func @mxfp8
// GFX942:       %[[A:.*]] = linalg.generic
// GFX942:       } -> tensor<32x64xf8E4M3FNUZ>
// GFX942:       %[[AS:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32x2xf8E8M0FNU>)
// GFX942:         %[[E:.*]] = arith.extui %{{.*}} : i8 to i32
// GFX942:         %[[E1:.*]] = arith.addi %[[E]], %c1_i32
// GFX942:         %[[BITS:.*]] = arith.shli %[[E1]], %c23_i32
// GFX942:         %[[NAN:.*]] = arith.cmpi eq, %[[E]], %c255_i32
// GFX942:         %[[SEL:.*]] = arith.select %[[NAN]], %c2143289344_i32, %[[BITS]]
// GFX942:         arith.bitcast %[[SEL]] : i32 to f32
// GFX942:       } -> tensor<32x2xf32>
// GFX942:       %[[B:.*]] = linalg.generic
// GFX942:       } -> tensor<16x64xf8E5M2FNUZ>
// GFX942:       %[[BS:.*]] = linalg.generic
// GFX942:       } -> tensor<2x16xf32>
// GFX942:       qmm.matmul a(%[[A]], %[[AS]] : tensor<32x64xf8E4M3FNUZ>, tensor<32x2xf32>) #qmm.scale<block 1x32> b(%[[B]], %[[BS]] : tensor<16x64xf8E5M2FNUZ>, tensor<2x16xf32>) #qmm.scale<block 1x32, mn_major>
// GFX950-LABEL: func.func @mxfp8
// GFX950-NOT:   linalg
// GFX950:       qmm.matmul a(%arg0, %arg1 : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
func.func @mxfp8(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x2xf8E8M0FNU>,
                 %b: tensor<16x64xf8E5M2>, %bs: tensor<2x16xf8E8M0FNU>,
                 %d: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<16x64xf8E5M2>, tensor<2x16xf8E8M0FNU>) #qmm.scale<mx, mn_major>
                  outs(%d : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// MXFP4 x MXFP6 on gfx942: the data stays (the kernel converts FP4/FP6 to
// e4m3fnuz in registers, exactly); each E8M0 scale 2^(e - 127) becomes the
// f32 of the same value (exponent field e; e = 0 is the subnormal 2^-127,
// 0x00400000; 0xFF is NaN) of a `block 1x32` encoding. On gfx950 the scaled
// MFMA reads them as they are.
// GFX942-LABEL: func.func @mxfp4_mxfp6
// GFX942:       %[[AS:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32x2xf8E8M0FNU>)
// GFX942:         %[[E:.*]] = arith.extui %{{.*}} : i8 to i32
// GFX942:         %[[BITS:.*]] = arith.shli %[[E]], %c23_i32
// GFX942:         %[[ZERO:.*]] = arith.cmpi eq, %[[E]], %c0_i32
// GFX942:         %[[SUB:.*]] = arith.select %[[ZERO]], %c4194304_i32, %[[BITS]]
// GFX942:         %[[NAN:.*]] = arith.cmpi eq, %[[E]], %c255_i32
// GFX942:         arith.select %[[NAN]], %c2143289344_i32, %[[SUB]]
// GFX942:       } -> tensor<32x2xf32>
// GFX942:       %[[BS:.*]] = linalg.generic {{.*}} ins(%arg3 : tensor<16x2xf8E8M0FNU>)
// GFX942:       qmm.matmul a(%arg0, %[[AS]] : tensor<32x64xf4E2M1FN>, tensor<32x2xf32>) #qmm.scale<block 1x32> b(%arg2, %[[BS]] : tensor<16x64xf6E2M3FN>, tensor<16x2xf32>) #qmm.scale<block 1x32>
// GFX950-LABEL: func.func @mxfp4_mxfp6
// GFX950-NOT:   linalg
// GFX950:       qmm.matmul a(%arg0, %arg1 : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
func.func @mxfp4_mxfp6(%a: tensor<32x64xf4E2M1FN>, %as: tensor<32x2xf8E8M0FNU>,
                       %b: tensor<16x64xf6E2M3FN>, %bs: tensor<16x2xf8E8M0FNU>,
                       %d: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<16x64xf6E2M3FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%d : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// MXFP4 x MXFP8 on gfx942: the FP8 partner becomes FNUZ with doubled
// scales, the FP4 side keeps its data with same-valued f32 scales: FP4 and
// FNUZ FP8 may meet (FP4 values mean the same in both families).
// GFX942-LABEL: func.func @mxfp4_mxfp8
// GFX942:       qmm.matmul a(%arg0, %{{.*}} : tensor<32x64xf4E2M1FN>, tensor<32x2xf32>) #qmm.scale<block 1x32> b(%{{.*}}, %{{.*}} : tensor<16x64xf8E4M3FNUZ>, tensor<16x2xf32>) #qmm.scale<block 1x32>
func.func @mxfp4_mxfp8(%a: tensor<32x64xf4E2M1FN>, %as: tensor<32x2xf8E8M0FNU>,
                       %b: tensor<16x64xf8E4M3FN>, %bs: tensor<16x2xf8E8M0FNU>,
                       %d: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %0 = qmm.matmul a(%a, %as : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) #qmm.scale<mx>
                  b(%b, %bs : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) #qmm.scale<mx>
                  outs(%d : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// A dynamic M (found by fuzzing: the rewritten operands used to be
// tensor.empty() without their dynamic extent, IR that does not verify):
// the converted A and its scales take M from the originals.
// GFX942-LABEL: func.func @dynamic_m
// GFX942-SAME:    (%[[A:.*]]: tensor<?x128xf8E4M3FN>, %[[SA:.*]]: tensor<?x1xf32>,
// GFX942:         %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x128xf8E4M3FN>
// GFX942:         tensor.empty(%[[M]]) : tensor<?x128xf8E4M3FNUZ>
// GFX942:         %[[MS:.*]] = tensor.dim %[[SA]], %{{.*}} : tensor<?x1xf32>
// GFX942:         tensor.empty(%[[MS]]) : tensor<?x1xf32>
// GFX942:         qmm.matmul a(%{{.*}}, %{{.*}} : tensor<?x128xf8E4M3FNUZ>, tensor<?x1xf32>)
// GFX950-LABEL: func.func @dynamic_m
// GFX950-NOT:     tensor.empty
func.func @dynamic_m(%a: tensor<?x128xf8E4M3FN>, %sa: tensor<?x1xf32>,
                     %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>,
                     %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %d = qmm.matmul a(%a, %sa : tensor<?x128xf8E4M3FN>, tensor<?x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %d : tensor<?x64xf32>
}
