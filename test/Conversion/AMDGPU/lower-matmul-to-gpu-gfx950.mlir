// RUN: fp8-opt %s --qmm-lower-matmul-to-gpu=chip=gfx950 --cse | FileCheck %s --check-prefix=GFX950


// gfx950 f8f6f4: each fragment is two 16-byte runs half the instruction's K
// (64) apart, joined into vector<32>; rows padded by 16 bytes.
// GFX950-LABEL: func.func @per_row_gfx950
// GFX950:       workgroup(%[[LDSA:.*]] : memref<32x144xf8E4M3FN, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x144xf8E5M2, #gpu.address_space<workgroup>>)
// GFX950:         %[[LO:.*]] = vector.load %[[LDSA]][%{{.*}}, %[[K:.*]]] : {{.*}}, vector<16xf8E4M3FN>
// GFX950:         %[[K2:.*]] = arith.addi %{{.*}}, %c64
// GFX950:         %[[HI:.*]] = vector.load %[[LDSA]][%{{.*}}, %[[K2]]] : {{.*}}, vector<16xf8E4M3FN>
// GFX950:         vector.shuffle %[[LO]], %[[HI]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
// B's fragment is the instruction's first operand (transposed tile).
// GFX950:         amdgpu.mfma 16x16x128 {{.*}} : vector<32xf8E5M2>, vector<32xf8E4M3FN>, vector<4xf32>
// Per-row scales of one K block: the whole K, so one iteration.
// GFX950:       memref.load %arg1
// With `accumulate`, the output is read and added before the conversion.
// GFX950:       vector.load %arg4[{{.*}}] : memref<32x32xf32>, vector<4xf32>
// GFX950:       arith.addf %{{.*}} : vector<4xf32>
// GFX950:       vector.store %{{.*}}, %arg4[{{.*}}] : memref<32x32xf32>, vector<4xf32>
func.func @per_row_gfx950(%a: memref<32x128xf8E4M3FN>, %as: memref<32x1xf32>,
                          %b: memref<32x128xf8E5M2>, %bs: memref<32x1xf32>,
                          %d: memref<32x32xf32>) {
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FN>, memref<32x1xf32>) #qmm.scale<per_row>
             b(%b, %bs : memref<32x128xf8E5M2>, memref<32x1xf32>) #qmm.scale<per_row>
             accumulate
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = f8f6f4 [16, 16, 128], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

