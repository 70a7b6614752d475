//===- ExpandFloatConversions.cpp - bit-exact small-float conversions -----===//
//
// LLVM knows no FP8/FP6/FP4/E8M0 types: the LLVM type converter stores them
// as integers of their width. This pass turns the conversions from and to
// them into table lookups and integer arithmetic, so the CPU computes them
// bit-exactly with no runtime library. Every constant comes from the type's
// APFloat semantics.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMEXPANDFLOATCONVERSIONS
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;
using llvm::APFloat;
using llvm::APInt;

/// Float types of 8 bits or fewer: the ones LLVM cannot represent.
static bool isSmallFloat(Type type) {
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

//===----------------------------------------------------------------------===//
// extf: table lookup
//===----------------------------------------------------------------------===//

/// The module-level constant table of the 2^w f32 values of `type`.
static memref::GlobalOp getOrCreateDecodeTable(ModuleOp module,
                                               FloatType type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "__qmm_decode_" << type;
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing;

  const llvm::fltSemantics &sem = type.getFloatSemantics();
  unsigned width = type.getWidth();
  SmallVector<float> values;
  for (uint64_t code = 0; code < (uint64_t(1) << width); ++code) {
    APFloat value(sem, APInt(width, code));
    // (APFloat's conversion of E8M0's NaN is not reliable: spell NaN out.)
    if (value.isNaN()) {
      values.push_back(std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    bool losesInfo = false;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    values.push_back(value.convertToFloat());
  }

  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto tableType =
      MemRefType::get({int64_t(values.size())}, b.getF32Type());
  auto tensorType =
      RankedTensorType::get({int64_t(values.size())}, b.getF32Type());
  return memref::GlobalOp::create(
      b, module.getLoc(), name, b.getStringAttr("private"), tableType,
      DenseElementsAttr::get(tensorType, ArrayRef<float>(values)),
      /*constant=*/true, /*alignment=*/nullptr);
}

static Value decodeToF32(OpBuilder &b, Location loc, ModuleOp module,
                         Value value) {
  auto type = cast<FloatType>(value.getType());
  memref::GlobalOp table = getOrCreateDecodeTable(module, type);
  Value bits = arith::BitcastOp::create(
      b, loc, b.getIntegerType(type.getWidth()), value);
  Value index = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), bits);
  Value tableRef = memref::GetGlobalOp::create(b, loc, table.getType(),
                                               table.getSymName());
  return memref::LoadOp::create(b, loc, tableRef, ValueRange{index});
}

//===----------------------------------------------------------------------===//
// truncf: integer rounding
//===----------------------------------------------------------------------===//

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

static Value encodeFromF32(OpBuilder &b, Location loc, Value x,
                           FloatType type) {
  Value code = isa<Float8E8M0FNUType>(type)
                   ? encodeE8M0(b, loc, x)
                   : encodeSmallFloat(b, loc, x, SmallFloatInfo(type));
  Value narrow = arith::TruncIOp::create(
      b, loc, b.getIntegerType(type.getWidth()), code);
  return arith::BitcastOp::create(b, loc, type, narrow);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct QMMExpandFloatConversionsPass
    : public qmm::impl::QMMExpandFloatConversionsBase<
          QMMExpandFloatConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> conversions;
    module.walk([&](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op);
          ext && isSmallFloat(ext.getIn().getType()))
        conversions.push_back(op);
      if (auto trunc = dyn_cast<arith::TruncFOp>(op);
          trunc && isSmallFloat(trunc.getType()))
        conversions.push_back(op);
    });

    IRRewriter rewriter(&getContext());
    for (Operation *op : conversions) {
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        Value value = decodeToF32(rewriter, loc, module, ext.getIn());
        if (!ext.getType().isF32())
          value = arith::ExtFOp::create(rewriter, loc, ext.getType(), value);
        rewriter.replaceOp(op, value);
        continue;
      }
      auto trunc = cast<arith::TruncFOp>(op);
      if (trunc.getRoundingmodeAttr() &&
          *trunc.getRoundingmode() != arith::RoundingMode::to_nearest_even) {
        trunc.emitOpError("qmm-expand-float-conversions supports only "
                          "round-to-nearest-even");
        return signalPassFailure();
      }
      Value input = trunc.getIn();
      if (input.getType().isF16() || input.getType().isBF16())
        input = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(),
                                      input); // exact
      else if (!input.getType().isF32()) {
        trunc.emitOpError("qmm-expand-float-conversions converts from f32, "
                          "f16 or bf16 only, got ")
            << input.getType();
        return signalPassFailure();
      }
      rewriter.replaceOp(op, encodeFromF32(rewriter, loc, input,
                                           cast<FloatType>(trunc.getType())));
    }
  }
};
} // namespace
