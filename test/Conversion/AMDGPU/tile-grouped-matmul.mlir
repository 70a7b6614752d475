// RUN: fp8-opt %s -split-input-file --qmm-tile-matmul=chip=gfx942 --cse | FileCheck %s

// Contiguous grouped matmul: each 128-row tile of A reads the group of its
// first row; a padding tile (-1) does nothing (the whole workgroup takes
// the same branch); otherwise qmm.wave_mma reads B's matrix of that group
// (a leading index into [G, N, K]), the scales are the group's view, and
// the store skips padding rows.
// CHECK-LABEL: func.func @contiguous
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c2, {{.*}} = %c1)
// CHECK:         %[[FIRST:.*]] = memref.load %arg4[%[[TROW:.*]]] : memref<256xi32>
// CHECK:         %[[RUNS:.*]] = arith.cmpi sge, %[[FIRST]], %c0_i32 : i32
// CHECK:         %[[G:.*]] = arith.index_cast %[[FIRST]] : i32 to index
// CHECK:         scf.if %[[RUNS]] {
// CHECK:           %[[BS:.*]] = memref.subview %arg3[%[[G]], 0, 0] [1, 1, 1] [1, 1, 1]
// CHECK:             qmm.wave_mma %arg0[%[[TROW]], %{{.*}}], %arg2[%[[G]], 
// CHECK:             qmm.wave_scale_accumulate {{.*}} b_scales(%[[BS]] :
// CHECK:           qmm.wave_store {{.*}} into %arg5[{{.*}}] row_groups(%arg4 : memref<256xi32>) config(
func.func @contiguous(%a: memref<256x128xf8E4M3FNUZ>, %as: memref<256x1xf32>,
                      %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                      %g: memref<256xi32>, %d: memref<256x64xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %as : memref<256x128xf8E4M3FNUZ>, memref<256x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%g : memref<256xi32>)
    config #qmm.config<tile = [128, 64, 128], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
    outs(%d : memref<256x64xbf16>)
  return
}

// -----

// Masked: grid z runs over the 3 groups; a tile at or past its group's
// count does nothing; A and B are indexed by the group, their scales and D
// are the group's views, and the store writes rows below the count only.
// CHECK-LABEL: func.func @masked
// CHECK:       gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:.*]]) in ({{.*}} = %c1, {{.*}} = %c2, {{.*}} = %c3)
// CHECK:         %[[COUNT:.*]] = memref.load %arg4[%[[BZ]]] : memref<3xi32>
// CHECK:         %[[N:.*]] = arith.index_cast %[[COUNT]] : i32 to index
// CHECK:         %[[RUNS:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : index
// CHECK:         scf.if %[[RUNS]] {
// CHECK:           memref.subview %arg3[%[[BZ]], 0, 0]
// CHECK:           memref.subview %arg1[%[[BZ]], 0, 0]
// CHECK:           %[[D:.*]] = memref.subview %arg5[%[[BZ]], 0, 0] [1, 40, 64]
// CHECK:             qmm.wave_mma %arg0[%[[BZ]], %{{.*}}, %{{.*}}], %arg2[%[[BZ]], 
// CHECK:           qmm.wave_store {{.*}} into %[[D]][{{.*}}] valid_rows(%{{.*}}) config(
func.func @masked(%a: memref<3x40x128xf8E4M3FNUZ>, %as: memref<3x40x1xf32>,
                  %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                  %c: memref<3xi32>, %d: memref<3x40x64xf32>) {
  qmm.grouped_matmul masked a(%a, %as : memref<3x40x128xf8E4M3FNUZ>, memref<3x40x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%c : memref<3xi32>)
    config #qmm.config<tile = [32, 64, 128], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 1>
    outs(%d : memref<3x40x64xf32>)
  return
}

// -----

// The epilogue of a grouped matmul: the group's row of the [G, N] bias and
// the activation go to qmm.wave_store.
// CHECK-LABEL: func.func @epilogue
// CHECK:         %[[G:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:           %[[BIAS:.*]] = memref.subview %arg4[%[[G]], 0] [1, 64] [1, 1] : memref<3x64xf32> to memref<64xf32, strided<[1], offset: ?>>
// CHECK:           qmm.wave_store {{.*}} bias(%[[BIAS]] : memref<64xf32, strided<[1], offset: ?>>) activation gelu_tanh row_groups(%arg5 : memref<256xi32>)
func.func @epilogue(%a: memref<256x128xf8E4M3FNUZ>, %as: memref<256x1xf32>,
                    %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                    %bias: memref<3x64xf32>, %g: memref<256xi32>, %d: memref<256x64xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %as : memref<256x128xf8E4M3FNUZ>, memref<256x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%g : memref<256xi32>) bias(%bias : memref<3x64xf32>) activation gelu_tanh
    config #qmm.config<tile = [128, 64, 128], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
    outs(%d : memref<256x64xbf16>)
  return
}

// -----

// The pre-activation output of a masked grouped matmul: the group's view
// of aux, like D's.
// CHECK-LABEL: func.func @masked_aux
// CHECK:       gpu.launch blocks(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %[[BZ:[a-z0-9]+]]) in
// CHECK:           %[[D:.*]] = memref.subview %arg5[%[[BZ]], 0, 0] [1, 40, 64]
// CHECK:           %[[AUX:.*]] = memref.subview %arg6[%[[BZ]], 0, 0] [1, 40, 64]
// CHECK:           qmm.wave_store {{.*}} into %[[D]][{{.*}}] activation gelu_erf aux(%[[AUX]] : memref<40x64xbf16, strided<[64, 1], offset: ?>>) valid_rows(%{{.*}}) config(
func.func @masked_aux(%a: memref<3x40x128xf8E4M3FNUZ>, %as: memref<3x40x1xf32>,
                      %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                      %c: memref<3xi32>, %d: memref<3x40x64xf32>, %aux: memref<3x40x64xbf16>) {
  qmm.grouped_matmul masked a(%a, %as : memref<3x40x128xf8E4M3FNUZ>, memref<3x40x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%c : memref<3xi32>) activation gelu_erf
    config #qmm.config<tile = [32, 64, 128], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 1>
    outs(%d : memref<3x40x64xf32>, aux %aux : memref<3x40x64xbf16>)
  return
}
