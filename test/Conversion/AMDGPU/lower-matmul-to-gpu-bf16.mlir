// RUN: fp8-opt %s --qmm-lower-matmul-to-gpu=chip=gfx950 --cse | FileCheck %s

// FNUZ data on gfx950 with mfma = bf16: each 8-byte fragment is converted
// exactly to bf16 (exponent rebias 127 - 8 = 119 for e4m3fnuz, subnormals
// as m * 2^-10 through f32, 0x80 -> NaN 0x7FC0) before the bf16 MFMA.
// CHECK-LABEL: func.func @fnuz_gfx950
// CHECK:       %[[FRAG:.*]] = vector.load %{{.*}} : memref<32x{{[0-9]+}}xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
// CHECK:       %[[BYTES:.*]] = arith.bitcast %[[FRAG]] : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:       arith.extui %[[BYTES]] : vector<8xi8> to vector<8xi16>
// CHECK:       arith.constant dense<119> : vector<8xi16>
// CHECK:       %[[SUBSCALE:.*]] = arith.constant dense<9.765625E-4> : vector<8xf32>
// CHECK:       %[[M:.*]] = arith.uitofp %{{.*}} : vector<8xi16> to vector<8xf32>
// CHECK:       arith.mulf %[[M]], %[[SUBSCALE]] : vector<8xf32>
// CHECK:       arith.constant dense<32704> : vector<8xi16>
// CHECK:       arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK:       amdgpu.mfma 16x16x32 {{.*}} : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
func.func @fnuz_gfx950(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                       %b: memref<32x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                       %d: memref<32x32xbf16>) {
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = bf16 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xbf16>)
  return
}
