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
