// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @accumulator_count(%a: memref<64x128xf8E4M3FNUZ>, %i: index, %acc: vector<16xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op expects 2 accumulators (repeats 2 x 1 of the configuration), got 1}}
  %p = qmm.wave_mma %a[%i, %i], %a[%i, %i] wave_offset [%i, %i]
         config #qmm.config<tile = [64, 32, 64], waves = [1, 1], mfma = fp8 [32, 32, 16], stages = 1>
         acc(%acc) : memref<64x128xf8E4M3FNUZ>, memref<64x128xf8E4M3FNUZ>, vector<16xf32>
  return
}

// -----

func.func @accumulator_length(%a: memref<64x128xf8E4M3FNUZ>, %i: index, %acc: vector<16xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op accumulators must be vector<4xf32> for a 16x16 MFMA, got 'vector<16xf32>'}}
  %p = qmm.wave_mma %a[%i, %i], %a[%i, %i] wave_offset [%i, %i]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         acc(%acc) : memref<64x128xf8E4M3FNUZ>, memref<64x128xf8E4M3FNUZ>, vector<16xf32>
  return
}

// -----

func.func @index_count(%a: memref<64x128xf8E4M3FNUZ>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op B takes 2 indices, got 1}}
  %p = qmm.wave_mma %a[%i, %i], %a[%i] wave_offset [%i, %i]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         acc(%acc) : memref<64x128xf8E4M3FNUZ>, memref<64x128xf8E4M3FNUZ>, vector<4xf32>
  return
}

// -----

func.func @operand_rank(%a: memref<128xf8E4M3FNUZ>, %b: memref<64x128xf8E4M3FNUZ>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op A must be [rows, K] or [stage, rows, K], got 'memref<128xf8E4M3FNUZ>'}}
  %p = qmm.wave_mma %a[%i], %b[%i, %i] wave_offset [%i, %i]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         acc(%acc) : memref<128xf8E4M3FNUZ>, memref<64x128xf8E4M3FNUZ>, vector<4xf32>
  return
}

// -----

func.func @operand_type(%a: memref<64x128xbf16>, %b: memref<64x128xf8E4M3FNUZ>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op A must hold FP8, FP6 or FP4 elements, got 'bf16'}}
  %p = qmm.wave_mma %a[%i, %i], %b[%i, %i] wave_offset [%i, %i]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         acc(%acc) : memref<64x128xbf16>, memref<64x128xf8E4M3FNUZ>, vector<4xf32>
  return
}

// -----

func.func @problem_size(%s: memref<1x1xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_scale_accumulate' op problem_size must be three positive extents [M, N, K]}}
  %r = qmm.wave_scale_accumulate %acc into %acc at [%i, %i, %i] problem_size [16, 16]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         a_scales(%s : memref<1x1xf32>, #qmm.scale<per_tensor>)
         b_scales(%s : memref<1x1xf32>, #qmm.scale<per_tensor>) : vector<4xf32>
  return
}

// -----

func.func @scale_type(%s: memref<1x1xf32>, %t: memref<1xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_scale_accumulate' op scales of B must be a rank-2 f32 memref, got 'memref<1xf32>'}}
  %r = qmm.wave_scale_accumulate %acc into %acc at [%i, %i, %i] problem_size [16, 16, 64]
         config #qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>
         a_scales(%s : memref<1x1xf32>, #qmm.scale<per_tensor>)
         b_scales(%t : memref<1xf32>, #qmm.scale<per_tensor>) : vector<4xf32>
  return
}

// -----

func.func @output_type(%d: memref<16x16xf4E2M1FN>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op output must be a rank-2 memref of f32, bf16, f16 or FP8, got 'memref<16x16xf4E2M1FN>'}}
  qmm.wave_store %acc into %d[%i, %i]
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf4E2M1FN>, vector<4xf32>
  return
}

// -----

func.func @store_accumulator_count(%d: memref<32x32xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op expects 4 accumulators (repeats 2 x 2 of the configuration), got 1}}
  qmm.wave_store %acc into %d[%i, %i]
    config(#qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<32x32xf32>, vector<4xf32>
  return
}

// -----

func.func @scaled_kind_without_scales(%a: memref<16x128xf8E4M3FN>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op mfma = scaled_f8f6f4 needs scales}}
  %p = qmm.wave_mma %a[%i, %i], %a[%i, %i] wave_offset [%i, %i]
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
         acc(%acc) : memref<16x128xf8E4M3FN>, memref<16x128xf8E4M3FN>, vector<4xf32>
  return
}

// -----

func.func @scales_without_scaled_kind(%a: memref<16x128xf8E4M3FN>, %s: memref<16x4xf8E8M0FNU>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op scales need a scaled MFMA (mfma = scaled_f8f6f4)}}
  %p = qmm.wave_mma %a[%i, %i], %a[%i, %i] wave_offset [%i, %i]
         scales(%s[%i, %i], %s[%i, %i] : memref<16x4xf8E8M0FNU>, memref<16x4xf8E8M0FNU>)
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = f8f6f4 [16, 16, 128], stages = 1>
         acc(%acc) : memref<16x128xf8E4M3FN>, memref<16x128xf8E4M3FN>, vector<4xf32>
  return
}

// -----

func.func @scale_element_type(%a: memref<16x128xf8E4M3FN>, %s: memref<16x4xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op scales of A must be a rank-2 f8E8M0FNU memref, got 'memref<16x4xf32>'}}
  %p = qmm.wave_mma %a[%i, %i], %a[%i, %i] wave_offset [%i, %i]
         scales(%s[%i, %i], %s[%i, %i] : memref<16x4xf32>, memref<16x4xf32>)
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
         acc(%acc) : memref<16x128xf8E4M3FN>, memref<16x128xf8E4M3FN>, vector<4xf32>
  return
}

// -----

func.func @scale_index_count(%a: memref<16x128xf8E4M3FN>, %s: memref<16x4xf8E8M0FNU>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_mma' op scales of B take 2 indices, got 1}}
  %p = qmm.wave_mma %a[%i, %i], %a[%i, %i] wave_offset [%i, %i]
         scales(%s[%i, %i], %s[%i] : memref<16x4xf8E8M0FNU>, memref<16x4xf8E8M0FNU>)
         config #qmm.config<tile = [16, 16, 128], waves = [1, 1], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
         acc(%acc) : memref<16x128xf8E4M3FN>, memref<16x128xf8E4M3FN>, vector<4xf32>
  return
}

// -----

func.func @store_bias_rank(%d: memref<16x16xf32>, %bias: memref<1x16xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op bias must be a rank-1 memref of f32 or bf16, got 'memref<1x16xf32>'}}
  qmm.wave_store %acc into %d[%i, %i] bias(%bias : memref<1x16xf32>)
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf32>, vector<4xf32>
  return
}

// -----

func.func @store_aux_type(%d: memref<16x16xf32>, %aux: memref<16x16xi8>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op aux must be a rank-2 memref of f32, bf16 or f16, got 'memref<16x16xi8>'}}
  qmm.wave_store %acc into %d[%i, %i] activation gelu_erf aux(%aux : memref<16x16xi8>)
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf32>, vector<4xf32>
  return
}

// -----

func.func @store_fp8_without_scales(%d: memref<16x16xf8E4M3FNUZ>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op an FP8 output and out_scales (with encoding, rounding and min_amax) go together}}
  qmm.wave_store %acc into %d[%i, %i]
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf8E4M3FNUZ>, vector<4xf32>
  return
}

// -----

func.func @store_fp8_split_block(%d: memref<16x64xf8E4M3FNUZ>, %s: memref<16x1xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op output blocks of 64 columns must lie within one wave's sub-tile of 16 columns, starting at a multiple of the block}}
  qmm.wave_store %acc into %d[%i, %i]
    out_scales(%s : memref<16x1xf32>) #qmm.scale<block 1x64> rounding none min_amax 1.0e-4
    config(#qmm.config<tile = [16, 64, 64], waves = [1, 4], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x64xf8E4M3FNUZ>, vector<4xf32>
  return
}

// -----

func.func @store_fp8_accumulate(%d: memref<16x16xf8E4M3FNUZ>, %s: memref<16x1xf32>, %i: index, %acc: vector<4xf32>) {
  // expected-error @+1 {{'qmm.wave_store' op an FP8 output is not accumulated into}}
  qmm.wave_store %acc into %d[%i, %i] accumulate
    out_scales(%s : memref<16x1xf32>) #qmm.scale<block 1x128> rounding none min_amax 1.0e-4
    config(#qmm.config<tile = [16, 16, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1>)
    : memref<16x16xf8E4M3FNUZ>, vector<4xf32>
  return
}
