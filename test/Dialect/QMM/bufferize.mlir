// RUN: fp8-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s

// The tensor form bufferizes to the memref form, writing the destination in
// place: the function argument's buffer is the output.
// CHECK-LABEL: func.func @matmul_in_place
// CHECK-SAME: (%[[A:.*]]: memref<64x128xf8E4M3FN, {{.*}}>, %[[SA:.*]]: memref<64x1xf32, {{.*}}>, %[[B:.*]]: memref<32x128xf8E4M3FN, {{.*}}>, %[[SB:.*]]: memref<1x32xf32, {{.*}}>, %[[C:.*]]: memref<64x32xbf16, {{.*}}>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: qmm.matmul a(%[[A]], %[[SA]] : {{.*}}) #qmm.scale<per_row> b(%[[B]], %[[SB]] : {{.*}}) #qmm.scale<per_row, mn_major> outs(%[[C]] : memref<64x32xbf16, {{.*}}>){{$}}
// CHECK: return %[[C]]
func.func @matmul_in_place(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x1xf32>,
                           %b: tensor<32x128xf8E4M3FN>, %sb: tensor<1x32xf32>,
                           %c: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<1x32xf32>) #qmm.scale<per_row, mn_major>
                  outs(%c : tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %d : tensor<64x32xbf16>
}

// -----

// A destination from tensor.empty becomes a fresh buffer, not a copy: a
// non-accumulating matmul never reads its destination.
// CHECK-LABEL: func.func @matmul_fresh_destination
// CHECK: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<64x32xf32>
// CHECK-NOT: memref.copy
// CHECK: qmm.matmul {{.*}} outs(%[[ALLOC]] : memref<64x32xf32>)
// CHECK: return %[[ALLOC]]
func.func @matmul_fresh_destination(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>,
                                    %b: tensor<32x128xf8E4M3FNUZ>, %sb: tensor<1x1xf32>) -> tensor<64x32xf32> {
  %c = tensor.empty() : tensor<64x32xf32>
  %d = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

// An accumulating matmul reads its destination: when the original C is still
// used afterwards, bufferization must copy it rather than overwrite it.
// CHECK-LABEL: func.func @accumulate_preserves_c
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<16x16xf32
// CHECK: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<16x16xf32>
// CHECK: memref.copy %[[C]], %[[ALLOC]]
// CHECK: qmm.matmul {{.*}} accumulate outs(%[[ALLOC]] : memref<16x16xf32>)
// CHECK: return %[[ALLOC]], %[[C]]
func.func @accumulate_preserves_c(%a: tensor<16x32xf8E4M3FN>, %sa: tensor<1x1xf32>,
                                  %b: tensor<16x32xf8E4M3FN>, %sb: tensor<1x1xf32>,
                                  %c: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %d = qmm.matmul a(%a, %sa : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  accumulate
                  outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %d, %c : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// quantize -> matmul chain; the quantized data and scales live in fresh
// buffers that the matmul reads.
// CHECK-LABEL: func.func @quantize_then_matmul
// CHECK-DAG: %[[Q:.*]] = memref.alloc() {{.*}} : memref<32x256xf8E4M3FN>
// CHECK-DAG: %[[S:.*]] = memref.alloc() {{.*}} : memref<32x2xf32>
// CHECK: qmm.quantize %{{.*}} : memref<32x256xbf16, {{.*}}> encoding #qmm.scale<block 1x128> outs(%[[Q]], %[[S]] : memref<32x256xf8E4M3FN>, memref<32x2xf32>)
// CHECK: qmm.matmul a(%[[Q]], %[[S]] : memref<32x256xf8E4M3FN>, memref<32x2xf32>)
func.func @quantize_then_matmul(%x: tensor<32x256xbf16>, %w: tensor<64x256xf8E4M3FN>,
                                %sw: tensor<1x2xf32>) -> tensor<32x64xbf16> {
  %q0 = tensor.empty() : tensor<32x256xf8E4M3FN>
  %s0 = tensor.empty() : tensor<32x2xf32>
  %q, %s = qmm.quantize %x : tensor<32x256xbf16> encoding #qmm.scale<block 1x128>
             outs(%q0, %s0 : tensor<32x256xf8E4M3FN>, tensor<32x2xf32>)
             -> tensor<32x256xf8E4M3FN>, tensor<32x2xf32>
  %c = tensor.empty() : tensor<32x64xbf16>
  %d = qmm.matmul a(%q, %s : tensor<32x256xf8E4M3FN>, tensor<32x2xf32>) #qmm.scale<block 1x128>
                  b(%w, %sw : tensor<64x256xf8E4M3FN>, tensor<1x2xf32>) #qmm.scale<block 128x128>
                  outs(%c : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  return %d : tensor<32x64xbf16>
}

// -----

// CHECK-LABEL: func.func @dequantize
// CHECK: %[[X:.*]] = memref.alloc() {{.*}} : memref<64x64xbf16>
// CHECK: qmm.dequantize %{{.*}}, %{{.*}} : memref<64x64xf4E2M1FN, {{.*}}>, memref<64x2xf8E8M0FNU, {{.*}}> encoding #qmm.scale<mx> outs(%[[X]] : memref<64x64xbf16>)
func.func @dequantize(%q: tensor<64x64xf4E2M1FN>, %s: tensor<64x2xf8E8M0FNU>) -> tensor<64x64xbf16> {
  %x0 = tensor.empty() : tensor<64x64xbf16>
  %x = qmm.dequantize %q, %s : tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU> encoding #qmm.scale<mx>
         outs(%x0 : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %x : tensor<64x64xbf16>
}
