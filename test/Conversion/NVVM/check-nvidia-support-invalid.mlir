// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-check-nvidia-support="chip=sm_90a"
// RUN: not fp8-opt %s --qmm-check-nvidia-support="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: qmm-check-nvidia-support: unknown chip 'sm_80' (expected sm_90a)

// Hopper's tensor cores read OCP FP8 only.
func.func @fnuz(%a: tensor<64x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>, %b: tensor<32x128xf8E4M3FNUZ>, %sb: tensor<1x1xf32>, %c: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  // expected-error @+1 {{qmm-check-nvidia-support: sm_90a reads OCP FP8 (f8E4M3FN, f8E5M2) in its tensor cores; A is 'f8E4M3FNUZ'}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// -----

func.func @fp4_b(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x4xf8E8M0FNU>, %b: tensor<32x128xf4E2M1FN>, %sb: tensor<32x4xf8E8M0FNU>, %c: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  // expected-error @+1 {{B is 'f4E2M1FN'}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) #qmm.scale<mx> b(%b, %sb : tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>) #qmm.scale<mx> outs(%c : tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// -----

func.func @mx_fp8(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x4xf8E8M0FNU>, %b: tensor<32x128xf8E4M3FN>, %sb: tensor<32x4xf8E8M0FNU>, %c: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  // expected-error @+1 {{qmm-check-nvidia-support: MX scales (E8M0 per 32 elements) need block-scaled MMA, which sm_90a does not have}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) #qmm.scale<mx> b(%b, %sb : tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>) #qmm.scale<mx> outs(%c : tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// -----

// M may be known at run time only; N may not.
func.func @dynamic_n(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<?x128xf8E4M3FN>, %sb: tensor<1x1xf32>, %c: tensor<64x?xbf16>) -> tensor<64x?xbf16> {
  // expected-error @+1 {{qmm-check-nvidia-support: sm_90a compiles a run-time M (the rows of A and the output) only; operand 'tensor<?x128xf8E4M3FN>' has another dynamic extent}}
  %0 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<?x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<64x?xbf16>) -> tensor<64x?xbf16>
  return %0 : tensor<64x?xbf16>
}

// -----

// A masked grouped matmul's Mmax is its buffer's bound: static.
func.func @masked_dynamic(%a: tensor<2x?x128xf8E4M3FN>, %sa: tensor<2x1x1xf32>, %b: tensor<2x32x128xf8E4M3FN>, %sb: tensor<2x1x1xf32>, %g: tensor<2xi32>, %c: tensor<2x?x32xbf16>) -> tensor<2x?x32xbf16> {
  // expected-error @+1 {{qmm-check-nvidia-support: sm_90a compiles a run-time M (the rows of A and the output) only; operand 'tensor<2x?x128xf8E4M3FN>' has another dynamic extent}}
  %0 = qmm.grouped_matmul masked a(%a, %sa : tensor<2x?x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<2x32x128xf8E4M3FN>, tensor<2x1x1xf32>) #qmm.scale<per_tensor> groups(%g : tensor<2xi32>) outs(%c : tensor<2x?x32xbf16>) -> tensor<2x?x32xbf16>
  return %0 : tensor<2x?x32xbf16>
}

// -----

func.func @quantize(%x: tensor<64x128xf32>, %q: tensor<64x128xf8E4M3FN>, %s: tensor<64x1xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) {
  // expected-error @+1 {{qmm-check-nvidia-support: not compiled for sm_90a yet (the cpu device runs it)}}
  %0:2 = qmm.quantize %x : tensor<64x128xf32> encoding #qmm.scale<per_row> outs(%q, %s : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return %0#0, %0#1 : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
}

// -----

// An FNUZ output could not feed the chip's tensor cores (OCP FP8 ones are
// compiled: nvvm-pipeline-fp8-output.mlir).
func.func @fnuz_fp8_output(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<64x128xf8E4M3FN>, %sb: tensor<1x1xf32>, %c: tensor<64x64xf8E4M3FNUZ>, %s: tensor<64x1xf32>) -> (tensor<64x64xf8E4M3FNUZ>, tensor<64x1xf32>) {
  // expected-error @+1 {{qmm-check-nvidia-support: sm_90a reads OCP FP8 (f8E4M3FN, f8E5M2) in its tensor cores; an FP8 output of 'f8E4M3FNUZ' could not feed them}}
  %d:2 = qmm.matmul a(%a, %sa : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<64x64xf8E4M3FNUZ>) out_scales(%s : tensor<64x1xf32>) #qmm.scale<block 1x128> -> tensor<64x64xf8E4M3FNUZ>, tensor<64x1xf32>
  return %d#0, %d#1 : tensor<64x64xf8E4M3FNUZ>, tensor<64x1xf32>
}


// -----

// A contiguous grouped matmul meets the same checks as qmm.matmul.
func.func @grouped_fnuz(%a: tensor<128x128xf8E4M3FNUZ>, %sa: tensor<1x1xf32>, %b: tensor<2x32x128xf8E4M3FNUZ>, %sb: tensor<2x1x1xf32>, %g: tensor<128xi32>, %c: tensor<128x32xbf16>) -> tensor<128x32xbf16> {
  // expected-error @+1 {{qmm-check-nvidia-support: sm_90a reads OCP FP8 (f8E4M3FN, f8E5M2) in its tensor cores; A is 'f8E4M3FNUZ'}}
  %0 = qmm.grouped_matmul contiguous a(%a, %sa : tensor<128x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<2x32x128xf8E4M3FNUZ>, tensor<2x1x1xf32>) #qmm.scale<per_tensor> groups(%g : tensor<128xi32>) outs(%c : tensor<128x32xbf16>) -> tensor<128x32xbf16>
  return %0 : tensor<128x32xbf16>
}
