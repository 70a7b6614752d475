// RUN: fp8-opt %s -split-input-file --qmm-lower-matmul-to-gpu=chip=gfx942 --cse | FileCheck %s --check-prefix=GFX942

// gfx942, 1x128 x 128x128 blockwise, M and N not multiples of the tile:
// grid ceil(48/32) x ceil(40/32) = 2 x 2 workgroups of 2 x 2 waves; A and B
// tiles of 32 rows x (128 + 8) bytes in LDS; one scale block per K block.
// GFX942-LABEL: func.func @blockwise_gfx942
// GFX942-DAG:   %[[C2:.*]] = arith.constant 2 : index
// GFX942-DAG:   %[[C256:.*]] = arith.constant 256 : index
// GFX942:       gpu.launch blocks({{.*}}) in ({{.*}} = %[[C2]], {{.*}} = %[[C2]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C256]],
// GFX942-SAME:    workgroup(%[[LDSA:.*]] : memref<32x136xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %[[LDSB:.*]] : memref<32x136xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// The K-block loop (256 / 128 = 2 blocks) around the K-tile loop.
// GFX942:         scf.for %{{.*}} = %{{.*}} to %[[C2]] step
// GFX942:           scf.for
// GFX942:             gpu.barrier
// Rows past M are clamped to row 39.
// GFX942:             arith.minui %{{.*}}, %c39
// GFX942:             vector.load %arg0[{{.*}}] : memref<40x256xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
// GFX942:             vector.store %{{.*}}, %[[LDSA]]
// GFX942:             arith.minui %{{.*}}, %c47
// GFX942:             vector.store %{{.*}}, %[[LDSB]]
// GFX942:             gpu.barrier
// The MFMA computes the transposed tile (B fragment first) so that each
// lane ends up with 4 consecutive output columns of one row.
// GFX942:             %[[AF:.*]] = vector.load %[[LDSA]]{{.*}} vector<8xf8E4M3FNUZ>
// GFX942:             %[[BF:.*]] = vector.load %[[LDSB]]{{.*}} vector<8xf8E4M3FNUZ>
// GFX942:             amdgpu.mfma 16x16x32 %[[BF]] * %[[AF]]
// The block's partial sums are scaled once, scales loaded per block.
// GFX942:           memref.load %arg1
// GFX942:           memref.load %arg3
// GFX942:           arith.mulf
// GFX942:           vector.fma
// Epilogue: rows past M skipped; 4 columns stored at once when all are
// inside (col < 48 - 3), else one by one.
// GFX942:         %[[ROWOK:.*]] = arith.cmpi ult, %{{.*}}, %c40
// GFX942:         scf.if %[[ROWOK]] {
// GFX942:           %[[FITS:.*]] = arith.cmpi ult, %{{.*}}, %c45
// GFX942:           scf.if %[[FITS]] {
// GFX942:             arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// GFX942:             vector.store %{{.*}}, %arg4[{{.*}}] : memref<40x48xbf16>, vector<4xbf16>
// GFX942:           } else {
// GFX942:             arith.cmpi ult, %{{.*}}, %c48
// GFX942:             arith.truncf %{{.*}} : f32 to bf16
// GFX942:             memref.store %{{.*}}, %arg4
// GFX942-NOT:   qmm.matmul
func.func @blockwise_gfx942(%a: memref<40x256xf8E4M3FNUZ>, %as: memref<40x2xf32>,
                            %b: memref<48x256xf8E4M3FNUZ>, %bs: memref<1x2xf32>,
                            %d: memref<40x48xbf16>) {
  qmm.matmul a(%a, %as : memref<40x256xf8E4M3FNUZ>, memref<40x2xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<48x256xf8E4M3FNUZ>, memref<1x2xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<40x48xbf16>)
  return
}

// -----

// A K tail (K = 80 with tile K 64): chunks wholly inside K (start < 80 -
// 16 + 1) are loaded, the others are zeros.
// GFX942-LABEL: func.func @k_tail
// GFX942:       %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c65
// GFX942:       scf.if %[[IN]] -> (vector<16xf8E4M3FNUZ>)
// GFX942:         vector.load %arg0
// GFX942:       } else {
// GFX942:         arith.constant dense<0.000000e+00> : vector<16xf8E4M3FNUZ>
// GFX942:       amdgpu.mfma 32x32x16
func.func @k_tail(%a: memref<33x80xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                  %b: memref<17x80xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                  %d: memref<33x17xf16>) {
  qmm.matmul a(%a, %as : memref<33x80xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<17x80xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [64, 32, 64], waves = [2, 1], mfma = fp8 [32, 32, 16], stages = 1>
             outs(%d : memref<33x17xf16>)
  return
}

// -----

// K = 40, not a multiple of 16: the chunk that crosses K loads byte by byte
// (indices clamped to K - 1, zeros selected past K).
// GFX942-LABEL: func.func @k_not_multiple_of_16
// GFX942:       %[[WHOLE:.*]] = arith.cmpi ult, %{{.*}}, %c25
// GFX942:       scf.if %[[WHOLE]] -> (vector<16xf8E4M3FNUZ>)
// GFX942:         vector.load %arg0
// GFX942:       } else {
// GFX942:         %[[K:.*]] = arith.minui %{{.*}}, %c39
// GFX942:         memref.load %arg0[%{{.*}}, %[[K]]]
// GFX942:         arith.select
// GFX942:         vector.from_elements {{.*}} : vector<16xf8E4M3FNUZ>
func.func @k_not_multiple_of_16(%a: memref<32x40xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                                %b: memref<32x40xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                                %d: memref<32x32xf32>) {
  qmm.matmul a(%a, %as : memref<32x40xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x40xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

// stages = 2: two LDS buffers per operand; tile 0 is staged before the loop,
// each iteration stages tile t + 1 into buffer (t + 1) % 2 while multiplying
// out of buffer t % 2, scales a block's partials after its last tile
// (128 / 64 = 2 tiles per block), and ends with the one barrier.
// GFX942-LABEL: func.func @double_buffered
// GFX942:       workgroup(%[[LDSA:.*]] : memref<2x32x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x16x72xf8E4M3FNUZ, #gpu.address_space<workgroup>>)
// GFX942:         vector.store %{{.*}}, %[[LDSA]][%c0, %{{.*}}, %{{.*}}]
// GFX942:         gpu.barrier
// GFX942:         scf.for %[[T:.*]] = %c0 to %c4 step %c1 iter_args(
// GFX942:           %[[NEXT:.*]] = arith.addi %[[T]], %c1
// GFX942:           %[[MORE:.*]] = arith.cmpi ult, %[[NEXT]], %c4
// GFX942:           scf.if %[[MORE]] {
// GFX942:             %[[NSTAGE:.*]] = arith.remui %[[NEXT]], %c2
// GFX942:             vector.store %{{.*}}, %[[LDSA]][%[[NSTAGE]], %{{.*}}, %{{.*}}]
// GFX942:           }
// GFX942:           %[[STAGE:.*]] = arith.remui %[[T]], %c2
// GFX942:           vector.load %[[LDSA]][%[[STAGE]], %{{.*}}, %{{.*}}] {{.*}} vector<8xf8E4M3FNUZ>
// GFX942:           amdgpu.mfma 16x16x32
// GFX942:           %[[ENDS:.*]] = arith.ori
// GFX942:           scf.if %[[ENDS]] -> (vector<4xf32>, vector<4xf32>)
// GFX942:             vector.fma
// GFX942:           gpu.barrier
// GFX942-NEXT:      scf.yield
func.func @double_buffered(%a: memref<32x256xf8E4M3FNUZ>, %as: memref<32x2xf32>,
                           %b: memref<16x256xf8E4M3FNUZ>, %bs: memref<1x2xf32>,
                           %d: memref<32x16xf32>) {
  qmm.matmul a(%a, %as : memref<32x256xf8E4M3FNUZ>, memref<32x2xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<16x256xf8E4M3FNUZ>, memref<1x2xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [32, 16, 64], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 2>
             outs(%d : memref<32x16xf32>)
  return
}
