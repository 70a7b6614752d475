// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-select-config=chip=gfx942

// A user's split-K with a dynamic M: its workspace would depend on M.
func.func @split_dynamic_m(%a: tensor<?x512xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                           %b: tensor<32x512xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                           %d: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{config: split = 2: split-K needs a static or bounded M (the grid sizes its workspace and arrival counters)}}
  %0 = qmm.matmul a(%a, %as : tensor<?x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  config #qmm.config<tile = [32, 32, 128], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 1, split = 2>
                  outs(%d : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// Only M may be dynamic.
func.func @dynamic_k(%a: tensor<32x?xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                     %b: tensor<32x?xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                     %d: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{qmm-select-config: needs static N and K (only M, the rows of A, may be dynamic)}}
  %0 = qmm.matmul a(%a, %as : tensor<32x?xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x?xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

func.func @huge_max_m(%a: tensor<?x512xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                      %b: tensor<32x512xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                      %d: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{qmm-select-config: qmm.max_m must be in [1, 2^31 - 1], got 4611686018427387904}}
  %0 = qmm.matmul a(%a, %as : tensor<?x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<32x512xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<?x32xf32>) {qmm.max_m = 4611686018427387904 : i64} -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}
