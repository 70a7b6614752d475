// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-lower-matmul-to-wgmma="chip=sm_90a"

// On NVIDIA a grouped matmul runs as the wgmma kernel only (the NVVM
// pipeline has no grouped reference loops): one the kernel does not take is
// an error naming the reason.

// A masked matmul's A scales are read through a [G Mmax, K / 128] view:
// blocks of 128 rows would cross 64-row groups.
func.func @masked_a_blocks_crossing_groups(%a: memref<2x64x128xf8E4M3FN>, %sa: memref<2x1x1xf32>, %b: memref<2x128x128xf8E4M3FN>, %sb: memref<2x1x1xf32>, %g: memref<2xi32>, %c: memref<2x64x128xbf16>) {
  // expected-error @+1 {{qmm-lower-matmul-to-wgmma: a grouped matmul runs as a wgmma kernel only, which does not take this one: A's scale blocks crossing a masked group's rows}}
  qmm.grouped_matmul masked a(%a, %sa : memref<2x64x128xf8E4M3FN>, memref<2x1x1xf32>) #qmm.scale<block 128x128> b(%b, %sb : memref<2x128x128xf8E4M3FN>, memref<2x1x1xf32>) #qmm.scale<block 128x128> groups(%g : memref<2xi32>) outs(%c : memref<2x64x128xbf16>)
  return
}

// -----

func.func @aux(%a: memref<128x128xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<2x64x128xf8E4M3FN>, %sb: memref<2x1x1xf32>, %g: memref<128xi32>, %c: memref<128x64xbf16>, %x: memref<128x64xf32>) {
  // expected-error @+1 {{qmm-lower-matmul-to-wgmma: a grouped matmul runs as a wgmma kernel only, which does not take this one: auxiliary outputs}}
  qmm.grouped_matmul contiguous a(%a, %sa : memref<128x128xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : memref<2x64x128xf8E4M3FN>, memref<2x1x1xf32>) #qmm.scale<per_tensor> groups(%g : memref<128xi32>) activation gelu_tanh outs(%c : memref<128x64xbf16>, aux %x : memref<128x64xf32>)
  return
}

// -----

func.func @k_not_multiple_of_16(%a: memref<128x136xf8E4M3FN>, %sa: memref<1x1xf32>, %b: memref<2x64x136xf8E4M3FN>, %sb: memref<2x1x1xf32>, %g: memref<128xi32>, %c: memref<128x64xbf16>) {
  // expected-error @+1 {{a grouped matmul runs as a wgmma kernel only, which does not take this one: K not a positive multiple of 16}}
  qmm.grouped_matmul contiguous a(%a, %sa : memref<128x136xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : memref<2x64x136xf8E4M3FN>, memref<2x1x1xf32>) #qmm.scale<per_tensor> groups(%g : memref<128xi32>) outs(%c : memref<128x64xbf16>)
  return
}

// -----

// (Not bufferized: the pass runs after bufferization in the pipeline.)
func.func @tensors(%a: tensor<128x128xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<2x64x128xf8E4M3FN>, %sb: tensor<2x1x1xf32>, %g: tensor<128xi32>, %c: tensor<128x64xbf16>) -> tensor<128x64xbf16> {
  // expected-error @+1 {{a grouped matmul runs as a wgmma kernel only, which does not take this one: not bufferized}}
  %0 = qmm.grouped_matmul contiguous a(%a, %sa : tensor<128x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<2x64x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor> groups(%g : tensor<128xi32>) outs(%c : tensor<128x64xbf16>) -> tensor<128x64xbf16>
  return %0 : tensor<128x64xbf16>
}

// -----

func.func @no_groups(%a: memref<0x64x128xf8E4M3FN>, %sa: memref<0x1x1xf32>, %b: memref<0x64x128xf8E4M3FN>, %sb: memref<0x1x1xf32>, %g: memref<0xi32>, %c: memref<0x64x64xbf16>) {
  // expected-error @+1 {{a grouped matmul runs as a wgmma kernel only, which does not take this one: no groups}}
  qmm.grouped_matmul masked a(%a, %sa : memref<0x64x128xf8E4M3FN>, memref<0x1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : memref<0x64x128xf8E4M3FN>, memref<0x1x1xf32>) #qmm.scale<per_tensor> groups(%g : memref<0xi32>) outs(%c : memref<0x64x64xbf16>)
  return
}
