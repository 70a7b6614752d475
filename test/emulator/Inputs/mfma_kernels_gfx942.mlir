// Hand-written kernels, one per MFMA form the pipeline uses. Each lane loads
// its operand items where AMD's ISA guides place them, so the kernel computes
// D = A * B^T (B given as Bt[N][K]) exactly when the emulator's instruction
// semantics and layouts agree with the guides.
//
// gfx942 16x16x32 / 32x32x16 (CDNA3, and gfx950's plain FP8 forms): lane l
// holds 8 consecutive k = 8 * (l / M) .. +7 of row l % M. D item i of lane l
// is row 4 * (l / 16) + i (16x16) or (i % 4) + 8 * (i / 4) + 4 * (l / 32)
// (32x32), column l % N.
module attributes {gpu.container_module} {
gpu.module @gfx942_kernels {

gpu.func @mfma_16x16x32_fp8(%a: memref<16x32xf8E4M3FNUZ>, %bt: memref<16x32xf8E4M3FNUZ>,
                            %d: memref<16x16xf32>) kernel {
  %lane = gpu.lane_id
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %row = arith.remui %lane, %c16 : index
  %group = arith.divui %lane, %c16 : index
  %k = arith.muli %group, %c8 : index
  %va = vector.load %a[%row, %k] : memref<16x32xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>
  %vb = vector.load %bt[%row, %k] : memref<16x32xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %acc = amdgpu.mfma 16x16x32 %va * %vb + %zero blgp = none
    : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
  %base = arith.muli %group, %c4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.addi %base, %i : index
    %v = vector.extract %acc[%i] : f32 from vector<4xf32>
    memref.store %v, %d[%r, %row] : memref<16x16xf32>
  }
  gpu.return
}

// bf8 x fp8 (e5m2fnuz A, e4m3fnuz B), same layout.
gpu.func @mfma_16x16x32_bf8_fp8(%a: memref<16x32xf8E5M2FNUZ>, %bt: memref<16x32xf8E4M3FNUZ>,
                                %d: memref<16x16xf32>) kernel {
  %lane = gpu.lane_id
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %row = arith.remui %lane, %c16 : index
  %group = arith.divui %lane, %c16 : index
  %k = arith.muli %group, %c8 : index
  %va = vector.load %a[%row, %k] : memref<16x32xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>
  %vb = vector.load %bt[%row, %k] : memref<16x32xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %acc = amdgpu.mfma 16x16x32 %va * %vb + %zero blgp = none
    : vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
  %base = arith.muli %group, %c4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.addi %base, %i : index
    %v = vector.extract %acc[%i] : f32 from vector<4xf32>
    memref.store %v, %d[%r, %row] : memref<16x16xf32>
  }
  gpu.return
}

gpu.func @mfma_32x32x16_fp8(%a: memref<32x16xf8E4M3FNUZ>, %bt: memref<32x16xf8E4M3FNUZ>,
                            %d: memref<32x32xf32>) kernel {
  %lane = gpu.lane_id
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %row = arith.remui %lane, %c32 : index
  %group = arith.divui %lane, %c32 : index
  %k = arith.muli %group, %c8 : index
  %va = vector.load %a[%row, %k] : memref<32x16xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>
  %vb = vector.load %bt[%row, %k] : memref<32x16xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %acc = amdgpu.mfma 32x32x16 %va * %vb + %zero blgp = none
    : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
  %base = arith.muli %group, %c4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %lo = arith.remui %i, %c4 : index
    %hi = arith.divui %i, %c4 : index
    %hi8 = arith.muli %hi, %c8 : index
    %r0 = arith.addi %lo, %hi8 : index
    %r = arith.addi %r0, %base : index
    %v = vector.extract %acc[%i] : f32 from vector<16xf32>
    memref.store %v, %d[%r, %row] : memref<32x32xf32>
  }
  gpu.return
}

// bf8 x bf8 (e5m2fnuz), 32x32x16.
gpu.func @mfma_32x32x16_bf8_bf8(%a: memref<32x16xf8E5M2FNUZ>, %bt: memref<32x16xf8E5M2FNUZ>,
                            %d: memref<32x32xf32>) kernel {
  %lane = gpu.lane_id
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %row = arith.remui %lane, %c32 : index
  %group = arith.divui %lane, %c32 : index
  %k = arith.muli %group, %c8 : index
  %va = vector.load %a[%row, %k] : memref<32x16xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>
  %vb = vector.load %bt[%row, %k] : memref<32x16xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %acc = amdgpu.mfma 32x32x16 %va * %vb + %zero blgp = none
    : vector<8xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>, vector<16xf32>
  %base = arith.muli %group, %c4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %lo = arith.remui %i, %c4 : index
    %hi = arith.divui %i, %c4 : index
    %hi8 = arith.muli %hi, %c8 : index
    %r0 = arith.addi %lo, %hi8 : index
    %r = arith.addi %r0, %base : index
    %v = vector.extract %acc[%i] : f32 from vector<16xf32>
    memref.store %v, %d[%r, %row] : memref<32x32xf32>
  }
  gpu.return
}
}
}
