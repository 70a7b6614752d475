// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" --canonicalize | FileCheck %s --check-prefix=MX

// FP8 outputs quantized in the wgmma kernel's epilogue: per row of the
// thread and block of C columns, the amax of its results (the sign bit
// cleared, never math.absf, which the NVVM lowering makes a libdevice
// call), then the quad's (the four lanes holding the row: xor 1, xor 2),
// the block's scale (`none`: amax / 448 and 448 / amax for E4M3), the
// codes sat(rne(x * reciprocal)) as arith.truncf (expanded later), two
// to a 16-bit store into the staging buffer, which goes out through TMA
// (one 64 x 128-byte box per consumer: D's rows are multiples of 16
// bytes), and the scale stored by the row's first lane.

// CHECK-LABEL: func.func @fp8_output
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] : memref<*xf8E4M3FN> -> <tensor = memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK:         gpu.launch_func  @fp8_output_wgmma::@matmul
// CHECK-SAME:      %arg5 : memref<256x2xf32>, %{{.*}} : !llvm.ptr)
// CHECK-LABEL: gpu.module @fp8_output_wgmma
// CHECK:       gpu.func @matmul({{.*}}, %{{.*}}: memref<256x256xf8E4M3FN>, %[[SCALES:.*]]: memref<256x2xf32>, %{{.*}}: !llvm.ptr) kernel
// CHECK-NOT:     math.absf
// CHECK:         arith.andi %{{.*}}, %c2147483647_i32{{.*}} : i32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:         arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK:         arith.divf %cst{{.*}}, %{{.*}} : f32
// CHECK:         arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<3>
// CHECK:         memref.store %{{.*}}, %[[SCALES]][%{{.*}}, %{{.*}}] : memref<256x2xf32>
// CHECK-NOT:     llvm.store %{{.*}} !llvm.ptr<1>
// CHECK:         nvvm.fence.proxy
// CHECK:         nvgpu.tma.async.store %{{.*}} : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK:         nvvm.cp.async.bulk.commit.group
// CHECK-NOT:     math.absf

func.func @fp8_output(%a: memref<256x512xf8E4M3FN>, %sa: memref<256x4xf32>, %b: memref<256x512xf8E4M3FN>, %sb: memref<2x4xf32>, %d: memref<256x256xf8E4M3FN>, %s: memref<256x2xf32>) {
  qmm.matmul a(%a, %sa : memref<256x512xf8E4M3FN>, memref<256x4xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<256x512xf8E4M3FN>, memref<2x4xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x256xf8E4M3FN>)
             out_scales(%s : memref<256x2xf32>) #qmm.scale<block 1x128>
  return
}

// -----

// Rows of 136 codes (not a multiple of 16 bytes: no tensor map): the code
// pairs stored from registers, inside D only.

// CHECK-LABEL: func.func @unaligned_rows
// CHECK-COUNT-2: nvgpu.tma.create.descriptor
// CHECK-NOT:     nvgpu.tma.create.descriptor
// CHECK-LABEL: gpu.module @unaligned_rows_wgmma
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK:         arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK:         scf.if
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK:         gpu.return

func.func @unaligned_rows(%a: memref<256x512xf8E4M3FN>, %sa: memref<256x4xf32>, %b: memref<136x512xf8E4M3FN>, %sb: memref<2x4xf32>, %d: memref<256x136xf8E4M3FN>, %s: memref<256x17xf32>) {
  qmm.matmul a(%a, %sa : memref<256x512xf8E4M3FN>, memref<256x4xf32>) #qmm.scale<block 1x128>
             b(%b, %sb : memref<136x512xf8E4M3FN>, memref<2x4xf32>) #qmm.scale<block 128x128>
             outs(%d : memref<256x136xf8E4M3FN>)
             out_scales(%s : memref<256x17xf32>) #qmm.scale<block 1x8>
  return
}

// -----

// MX (E8M0 scales per 32 columns, pow2_floor by default): four blocks in
// each 128-column tile, so 4 blocks x 2 rows x 2 shuffles per thread; the
// scale is a power of two (exponent arithmetic, no division), stored as
// E8M0.

// MX-LABEL: gpu.module @mx_output_wgmma
// MX-COUNT-16: gpu.shuffle  xor
// MX-NOT:      gpu.shuffle
// MX-NOT:      arith.divf
// MX:          arith.truncf %{{.*}} : f32 to f8E8M0FNU
// MX:          memref.store %{{.*}} : memref<128x8xf8E8M0FNU>

func.func @mx_output(%a: memref<128x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x256xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x256xf8E5M2>, %s: memref<128x8xf8E8M0FNU>) {
  qmm.matmul a(%a, %sa : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x256xf8E5M2>)
             out_scales(%s : memref<128x8xf8E8M0FNU>) #qmm.scale<mx>
  return
}
