// RUN: fp8-opt %s -split-input-file --qmm-tile-matmul=chip=gfx942 --cse | FileCheck %s

// Split-K, per-tensor scales: 32 x 64 outputs in 32 x 32 tiles (grid 2 x 1),
// K = 512 in 4 tiles of 128, split into 2 ranges of 2 (grid z = 2). One
// wave of 2 x 2 16x16 MFMA tiles: 4 accumulators of 4 items, so the
// workspace holds per range 2 tiles x 4 accumulators x 64 threads x 4 f32
// = 2048, and there is one arrival counter per tile and wave (2).
// CHECK-DAG: #[[KTILE:.*]] = affine_map<(d0)[s0] -> (d0 * 128 + s0 * 256)>
// CHECK-DAG: #[[RUN0:.*]] = affine_map<()[s0, s1, s2] -> (s0 * 1024 + s1 * 2048 + s2 * 4)>
// CHECK-DAG: #[[RUN3:.*]] = affine_map<()[s0, s1, s2] -> (s0 * 1024 + s1 * 2048 + s2 * 4 + 768)>
// CHECK-DAG: #[[COUNTER:.*]] = affine_map<()[s0, s1, s2] -> (s0 + s1 * 2 + s2 floordiv 64)>
// CHECK-LABEL: func.func @per_tensor
// CHECK:     %[[PARTIALS:.*]] = memref.alloc() : memref<2x2048xf32>
// CHECK:     %[[ARRIVALS:.*]] = memref.alloc() : memref<2xi32>
// CHECK:     %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:     gpu.memset %[[ARRIVALS]], %[[ZERO]] : memref<2xi32>, i32
// CHECK:     gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %[[BZ:.*]]) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c2) threads(%[[TX:[^,]*]],
// The K loop keeps constant bounds (the range's 2 tiles); the range enters
// through the K index, 256 (2 tiles of 128) per range.
// CHECK:       scf.for %[[T:.*]] = %c0 to %c2 step %c1
// CHECK:         %[[K:.*]] = affine.apply #[[KTILE]](%[[T]])[%[[BZ]]]
// CHECK:         qmm.wave_mma %arg0[%{{.*}}, %[[K]]], %arg2[%{{.*}}, %[[K]]]
// CHECK:       } {qmm.k_loop}
// Scaled once after the loop, then each accumulator stored to range z.
// CHECK:       %[[SCALED:.*]]:4 = qmm.wave_scale_accumulate
// CHECK:       %[[AT0:.*]] = affine.apply #[[RUN0]]()[%[[BX]], %[[BY]], %[[TX]]]
// CHECK:       vector.store %[[SCALED]]#0, %[[PARTIALS]][%[[BZ]], %[[AT0]]] : memref<2x2048xf32>, vector<4xf32>
// CHECK:       %[[AT3:.*]] = affine.apply #[[RUN3]]()[%[[BX]], %[[BY]], %[[TX]]]
// CHECK:       vector.store %[[SCALED]]#3, %[[PARTIALS]][%[[BZ]], %[[AT3]]]
// Released, counted in by lane 0, the count read by every lane.
// CHECK:       llvm.fence syncscope("agent") release
// CHECK:       %[[SLOT:.*]] = affine.apply #[[COUNTER]]()[%[[BX]], %[[BY]], %[[TX]]]
// CHECK:       %[[LANE0:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK:       %[[BEFORE:.*]] = scf.if %[[LANE0]]
// CHECK:         memref.atomic_rmw addi %{{.*}}, %[[ARRIVALS]][%[[SLOT]]] : (i32, memref<2xi32>) -> i32
// CHECK:       %[[SEEN:.*]], %{{.*}} = gpu.shuffle idx %[[BEFORE]], %[[ZERO]], %c64_i32 : i32
// The second (last) arrival resets the counter (lane 0) for the next
// launch, adds range 0, then range 1, and stores.
// CHECK:       %[[LAST:.*]] = arith.cmpi eq, %[[SEEN]], %c1_i32 : i32
// CHECK:       scf.if %[[LAST]] {
// CHECK-NEXT:    llvm.fence syncscope("agent") acquire
// CHECK-NEXT:    scf.if %[[LANE0]] {
// CHECK-NEXT:      memref.store %[[ZERO]], %[[ARRIVALS]][%[[SLOT]]] : memref<2xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R0:.*]] = vector.load %[[PARTIALS]][%c0, %[[AT0]]]
// CHECK-NEXT:    %[[R1:.*]] = vector.load %[[PARTIALS]][%c1, %[[AT0]]]
// CHECK-NEXT:    %[[SUM0:.*]] = arith.addf %[[R0]], %[[R1]] : vector<4xf32>
// CHECK:         qmm.wave_store %[[SUM0]], %{{.*}}, %{{.*}}, %{{.*}} into %arg4
// CHECK:       gpu.terminator
// CHECK:     memref.dealloc %[[ARRIVALS]]
// CHECK:     memref.dealloc %[[PARTIALS]]
func.func @per_tensor(%a: memref<32x512xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                      %b: memref<64x512xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                      %d: memref<32x64xbf16>) {
  qmm.matmul a(%a, %as : memref<32x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<64x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
             outs(%d : memref<32x64xbf16>)
  return
}

// -----

// Split-K, blockwise scales: K = 1024 in 16 tiles of 64, 4 ranges of 4
// tiles = 2 scale blocks each; the loop makes one trip per block (step 2)
// from the range's first tile, 4 x 64 = 256 of K per range. 32x32 MFMAs:
// 16 items per accumulator, stored as 4 runs of 4; per range 1 tile x 2
// accumulators x 4 runs x 128 threads x 4 = 4096 f32. The last of 4
// arrivals adds ranges 0 to 3 in order.
// CHECK-DAG: #[[FIRST:.*]] = affine_map<(d0)[s0] -> (d0 * 64 + s0 * 256)>
// CHECK-DAG: #[[SECOND:.*]] = affine_map<(d0)[s0] -> (d0 * 64 + s0 * 256 + 64)>
// CHECK-LABEL: func.func @blockwise
// CHECK:     %[[PARTIALS:.*]] = memref.alloc() : memref<4x4096xf32>
// CHECK:     gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:.*]]) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c4) threads
// CHECK:       scf.for %[[T:.*]] = %c0 to %c4 step %c2
// CHECK:         %[[K0:.*]] = affine.apply #[[FIRST]](%[[T]])[%[[BZ]]]
// CHECK:         qmm.wave_mma %arg0[%{{.*}}, %[[K0]]]
// CHECK:         %[[K1:.*]] = affine.apply #[[SECOND]](%[[T]])[%[[BZ]]]
// CHECK:         qmm.wave_mma %arg0[%{{.*}}, %[[K1]]]
// CHECK:         qmm.wave_scale_accumulate {{.*}} at[%{{.*}}, %{{.*}}, %[[K0]]]
// CHECK:       vector.shuffle %{{.*}}, %{{.*}} [12, 13, 14, 15] : vector<16xf32>, vector<16xf32>
// CHECK:       arith.cmpi eq, %{{.*}}, %c3_i32 : i32
// CHECK:       scf.if
// CHECK:         %[[P0:.*]] = vector.load %[[PARTIALS]][%c0, %[[AT:.*]]] : memref<4x4096xf32>, vector<4xf32>
// CHECK-NEXT:    %[[P1:.*]] = vector.load %[[PARTIALS]][%c1, %[[AT]]]
// CHECK-NEXT:    %[[S1:.*]] = arith.addf %[[P0]], %[[P1]]
// CHECK-NEXT:    %[[P2:.*]] = vector.load %[[PARTIALS]][%c2, %[[AT]]]
// CHECK-NEXT:    %[[S2:.*]] = arith.addf %[[S1]], %[[P2]]
// CHECK:         %[[P3:.*]] = vector.load %[[PARTIALS]][%c3, %[[AT]]]
// CHECK-NEXT:    %[[S3:.*]] = arith.addf %[[S2]], %[[P3]]
// Runs concatenated back into a 16-item accumulator.
// CHECK:         vector.shuffle %[[S3]], %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK:         qmm.wave_store
func.func @blockwise(%a: memref<64x1024xf8E4M3FNUZ>, %as: memref<64x8xf32>,
                     %b: memref<64x1024xf8E4M3FNUZ>, %bs: memref<1x8xf32>,
                     %d: memref<64x64xbf16>) {
  qmm.matmul a(%a, %as : memref<64x1024xf8E4M3FNUZ>, memref<64x8xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<64x1024xf8E4M3FNUZ>, memref<1x8xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [64, 64, 64], waves = [2, 1], mfma = fp8 [32, 32, 16], stages = 1, split = 4>
             outs(%d : memref<64x64xbf16>)
  return
}
