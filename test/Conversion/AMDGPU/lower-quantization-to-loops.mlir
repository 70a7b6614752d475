// RUN: fp8-opt %s -split-input-file --qmm-lower-quantization-to-loops --cse | FileCheck %s
//
// qmm.quantize and qmm.dequantize become top-level scf.parallel loops (one
// kernel each after qmm-parallel-loops-to-gpu). Extents, block ranges and
// byte slots below are worked out by hand from the encodings and the
// packed storage rule (a row of E elements of w bits takes ceil(E w / 8)
// bytes).

// Per-token 1x128 over [64, 256]: step 1 runs over (row, K block) = (64, 2),
// a serial max over [128 kb, min(128 kb + 128, 256)), and stores the scale
// and its reciprocal; step 3 over every element, reading the reciprocal of
// block (row, k floordiv 128).
// CHECK-DAG:   #[[FIRST:.*]] = affine_map<(d0) -> (d0 * 128)>
// CHECK-DAG:   #[[END:.*]] = affine_map<(d0) -> (d0 * 128 + 128)>
// CHECK-DAG:   #[[BLOCK:.*]] = affine_map<(d0) -> (d0 floordiv 128)>
// CHECK-LABEL: func.func @per_token
// CHECK:         %[[RCP:.*]] = memref.alloc() : memref<64x2xf32>
// CHECK:         scf.parallel (%[[R:.*]], %[[KB:.*]]) = ({{.*}}) to (%c64, %c2)
// CHECK:           %[[LO:.*]] = affine.apply #[[FIRST]](%[[KB]])
// CHECK:           %[[HI:.*]] = affine.apply #[[END]](%[[KB]])
// CHECK:           %[[TOP:.*]] = arith.minui %[[HI]], %c256
// CHECK:           scf.for %[[K:.*]] = %[[LO]] to %[[TOP]]
// CHECK:             memref.load %arg0[%[[R]], %[[K]]]
// CHECK:             math.absf
// CHECK:             arith.maximumf
// CHECK:           arith.divf
// CHECK:           memref.store %{{.*}}, %[[RCP]][%[[R]], %[[KB]]]
// CHECK:           memref.store %{{.*}}, %arg2[%[[R]], %[[KB]]] : memref<64x2xf32>
// CHECK:         scf.parallel (%[[R2:.*]], %[[K2:.*]]) = ({{.*}}) to (%c64, %c256)
// CHECK:           %[[B:.*]] = affine.apply #[[BLOCK]](%[[K2]])
// CHECK:           memref.load %[[RCP]][%[[R2]], %[[B]]]
// CHECK:           arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK:           memref.store %{{.*}}, %arg1[%[[R2]], %[[K2]]] : memref<64x256xf8E4M3FN>
// CHECK:         memref.dealloc %[[RCP]]
func.func @per_token(%x: memref<64x256xf32>, %q: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>) {
  qmm.quantize %x : memref<64x256xf32> encoding #qmm.scale<block 1x128>
    outs(%q, %s : memref<64x256xf8E4M3FN>, memref<64x2xf32>)
  return
}

// -----

// Per-tensor: the two-pass amax. Step 1 per row over all of K (100) into
// a [48, 1] temporary; step 2 one iteration, a serial max over the 48 rows,
// then the scale; step 3 the elements with the one reciprocal.
// CHECK-LABEL: func.func @per_tensor
// CHECK:         %[[RCP:.*]] = memref.alloc() : memref<1x1xf32>
// CHECK:         %[[PART:.*]] = memref.alloc() : memref<48x1xf32>
// CHECK:         scf.parallel (%[[R:.*]], %[[KB:.*]]) = ({{.*}}) to (%c48, %c1)
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c100
// CHECK:             arith.extf %{{.*}} : bf16 to f32
// CHECK:           memref.store %{{.*}}, %[[PART]][%[[R]], %[[KB]]]
// CHECK:         scf.parallel (%{{.*}}, %[[KB2:.*]]) = ({{.*}}) to (%c1, %c1)
// CHECK:           scf.for %[[ROW:.*]] = %{{.*}} to %c48
// CHECK:             memref.load %[[PART]][%[[ROW]], %[[KB2]]]
// CHECK:           memref.store %{{.*}}, %arg2[%{{.*}}, %[[KB2]]] : memref<1x1xf32>
// CHECK:         scf.parallel ({{.*}}) to (%c48, %c100)
// CHECK:           arith.truncf %{{.*}} : f32 to f8E5M2FNUZ
// CHECK:         memref.dealloc %[[PART]]
// CHECK:         memref.dealloc %[[RCP]]
func.func @per_tensor(%x: memref<48x100xbf16>, %q: memref<48x100xf8E5M2FNUZ>, %s: memref<1x1xf32>) {
  qmm.quantize %x : memref<48x100xbf16> encoding #qmm.scale<per_tensor>
    outs(%q, %s : memref<48x100xf8E5M2FNUZ>, memref<1x1xf32>)
  return
}

// -----

// A dynamic number of rows: the loops and the temporary take memref.dim;
// MN-major scales are stored transposed ([K block, row]).
// CHECK-LABEL: func.func @mn_major_dynamic
// CHECK:         %[[M:.*]] = memref.dim %arg1, %{{.*}} : memref<?x256xf8E4M3FNUZ>
// CHECK:         %[[RCP:.*]] = memref.alloc(%[[M]]) : memref<?x2xf32>
// CHECK:         scf.parallel (%[[R:.*]], %[[KB:.*]]) = ({{.*}}) to (%[[M]], %c2)
// CHECK:           memref.store %{{.*}}, %[[RCP]][%[[R]], %[[KB]]] : memref<?x2xf32>
// CHECK:           memref.store %{{.*}}, %arg2[%[[KB]], %[[R]]] : memref<2x?xf32>
// CHECK:         scf.parallel ({{.*}}) to (%[[M]], %{{.*}})
func.func @mn_major_dynamic(%x: memref<?x256xf16>, %q: memref<?x256xf8E4M3FNUZ>, %s: memref<2x?xf32>) {
  qmm.quantize %x : memref<?x256xf16> encoding #qmm.scale<block 1x128, mn_major>
    outs(%q, %s : memref<?x256xf8E4M3FNUZ>, memref<2x?xf32>)
  return
}

// -----

// MX FP6 in layout kn: data [K = 64, rows = 37], packed along the rows: a
// stored row of 37 codes takes ceil(37 * 6 / 8) = 28 bytes, groups of 4
// codes 3 bytes: 9 whole groups at 28 k + 3 g, then a tail group of 1 code
// at byte 28 k + 27. The input is read transposed, [k, row].
// CHECK-DAG:   #[[SLOT:.*]] = affine_map<(d0, d1) -> (d0 * 28 + d1 * 3)>
// CHECK-DAG:   #[[TAIL:.*]] = affine_map<(d0) -> (d0 * 28 + 27)>
// CHECK-LABEL: func.func @fp6_kn_tail
// CHECK:         scf.parallel (%[[R:.*]], %{{.*}}) = ({{.*}}) to (%c37, %{{.*}})
// CHECK:           memref.load %arg0[%{{.*}}, %[[R]]] : memref<64x37xf32>
// CHECK:           arith.truncf %{{.*}} : f32 to f8E8M0FNU
// CHECK:         %[[FLAT:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [2368], strides: [1] : memref<64x37xf6E2M3FN> to memref<2368xf6E2M3FN>
// CHECK:         scf.parallel (%[[K:.*]], %[[G:.*]]) = ({{.*}}) to (%c64, %c9)
// CHECK:           %[[S:.*]] = affine.apply #[[SLOT]](%[[K]], %[[G]])
// CHECK-COUNT-4:   arith.truncf %{{.*}} : f32 to f6E2M3FN
// CHECK:           %[[V:.*]] = vector.from_elements {{.*}} : vector<4xf6E2M3FN>
// CHECK:           vector.store %[[V]], %[[FLAT]][%[[S]]] : memref<2368xf6E2M3FN>, vector<4xf6E2M3FN>
// CHECK:         scf.parallel (%[[K2:.*]]) = ({{.*}}) to (%c64)
// CHECK:           %[[S2:.*]] = affine.apply #[[TAIL]](%[[K2]])
// CHECK:           vector.store %{{.*}}, %[[FLAT]][%[[S2]]] : memref<2368xf6E2M3FN>, vector<1xf6E2M3FN>
func.func @fp6_kn_tail(%x: memref<64x37xf32>, %q: memref<64x37xf6E2M3FN>, %s: memref<37x2xf8E8M0FNU>) {
  qmm.quantize %x : memref<64x37xf32> encoding #qmm.scale<mx> layout kn
    outs(%q, %s : memref<64x37xf6E2M3FN>, memref<37x2xf8E8M0FNU>)
  return
}

// -----

// Dequantization of MX FP4 [16, 64]: rows of 32 bytes, one byte (2 codes)
// per iteration at 32 r + g, each code times its block's E8M0 scale
// (column floordiv 32), rounded to bf16.
// CHECK-DAG:   #[[SLOT:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 32)>
// CHECK-LABEL: func.func @dequantize_fp4
// CHECK:         %[[FLAT:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [1024], strides: [1]
// CHECK:         scf.parallel (%[[R:.*]], %[[G:.*]]) = ({{.*}}) to (%c16, %c32)
// CHECK:           %[[S:.*]] = affine.apply #[[SLOT]](%[[G]], %[[R]])
// CHECK:           %[[V:.*]] = vector.load %[[FLAT]][%[[S]]] : memref<1024xf4E2M1FN>, vector<2xf4E2M1FN>
// CHECK:           vector.extract %[[V]][0]
// CHECK:           arith.extf %{{.*}} : f8E8M0FNU to f32
// CHECK:           arith.extf %{{.*}} : f4E2M1FN to f32
// CHECK:           arith.mulf
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           vector.extract %[[V]][1]
// CHECK-NOT:     qmm.dequantize
func.func @dequantize_fp4(%q: memref<16x64xf4E2M1FN>, %s: memref<16x2xf8E8M0FNU>, %o: memref<16x64xbf16>) {
  qmm.dequantize %q, %s : memref<16x64xf4E2M1FN>, memref<16x2xf8E8M0FNU> encoding #qmm.scale<mx>
    outs(%o : memref<16x64xbf16>)
  return
}
