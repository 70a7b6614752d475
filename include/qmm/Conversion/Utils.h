//===- Utils.h - helpers shared by the qmm conversions ----------*- C++ -*-===//

#ifndef QMM_CONVERSION_UTILS_H
#define QMM_CONVERSION_UTILS_H

#include "qmm/Dialect/QMM/IR/QMMDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace qmm {

/// floor(log2(x)) of a non-negative f32 `x`, computed exactly from its bit
/// pattern (subnormals included) as an i32. Zero gives INT32_MIN / 2 so that
/// later clamping maps it to the smallest exponent. Undefined for NaN/Inf.
Value createFloorLog2(OpBuilder &b, Location loc, Value x);

/// ceil(log2(x)) of a positive finite f32 `x`, exact, as an i32.
Value createCeilLog2(OpBuilder &b, Location loc, Value x);

/// 2^e as an f32, exactly, for an i32 `e` in [-149, 127].
Value createExp2(OpBuilder &b, Location loc, Value e);

/// |x| of an f32 `x` as its bits with the sign cleared: exact (NaN stays
/// NaN), integer arithmetic on every target, where math.absf would become
/// a libdevice call in NVIDIA kernels (which makes ptxas serialize wgmma).
Value createF32Magnitude(OpBuilder &b, Location loc, Value x);

/// The two f32 factors (first, second) that apply the scales `sa` and `sb`
/// (f32 scalars) to a value x as (x * first) * second without an
/// intermediate overflow or underflow the exact x * sa * sb does not have:
/// (sa * sb, 1) where that product is a normal f32 or an exact zero (a
/// zero scale), else (sa, sb). The
/// product leaves the normal range only when both scales lie on the same
/// side of 1 (their product lies between them otherwise), and then each
/// step moves x monotonically towards the result. Integer compares only
/// (no math.absf, a libdevice call in NVIDIA kernels).
std::pair<Value, Value> createScaleFactors(OpBuilder &b, Location loc,
                                           Value sa, Value sb);

/// Whether `product` = sa * sb is the factor to apply (an i1): a normal f32
/// or an exact zero (a zero scale); createScaleFactors' choice, for code
/// that branches on it instead of selecting.
Value createScaleProductIsExact(OpBuilder &b, Location loc, Value sa,
                                Value sb, Value product);

/// An f32 / i32 constant.
Value createF32(OpBuilder &b, Location loc, double value);
Value createI32(OpBuilder &b, Location loc, int64_t value);

/// `activation` (see #qmm.activation) of `x`, an f32 or a vector of f32,
/// in f32 with math.tanh / math.erf (targets without a math library
/// expand them into polynomials).
Value createActivation(OpBuilder &b, Location loc, Value x,
                       Activation activation);

/// Float types of 8 bits or fewer: the ones LLVM cannot represent.
bool isSmallFloatType(Type type);

/// f32 `x` rounded to nearest even into `type` (an FP8, FP6, FP4 or E8M0
/// type) with integer arithmetic: beyond the largest finite value Inf where
/// the type has it, else NaN, else the largest value; NaN to the type's NaN
/// or 0; no -0 in FNUZ types; E8M0 takes the exponent (NaN/Inf: 0xFF).
Value createTruncFToSmallFloat(OpBuilder &b, Location loc, Value x,
                               FloatType type);

/// Rewrites every arith.truncf to a small float type under `root` (scalars
/// and 1-D vectors, from f32, bf16 or f16) with createTruncFToSmallFloat.
LogicalResult expandSmallFloatTruncations(Operation *root);

/// The exact f32 value of `x`, a scalar of a small float type (FP8, FP6,
/// FP4, E8M0), decoded with integer arithmetic from its bits: NaN codes to
/// the f32 quiet NaN of their sign, infinities to ±Inf, subnormals exactly.
Value createExtFFromSmallFloat(OpBuilder &b, Location loc, Value x);

/// Rewrites every arith.extf from a small float type under `root` (scalars
/// and 1-D vectors, to f32, bf16 or f16) with createExtFFromSmallFloat.
LogicalResult expandSmallFloatExtensions(Operation *root);

/// qmm.quantize's rule for one quantized tensor (see that op).
struct ScaleRule {
  Type elementType;
  Type scaleType;
  ScaleRounding rounding;
  float minAmax;
};

/// The scale of a block whose f32 `amax` is given (in `rule.scaleType`),
/// and the f32 reciprocal the elements are multiplied by. NaN or Inf amax
/// gives NaN for both.
std::pair<Value, Value> createBlockScale(OpBuilder &b, Location loc,
                                         Value amax, const ScaleRule &rule);

/// sat(rne(x * reciprocal)) in `elementType`, x an f32/bf16/f16 scalar or
/// vector (a scalar reciprocal is broadcast); NaN stays NaN where the type
/// has one and becomes 0 where it does not.
Value createQuantizedElement(OpBuilder &b, Location loc, Value x,
                             Value reciprocal, Type elementType);

/// Whether `op` is host index arithmetic that foldHostScalarOp evaluates:
/// an arith or affine op free of memory effects, from index / signless
/// integers to one (a division included: by zero it does not fold).
bool isHostScalarOp(Operation *op);

/// The value of host scalar op `op` at constant `operands` (one per operand,
/// any width; truncated or zero-extended to the operand's type), computed
/// by the op's own folder; none where it does not fold (a division by zero,
/// an op that is not host arithmetic).
std::optional<llvm::APInt> foldHostScalarOp(Operation *op,
                                            llvm::ArrayRef<llvm::APInt> operands);

} // namespace qmm
} // namespace mlir

#endif
