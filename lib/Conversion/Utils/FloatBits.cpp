//===- FloatBits.cpp - exact log2 / exp2 on f32 bit patterns --------------===//
//
// Power-of-two scales must be exact, so their exponents are read off the
// f32 bit pattern instead of going through math.log2 / math.exp2.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::qmm;

Value qmm::createF32(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value qmm::createF32Magnitude(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  return arith::BitcastOp::create(
      b, loc, b.getF32Type(),
      arith::AndIOp::create(b, loc, bits, createI32(b, loc, 0x7FFFFFFF)));
}

Value qmm::createScaleProductIsExact(OpBuilder &b, Location loc, Value sa,
                                    Value sb, Value product) {
  // Normal: a biased exponent in [1, 254], i.e. the magnitude's bits minus
  // the smallest normal's below the span up to infinity (NaN fails too).
  Value magnitude = arith::AndIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, b.getI32Type(), product),
      createI32(b, loc, 0x7FFFFFFF));
  Value normal = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult,
      arith::SubIOp::create(b, loc, magnitude, createI32(b, loc, 0x00800000)),
      createI32(b, loc, 0x7F000000));
  // A zero scale makes the product exactly zero: (0, 1) keeps x * 0 from
  // meeting x * sa = Inf on the sequential path.
  Value zero = createF32(b, loc, 0.0);
  auto isZero = [&](Value s) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s, zero);
  };
  return arith::OrIOp::create(
      b, loc, normal, arith::OrIOp::create(b, loc, isZero(sa), isZero(sb)));
}

std::pair<Value, Value> qmm::createScaleFactors(OpBuilder &b, Location loc,
                                                Value sa, Value sb) {
  Value product = arith::MulFOp::create(b, loc, sa, sb);
  Value exact = createScaleProductIsExact(b, loc, sa, sb, product);
  return {arith::SelectOp::create(b, loc, exact, product, sa),
          arith::SelectOp::create(b, loc, exact, createF32(b, loc, 1.0), sb)};
}

Value qmm::createI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}

namespace {
/// The biased exponent field and the mantissa field of an f32.
struct F32Fields {
  Value exponent;
  Value mantissa;
};
} // namespace

static F32Fields splitF32(OpBuilder &b, Location loc, Value x) {
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, createI32(b, loc, 23)),
      createI32(b, loc, 0xFF));
  Value mantissa =
      arith::AndIOp::create(b, loc, bits, createI32(b, loc, 0x7FFFFF));
  return {exponent, mantissa};
}

Value qmm::createFloorLog2(OpBuilder &b, Location loc, Value x) {
  F32Fields f = splitF32(b, loc, x);
  // Normal: exponent - 127.
  Value normal =
      arith::SubIOp::create(b, loc, f.exponent, createI32(b, loc, 127));
  // Subnormal: the value is mantissa * 2^-149, so floor(log2) is the index
  // of the mantissa's highest set bit minus 149.
  Value leading = math::CountLeadingZerosOp::create(b, loc, f.mantissa);
  Value subnormal = arith::SubIOp::create(b, loc, createI32(b, loc, 31 - 149),
                                          leading);
  Value zero = createI32(b, loc, 0);
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            f.exponent, zero);
  Value isZero = arith::AndIOp::create(
      b, loc, isSubnormal,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, f.mantissa,
                            zero));
  Value result =
      arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  return arith::SelectOp::create(
      b, loc, isZero, createI32(b, loc, INT32_MIN / 2), result);
}

Value qmm::createCeilLog2(OpBuilder &b, Location loc, Value x) {
  F32Fields f = splitF32(b, loc, x);
  Value zero = createI32(b, loc, 0);
  // x is a power of two iff exactly one significand bit is set: the implicit
  // one of a normal number with a zero mantissa, or one mantissa bit of a
  // subnormal.
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            f.exponent, zero);
  Value popcount = math::CtPopOp::create(b, loc, f.mantissa);
  Value isPow2Subnormal = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, popcount, createI32(b, loc, 1));
  Value isPow2Normal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             f.mantissa, zero);
  Value isPow2 = arith::SelectOp::create(b, loc, isSubnormal, isPow2Subnormal,
                                         isPow2Normal);
  Value floor = createFloorLog2(b, loc, x);
  Value bump = arith::SelectOp::create(b, loc, isPow2, zero,
                                       createI32(b, loc, 1));
  return arith::AddIOp::create(b, loc, floor, bump);
}

Value qmm::createExp2(OpBuilder &b, Location loc, Value e) {
  // Normal powers: biased exponent in bits 23..30. Subnormal powers (e below
  // -126): a single mantissa bit, 2^(e + 149) as an integer.
  Value normalBits = arith::ShLIOp::create(
      b, loc, arith::AddIOp::create(b, loc, e, createI32(b, loc, 127)),
      createI32(b, loc, 23));
  Value subnormalBits = arith::ShLIOp::create(
      b, loc, createI32(b, loc, 1),
      arith::AddIOp::create(b, loc, e, createI32(b, loc, 149)));
  Value isNormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, e,
                                         createI32(b, loc, -126));
  Value bits =
      arith::SelectOp::create(b, loc, isNormal, normalBits, subnormalBits);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}
