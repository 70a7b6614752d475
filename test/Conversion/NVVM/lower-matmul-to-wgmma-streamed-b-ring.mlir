// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a max-blocks=4" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a max-blocks=4 stages=5" | FileCheck %s --check-prefix=FIVE

// Block-scaled 128 x 128 tiles whose B matrices few tile rows read (at
// most 2.5 on average) over at least 56 K tiles take a fifth ring stage
// where it fits beside D's staging buffer: B streams from HBM there
// (WgmmaPlan.h, kStreamedBTileRowsTimesTwo). One stage more than the
// module's, up to 5: a module of 5 stages keeps 5 (FIVE).

// M = 256: 2 tile rows, K = 7168: 56 K tiles. 5 x 32 KiB and the
// barriers (to 1 KiB), the 32 KiB staging buffer, 1 KiB of alignment.
// CHECK-LABEL: func.func @two_tile_rows
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c198656_i32
// CHECK:       gpu.module @two_tile_rows_wgmma
// CHECK:         arith.remui %{{.*}}, %c5_i32 : i32
// FIVE-LABEL:  func.func @two_tile_rows
// FIVE:          gpu.launch_func {{.*}} dynamic_shared_memory_size %c198656_i32
func.func @two_tile_rows(%a: memref<256x7168xf8E4M3FN>, %sa: memref<256x56xf32>, %b: memref<512x7168xf8E4M3FN>, %sb: memref<4x56xf32>, %d: memref<256x512xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x7168xf8E4M3FN>, memref<256x56xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<512x7168xf8E4M3FN>, memref<4x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x512xbf16>)
  return
}

// -----

// K = 4096 (32 K tiles): the module's 4 stages.
// CHECK-LABEL: func.func @short_k
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c165888_i32
// CHECK:       gpu.module @short_k_wgmma
// CHECK-NOT:     %c5_i32
func.func @short_k(%a: memref<256x4096xf8E4M3FN>, %sa: memref<256x32xf32>, %b: memref<512x4096xf8E4M3FN>, %sb: memref<4x32xf32>, %d: memref<256x512xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x4096xf8E4M3FN>, memref<256x32xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<512x4096xf8E4M3FN>, memref<4x32xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x512xbf16>)
  return
}

// -----

// M = 320: 3 tile rows (the third partial) read each B tile, served from
// L2: 4 stages.
// CHECK-LABEL: func.func @partial_third_tile_row
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c165888_i32
func.func @partial_third_tile_row(%a: memref<320x7168xf8E4M3FN>, %sa: memref<320x56xf32>, %b: memref<512x7168xf8E4M3FN>, %sb: memref<4x56xf32>, %d: memref<320x512xbf16>) {
  qmm.matmul a(%a, %sa : memref<320x7168xf8E4M3FN>, memref<320x56xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<512x7168xf8E4M3FN>, memref<4x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<320x512xbf16>)
  return
}

// -----

// M = 384: 3 tile rows read each B tile: 4 stages.
// CHECK-LABEL: func.func @three_tile_rows
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c165888_i32
func.func @three_tile_rows(%a: memref<384x7168xf8E4M3FN>, %sa: memref<384x56xf32>, %b: memref<512x7168xf8E4M3FN>, %sb: memref<4x56xf32>, %d: memref<384x512xbf16>) {
  qmm.matmul a(%a, %sa : memref<384x7168xf8E4M3FN>, memref<384x56xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<512x7168xf8E4M3FN>, memref<4x56xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<384x512xbf16>)
  return
}

// -----

// Contiguous grouped: 768 rows over 3 groups, 2 tile rows a group on
// average: 5 stages.
// CHECK-LABEL: func.func @grouped_256_rows
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c198656_i32
func.func @grouped_256_rows(%a: memref<768x7168xf8E4M3FN>, %sa: memref<768x56xf32>, %b: memref<3x256x7168xf8E4M3FN>, %sb: memref<3x2x56xf32>, %g: memref<768xi32>, %c: memref<768x256xbf16>) {
  qmm.grouped_matmul contiguous a(%a, %sa : memref<768x7168xf8E4M3FN>, memref<768x56xf32>) #qmm.scale<block 1x128> b(%b, %sb : memref<3x256x7168xf8E4M3FN>, memref<3x2x56xf32>) #qmm.scale<block 128x128> groups(%g : memref<768xi32>) outs(%c : memref<768x256xbf16>)
  return
}

// -----

// Per-tensor scales (no block scales): 4 stages.
// CHECK-LABEL: func.func @per_tensor
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c165888_i32
func.func @per_tensor(%a: memref<256x7168xf8E4M3FN>, %s: memref<1x1xf32>, %b: memref<512x7168xf8E4M3FN>, %d: memref<256x512xbf16>) {
  qmm.matmul a(%a, %s : memref<256x7168xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %s : memref<512x7168xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x512xbf16>)
  return
}
