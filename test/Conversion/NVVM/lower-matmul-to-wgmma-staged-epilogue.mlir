// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128" | FileCheck %s
// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-wgmma="chip=sm_90a tile-m=128 tile-n=128 stages=6" | FileCheck %s --check-prefix=SIX

// The epilogue through shared memory: each consumer warpgroup writes its
// 64 x 128 part of D's tile into a staging buffer in the 128B swizzle of
// D's tensor map (boxes of 64 rows x 128 bytes), then one thread stores the
// boxes with TMA (cp.async.bulk.tensor, a bulk group). Bounds are TMA's:
// elements outside D are staged but not stored. Direct stores from
// registers remain where a tensor map cannot describe D (rows not a
// multiple of 16 bytes), for FP8 outputs, and where the staging buffers
// do not fit beside the ring.

// bf16, whole tiles. Host: D's tensor map, 64 x 64 boxes, passed last;
// shared memory: 4 stages x 32 KiB, the barriers (to 1 KiB: the staging
// starts at byte 132096 of the ring), 2 x 64 x 128 x 2 bytes of staging
// and 1 KiB for the alignment.
// CHECK-LABEL: func.func @bf16_whole_tiles
// CHECK:         %[[MD:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         %[[PD:.*]] = builtin.unrealized_conversion_cast %[[MD]] : {{.*}} to !llvm.ptr
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c165888_i32 args({{.*}}, %arg4 : memref<256x256xbf16>, %[[PD]] : !llvm.ptr)
// The kernel: D's map prefetched by thread 0 with A's and B's (no fence:
// a grid constant).
// CHECK:       gpu.module @bf16_whole_tiles_wgmma
// CHECK:         gpu.func @matmul({{.*}}, %{{.*}}: memref<256x256xbf16>, %[[ARGD:.*]]: !llvm.ptr)
// CHECK:         %[[TMD:.*]] = builtin.unrealized_conversion_cast %[[ARGD]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT:     nvgpu.tma.fence.descriptor
// CHECK:         nvgpu.tma.prefetch.descriptor %[[TMD]]
// The consumer's first thread (of its 128) issues the stores.
// CHECK:         %[[THREAD:.*]] = arith.remui %{{.*}}, %c128{{.*}} : index
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[THREAD]], %c0{{.*}} : index
// The epilogue: the previous tile's stores have read the buffer (one
// thread waits, the warpgroup meets at named barrier 1 + consumer).
// CHECK:         scf.if %[[FIRST]] {
// CHECK-NEXT:      nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT:    }
// CHECK:         %[[ID:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[N128:.*]] = arith.constant 128 : i32
// CHECK-NEXT:    nvvm.barrier id = %[[ID]] number_of_threads = %[[N128]]
// The thread's first staged byte, once per tile: its lane's byte XOR the
// row's index in its 8-row atom x 16 (the 128B swizzle), after the
// barriers and the ring; through a volatile mov, so that LLVM does not
// hoist the addresses out of the tile loop (registers the K loop needs).
// CHECK:         %[[ATOMROW:.*]] = arith.remui %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT:    %[[SWIZZLE:.*]] = arith.muli %[[ATOMROW]], %c16{{.*}} : index
// CHECK-NEXT:    arith.xori %{{.*}}, %[[SWIZZLE]] : index
// CHECK:         arith.constant 132096 : index
// CHECK:         %[[BASE:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r" %{{.*}} : (i32) -> i32
// A pair's address: the base XOR the group's byte in its 128-byte row,
// plus, as a constant GEP the store folds, its box (8 KiB) and its row
// (the second: 8 rows of 128 bytes down, the same row of the next atom).
// CHECK:         %[[C0:.*]] = arith.constant 0 : i32
// CHECK:         %[[X0:.*]] = arith.xori %[[BASE]], %[[C0]] : i32
// CHECK:         %[[P0:.*]] = llvm.inttoptr %[[X0]] : i32 to !llvm.ptr<3>
// CHECK:         %[[A0:.*]] = llvm.getelementptr %[[P0]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         llvm.store %{{.*}}, %[[A0]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK:         %[[X1:.*]] = arith.xori %[[BASE]], %{{.*}} : i32
// CHECK:         %[[P1:.*]] = llvm.inttoptr %[[X1]] : i32 to !llvm.ptr<3>
// CHECK:         %[[A1:.*]] = llvm.getelementptr %[[P1]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         llvm.store %{{.*}}, %[[A1]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// Group 1 in row 0: chunk 1; group 9 in row 1: box 1, chunk 1.
// CHECK:         %[[C16:.*]] = arith.constant 16 : i32
// CHECK:         arith.xori %[[BASE]], %[[C16]] : i32
// CHECK:         llvm.getelementptr %{{.*}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-COUNT-17: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK:         arith.xori %[[BASE]], %c16_i32{{.*}} : i32
// CHECK:         llvm.getelementptr %{{.*}}[9216] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// 32 pairs a thread (16 groups of 8 columns, 2 rows), no masks, no
// global stores.
// CHECK-COUNT-13: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT:     llvm.store
// The writes made visible to the async proxy, the warpgroup meets again,
// and its first thread stores the two boxes at (column, row) = (tile
// column + 64 b, tile row + 64 consumer), one bulk group.
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:         nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK:         scf.if %[[FIRST]] {
// The boxes lie 8 KiB apart, the consumers' buffers 16 KiB apart.
// CHECK:           %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:           %[[COL0:.*]] = arith.addi %{{.*}}, %c0{{.*}} : index
// CHECK:           arith.constant 132096 : index
// CHECK:           arith.constant 16384 : index
// CHECK:           %[[BOX0:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.tma.async.store %[[BOX0]] to %[[TMD]][%[[COL0]], %[[ROW]]]
// CHECK:           %[[COL1:.*]] = arith.addi %{{.*}}, %c64{{.*}} : index
// CHECK:           arith.constant 140288 : index
// CHECK:           %[[BOX1:.*]] = memref.view
// CHECK:           nvgpu.tma.async.store %[[BOX1]] to %[[TMD]][%[[COL1]], %[[ROW]]]
// CHECK-NEXT:      nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:    }
// No thread leaves before its stores are complete.
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT:    }
// With 6 stages the bf16 staging still fits: 6 x 32 KiB and the barriers
// (193 KiB), 32 KiB and 1 KiB = 231424 bytes of the 232448.
// SIX-LABEL:   func.func @bf16_whole_tiles
// SIX:         nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16>
// SIX:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c231424_i32
func.func @bf16_whole_tiles(%a: memref<256x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x256xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<256x256xbf16>) {
  qmm.matmul a(%a, %sa : memref<256x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<256x256xbf16>)
  return
}

// -----

// f32 accumulated into, partial tiles (200 x 136): boxes of 32 columns (4
// a consumer); C is read where the element is, clamped into D for the
// elements past it (staged, not stored).
// CHECK-LABEL: func.func @f32_accumulate_partial_tiles
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<64x32xf32, #gpu.address_space<workgroup>>
// 4 x 32 KiB and the barriers (to 1 KiB), 2 x 32 KiB, 1 KiB.
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c198656_i32
// CHECK:       gpu.module @f32_accumulate_partial_tiles_wgmma
// CHECK:         nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK:         %[[R:.*]] = arith.minui %{{.*}}, %c199{{.*}} : index
// CHECK:         %[[C:.*]] = arith.minui %{{.*}}, %c135{{.*}} : index
// CHECK:         memref.load %{{.*}}[%[[R]], %[[C]]] : memref<200x136xf32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT:     llvm.store %{{.*}} !llvm.ptr<1>
// CHECK:         nvvm.fence.proxy
// CHECK-COUNT-4:   nvgpu.tma.async.store %{{.*}} : memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cp.async.bulk.commit.group
// With 6 stages the f32 staging (64 KiB) does not fit: direct stores.
// SIX-LABEL:   func.func @f32_accumulate_partial_tiles
// SIX-COUNT-2: nvgpu.tma.create.descriptor
// SIX-NOT:     nvgpu.tma.create.descriptor
// SIX:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c197680_i32
// SIX:         gpu.module @f32_accumulate_partial_tiles_wgmma
// SIX-NOT:     nvgpu.tma.async.store
// SIX:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// SIX-NOT:     nvgpu.tma.async.store
// SIX:         gpu.return
func.func @f32_accumulate_partial_tiles(%a: memref<200x384xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<136x384xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<200x136xf32>) {
  qmm.matmul a(%a, %sa : memref<200x384xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<136x384xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             accumulate outs(%d : memref<200x136xf32>)
  return
}

// -----

// Rows of 132 bf16 (264 bytes, not a multiple of 16: no tensor map):
// pairs stored from registers, inside D only.
// CHECK-LABEL: func.func @unaligned_rows
// CHECK-COUNT-2: nvgpu.tma.create.descriptor
// CHECK-NOT:     nvgpu.tma.create.descriptor
// CHECK:         gpu.launch_func {{.*}} dynamic_shared_memory_size %c132128_i32
// CHECK:       gpu.module @unaligned_rows_wgmma
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK-NOT:     nvvm.cp.async.bulk
// CHECK:         scf.if
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK-NOT:     nvvm.cp.async.bulk
// CHECK:         gpu.return
func.func @unaligned_rows(%a: memref<128x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<132x256xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x132xbf16>) {
  qmm.matmul a(%a, %sa : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<132x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x132xbf16>)
  return
}

// -----

// An odd N: element by element from registers.
// CHECK-LABEL: func.func @odd_columns
// CHECK-COUNT-2: nvgpu.tma.create.descriptor
// CHECK-NOT:     nvgpu.tma.create.descriptor
// CHECK:       gpu.module @odd_columns_wgmma
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK:         memref.store %{{.*}}, %{{.*}} : memref<128x135xf16>
// CHECK-NOT:     nvgpu.tma.async.store
// CHECK:         gpu.return
func.func @odd_columns(%a: memref<128x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<135x256xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x135xf16>) {
  qmm.matmul a(%a, %sa : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<135x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x135xf16>)
  return
}
