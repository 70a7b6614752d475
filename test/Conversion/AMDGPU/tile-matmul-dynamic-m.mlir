// RUN: fp8-opt %s -split-input-file --qmm-tile-matmul=chip=gfx942 --cse | FileCheck %s

// A dynamic M: the host reads M from A's rows, checks the output's rows and
// A's per-row scales (M of them) against it, and launches ceil(M / 32) rows
// of 32-row tiles (N = 64: 2 columns) only when M > 0. Inside, the store
// masks rows (in_bounds [false, true]: 32 divides N = 64, nothing divides
// an unknown M) and the scale step carries M as dynamic.
// CHECK-DAG:   #[[ROWS:.*]] = affine_map<()[s0] -> (s0 ceildiv 32)>
// CHECK-LABEL: func.func @per_row
// CHECK-SAME:    (%[[A:.*]]: memref<?x256xf8E4M3FNUZ>, %[[AS:.*]]: memref<?x1xf32>, %{{.*}}: memref<64x256xf8E4M3FNUZ>, %{{.*}}: memref<64x1xf32>, %[[D:.*]]: memref<?x64xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = memref.dim %[[A]], %[[C0]] : memref<?x256xf8E4M3FNUZ>
// CHECK:         %[[DM:.*]] = memref.dim %[[D]], %[[C0]]
// CHECK:         %[[SAME:.*]] = arith.cmpi eq, %[[DM]], %[[M]]
// CHECK:         cf.assert %[[SAME]], "qmm.matmul: the output's rows differ from A's rows (M)"
// CHECK:         %[[SM:.*]] = memref.dim %[[AS]], %[[C0]]
// CHECK:         %[[SSAME:.*]] = arith.cmpi eq, %[[SM]], %[[M]]
// CHECK:         cf.assert %[[SSAME]], "qmm.matmul: A's scales do not match A's rows (M): expected M scales along M"
// CHECK:         %[[ANY:.*]] = arith.cmpi ult, %[[C0]], %[[M]]
// CHECK:         scf.if %[[ANY]] {
// CHECK:           %[[GY:.*]] = affine.apply #[[ROWS]]()[%[[M]]]
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:           gpu.launch blocks({{.*}}) in ({{.*}} = %[[C2]], {{.*}} = %[[GY]], {{.*}})
// CHECK:             qmm.wave_scale_accumulate {{.*}} problem_size [-9223372036854775808, 64, 256]
// CHECK:             qmm.wave_store {{.*}} in_bounds [false, true]
// CHECK:           gpu.terminator
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @per_row(%a: memref<?x256xf8E4M3FNUZ>, %as: memref<?x1xf32>,
                   %b: memref<64x256xf8E4M3FNUZ>, %bs: memref<64x1xf32>,
                   %d: memref<?x64xf32>) {
  qmm.matmul a(%a, %as : memref<?x256xf8E4M3FNUZ>, memref<?x1xf32>) #qmm.scale<per_row>
             b(%b, %bs : memref<64x256xf8E4M3FNUZ>, memref<64x1xf32>) #qmm.scale<per_row>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<?x64xf32>)
  return
}

// -----

// 128x128 blockwise A scales, MN-major ([K / 128, ceil(M / 128)]): the check
// reads the scales' dimension 1 against ceil(M / 128); aux's rows are
// checked too.
// CHECK-DAG:   #[[BLOCKS:.*]] = affine_map<()[s0] -> (s0 ceildiv 128)>
// CHECK-LABEL: func.func @blockwise_mn_major
// CHECK-SAME:    (%[[A:[^:]*]]: memref<?x256xf8E4M3FNUZ>, %[[AS:[^:]*]]: memref<2x?xf32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK:         cf.assert {{.*}}, "qmm.matmul: the output's rows differ from A's rows (M)"
// CHECK:         cf.assert {{.*}}, "qmm.matmul: aux's rows differ from A's rows (M)"
// CHECK:         %[[EXPECTED:.*]] = affine.apply #[[BLOCKS]]()[%[[M]]]
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[SM:.*]] = memref.dim %[[AS]], %[[C1]]
// CHECK:         %[[SAME:.*]] = arith.cmpi eq, %[[SM]], %[[EXPECTED]]
// CHECK:         cf.assert %[[SAME]], "qmm.matmul: A's scales do not match A's rows (M): expected ceil(M / 128) scales along M"
// CHECK:         scf.if
func.func @blockwise_mn_major(%a: memref<?x256xf8E4M3FNUZ>, %as: memref<2x?xf32>,
                              %b: memref<64x256xf8E4M3FNUZ>, %bs: memref<1x2xf32>,
                              %d: memref<?x64xbf16>, %aux: memref<?x64xbf16>) {
  qmm.matmul a(%a, %as : memref<?x256xf8E4M3FNUZ>, memref<2x?xf32>) #qmm.scale<block 128x128, mn_major>
             b(%b, %bs : memref<64x256xf8E4M3FNUZ>, memref<1x2xf32>) #qmm.scale<block 128x128>
             activation gelu_tanh
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<?x64xbf16>, aux %aux : memref<?x64xbf16>)
  return
}

// -----

// A static M (64) with dynamically shaped operands that follow it: the
// same checks against M = 64, then the static grid (2 x 2), no scf.if.
// CHECK-LABEL: func.func @static_m_dynamic_scales
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[DM:.*]] = memref.dim %arg4, %[[C0]]
// CHECK:         arith.cmpi eq, %[[DM]], %[[C64]]
// CHECK:         cf.assert {{.*}}"qmm.matmul: the output's rows differ from A's rows (M)"
// CHECK:         %[[SM:.*]] = memref.dim %arg1, %[[C0]]
// CHECK:         arith.cmpi eq, %[[SM]], %[[C64]]
// CHECK:         cf.assert {{.*}}"qmm.matmul: A's scales do not match A's rows (M): expected M scales along M"
// CHECK-NOT:     scf.if
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C2:[^,]*]], {{.*}} = %[[C2]],
func.func @static_m_dynamic_scales(%a: memref<64x256xf8E4M3FNUZ>, %as: memref<?x1xf32>,
                                   %b: memref<64x256xf8E4M3FNUZ>, %bs: memref<64x1xf32>,
                                   %d: memref<?x64xf32>) {
  qmm.matmul a(%a, %as : memref<64x256xf8E4M3FNUZ>, memref<?x1xf32>) #qmm.scale<per_row>
             b(%b, %bs : memref<64x256xf8E4M3FNUZ>, memref<64x1xf32>) #qmm.scale<per_row>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<?x64xf32>)
  return
}

// -----

// A contiguous grouped matmul with a dynamic M (the tokens of a serving
// step): the row groups must have M entries too; ceil(M / 128) rows of
// 128-row tiles, each reading its group from its first row.
// CHECK-DAG:   #[[TILES:.*]] = affine_map<()[s0] -> (s0 ceildiv 128)>
// CHECK-LABEL: func.func @contiguous_grouped
// CHECK:         %[[M:.*]] = memref.dim %arg0, %[[C0:.*]] : memref<?x128xf8E4M3FNUZ>
// CHECK:         cf.assert {{.*}}, "qmm.grouped_matmul: the output's rows differ from A's rows (M)"
// CHECK:         %[[GM:.*]] = memref.dim %arg4, %[[C0]] : memref<?xi32>
// CHECK:         %[[SAME:.*]] = arith.cmpi eq, %[[GM]], %[[M]]
// CHECK:         cf.assert %[[SAME]], "qmm.grouped_matmul: the row groups differ in length from A's rows (M)"
// CHECK:         cf.assert {{.*}}, "qmm.grouped_matmul: A's scales do not match A's rows (M): expected M scales along M"
// CHECK:         scf.if
// CHECK:           %[[GY:.*]] = affine.apply #[[TILES]]()[%[[M]]]
// CHECK:           gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}} = %[[GY]], {{.*}})
// CHECK:             memref.load %arg4[%{{.*}}] : memref<?xi32>
// CHECK:             qmm.wave_store {{.*}} in_bounds [false, true] row_groups(%arg4 : memref<?xi32>)
func.func @contiguous_grouped(%a: memref<?x128xf8E4M3FNUZ>, %as: memref<?x1xf32>,
                              %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                              %g: memref<?xi32>, %d: memref<?x64xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %as : memref<?x128xf8E4M3FNUZ>, memref<?x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%g : memref<?xi32>)
    config #qmm.config<tile = [128, 64, 128], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
    outs(%d : memref<?x64xbf16>)
  return
}

// -----

// Split-K on a dynamic M bounded by qmm.max_m = 64 (the small-M version
// qmm-select-config makes): the host asserts M <= 64, and the workspace and
// counters are sized for the bound's 2 x ceil(64 / 32) = 4 tiles: 2 ranges
// x 4 tiles x 1 accumulator x 256 threads x 4 items = 2 x 4096 floats, 4
// tiles x 4 waves = 16 counters; the grid launches ceil(M / 32) rows.
// CHECK-DAG:   #[[ROWS:.*]] = affine_map<()[s0] -> (s0 ceildiv 32)>
// CHECK-LABEL: func.func @bounded_split
// CHECK:         %[[M:.*]] = memref.dim %arg0
// CHECK:         %[[WITHIN:.*]] = arith.cmpi ule, %[[M]], %c64
// CHECK:         cf.assert %[[WITHIN]], "qmm.matmul: M exceeds its bound qmm.max_m = 64"
// CHECK:         scf.if
// CHECK:           %[[GY:.*]] = affine.apply #[[ROWS]]()[%[[M]]]
// CHECK:           memref.alloc() : memref<2x4096xf32>
// CHECK:           %[[COUNTERS:.*]] = memref.alloc() : memref<16xi32>
// CHECK:           gpu.memset %[[COUNTERS]]
// CHECK:           gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}} = %[[GY]], {{.*}} = %c2)
func.func @bounded_split(%a: memref<?x512xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                         %b: memref<64x512xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                         %d: memref<?x64xf32>) {
  qmm.matmul a(%a, %as : memref<?x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<64x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
             outs(%d : memref<?x64xf32>) {qmm.max_m = 64 : i64}
  return
}

// -----

// A masked grouped matmul with a dynamic Mmax (dimension 1, behind G = 3):
// the output's and the scales' rows checked against it, ceil(Mmax / 32)
// rows of tiles on grid y, the groups on grid z, each group's view of A's
// scales and of the output taken with its dynamic rows.
// CHECK-DAG:   #[[TILES:.*]] = affine_map<()[s0] -> (s0 ceildiv 32)>
// CHECK-LABEL: func.func @masked_grouped
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[M:.*]] = memref.dim %arg0, %[[C1]] : memref<3x?x128xf8E4M3FNUZ>
// CHECK:         cf.assert {{.*}}, "qmm.grouped_matmul: the output's rows differ from A's rows (M)"
// CHECK:         %[[SM:.*]] = memref.dim %arg1, %[[C1]] : memref<3x?x1xf32>
// CHECK:         arith.cmpi eq, %[[SM]], %[[M]]
// CHECK:         cf.assert {{.*}}, "qmm.grouped_matmul: A's scales do not match A's rows (M): expected M scales along M"
// CHECK-NOT:     row groups
// CHECK:         scf.if
// CHECK:           %[[GY:.*]] = affine.apply #[[TILES]]()[%[[M]]]
// CHECK:           %[[C3:.*]] = arith.constant 3 : index
// CHECK:           gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}} = %[[GY]], {{.*}} = %[[C3]])
// CHECK:             memref.subview %arg5[%{{.*}}, 0, 0] [1, %{{.*}}, 64] [1, 1, 1] : memref<3x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
// CHECK:             qmm.wave_store {{.*}} in_bounds [false, true] valid_rows(%{{.*}})
func.func @masked_grouped(%a: memref<3x?x128xf8E4M3FNUZ>, %as: memref<3x?x1xf32>,
                          %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                          %g: memref<3xi32>, %d: memref<3x?x64xbf16>) {
  qmm.grouped_matmul masked a(%a, %as : memref<3x?x128xf8E4M3FNUZ>, memref<3x?x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%g : memref<3xi32>)
    config #qmm.config<tile = [32, 64, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
    outs(%d : memref<3x?x64xbf16>)
  return
}
