// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-matmul-to-wgmma="chip=sm_90a"

// On NVIDIA only the wgmma kernels quantize an FP8 output (the reference
// lowering would quantize in host loops, which no kernel runs): an FP8
// output matmul the kernel does not take is an error naming the reason.

func.func @b_stored_kn(%a: memref<128x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<256x64xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x64xf8E4M3FN>, %s: memref<128x1xf32>) {
  // expected-error @+1 {{qmm-lower-matmul-to-wgmma: an FP8 output is quantized by the wgmma kernel only, which does not take this matmul: B stored [K, N]}}
  qmm.matmul a(%a, %sa : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<256x64xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor> layout kn
             outs(%d : memref<128x64xf8E4M3FN>)
             out_scales(%s : memref<128x1xf32>) #qmm.scale<block 1x128>
  return
}

// -----

// A block of 256 columns spans two of the kernel's 128-column tiles.
func.func @blocks_wider_than_a_tile(%a: memref<128x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<512x256xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x512xf8E4M3FN>, %s: memref<128x2xf32>) {
  // expected-error @+1 {{an FP8 output is quantized by the wgmma kernel only, which does not take this matmul: FP8 output scale blocks not dividing the kernel's tiles}}
  qmm.matmul a(%a, %sa : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<512x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x512xf8E4M3FN>)
             out_scales(%s : memref<128x2xf32>) #qmm.scale<block 1x256>
  return
}

// -----

// Blocks of 4 columns: narrower than the 8-column groups of the
// accumulator layout.
func.func @blocks_of_four(%a: memref<128x256xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<64x256xf8E4M3FN>, %sb: memref<1x1xf32>, %d: memref<128x64xf8E4M3FN>, %s: memref<128x16xf32>) {
  // expected-error @+1 {{FP8 output scale blocks not dividing the kernel's tiles}}
  qmm.matmul a(%a, %sa : memref<128x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %sb : memref<64x256xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<128x64xf8E4M3FN>)
             out_scales(%s : memref<128x16xf32>) #qmm.scale<block 1x4>
  return
}
