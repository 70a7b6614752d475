// RUN: fp8-opt %s -split-input-file --qmm-copy-strided-operands | FileCheck %s

// B read with a stride of 2 along K (a tensor.extract_slice [0, 1] [16,
// 128] [1, 2] after bufferization): copied into a contiguous buffer, which
// the matmul reads. A (identity) and the scales are left alone.
// CHECK-LABEL: func.func @strided_b
// CHECK-SAME:    (%[[A:.*]]: memref<32x128xf8E4M3FN>, %[[SA:.*]]: memref<32x1xf32>, %[[BB:.*]]: memref<16x256xf8E4M3FN>, %[[SB:.*]]: memref<16x1xf32>, %[[C:.*]]: memref<32x16xf32>)
// CHECK:         %[[VIEW:.*]] = memref.subview %[[BB]][0, 1] [16, 128] [1, 2]
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc() : memref<16x128xf8E4M3FN>
// CHECK-NEXT:    linalg.copy ins(%[[VIEW]] : memref<16x128xf8E4M3FN, strided<[256, 2], offset: 1>>) outs(%[[COPY]] : memref<16x128xf8E4M3FN>)
// CHECK-NEXT:    qmm.matmul a(%[[A]], %[[SA]] : {{.*}}) {{.*}} b(%[[COPY]], %[[SB]] : memref<16x128xf8E4M3FN>, memref<16x1xf32>) {{.*}} outs(%[[C]] : memref<32x16xf32>)
// CHECK-NEXT:    return
func.func @strided_b(%a: memref<32x128xf8E4M3FN>, %sa: memref<32x1xf32>,
                     %bb: memref<16x256xf8E4M3FN>, %sb: memref<16x1xf32>,
                     %c: memref<32x16xf32>) {
  %b = memref.subview %bb[0, 1] [16, 128] [1, 2] : memref<16x256xf8E4M3FN> to memref<16x128xf8E4M3FN, strided<[256, 2], offset: 1>>
  qmm.matmul a(%a, %sa : memref<32x128xf8E4M3FN>, memref<32x1xf32>) #qmm.scale<per_row>
             b(%b, %sb : memref<16x128xf8E4M3FN, strided<[256, 2], offset: 1>>, memref<16x1xf32>) #qmm.scale<per_row>
             outs(%c : memref<32x16xf32>)
  return
}

// -----

// An init whose columns are strided (D written into every other column of
// a wider buffer, accumulating): copied in before the matmul (it reads C)
// and back out after it.
// CHECK-LABEL: func.func @strided_init
// CHECK:         %[[VIEW:.*]] = memref.subview
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc() : memref<32x16xbf16>
// CHECK-NEXT:    linalg.copy ins(%[[VIEW]] : {{.*}}) outs(%[[COPY]] : memref<32x16xbf16>)
// CHECK-NEXT:    qmm.matmul {{.*}} outs(%[[COPY]] : memref<32x16xbf16>)
// CHECK-NEXT:    linalg.copy ins(%[[COPY]] : memref<32x16xbf16>) outs(%[[VIEW]] : memref<32x16xbf16, strided<[32, 2]>>)
// CHECK-NEXT:    return
func.func @strided_init(%a: memref<32x128xf8E4M3FN>, %sa: memref<32x1xf32>,
                        %b: memref<16x128xf8E4M3FN>, %sb: memref<16x1xf32>,
                        %cc: memref<32x32xbf16>) {
  %c = memref.subview %cc[0, 0] [32, 16] [1, 2] : memref<32x32xbf16> to memref<32x16xbf16, strided<[32, 2]>>
  qmm.matmul a(%a, %sa : memref<32x128xf8E4M3FN>, memref<32x1xf32>) #qmm.scale<per_row>
             b(%b, %sb : memref<16x128xf8E4M3FN>, memref<16x1xf32>) #qmm.scale<per_row>
             accumulate outs(%c : memref<32x16xbf16, strided<[32, 2]>>)
  return
}

// -----

// A batch slice (an offset and a row stride, unit stride along K), the
// kernels' vector accesses read as it is: nothing to copy.
// CHECK-LABEL: func.func @batch_slice
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.copy
// CHECK:         qmm.matmul
func.func @batch_slice(%aa: memref<2x32x128xf8E4M3FN>, %sa: memref<32x1xf32>,
                       %b: memref<16x128xf8E4M3FN>, %sb: memref<16x1xf32>,
                       %c: memref<32x16xf32>) {
  %a = memref.subview %aa[1, 0, 0] [1, 32, 128] [1, 1, 1] : memref<2x32x128xf8E4M3FN> to memref<32x128xf8E4M3FN, strided<[128, 1], offset: 4096>>
  qmm.matmul a(%a, %sa : memref<32x128xf8E4M3FN, strided<[128, 1], offset: 4096>>, memref<32x1xf32>) #qmm.scale<per_row>
             b(%b, %sb : memref<16x128xf8E4M3FN>, memref<16x1xf32>) #qmm.scale<per_row>
             outs(%c : memref<32x16xf32>)
  return
}

// -----

// A transposed view of A (its last dimension strided by 32) with a dynamic
// M: the copy takes M from the view.
// CHECK-LABEL: func.func @transposed_dynamic
// CHECK:         %[[VIEW:.*]] = memref.transpose
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[M:.*]] = memref.dim %[[VIEW]], %[[C0]]
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc(%[[M]]) : memref<?x128xf8E4M3FN>
// CHECK-NEXT:    linalg.copy ins(%[[VIEW]] : {{.*}}) outs(%[[COPY]] : memref<?x128xf8E4M3FN>)
// CHECK-NEXT:    qmm.matmul a(%[[COPY]], %{{.*}} : memref<?x128xf8E4M3FN>, memref<?x1xf32>)
func.func @transposed_dynamic(%at: memref<128x?xf8E4M3FN>, %sa: memref<?x1xf32>,
                              %b: memref<16x128xf8E4M3FN>, %sb: memref<16x1xf32>,
                              %c: memref<?x16xf32>) {
  %a = memref.transpose %at (d0, d1) -> (d1, d0) : memref<128x?xf8E4M3FN> to memref<?x128xf8E4M3FN, strided<[1, ?]>>
  qmm.matmul a(%a, %sa : memref<?x128xf8E4M3FN, strided<[1, ?]>>, memref<?x1xf32>) #qmm.scale<per_row>
             b(%b, %sb : memref<16x128xf8E4M3FN>, memref<16x1xf32>) #qmm.scale<per_row>
             config #qmm.config<tile = [32, 16, 128], waves = [2, 1], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%c : memref<?x16xf32>)
  return
}

// -----

// Quantize a strided f32 view; dequantize into a strided output.
// CHECK-LABEL: func.func @quantization
// CHECK:         memref.alloc() : memref<16x128xf32>
// CHECK-NEXT:    linalg.copy
// CHECK-NEXT:    qmm.quantize %{{.*}} : memref<16x128xf32>
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<16x128xbf16>
// CHECK-NEXT:    linalg.copy
// CHECK-NEXT:    qmm.dequantize {{.*}} outs(%[[OUT]] : memref<16x128xbf16>)
// CHECK-NEXT:    linalg.copy ins(%[[OUT]] : memref<16x128xbf16>)
func.func @quantization(%xx: memref<16x256xf32>, %q: memref<16x128xf8E4M3FN>,
                        %s: memref<16x1xf32>, %yy: memref<16x256xbf16>) {
  %x = memref.subview %xx[0, 0] [16, 128] [1, 2] : memref<16x256xf32> to memref<16x128xf32, strided<[256, 2]>>
  qmm.quantize %x : memref<16x128xf32, strided<[256, 2]>> encoding #qmm.scale<per_row>
    outs(%q, %s : memref<16x128xf8E4M3FN>, memref<16x1xf32>)
  %y = memref.subview %yy[0, 1] [16, 128] [1, 2] : memref<16x256xbf16> to memref<16x128xbf16, strided<[256, 2], offset: 1>>
  qmm.dequantize %q, %s : memref<16x128xf8E4M3FN>, memref<16x1xf32> encoding #qmm.scale<per_row>
    outs(%y : memref<16x128xbf16, strided<[256, 2], offset: 1>>)
  return
}

// -----

// The quantization loops index whole buffers: a batch slice (an offset,
// unit stride along the rows) is copied too, unlike a matmul's.
// CHECK-LABEL: func.func @quantize_batch_slice
// CHECK:         %[[VIEW:.*]] = memref.subview
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc() : memref<16x128xbf16>
// CHECK-NEXT:    linalg.copy ins(%[[VIEW]] : memref<16x128xbf16, strided<[128, 1], offset: 2048>>) outs(%[[COPY]] : memref<16x128xbf16>)
// CHECK-NEXT:    qmm.quantize %[[COPY]] : memref<16x128xbf16>
func.func @quantize_batch_slice(%xx: memref<2x16x128xbf16>, %q: memref<16x128xf8E4M3FN>,
                                %s: memref<16x1xf32>) {
  %x = memref.subview %xx[1, 0, 0] [1, 16, 128] [1, 1, 1] : memref<2x16x128xbf16> to memref<16x128xbf16, strided<[128, 1], offset: 2048>>
  qmm.quantize %x : memref<16x128xbf16, strided<[128, 1], offset: 2048>> encoding #qmm.scale<per_row>
    outs(%q, %s : memref<16x128xf8E4M3FN>, memref<16x1xf32>)
  return
}

// -----

// Packed FP4 data cannot be copied element by element (two values share a
// byte): a strided FP4 view is left to qmm-tile-matmul, which refuses it.
// CHECK-LABEL: func.func @packed
// CHECK-NOT:     linalg.copy
// CHECK:         qmm.matmul
func.func @packed(%aa: memref<32x256xf4E2M1FN>, %sa: memref<32x1xf32>,
                  %b: memref<16x128xf8E4M3FN>, %sb: memref<16x1xf32>,
                  %c: memref<32x16xf32>) {
  %a = memref.subview %aa[0, 0] [32, 128] [1, 2] : memref<32x256xf4E2M1FN> to memref<32x128xf4E2M1FN, strided<[256, 2]>>
  qmm.matmul a(%a, %sa : memref<32x128xf4E2M1FN, strided<[256, 2]>>, memref<32x1xf32>) #qmm.scale<per_row>
             b(%b, %sb : memref<16x128xf8E4M3FN>, memref<16x1xf32>) #qmm.scale<per_row>
             outs(%c : memref<32x16xf32>)
  return
}
