// A plain FP8 GEMM kernel for the emulator benchmark: D[M,N] = A[M,K] * Bt[N,K]^T
// with gfx942's v_mfma_f32_16x16x32_fp8_fp8. Each workgroup is one wave and
// computes a 32x32 tile (2x2 MFMA tiles) over K in steps of 32, staging the
// A and Bt tiles through LDS.
module attributes {gpu.container_module} {
gpu.module @kernels {
gpu.func @gemm_fp8(%a: memref<1024x1024xf8E4M3FNUZ>, %bt: memref<1024x1024xf8E4M3FNUZ>,
                   %d: memref<1024x1024xf32>)
    workgroup(%la : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>,
              %lb : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>) kernel {
  %lane = gpu.lane_id
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %m0 = arith.muli %by, %c32 : index
  %n0 = arith.muli %bx, %c32 : index
  %row = arith.remui %lane, %c16 : index
  %group = arith.divui %lane, %c16 : index
  %kl = arith.muli %group, %c8 : index
  // Global -> LDS: lane l copies 16 bytes of row l / 2 (half l % 2).
  %crow = arith.divui %lane, %c2 : index
  %chalf = arith.remui %lane, %c2 : index
  %ccol = arith.muli %chalf, %c16 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %r:4 = scf.for %k = %c0 to %c1024 step %c32
      iter_args(%acc00 = %zero, %acc01 = %zero, %acc10 = %zero, %acc11 = %zero)
      -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
    %ga = arith.addi %m0, %crow : index
    %gb = arith.addi %n0, %crow : index
    %kc = arith.addi %k, %ccol : index
    %va = vector.load %a[%ga, %kc] : memref<1024x1024xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
    %vb = vector.load %bt[%gb, %kc] : memref<1024x1024xf8E4M3FNUZ>, vector<16xf8E4M3FNUZ>
    vector.store %va, %la[%crow, %ccol] : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<16xf8E4M3FNUZ>
    vector.store %vb, %lb[%crow, %ccol] : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<16xf8E4M3FNUZ>
    gpu.barrier
    %row1 = arith.addi %row, %c16 : index
    %a0 = vector.load %la[%row, %kl] : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
    %a1 = vector.load %la[%row1, %kl] : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
    %b0 = vector.load %lb[%row, %kl] : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
    %b1 = vector.load %lb[%row1, %kl] : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
    %n00 = amdgpu.mfma 16x16x32 %a0 * %b0 + %acc00 blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
    %n01 = amdgpu.mfma 16x16x32 %a0 * %b1 + %acc01 blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
    %n10 = amdgpu.mfma 16x16x32 %a1 * %b0 + %acc10 blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
    %n11 = amdgpu.mfma 16x16x32 %a1 * %b1 + %acc11 blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
    gpu.barrier
    scf.yield %n00, %n01, %n10, %n11 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  }
  // D tiles: item i of lane l is row 4 * (l / 16) + i, column l % 16.
  %base = arith.muli %group, %c4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r0 = arith.addi %m0, %base : index
    %ri = arith.addi %r0, %i : index
    %ri16 = arith.addi %ri, %c16 : index
    %cj = arith.addi %n0, %row : index
    %cj16 = arith.addi %cj, %c16 : index
    %v00 = vector.extract %r#0[%i] : f32 from vector<4xf32>
    %v01 = vector.extract %r#1[%i] : f32 from vector<4xf32>
    %v10 = vector.extract %r#2[%i] : f32 from vector<4xf32>
    %v11 = vector.extract %r#3[%i] : f32 from vector<4xf32>
    memref.store %v00, %d[%ri, %cj] : memref<1024x1024xf32>
    memref.store %v01, %d[%ri, %cj16] : memref<1024x1024xf32>
    memref.store %v10, %d[%ri16, %cj] : memref<1024x1024xf32>
    memref.store %v11, %d[%ri16, %cj16] : memref<1024x1024xf32>
  }
  gpu.return
}
}
}
