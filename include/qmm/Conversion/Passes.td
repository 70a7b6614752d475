//===- Passes.td - qmm conversion passes -------------------*- tablegen -*-===//

#ifndef QMM_CONVERSION_PASSES
#define QMM_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Reference lowering
//===----------------------------------------------------------------------===//

def QMMLowerToReference : Pass<"qmm-lower-to-reference", "ModuleOp"> {
  let summary = "Lower qmm ops to linalg/arith: the executable definition of "
                "the dialect's semantics";
  let description = [{
    Rewrites `qmm.matmul`, `qmm.quantize` and `qmm.dequantize` into
    `linalg.generic` ops whose bodies follow the op descriptions literally:

    * matmul: one generic over (m, n, k) that decodes each element
      (`arith.extf` to f32), multiplies it by its block's scale, and
      accumulates the products in an f32 buffer (initialised with C when the
      op accumulates, else 0); a second generic rounds the f32 result to the
      output type.
    * quantize: a reduction computing each block's amax, an elementwise
      generic deriving the scale and its reciprocal by the op's rounding rule
      (powers of two and their logarithms are computed exactly from the f32
      bit pattern), and an elementwise generic that multiplies, saturates and
      rounds (`arith.truncf`).
    * dequantize: one elementwise generic.

    Scale tensors are indexed through affine maps with `floordiv`, so
    partial blocks need no special case. Works on the tensor form (run
    before bufferization) and on the memref form (temporaries are allocated
    and freed around the op). Dynamic shapes are rejected with a diagnostic.

    The result is target independent; on the CPU, conversions from and to
    the small float types are then expanded by
    `qmm-expand-float-conversions`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// AMD pipeline
//===----------------------------------------------------------------------===//

def QMMLegalizeForChip : Pass<"qmm-legalize-for-chip", "ModuleOp"> {
  let summary = "Rewrite qmm.matmul operands into forms the chip's matrix "
                "cores read, exactly";
  let description = [{
    Runs on the tensor form, before bufferization:

    * gfx942 reads FNUZ FP8 only. OCP operands (f8E4M3FN, f8E5M2) become
      f8E4M3FNUZ / f8E5M2FNUZ by reinterpreting their bits: the same bits
      are worth exactly half in the FNUZ type (bias one larger, subnormals
      included), so the operand's f32 scales are doubled. Codes whose
      meaning differs are remapped: OCP -0 (0x80, NaN in FNUZ) becomes +0,
      and OCP NaN (and e5m2's Inf, which FNUZ lacks) becomes FNUZ NaN (0x80).
      The product dequant(A) * dequant(B) is unchanged bit for bit.
    * B given as [K, N] (`layout kn`) is transposed to [N, K], the layout
      whose rows the MFMA operands read contiguously; its scales keep their
      (N, K) view and do not move.

    FNUZ data on gfx950 is left as it is: no single factor maps every
    e4m3fnuz code onto e4m3fn (240 would need 480), so the configuration
    selects an exact in-register conversion to bf16 instead. MX encodings
    are left to the MX lowering.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "target chip: gfx942 or gfx950">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def QMMSelectConfig : Pass<"qmm-select-config", "ModuleOp"> {
  let summary = "Choose the #qmm.config of every qmm.matmul for a chip";
  let description = [{
    Gives each qmm.matmul without a `config` one chosen from its shape,
    operand types and scales; a `config` already on the op (the user's) is
    kept and checked against the chip. The `override` option forces one
    configuration on every matmul.

    The heuristic:

    * instruction: gfx942 reads FNUZ FP8 with v_mfma_f32_*_fp8; gfx950 OCP
      FP8 with the f8f6f4 forms (16x16x128, 32x32x64), and FNUZ FP8 with
      the bf16 forms (16x16x32, 32x32x16) after an exact conversion in
      registers (no FP8 scaling maps every FNUZ value onto OCP);
    * MFMA shape: 32x32 when M and N are both at least 128 (half the LDS
      traffic per flop of 16x16), 16x16 otherwise;
    * tile M and N: the next power of two of the extent, from the MFMA size
      up to 128, so small problems do not pay for empty rows;
    * tile K: 128 (one K tile per 128-wide scale block), the extent
      rounded up to the MFMA's K when K is smaller, halved until it divides
      the scale block along K, then halved (down to the MFMA's K) until two
      workgroups' tiles fit in one CU's LDS, so that one workgroup's copies
      can overlap another's MFMAs (gfx942 128x128 tiles: tile K 64,
      occupancy 2 instead of 1);
    * waves: up to 2 x 2, each wave holding at least one MFMA tile;
    * stages: 1. Double buffering (`stages = 2`, by config) halves the
      barriers but doubles the LDS footprint and so lowers occupancy; its
      latency hiding cannot be measured on the emulator, so it is not
      picked by default.

    Checks (user configurations included): the chip has the MFMA and it
    reads the operand types, tile K is a multiple of 16 and the padded A
    and B tiles fit in the chip's LDS.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "target chip: gfx942 or gfx950">,
    Option<"override", "override", "std::string", /*default=*/"\"\"",
           "a #qmm.config<...> forced on every qmm.matmul">
  ];
}

def QMMLowerMatmulToGPU : Pass<"qmm-lower-matmul-to-gpu", "ModuleOp"> {
  let summary = "Lower configured, bufferized qmm.matmul ops to MFMA "
                "workgroup kernels (gpu.launch)";
  let description = [{
    Replaces each qmm.matmul (memref form, B as [N, K], operand types native
    to the chip, a `config`) with a gpu.launch computing it:

    * Tiling: a grid of ceil(N / tile N) x ceil(M / tile M) workgroups of
      64 x waves threads; wave (i, j) owns a (tile M / waves M) x
      (tile N / waves N) sub-tile made of MFMA tiles. Rows and columns past
      M and N are clamped on load and masked on store; past K, zeros are
      loaded (the one chunk that crosses K, when K is not a multiple of 16,
      byte by byte).
    * LDS promotion: per K tile, the A and B tiles are copied into
      workgroup memory with 16-byte vector loads and stores. Rows are padded
      by the smallest whole number of fragment pieces whose fragment reads
      are free of bank conflicts (evaluated against the chip's banks), and
      each LDS phase of tile writes covers two rows that fill the banks
      together. With `stages = 1`, barriers before and after each copy;
      with `stages = 2`, two buffers per operand: tile t + 1 is copied
      into one while tile t is multiplied out of the other, one barrier per
      tile.
    * MFMA (`fp8`, `f8f6f4`, or `bf16` for FNUZ data on gfx950, whose
      fragments are converted exactly to bf16 in registers): each lane
      reads its fragments from LDS where the ISA guide puts
      its K items (8 consecutive values for the fp8 forms; two runs of 16,
      half the instruction's K apart, for gfx950's f8f6f4 forms) and issues
      amdgpu.mfma into f32 accumulators. The B fragment is the instruction's
      first operand, so the instruction computes the transposed tile and a
      lane's accumulator items are runs of 4 consecutive output columns.
    * Scales: the K loop runs per scale block along K (128 for blockwise
      scales, all of K for per-tensor and per-row): a block's f32 partial
      sums are multiplied by scale_a(row) * scale_b(col), each loaded once
      per block, and added to the accumulator (DeepGEMM's scheme).
    * Epilogue: optional accumulation into the output, conversion to f32,
      bf16 or f16, 4-element vector stores along a row (element stores at
      the right edge, nothing past the last row).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "target chip: gfx942 or gfx950">
  ];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMParallelLoopsToGPU : Pass<"qmm-parallel-loops-to-gpu", "ModuleOp"> {
  let summary = "Run the element-wise scf.parallel loops of host functions "
                "as GPU kernels";
  let description = [{
    The legalization's element-wise conversions and transposes reach the
    host function as scf.parallel loops (convert-linalg-to-parallel-loops).
    Each top-level loop nest with constant bounds becomes a gpu.launch of
    256-thread workgroups, one thread per iteration over the flattened
    iteration space, guarded against the tail.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

//===----------------------------------------------------------------------===//
// CPU
//===----------------------------------------------------------------------===//

def QMMExpandFloatConversions : Pass<"qmm-expand-float-conversions", "ModuleOp"> {
  let summary = "Expand conversions from/to 8-bit and smaller floats into "
                "integer arithmetic (for the CPU)";
  let description = [{
    LLVM has no FP8, FP6, FP4 or E8M0 types; the CPU backend stores them as
    integers of their width. This pass rewrites every `arith.extf` from and
    `arith.truncf` to such a type so that the result is bit-exact without
    any runtime library:

    * `extf` reads a constant table (`memref.global`) of the 2^w decoded f32
      values, built from the type's APFloat semantics, indexed by the bits.
    * `truncf` from f32 rounds to nearest even with integer arithmetic on the
      f32 bit pattern (normal range) and an exact power-of-two scaling plus
      the 2^23 rounding trick (subnormal range). Values beyond the largest
      finite value become Inf where the type has it, else NaN, else (FP4/FP6,
      which have neither) the largest finite value. NaN becomes the type's
      NaN, or 0 for types without NaN. Types without negative zero (the FNUZ
      types) produce +0 for -0. `f8E8M0FNU` takes the f32 exponent (the
      value rounded down to a power of two), NaN and Inf giving 0xFF.

    Other operations on these types (arithmetic, constants) are not
    expected on this path and are left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // QMM_CONVERSION_PASSES
