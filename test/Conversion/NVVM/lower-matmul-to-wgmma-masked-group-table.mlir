// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" | FileCheck %s

// A masked matmul's item table: G + 1 i32 entries in shared memory, filled
// by the block's threads before its barrier (entry e: the tiles of groups
// 0 .. e - 1), searched per tile in ceil(log2 G) halving steps over groups
// 0 .. G - 1, each candidate clamped to G - 1.

// 3 groups: 4 entries; steps of 2 and 1, clamped to group 2; the loop
// runs to entry 3.
// CHECK-LABEL: gpu.module @three_groups_wgmma
// CHECK:         %[[TABLE:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xi32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %[[E:.*]] = %{{.*}} to %c4 step %c384 {
// CHECK:           memref.store %{{.*}}, %[[TABLE]][%[[E]]]
// CHECK:         gpu.barrier
// CHECK:         %[[N:.*]] = memref.load %[[TABLE]][%c3{{.*}}]
// CHECK:         %[[ITEMS:.*]] = arith.index_castui %[[N]] : i32 to index
// CHECK:         scf.for %[[ITEM:.*]] = %{{.*}} to %[[ITEMS]] step
// CHECK:           %[[S1:.*]] = arith.addi %c0{{.*}}, %c2{{.*}} : index
// CHECK:           %[[C1:.*]] = arith.minui %[[S1]], %c2{{.*}} : index
// CHECK:           memref.load %[[TABLE]][%[[C1]]]
// CHECK:           %[[G1:.*]] = arith.select %{{.*}}, %[[C1]], %c0{{.*}} : index
// CHECK:           %[[S2:.*]] = arith.addi %[[G1]], %c1{{.*}} : index
// CHECK:           %[[C2:.*]] = arith.minui %[[S2]], %c2{{.*}} : index
// CHECK:           memref.load %[[TABLE]][%[[C2]]]
// CHECK:           %[[GROUP:.*]] = arith.select %{{.*}}, %[[C2]], %[[G1]] : index
// CHECK-NOT:       arith.minui
// CHECK:           memref.load %[[TABLE]][%[[GROUP]]]
// CHECK:           arith.muli %[[GROUP]], %c256 : index
// CHECK:           nvgpu.tma.async.load
func.func @three_groups(%a: memref<3x256x256xf8E4M3FN>, %sa: memref<3x256x2xf32>, %b: memref<3x384x256xf8E4M3FN>, %sb: memref<3x3x2xf32>, %g: memref<3xi32>, %c: memref<3x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<3x256x256xf8E4M3FN>, memref<3x256x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<3x384x256xf8E4M3FN>, memref<3x3x2xf32>) #qmm.scale<block 128x128> groups(%g : memref<3xi32>) outs(%c : memref<3x256x384xbf16>)
  return
}

// -----

// One group: 2 entries and no search; the tile's group is 0, its items
// from entry 0 to entry 1.
// CHECK-LABEL: gpu.module @one_group_wgmma
// CHECK:         %[[TABLE:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2xi32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c2 step %c384 {
// CHECK:         gpu.barrier
// CHECK:         memref.load %[[TABLE]][%c1{{.*}}]
// CHECK:         scf.for %[[ITEM:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NOT:       arith.minui
// CHECK:           memref.load %[[TABLE]][%c0{{.*}}]
// CHECK:           %[[NEXT:.*]] = arith.addi %c0{{.*}}, %c1{{.*}} : index
// CHECK:           memref.load %[[TABLE]][%[[NEXT]]]
// CHECK:           arith.maxui %{{.*}}, %c1{{.*}} : index
func.func @one_group(%a: memref<1x256x256xf8E4M3FN>, %sa: memref<1x256x2xf32>, %b: memref<1x384x256xf8E4M3FN>, %sb: memref<1x3x2xf32>, %g: memref<1xi32>, %c: memref<1x256x384xbf16>) {
  qmm.grouped_matmul masked a(%a, %sa : memref<1x256x256xf8E4M3FN>, memref<1x256x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<1x384x256xf8E4M3FN>, memref<1x3x2xf32>) #qmm.scale<block 128x128> groups(%g : memref<1xi32>) outs(%c : memref<1x256x384xbf16>)
  return
}

// -----

// A contiguous grouped matmul has no table: its tiles' groups come from
// their first rows.
// CHECK-LABEL: gpu.module @contiguous_wgmma
// CHECK-NOT:     xi32, #gpu.address_space<workgroup>>
// CHECK:         gpu.return
func.func @contiguous(%a: memref<512x256xf8E4M3FN>, %sa: memref<512x2xf32>, %b: memref<2x384x256xf8E4M3FN>, %sb: memref<2x3x2xf32>, %g: memref<512xi32>, %c: memref<512x384xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<512x256xf8E4M3FN>, memref<512x2xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<2x384x256xf8E4M3FN>, memref<2x3x2xf32>) #qmm.scale<block 128x128> groups(%g : memref<512xi32>) outs(%c : memref<512x384xbf16>)
  return
}
