//===- SmallFloatEncoding.cpp - f32 to FP8/FP6/FP4/E8M0 with integers -----===//
//
// LLVM knows no FP8/FP6/FP4/E8M0 types: their conversions from f32 are
// built from integer arithmetic on the f32 bit pattern, bit-exact and
// without a runtime library, on the CPU and in GPU kernels alike. Every
// constant comes from the type's APFloat semantics.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

#include <limits>

using namespace mlir;
using namespace mlir::qmm;
using llvm::APFloat;
using llvm::APInt;

bool qmm::isSmallFloatType(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() <= 8;
}

namespace {
/// What the encoder needs to know about a small float type.
struct SmallFloatInfo {
  unsigned width;
  int mantissaBits;
  int minExponent;
  bool hasInf;
  bool hasNaN;
  /// False for the FNUZ types, whose 0x80 is NaN.
  bool hasNegativeZero;
  uint64_t nanCode;
  uint64_t infCode;
  uint64_t maxCode;
  /// |x| above (or at, when !limitIsInclusive) this overflows.
  double overflowLimit;
  bool limitIsInclusive;

  explicit SmallFloatInfo(FloatType type) {
    const llvm::fltSemantics &sem = type.getFloatSemantics();
    width = type.getWidth();
    mantissaBits = APFloat::semanticsPrecision(sem) - 1;
    minExponent = APFloat::semanticsMinExponent(sem);
    hasInf = APFloat::semanticsHasInf(sem);
    hasNaN = APFloat::semanticsHasNaN(sem);
    APFloat negZeroPattern(sem, APInt(width, uint64_t(1) << (width - 1)));
    hasNegativeZero = negZeroPattern.isZero();
    nanCode = hasNaN ? APFloat::getQNaN(sem).bitcastToAPInt().getZExtValue() : 0;
    infCode = hasInf ? APFloat::getInf(sem).bitcastToAPInt().getZExtValue() : 0;
    APFloat largest = APFloat::getLargest(sem);
    maxCode = largest.bitcastToAPInt().getZExtValue();
    // Halfway to the next (unrepresentable) value; an even largest value
    // keeps the tie, an odd one loses it.
    double fmax = largest.convertToDouble();
    double ulp = std::ldexp(1.0, APFloat::semanticsMaxExponent(sem) -
                                     mantissaBits);
    overflowLimit = fmax + ulp / 2;
    limitIsInclusive = (maxCode & 1) == 0;
  }
};
} // namespace

/// f32 -> E8M0: the exponent, i.e. the value rounded down to a power of two;
/// NaN and Inf give 0xFF (E8M0's NaN).
static Value encodeE8M0(OpBuilder &b, Location loc, Value x) {
  Value magnitude = math::AbsFOp::create(b, loc, x);
  Value biased = arith::AddIOp::create(
      b, loc, createFloorLog2(b, loc, magnitude), createI32(b, loc, 127));
  biased = arith::MaxSIOp::create(b, loc, biased, createI32(b, loc, 0));
  biased = arith::MinSIOp::create(b, loc, biased, createI32(b, loc, 254));
  Value isFinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, magnitude,
      createF32(b, loc, std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(b, loc, isFinite, biased,
                                 createI32(b, loc, 0xFF));
}

/// f32 -> a sign/exponent/mantissa small float, round to nearest even.
static Value encodeSmallFloat(OpBuilder &b, Location loc, Value x,
                              const SmallFloatInfo &info) {
  Type i32 = b.getI32Type();
  int m = info.mantissaBits;
  int bias = 1 - info.minExponent;

  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value sign = arith::ShRUIOp::create(b, loc, bits, createI32(b, loc, 31));
  Value magnitude = math::AbsFOp::create(b, loc, x);
  Value magnitudeBits = arith::BitcastOp::create(b, loc, i32, magnitude);

  // Normal range: drop 23 - m mantissa bits with round-half-to-even; a carry
  // out of the mantissa correctly bumps the exponent. Then rebias.
  int shift = 23 - m;
  Value lsb = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, magnitudeBits, createI32(b, loc, shift)),
      createI32(b, loc, 1));
  Value rounded = arith::AddIOp::create(
      b, loc, magnitudeBits,
      arith::AddIOp::create(b, loc, createI32(b, loc, (1 << (shift - 1)) - 1),
                            lsb));
  Value normalCode = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, createI32(b, loc, shift)),
      createI32(b, loc, int64_t(127 - bias) << m));

  // Subnormal range: the code is the value in units of the smallest
  // subnormal, rounded to nearest even by adding and removing 2^23.
  // (Clamped so that the unselected lane never converts an out-of-range
  // value.)
  Value minNormal = createF32(b, loc, std::ldexp(1.0, info.minExponent));
  Value inUnits = arith::MulFOp::create(
      b, loc, arith::MinimumFOp::create(b, loc, magnitude, minNormal),
      createF32(b, loc, std::ldexp(1.0, m - info.minExponent)));
  Value magic = createF32(b, loc, std::ldexp(1.0, 23));
  Value roundedUnits = arith::SubFOp::create(
      b, loc, arith::AddFOp::create(b, loc, inUnits, magic), magic);
  Value subnormalCode = arith::FPToUIOp::create(b, loc, i32, roundedUnits);

  Value isNormal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE,
                                         magnitude, minNormal);
  Value code =
      arith::SelectOp::create(b, loc, isNormal, normalCode, subnormalCode);

  Value overflow = arith::CmpFOp::create(
      b, loc,
      info.limitIsInclusive ? arith::CmpFPredicate::OGT
                            : arith::CmpFPredicate::OGE,
      magnitude, createF32(b, loc, info.overflowLimit));
  uint64_t overflowCode = info.hasInf   ? info.infCode
                          : info.hasNaN ? info.nanCode
                                        : info.maxCode;
  code = arith::SelectOp::create(b, loc, overflow,
                                 createI32(b, loc, overflowCode), code);

  Value signedCode = arith::OrIOp::create(
      b, loc, code,
      arith::ShLIOp::create(b, loc, sign, createI32(b, loc, info.width - 1)));
  if (info.hasNegativeZero) {
    code = signedCode;
  } else {
    // No -0: a zero keeps a clear sign bit.
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         code, createI32(b, loc, 0));
    code = arith::SelectOp::create(b, loc, isZero, code, signedCode);
  }

  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(
      b, loc, isNaN, createI32(b, loc, info.hasNaN ? info.nanCode : 0), code);
}

Value qmm::createTruncFToSmallFloat(OpBuilder &b, Location loc, Value x,
                                   FloatType type) {
  Value code = isa<Float8E8M0FNUType>(type)
                   ? encodeE8M0(b, loc, x)
                   : encodeSmallFloat(b, loc, x, SmallFloatInfo(type));
  Value narrow = arith::TruncIOp::create(
      b, loc, b.getIntegerType(type.getWidth()), code);
  return arith::BitcastOp::create(b, loc, type, narrow);
}


LogicalResult qmm::expandSmallFloatTruncations(Operation *root) {
  SmallVector<arith::TruncFOp> truncations;
  root->walk([&](arith::TruncFOp trunc) {
    if (isSmallFloatType(getElementTypeOrSelf(trunc.getType())))
      truncations.push_back(trunc);
  });
  IRRewriter rewriter(root->getContext());
  for (arith::TruncFOp trunc : truncations) {
    rewriter.setInsertionPoint(trunc);
    Location loc = trunc.getLoc();
    auto type = cast<FloatType>(getElementTypeOrSelf(trunc.getType()));
    if (trunc.getRoundingmodeAttr() &&
        *trunc.getRoundingmode() != arith::RoundingMode::to_nearest_even)
      return trunc.emitOpError("only round-to-nearest-even truncations to ")
             << type << " can be expanded";
    Type inType = getElementTypeOrSelf(trunc.getIn().getType());
    if (!inType.isF32() && !inType.isF16() && !inType.isBF16())
      return trunc.emitOpError("truncations to ")
             << type << " are expanded from f32, f16 or bf16 only, got "
             << inType;
    auto encode = [&](Value x) -> Value {
      if (!x.getType().isF32())
        x = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), x);
      return createTruncFToSmallFloat(rewriter, loc, x, type);
    };
    auto vectorType = dyn_cast<VectorType>(trunc.getType());
    if (!vectorType) {
      rewriter.replaceOp(trunc, encode(trunc.getIn()));
      continue;
    }
    if (vectorType.getRank() != 1 || vectorType.isScalable())
      return trunc.emitOpError("only 1-D vector truncations to ")
             << type << " can be expanded";
    SmallVector<Value> elements;
    for (int64_t i = 0; i < vectorType.getDimSize(0); ++i)
      elements.push_back(encode(
          vector::ExtractOp::create(rewriter, loc, trunc.getIn(), i)));
    rewriter.replaceOp(trunc, vector::FromElementsOp::create(
                                  rewriter, loc, vectorType, elements));
  }
  return success();
}
