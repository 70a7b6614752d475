// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-tile-matmul=chip=gfx942

func.func @tensor_form(%a: tensor<32x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                       %b: tensor<32x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                       %d: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{qmm-tile-matmul: runs on the memref form (after bufferization)}}
  %0 = qmm.matmul a(%a, %as : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

func.func @no_config(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                     %b: memref<32x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                     %d: memref<32x32xf32>) {
  // expected-error @+1 {{has no #qmm.config; run qmm-select-config first}}
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

func.func @kn_layout(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                     %b: memref<128x32xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                     %d: memref<32x32xf32>) {
  // expected-error @+1 {{B must be [N, K]; run qmm-legalize-for-chip first}}
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<128x32xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor> layout kn
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

func.func @ocp_on_gfx942(%a: memref<32x128xf8E4M3FN>, %as: memref<1x1xf32>,
                         %b: memref<32x128xf8E4M3FN>, %bs: memref<1x1xf32>,
                         %d: memref<32x32xf32>) {
  // expected-error @+1 {{operand type 'f8E4M3FN' is not native to gfx942; run qmm-legalize-for-chip first}}
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x128xf8E4M3FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

func.func @multi_stage(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                       %b: memref<32x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                       %d: memref<32x32xf32>) {
  // expected-error @+1 {{stages = 3 is not implemented; use 1 (one LDS buffer) or 2 (double buffering)}}
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 3>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

// Tile K 256 spans two 128-wide scale blocks.
func.func @tile_k_across_blocks(%a: memref<32x512xf8E4M3FNUZ>, %as: memref<32x4xf32>,
                                %b: memref<32x512xf8E4M3FNUZ>, %bs: memref<1x4xf32>,
                                %d: memref<32x32xf32>) {
  // expected-error @+1 {{tile K = 256 must divide the scale block along K (128)}}
  qmm.matmul a(%a, %as : memref<32x512xf8E4M3FNUZ>, memref<32x4xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<32x512xf8E4M3FNUZ>, memref<1x4xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [32, 32, 256], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

func.func @mx_on_one_operand(%a: memref<32x128xf8E4M3FN>, %as: memref<32x1xf32>,
                             %b: memref<32x128xf8E4M3FN>, %bs: memref<32x4xf8E8M0FNU>,
                             %d: memref<32x32xf32>) {
  // expected-error @+1 {{qmm-tile-matmul: MX scales on one operand only are not implemented}}
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FN>, memref<32x1xf32>) #qmm.scale<per_row>
             b(%b, %bs : memref<32x128xf8E4M3FN>, memref<32x4xf8E8M0FNU>) #qmm.scale<mx>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

func.func @mx_mn_major(%a: memref<32x128xf8E4M3FN>, %as: memref<4x32xf8E8M0FNU>,
                       %b: memref<32x128xf8E4M3FN>, %bs: memref<32x4xf8E8M0FNU>,
                       %d: memref<32x32xf32>) {
  // expected-error @+1 {{qmm-tile-matmul: MX scales must be K-major ([rows, K / 32])}}
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FN>, memref<4x32xf8E8M0FNU>) #qmm.scale<mx, mn_major>
             b(%b, %bs : memref<32x128xf8E4M3FN>, memref<32x4xf8E8M0FNU>) #qmm.scale<mx>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

// Packed FP4 rows are copied 32 values at a time.
func.func @fp4_k_not_multiple_of_32(%a: memref<32x48xf4E2M1FN>, %as: memref<1x1xf32>,
                                    %b: memref<32x48xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                                    %d: memref<32x32xf32>) {
  // expected-error @+1 {{qmm-tile-matmul: packed 'f4E2M1FN' operands need K to be a multiple of 32}}
  qmm.matmul a(%a, %as : memref<32x48xf4E2M1FN>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x48xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 32], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x32xf32>)
  return
}


// -----

// An FP8 output's 128-column block would be split between the two waves
// along N (each holds 32 columns): its amax is reduced within one wave.
func.func @fp8_output_block_split(%a: memref<64x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                                  %b: memref<128x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                                  %d: memref<64x128xf8E4M3FNUZ>, %s: memref<64x1xf32>) {
  // expected-error @+1 {{qmm-tile-matmul: the FP8 output's blocks of 128 columns must lie within one wave's sub-tile (32 columns), starting at a multiple of the block; use waves = [W, 1] or a tile N that is a multiple of the block}}
  qmm.matmul a(%a, %as : memref<64x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<128x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [64, 64, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<64x128xf8E4M3FNUZ>) out_scales(%s : memref<64x1xf32>) #qmm.scale<block 1x128>
  return
}

// -----

// Split-K: the ranges must be whole K tiles (K = 512 is 4 tiles of 128).
func.func @split_not_dividing(%a: memref<32x512xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                              %b: memref<32x512xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                              %d: memref<32x32xf32>) {
  // expected-error @+1 {{config: split = 3 must divide the 4 K tiles (K = 512, tile K = 128)}}
  qmm.matmul a(%a, %as : memref<32x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1, split = 3>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

// Split-K: each range holds whole scale blocks (8 tiles of 64 in 8 ranges
// would cut the 128-deep blocks in two).
func.func @split_cutting_blocks(%a: memref<32x512xf8E4M3FNUZ>, %as: memref<32x4xf32>,
                                %b: memref<32x512xf8E4M3FNUZ>, %bs: memref<1x4xf32>,
                                %d: memref<32x32xf32>) {
  // expected-error @+1 {{config: split = 8: each range of 1 K tiles must hold whole scale blocks of 128 along K}}
  qmm.matmul a(%a, %as : memref<32x512xf8E4M3FNUZ>, memref<32x4xf32>) #qmm.scale<block 1x128>
             b(%b, %bs : memref<32x512xf8E4M3FNUZ>, memref<1x4xf32>) #qmm.scale<block 128x128>
             config #qmm.config<tile = [32, 32, 64], waves = [1, 1], mfma = fp8 [16, 16, 32], stages = 1, split = 8>
             outs(%d : memref<32x32xf32>)
  return
}

// -----

func.func @split_grouped(%a: memref<256x128xf8E4M3FNUZ>, %as: memref<256x1xf32>,
                         %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                         %g: memref<256xi32>, %d: memref<256x64xbf16>) {
  // expected-error @+1 {{config: split = 2 (split-K) is not implemented for grouped matmuls}}
  qmm.grouped_matmul contiguous a(%a, %as : memref<256x128xf8E4M3FNUZ>, memref<256x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%g : memref<256xi32>)
    config #qmm.config<tile = [128, 64, 64], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1, split = 2>
    outs(%d : memref<256x64xbf16>)
  return
}

// -----

// Only M may be dynamic.
func.func @dynamic_n(%a: memref<32x128xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                     %b: memref<?x128xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                     %d: memref<32x?xf32>) {
  // expected-error @+1 {{qmm-tile-matmul: needs static N and K (only M, the rows of A, may be dynamic)}}
  qmm.matmul a(%a, %as : memref<32x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<?x128xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
             outs(%d : memref<32x?xf32>)
  return
}

// -----

// Split-K's workspace and counters are sized by the grid.
func.func @split_k_dynamic_m(%a: memref<?x512xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                             %b: memref<32x512xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                             %d: memref<?x32xf32>) {
  // expected-error @+1 {{qmm-tile-matmul: split = 2: split-K needs a static or bounded M (the grid sizes its workspace and arrival counters)}}
  qmm.matmul a(%a, %as : memref<?x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
             outs(%d : memref<?x32xf32>)
  return
}

// -----

// A dynamic M is the rows of A and what follows them; the groups (G) of a
// masked grouped matmul stay static.
func.func @masked_dynamic_groups(%a: memref<?x32x128xf8E4M3FNUZ>, %as: memref<?x32x1xf32>,
                                 %b: memref<3x64x128xf8E4M3FNUZ>, %bs: memref<3x1x1xf32>,
                                 %g: memref<3xi32>, %d: memref<?x32x64xbf16>) {
  // expected-error @+1 {{qmm-tile-matmul: a dynamic M may only be the rows of A, its scales, the output, aux, the output's scales and (contiguous) the row groups; G, N, K and B are static}}
  qmm.grouped_matmul masked a(%a, %as : memref<?x32x128xf8E4M3FNUZ>, memref<?x32x1xf32>) #qmm.scale<per_row>
    b(%b, %bs : memref<3x64x128xf8E4M3FNUZ>, memref<3x1x1xf32>) #qmm.scale<per_tensor>
    groups(%g : memref<3xi32>)
    config #qmm.config<tile = [32, 64, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1>
    outs(%d : memref<?x32x64xbf16>)
  return
}

// -----

// Packed A of a masked grouped matmul is addressed by byte from the group
// matrices' static extents.
func.func @masked_dynamic_packed(%a: memref<3x?x128xf4E2M1FN>, %as: memref<3x?x4xf8E8M0FNU>,
                                 %b: memref<3x64x128xf4E2M1FN>, %bs: memref<3x64x4xf8E8M0FNU>,
                                 %g: memref<3xi32>, %d: memref<3x?x64xbf16>) {
  // expected-error @+1 {{qmm-tile-matmul: a dynamic M of a masked grouped matmul with packed 'f4E2M1FN' A is not implemented (its group matrices are addressed by byte from static extents)}}
  qmm.grouped_matmul masked a(%a, %as : memref<3x?x128xf4E2M1FN>, memref<3x?x4xf8E8M0FNU>) #qmm.scale<mx>
    b(%b, %bs : memref<3x64x128xf4E2M1FN>, memref<3x64x4xf8E8M0FNU>) #qmm.scale<mx>
    groups(%g : memref<3xi32>)
    config #qmm.config<tile = [32, 64, 128], waves = [2, 2], mfma = scaled_f8f6f4 [16, 16, 128], stages = 1>
    outs(%d : memref<3x?x64xbf16>)
  return
}

// -----

func.func @bad_max_m(%a: memref<?x512xf8E4M3FNUZ>, %as: memref<1x1xf32>,
                     %b: memref<32x512xf8E4M3FNUZ>, %bs: memref<1x1xf32>,
                     %d: memref<?x32xf32>) {
  // expected-error @+1 {{qmm-tile-matmul: qmm.max_m must be in [1, 2^31 - 1], got 0}}
  qmm.matmul a(%a, %as : memref<?x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             b(%b, %bs : memref<32x512xf8E4M3FNUZ>, memref<1x1xf32>) #qmm.scale<per_tensor>
             config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
             outs(%d : memref<?x32xf32>) {qmm.max_m = 0 : i64}
  return
}
