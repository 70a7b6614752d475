// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-n=128" | FileCheck %s --check-prefix=FORCED

// A run-time M against N = 7168 (56 columns of 128-column tiles on 132
// multiprocessors): the static choice is 64 x 64 tiles for M <= 64 (one
// tile row of 64 rows; 128 columns would keep 56 blocks busy), whose A
// boxes hold M's rows (rounded up to 8), so that M <= 8, 16, 32, 48 and 64
// each get a version, 128 x 64 for M <= 128 (56 wide tiles: fewer than
// half the multiprocessors), and 128 x 128 from M = 129 on (112 wide
// tiles or more). One kernel per version; the host launches the first
// whose bound holds M, each with its own tensor maps (A's box rows: 8, 16,
// 32, 48, 64, then 128; B's: 64 rows of 64 columns, then 128).

// CHECK-LABEL: func.func @versions
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %c0 : memref<?x2048xf8E4M3FN>
// CHECK:         %[[NONEMPTY:.*]] = arith.cmpi ne, %[[M]], %c0{{.*}} : index
// CHECK:         scf.if %[[NONEMPTY]] {
// CHECK:           %[[M8:.*]] = arith.cmpi ule, %[[M]], %c8 : index
// CHECK:           scf.if %[[M8]] {
// CHECK:             nvgpu.tma.create.descriptor %{{.*}} box[%c8{{.*}}, %c128{{.*}}] {{.*}}memref<8x128xf8E4M3FN
// CHECK:             nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] {{.*}}memref<64x128xf8E4M3FN
// CHECK:             gpu.launch_func  @versions_wgmma::@matmul {{.*}} threads in (%c256,
// CHECK:           } else {
// CHECK:             arith.cmpi ule, %[[M]], %c16 : index
// CHECK:               nvgpu.tma.create.descriptor %{{.*}} box[%c16{{.*}}, %c128{{.*}}] {{.*}}memref<16x128xf8E4M3FN
// CHECK:               gpu.launch_func  @versions_wgmma_0::@matmul {{.*}} threads in (%c256,
// CHECK:               arith.cmpi ule, %[[M]], %c32 : index
// CHECK:                 nvgpu.tma.create.descriptor %{{.*}} box[%c32{{.*}}, %c128{{.*}}] {{.*}}memref<32x128xf8E4M3FN
// CHECK:                 gpu.launch_func  @versions_wgmma_1::@matmul {{.*}} threads in (%c256,
// CHECK:                 arith.cmpi ule, %[[M]], %c48 : index
// CHECK:                   nvgpu.tma.create.descriptor %{{.*}} box[%c48{{.*}}, %c128{{.*}}] {{.*}}memref<48x128xf8E4M3FN
// CHECK:                   gpu.launch_func  @versions_wgmma_2::@matmul {{.*}} threads in (%c256,
// CHECK:                   arith.cmpi ule, %[[M]], %c64 : index
// CHECK:                     nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] {{.*}}memref<64x128xf8E4M3FN
// CHECK:                     nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] {{.*}}memref<64x128xf8E4M3FN
// CHECK:                     gpu.launch_func  @versions_wgmma_3::@matmul {{.*}} threads in (%c256,
// CHECK:                   } else {
// CHECK:                     %[[MID:.*]] = arith.cmpi ule, %[[M]], %c128 : index
// CHECK:                     scf.if %[[MID]] {
// CHECK:                       nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] {{.*}}memref<128x128xf8E4M3FN
// CHECK:                       nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] {{.*}}memref<64x128xf8E4M3FN
// CHECK:                       gpu.launch_func  @versions_wgmma_4::@matmul {{.*}} threads in (%c384,
// CHECK:                     } else {
// CHECK:                       nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] {{.*}}memref<128x128xf8E4M3FN
// CHECK:                       nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] {{.*}}memref<128x128xf8E4M3FN
// CHECK:                       gpu.launch_func  @versions_wgmma_5::@matmul {{.*}} threads in (%c384,
// CHECK-DAG:   gpu.module @versions_wgmma {
// CHECK-DAG:   gpu.module @versions_wgmma_4 {
// CHECK-DAG:   gpu.module @versions_wgmma_5 {

// A forced tile side: the single kernel.
// FORCED-LABEL: func.func @versions
// FORCED:         scf.if
// FORCED-NOT:     arith.cmpi ule
// FORCED:         gpu.launch_func  @versions_wgmma::@matmul
// FORCED-NOT:   gpu.module @versions_wgmma_0
func.func @versions(%a: memref<?x2048xf8E4M3FN>, %sa: memref<?x16xf32>, %b: memref<7168x2048xf8E4M3FN>, %sb: memref<56x16xf32>, %c: memref<?x7168xbf16>) {
  qmm.matmul a(%a, %sa : memref<?x2048xf8E4M3FN>, memref<?x16xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<7168x2048xf8E4M3FN>, memref<56x16xf32>) #qmm.scale<block 128x128> outs(%c : memref<?x7168xbf16>)
  return
}

// -----

// N = 16384 (128 wide columns): 128-column tiles fill the multiprocessors
// from one tile row of 128 on. M <= 8 gets 64 rows of 128 columns (128
// blocks; A's box of 8 rows), M <= 16, 32, 48 and 64 rows of 64 columns
// (256 tiles also on 128 blocks: a single tile row takes 64 columns where
// they keep as many blocks busy, block-scaled from 16 rows on; A's boxes
// of their rows); M <= 128, one tile row of 128 x 128, a version of its
// own because its schedule is static (one tile row whatever M); then the
// large-M kernel, whose tiles are counted at run time.

// CHECK-LABEL: func.func @wide_n
// CHECK:         arith.cmpi ule, %{{.*}}, %c8 : index
// CHECK:         gpu.launch_func  @wide_n_wgmma::@matmul {{.*}} threads in (%c384,
// CHECK:         arith.cmpi ule, %{{.*}}, %c16 : index
// CHECK:         gpu.launch_func  @wide_n_wgmma_0::@matmul {{.*}} threads in (%c256,
// CHECK:         arith.cmpi ule, %{{.*}}, %c64 : index
// CHECK:         gpu.launch_func  @wide_n_wgmma_3::@matmul {{.*}} threads in (%c256,
// CHECK:       } else {
// CHECK:         arith.cmpi ule, %{{.*}}, %c128 : index
// CHECK:         gpu.launch_func  @wide_n_wgmma_4::@matmul blocks in (%c128{{.*}}, {{.*}} threads in (%c384,
// CHECK:         } else {
// CHECK:         gpu.launch_func  @wide_n_wgmma_5::@matmul {{.*}} threads in (%c384,
func.func @wide_n(%a: memref<?x2048xf8E4M3FN>, %sa: memref<?x16xf32>, %b: memref<16384x2048xf8E4M3FN>, %sb: memref<128x16xf32>, %c: memref<?x16384xbf16>) {
  qmm.matmul a(%a, %sa : memref<?x2048xf8E4M3FN>, memref<?x16xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<16384x2048xf8E4M3FN>, memref<128x16xf32>) #qmm.scale<block 128x128> outs(%c : memref<?x16384xbf16>)
  return
}

// -----

// A static M: one kernel, no choice on the host.
// CHECK-LABEL: func.func @static_m
// CHECK-NOT:     arith.cmpi ule
// CHECK:         gpu.launch_func  @static_m_wgmma::@matmul
// CHECK-NOT:   gpu.module @static_m_wgmma_0
func.func @static_m(%a: memref<128x2048xf8E4M3FN>, %sa: memref<128x16xf32>, %b: memref<7168x2048xf8E4M3FN>, %sb: memref<56x16xf32>, %c: memref<128x7168xbf16>) {
  qmm.matmul a(%a, %sa : memref<128x2048xf8E4M3FN>, memref<128x16xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<7168x2048xf8E4M3FN>, memref<56x16xf32>) #qmm.scale<block 128x128> outs(%c : memref<128x7168xbf16>)
  return
}
