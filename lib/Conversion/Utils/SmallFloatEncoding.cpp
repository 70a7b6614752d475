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
  Value magnitude = createF32Magnitude(b, loc, x);
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
  Value magnitude = createF32Magnitude(b, loc, x);
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


/// The codes of `type` whose value is NaN (or, with `infinities`, ±Inf),
/// read off its APFloat semantics.
static SmallVector<uint64_t> getSpecialCodes(FloatType type, bool infinities) {
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  unsigned width = type.getWidth();
  SmallVector<uint64_t> codes;
  for (uint64_t code = 0; code < (uint64_t(1) << width); ++code) {
    APFloat value(sem, APInt(width, code));
    if (infinities ? value.isInfinity() : value.isNaN())
      codes.push_back(code);
  }
  return codes;
}

Value qmm::createExtFFromSmallFloat(OpBuilder &b, Location loc, Value x) {
  auto type = cast<FloatType>(x.getType());
  unsigned width = type.getWidth();
  Value bits = arith::ExtUIOp::create(
      b, loc, b.getI32Type(),
      arith::BitcastOp::create(b, loc, b.getIntegerType(width), x));
  auto isAnyOf = [&](ArrayRef<uint64_t> codes) -> Value {
    Value any;
    for (uint64_t code : codes) {
      Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                       createI32(b, loc, code));
      any = any ? arith::OrIOp::create(b, loc, any, is).getResult() : is;
    }
    return any;
  };
  Value result;
  // E8M0 has no sign; the others keep theirs, NaN included.
  Value sign = createI32(b, loc, 0);
  if (isa<Float8E8M0FNUType>(type)) {
    // 2^(e - 127): the f32 exponent field; e = 0 is the f32 subnormal
    // 2^-127.
    result = arith::ShLIOp::create(b, loc, bits, createI32(b, loc, 23));
    Value isZeroField = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, bits, createI32(b, loc, 0));
    result = arith::SelectOp::create(b, loc, isZeroField,
                                     createI32(b, loc, 0x00400000), result);
  } else {
    SmallFloatInfo info(type);
    int m = info.mantissaBits;
    int exponentBits = int(width) - 1 - m;
    int bias = 1 - info.minExponent;
    sign = arith::ShLIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, bits, createI32(b, loc, width - 1)),
        createI32(b, loc, 31));
    Value exponent = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bits, createI32(b, loc, m)),
        createI32(b, loc, (1 << exponentBits) - 1));
    Value mantissa =
        arith::AndIOp::create(b, loc, bits, createI32(b, loc, (1 << m) - 1));
    // Normal: rebias the exponent, widen the mantissa.
    Value normal = arith::OrIOp::create(
        b, loc,
        arith::ShLIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, exponent,
                                  createI32(b, loc, 127 - bias)),
            createI32(b, loc, 23)),
        arith::ShLIOp::create(b, loc, mantissa, createI32(b, loc, 23 - m)));
    // Subnormal: m * 2^(min exponent - mantissa bits), exact in f32.
    Value subnormal = arith::BitcastOp::create(
        b, loc, b.getI32Type(),
        arith::MulFOp::create(
            b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mantissa),
            createF32(b, loc, std::ldexp(1.0, info.minExponent - m))));
    Value isSubnormal = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, exponent, createI32(b, loc, 0));
    result = arith::OrIOp::create(
        b, loc, sign,
        arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal));
    if (Value isInf = isAnyOf(getSpecialCodes(type, /*infinities=*/true)))
      result = arith::SelectOp::create(
          b, loc, isInf,
          arith::OrIOp::create(b, loc, sign, createI32(b, loc, 0x7F800000)),
          result);
  }
  if (Value isNaN = isAnyOf(getSpecialCodes(type, /*infinities=*/false)))
    result = arith::SelectOp::create(
        b, loc, isNaN,
        arith::OrIOp::create(b, loc, sign, createI32(b, loc, 0x7FC00000)),
        result);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), result);
}

LogicalResult qmm::expandSmallFloatExtensions(Operation *root) {
  SmallVector<arith::ExtFOp> extensions;
  root->walk([&](arith::ExtFOp ext) {
    if (isSmallFloatType(getElementTypeOrSelf(ext.getIn().getType())))
      extensions.push_back(ext);
  });
  IRRewriter rewriter(root->getContext());
  for (arith::ExtFOp ext : extensions) {
    rewriter.setInsertionPoint(ext);
    Location loc = ext.getLoc();
    Type outType = getElementTypeOrSelf(ext.getType());
    if (!outType.isF32() && !outType.isF16() && !outType.isBF16())
      return ext.emitOpError("extensions of small floats are expanded to "
                             "f32, f16 or bf16 only, got ")
             << outType;
    // Every small float value is exact in f32; a narrower result rounds
    // the f32 value once (exact for FP8 in bf16, for E5M2 and FP4/FP6 in
    // f16; E8M0 scales beyond f16's range become Inf or 0).
    auto decode = [&](Value x) -> Value {
      Value value = createExtFFromSmallFloat(rewriter, loc, x);
      if (!outType.isF32())
        value = arith::TruncFOp::create(rewriter, loc, outType, value);
      return value;
    };
    auto vectorType = dyn_cast<VectorType>(ext.getType());
    if (!vectorType) {
      rewriter.replaceOp(ext, decode(ext.getIn()));
      continue;
    }
    if (vectorType.getRank() != 1 || vectorType.isScalable())
      return ext.emitOpError("only 1-D vector extensions of small floats "
                             "can be expanded");
    SmallVector<Value> elements;
    for (int64_t i = 0; i < vectorType.getDimSize(0); ++i)
      elements.push_back(
          decode(vector::ExtractOp::create(rewriter, loc, ext.getIn(), i)));
    rewriter.replaceOp(ext, vector::FromElementsOp::create(
                                rewriter, loc, vectorType, elements));
  }
  return success();
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
