//===- ArithOps.cpp - arith, math, index and affine ops -------------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::qmm::emu;

static Type elementTypeOf(Type type) { return getElementTypeOrSelf(type); }

/// out[i] = fn(in[i]) over every lane and element.
template <typename Fn>
static void mapUnary(WaveInterpreter &wave, Value result, Value input, Fn fn) {
  Lanes in = wave.get(input);
  Lanes &out = wave.define(result, in.width);
  for (size_t i = 0; i < in.bits.size(); ++i)
    out.bits[i] = fn(in.bits[i]);
}

template <typename Fn>
static void mapBinary(WaveInterpreter &wave, Value result, Value lhs,
                      Value rhs, Fn fn) {
  const Lanes &a = wave.get(lhs);
  const Lanes &b = wave.get(rhs);
  Lanes out;
  out.width = a.width;
  out.bits.resize(a.bits.size());
  for (size_t i = 0; i < a.bits.size(); ++i)
    out.bits[i] = fn(a.bits[i], b.bits[i]);
  wave.define(result, a.width) = std::move(out);
}

/// A float op computed in f32 (f32 operands) or exactly in f64 and rounded
/// once (narrower types).
template <typename Fn>
static void floatBinary(WaveInterpreter &wave, Operation *op, Fn fn) {
  auto type = cast<FloatType>(elementTypeOf(op->getResult(0).getType()));
  if (type.isF32()) {
    mapBinary(wave, op->getResult(0), op->getOperand(0), op->getOperand(1),
              [&](uint64_t a, uint64_t b) {
                return f32Bits(float(fn(double(f32Value(a)), double(f32Value(b)), true)));
              });
    return;
  }
  mapBinary(wave, op->getResult(0), op->getOperand(0), op->getOperand(1),
            [&](uint64_t a, uint64_t b) {
              return floatBits(type, fn(floatValue(type, a),
                                        floatValue(type, b), false));
            });
}

template <typename Fn>
static void floatUnary(WaveInterpreter &wave, Operation *op, Fn fn) {
  auto type = cast<FloatType>(elementTypeOf(op->getResult(0).getType()));
  mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
    if (type.isF32())
      return f32Bits(float(fn(double(f32Value(a)))));
    return floatBits(type, fn(floatValue(type, a)));
  });
}

static bool compareInts(arith::CmpIPredicate predicate, uint64_t a,
                        uint64_t b, unsigned width) {
  int64_t sa = signExtend(a, width), sb = signExtend(b, width);
  uint64_t ua = truncateBits(a, width), ub = truncateBits(b, width);
  switch (predicate) {
  case arith::CmpIPredicate::eq: return ua == ub;
  case arith::CmpIPredicate::ne: return ua != ub;
  case arith::CmpIPredicate::slt: return sa < sb;
  case arith::CmpIPredicate::sle: return sa <= sb;
  case arith::CmpIPredicate::sgt: return sa > sb;
  case arith::CmpIPredicate::sge: return sa >= sb;
  case arith::CmpIPredicate::ult: return ua < ub;
  case arith::CmpIPredicate::ule: return ua <= ub;
  case arith::CmpIPredicate::ugt: return ua > ub;
  case arith::CmpIPredicate::uge: return ua >= ub;
  }
  return false;
}

static bool compareFloats(arith::CmpFPredicate predicate, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (predicate) {
  case arith::CmpFPredicate::AlwaysFalse: return false;
  case arith::CmpFPredicate::OEQ: return !unordered && a == b;
  case arith::CmpFPredicate::OGT: return !unordered && a > b;
  case arith::CmpFPredicate::OGE: return !unordered && a >= b;
  case arith::CmpFPredicate::OLT: return !unordered && a < b;
  case arith::CmpFPredicate::OLE: return !unordered && a <= b;
  case arith::CmpFPredicate::ONE: return !unordered && a != b;
  case arith::CmpFPredicate::ORD: return !unordered;
  case arith::CmpFPredicate::UEQ: return unordered || a == b;
  case arith::CmpFPredicate::UGT: return unordered || a > b;
  case arith::CmpFPredicate::UGE: return unordered || a >= b;
  case arith::CmpFPredicate::ULT: return unordered || a < b;
  case arith::CmpFPredicate::ULE: return unordered || a <= b;
  case arith::CmpFPredicate::UNE: return unordered || a != b;
  case arith::CmpFPredicate::UNO: return unordered;
  case arith::CmpFPredicate::AlwaysTrue: return true;
  }
  return false;
}

/// Bits of a constant attribute element.
static uint64_t attributeBits(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getValue().getZExtValue();
  if (auto floating = dyn_cast<FloatAttr>(attr))
    return floating.getValue().bitcastToAPInt().getZExtValue();
  return 0;
}

static LogicalResult execConstant(WaveInterpreter &wave,
                                  arith::ConstantOp op) {
  Attribute value = op.getValue();
  Value result = op.getResult();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    unsigned width = dense.getNumElements();
    Lanes &out = wave.define(result, width);
    SmallVector<uint64_t> elements;
    if (isa<FloatType>(dense.getElementType()))
      for (APFloat element : dense.getValues<APFloat>())
        elements.push_back(element.bitcastToAPInt().getZExtValue());
    else
      for (APInt element : dense.getValues<APInt>())
        elements.push_back(element.getZExtValue());
    for (int lane = 0; lane < kMaxLanes; ++lane)
      for (unsigned e = 0; e < width; ++e)
        out.at(lane, e) = elements[e];
    return success();
  }
  if (!isa<IntegerAttr, FloatAttr>(value))
    return wave.fail(op, "unsupported constant");
  Lanes &out = wave.define(result, 1);
  uint64_t bits = attributeBits(value);
  for (int lane = 0; lane < kMaxLanes; ++lane)
    out.at(lane, 0) = bits;
  return success();
}

//===----------------------------------------------------------------------===//
// Integer division
//===----------------------------------------------------------------------===//

// Signed division rounding toward zero, down and up, and the remainder, for
// every input: the handlers report division by zero and overflow
// (INT_MIN / -1) on the lanes that execute the op, but the lanes outside
// the exec mask hold anything and must not trap the host.

static int64_t divideSigned(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  if (b == -1) // wraps for INT64_MIN
    return int64_t(0 - uint64_t(a));
  return a / b;
}

static int64_t remainderSigned(int64_t a, int64_t b) {
  return b == 0 || b == -1 ? 0 : a % b;
}

static int64_t floorDivideSigned(int64_t a, int64_t b) {
  int64_t quotient = divideSigned(a, b);
  bool inexact = remainderSigned(a, b) != 0;
  return inexact && (a < 0) != (b < 0) ? quotient - 1 : quotient;
}

static int64_t ceilDivideSigned(int64_t a, int64_t b) {
  int64_t quotient = divideSigned(a, b);
  bool inexact = remainderSigned(a, b) != 0;
  return inexact && (a < 0) == (b < 0) ? quotient + 1 : quotient;
}

//===----------------------------------------------------------------------===//
// affine.apply
//===----------------------------------------------------------------------===//

/// Evaluates `expr` as its lowering (expandAffineExpr) computes it: sums and
/// products wrap; mod, floordiv and ceildiv assume a positive divisor, and
/// any other divisor is recorded in `badDivisor` (the result is then 0).
static int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims,
                        ArrayRef<int64_t> symbols,
                        std::optional<int64_t> &badDivisor) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    return symbols[cast<AffineSymbolExpr>(expr).getPosition()];
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = evaluate(binary.getLHS(), dims, symbols, badDivisor);
  int64_t rhs = evaluate(binary.getRHS(), dims, symbols, badDivisor);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return int64_t(uint64_t(lhs) + uint64_t(rhs));
  case AffineExprKind::Mul:
    return int64_t(uint64_t(lhs) * uint64_t(rhs));
  default:
    break;
  }
  if (rhs <= 0) {
    if (!badDivisor)
      badDivisor = rhs;
    return 0;
  }
  switch (expr.getKind()) {
  case AffineExprKind::FloorDiv:
    return floorDivideSigned(lhs, rhs);
  case AffineExprKind::CeilDiv:
    return ceilDivideSigned(lhs, rhs);
  case AffineExprKind::Mod: {
    int64_t remainder = lhs % rhs;
    return remainder < 0 ? remainder + rhs : remainder;
  }
  default:
    return 0;
  }
}

static LogicalResult execAffineMap(WaveInterpreter &wave, Operation *op,
                                   AffineMap map, ValueRange operands,
                                   ExecMask mask, bool isMin, bool isMax) {
  SmallVector<Lanes> inputs;
  for (Value operand : operands)
    inputs.push_back(wave.get(operand));
  Lanes &out = wave.define(op->getResult(0), 1);
  unsigned numDims = map.getNumDims();
  SmallVector<int64_t> dims(numDims), symbols(map.getNumSymbols());
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    for (unsigned i = 0; i < inputs.size(); ++i) {
      int64_t v = int64_t(inputs[i].at(lane, 0));
      if (i < numDims)
        dims[i] = v;
      else
        symbols[i - numDims] = v;
    }
    std::optional<int64_t> badDivisor;
    int64_t result = evaluate(map.getResult(0), dims, symbols, badDivisor);
    for (AffineExpr expr : map.getResults().drop_front()) {
      int64_t v = evaluate(expr, dims, symbols, badDivisor);
      result = isMin ? std::min(result, v) : isMax ? std::max(result, v) : v;
    }
    if (badDivisor && laneActive(mask, lane))
      return wave.fail(op, "mod, floordiv or ceildiv by " +
                               std::to_string(*badDivisor) + " on lane " +
                               std::to_string(lane) +
                               " (the affine lowering needs positive "
                               "divisors)");
    out.at(lane, 0) = uint64_t(result);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult mlir::qmm::emu::execArithOp(WaveInterpreter &wave,
                                          Operation *op, ExecMask mask,
                                          bool &handled) {
  handled = true;
  auto intWidth = [&]() {
    return getBitWidth(elementTypeOf(op->getResult(0).getType()));
  };
  auto intBinary = [&](auto fn) {
    unsigned width = intWidth();
    mapBinary(wave, op->getResult(0), op->getOperand(0), op->getOperand(1),
              [&](uint64_t a, uint64_t b) {
                return truncateBits(fn(a, b, width), width);
              });
    return success();
  };
  auto divisionCheck = [&](bool isSigned) -> LogicalResult {
    // Division by zero and signed overflow (the minimum value by -1) are
    // undefined behaviour in LLVM IR; report them on the lanes that execute
    // the op.
    const Lanes &lhs = wave.get(op->getOperand(0));
    const Lanes &rhs = wave.get(op->getOperand(1));
    unsigned width = intWidth();
    int64_t minimum = signExtend(uint64_t(1) << (width - 1), width);
    for (int lane = 0; lane < kMaxLanes; ++lane) {
      if (!laneActive(mask, lane))
        continue;
      for (unsigned e = 0; e < rhs.width; ++e) {
        uint64_t divisor = truncateBits(rhs.at(lane, e), width);
        if (divisor == 0)
          return wave.fail(op, "integer division by zero on lane " +
                                   std::to_string(lane));
        if (isSigned && signExtend(divisor, width) == -1 &&
            signExtend(lhs.at(lane, e), width) == minimum)
          return wave.fail(op, "signed integer division overflows (" +
                                   std::to_string(minimum) + " / -1) on lane " +
                                   std::to_string(lane));
      }
    }
    return success();
  };

  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantOp c) { return execConstant(wave, c); })
      .Case([&](arith::AddIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned) { return a + b; });
      })
      .Case([&](arith::SubIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned) { return a - b; });
      })
      .Case([&](arith::MulIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned) { return a * b; });
      })
      .Case([&](arith::AndIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned) { return a & b; });
      })
      .Case([&](arith::OrIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned) { return a | b; });
      })
      .Case([&](arith::XOrIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned) { return a ^ b; });
      })
      // Shifts by the width or more are poison in LLVM; the emulator defines
      // them (0, or the sign for shrsi) so that a select that discards them
      // stays valid.
      .Case([&](arith::ShLIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          b = truncateBits(b, w);
          return b >= w ? 0 : a << b;
        });
      })
      .Case([&](arith::ShRUIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          b = truncateBits(b, w);
          return b >= w ? 0 : truncateBits(a, w) >> b;
        });
      })
      .Case([&](arith::ShRSIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(signExtend(a, w) >>
                          std::min<uint64_t>(truncateBits(b, w), w - 1));
        });
      })
      .Case([&](arith::DivSIOp) {
        if (failed(divisionCheck(true)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(divideSigned(signExtend(a, w), signExtend(b, w)));
        });
      })
      .Case([&](arith::DivUIOp) {
        if (failed(divisionCheck(false)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          uint64_t d = truncateBits(b, w);
          return d ? truncateBits(a, w) / d : 0;
        });
      })
      .Case([&](arith::RemSIOp) {
        if (failed(divisionCheck(true)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(remainderSigned(signExtend(a, w), signExtend(b, w)));
        });
      })
      .Case([&](arith::RemUIOp) {
        if (failed(divisionCheck(false)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          uint64_t d = truncateBits(b, w);
          return d ? truncateBits(a, w) % d : 0;
        });
      })
      .Case([&](arith::CeilDivSIOp) {
        if (failed(divisionCheck(true)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(ceilDivideSigned(signExtend(a, w), signExtend(b, w)));
        });
      })
      .Case([&](arith::CeilDivUIOp) {
        if (failed(divisionCheck(false)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          uint64_t x = truncateBits(a, w), y = truncateBits(b, w);
          return y == 0 || x == 0 ? 0 : (x - 1) / y + 1;
        });
      })
      .Case([&](arith::FloorDivSIOp) {
        if (failed(divisionCheck(true)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(
              floorDivideSigned(signExtend(a, w), signExtend(b, w)));
        });
      })
      .Case([&](arith::MaxSIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return signExtend(a, w) >= signExtend(b, w) ? a : b;
        });
      })
      .Case([&](arith::MinSIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return signExtend(a, w) <= signExtend(b, w) ? a : b;
        });
      })
      .Case([&](arith::MaxUIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return truncateBits(a, w) >= truncateBits(b, w) ? a : b;
        });
      })
      .Case([&](arith::MinUIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return truncateBits(a, w) <= truncateBits(b, w) ? a : b;
        });
      })
      .Case([&](arith::AddFOp) {
        floatBinary(wave, op, [](double a, double b, bool) { return a + b; });
        return success();
      })
      .Case([&](arith::SubFOp) {
        floatBinary(wave, op, [](double a, double b, bool) { return a - b; });
        return success();
      })
      .Case([&](arith::MulFOp) {
        floatBinary(wave, op, [](double a, double b, bool) { return a * b; });
        return success();
      })
      .Case([&](arith::DivFOp) {
        floatBinary(wave, op, [](double a, double b, bool isF32) {
          return isF32 ? double(float(a) / float(b)) : a / b;
        });
        return success();
      })
      .Case([&](arith::MaximumFOp) {
        floatBinary(wave, op, [](double a, double b, bool) {
          if (std::isnan(a) || std::isnan(b))
            return std::nan("");
          if (a == b)
            return std::signbit(a) ? b : a;
          return std::max(a, b);
        });
        return success();
      })
      .Case([&](arith::MinimumFOp) {
        floatBinary(wave, op, [](double a, double b, bool) {
          if (std::isnan(a) || std::isnan(b))
            return std::nan("");
          if (a == b)
            return std::signbit(a) ? a : b;
          return std::min(a, b);
        });
        return success();
      })
      .Case([&](arith::MaxNumFOp) {
        floatBinary(wave, op, [](double a, double b, bool) { return std::fmax(a, b); });
        return success();
      })
      .Case([&](arith::MinNumFOp) {
        floatBinary(wave, op, [](double a, double b, bool) { return std::fmin(a, b); });
        return success();
      })
      .Case([&](arith::NegFOp) {
        floatUnary(wave, op, [](double a) { return -a; });
        return success();
      })
      .Case([&](math::AbsFOp) {
        floatUnary(wave, op, [](double a) { return std::fabs(a); });
        return success();
      })
      .Case<math::CountLeadingZerosOp, math::CountTrailingZerosOp,
            math::CtPopOp>([&](Operation *) {
        // Bit counts within the operand's width (a zero operand counts all
        // of its bits as leading / trailing zeros).
        unsigned width = intWidth();
        bool leading = isa<math::CountLeadingZerosOp>(op);
        bool trailing = isa<math::CountTrailingZerosOp>(op);
        mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
          a = truncateBits(a, width);
          if (leading)
            return uint64_t(a == 0 ? width
                                   : llvm::countl_zero(a) - (64 - width));
          if (trailing)
            return uint64_t(a == 0 ? width : llvm::countr_zero(a));
          return uint64_t(llvm::popcount(a));
        });
        return success();
      })
      .Case([&](math::SqrtOp) {
        floatUnary(wave, op, [](double a) { return std::sqrt(a); });
        return success();
      })
      .Case([&](math::ExpOp) {
        floatUnary(wave, op, [](double a) { return std::exp(a); });
        return success();
      })
      .Case([&](math::TanhOp) {
        floatUnary(wave, op, [](double a) { return std::tanh(a); });
        return success();
      })
      .Case([&](math::ErfOp) {
        floatUnary(wave, op, [](double a) { return std::erf(a); });
        return success();
      })
      .Case([&](math::Exp2Op) {
        floatUnary(wave, op, [](double a) { return std::exp2(a); });
        return success();
      })
      .Case([&](math::LogOp) {
        floatUnary(wave, op, [](double a) { return std::log(a); });
        return success();
      })
      .Case([&](math::Log2Op) {
        floatUnary(wave, op, [](double a) { return std::log2(a); });
        return success();
      })
      .Case([&](math::RsqrtOp) {
        floatUnary(wave, op, [](double a) { return 1.0 / std::sqrt(a); });
        return success();
      })
      .Case([&](math::FloorOp) {
        floatUnary(wave, op, [](double a) { return std::floor(a); });
        return success();
      })
      .Case([&](math::CeilOp) {
        floatUnary(wave, op, [](double a) { return std::ceil(a); });
        return success();
      })
      .Case([&](math::RoundEvenOp) {
        floatUnary(wave, op, [](double a) { return std::nearbyint(a); });
        return success();
      })
      .Case([&](math::FmaOp fma) {
        auto type = cast<FloatType>(elementTypeOf(fma.getType()));
        const Lanes &a = wave.get(fma.getA());
        const Lanes &b = wave.get(fma.getB());
        const Lanes &c = wave.get(fma.getC());
        Lanes out;
        out.width = a.width;
        out.bits.resize(a.bits.size());
        for (size_t i = 0; i < a.bits.size(); ++i)
          out.bits[i] =
              fusedMultiplyAdd(type, a.bits[i], b.bits[i], c.bits[i]);
        wave.define(fma.getResult(), a.width) = std::move(out);
        return success();
      })
      .Case([&](arith::CmpIOp cmp) {
        unsigned width = getBitWidth(elementTypeOf(cmp.getLhs().getType()));
        mapBinary(wave, cmp.getResult(), cmp.getLhs(), cmp.getRhs(),
                  [&](uint64_t a, uint64_t b) {
                    return uint64_t(compareInts(cmp.getPredicate(), a, b, width));
                  });
        return success();
      })
      .Case([&](arith::CmpFOp cmp) {
        auto type = cast<FloatType>(elementTypeOf(cmp.getLhs().getType()));
        mapBinary(wave, cmp.getResult(), cmp.getLhs(), cmp.getRhs(),
                  [&](uint64_t a, uint64_t b) {
                    return uint64_t(compareFloats(cmp.getPredicate(),
                                                  floatValue(type, a),
                                                  floatValue(type, b)));
                  });
        return success();
      })
      .Case([&](arith::SelectOp select) {
        // A copy: define() below may grow the value map.
        Lanes condition = wave.get(select.getCondition());
        if (isa<MemRefType>(select.getType())) {
          Lanes t = wave.get(select.getTrueValue());
          Lanes f = wave.get(select.getFalseValue());
          Lanes &out = wave.define(select.getResult(), 1);
          for (int lane = 0; lane < kMaxLanes; ++lane)
            out.views[lane] = (condition.at(lane, 0) & 1) ? t.views[lane]
                                                           : f.views[lane];
          return success();
        }
        Lanes t = wave.get(select.getTrueValue());
        Lanes f = wave.get(select.getFalseValue());
        Lanes &out = wave.define(select.getResult(), t.width);
        for (int lane = 0; lane < kMaxLanes; ++lane)
          for (unsigned e = 0; e < t.width; ++e) {
            uint64_t c = condition.width == 1 ? condition.at(lane, 0)
                                              : condition.at(lane, e);
            out.at(lane, e) = (c & 1) ? t.at(lane, e) : f.at(lane, e);
          }
        return success();
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp>([&](Operation *) {
        unsigned from = getBitWidth(elementTypeOf(op->getOperand(0).getType()));
        unsigned to = intWidth();
        mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
          return truncateBits(uint64_t(signExtend(a, from)), to);
        });
        return success();
      })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp, arith::TruncIOp>(
          [&](Operation *) {
            unsigned from =
                getBitWidth(elementTypeOf(op->getOperand(0).getType()));
            unsigned to = intWidth();
            mapUnary(wave, op->getResult(0), op->getOperand(0),
                     [&](uint64_t a) {
                       return truncateBits(truncateBits(a, from), to);
                     });
            return success();
          })
      .Case<arith::SIToFPOp, arith::UIToFPOp>([&](Operation *) {
        unsigned from = getBitWidth(elementTypeOf(op->getOperand(0).getType()));
        auto to = cast<FloatType>(elementTypeOf(op->getResult(0).getType()));
        bool isSigned = isa<arith::SIToFPOp>(op);
        const llvm::fltSemantics &semantics = to.getFloatSemantics();
        mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
          uint64_t extended =
              isSigned ? uint64_t(signExtend(a, from)) : truncateBits(a, from);
          double v = isSigned ? double(int64_t(extended)) : double(extended);
          // Integers above 2^53 would be rounded twice through f64; round
          // them once, like the hardware.
          if (std::fabs(v) < 0x1p53 || to.isF64() ||
              APFloat::semanticsMaxExponent(semantics) < 53)
            return floatBits(to, v);
          APFloat value(semantics);
          value.convertFromAPInt(APInt(64, extended), isSigned,
                                 APFloat::rmNearestTiesToEven);
          return value.bitcastToAPInt().getZExtValue();
        });
        return success();
      })
      .Case<arith::FPToSIOp, arith::FPToUIOp>([&](Operation *) {
        // As v_cvt_{i32,u32}_f32 do: toward zero, saturated to the result
        // type's range, NaN to 0 (LLVM makes out-of-range results poison).
        auto from = cast<FloatType>(elementTypeOf(op->getOperand(0).getType()));
        unsigned to = intWidth();
        bool isSigned = isa<arith::FPToSIOp>(op);
        uint64_t maxUnsigned = truncateBits(~uint64_t(0), to);
        int64_t maxSigned = int64_t(maxUnsigned >> 1);
        int64_t minSigned = -maxSigned - 1;
        // 2^(w-1) and 2^w: the first values out of range.
        double signedBound = std::ldexp(1.0, int(to) - 1);
        double unsignedBound = std::ldexp(1.0, int(to));
        mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
          double v = std::trunc(floatValue(from, a));
          if (std::isnan(v))
            return uint64_t(0);
          if (!isSigned)
            return v <= 0 ? 0 : v >= unsignedBound ? maxUnsigned : uint64_t(v);
          int64_t result = v >= signedBound   ? maxSigned
                           : v < -signedBound ? minSigned
                                              : int64_t(v);
          return truncateBits(uint64_t(result), to);
        });
        return success();
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
        auto from = cast<FloatType>(elementTypeOf(op->getOperand(0).getType()));
        auto to = cast<FloatType>(elementTypeOf(op->getResult(0).getType()));
        mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
          return floatBits(to, floatValue(from, a));
        });
        return success();
      })
      .Case([&](arith::BitcastOp) {
        unsigned width = intWidth();
        mapUnary(wave, op->getResult(0), op->getOperand(0),
                 [&](uint64_t a) { return truncateBits(a, width); });
        return success();
      })
      .Case([&](affine::AffineApplyOp apply) {
        return execAffineMap(wave, op, apply.getAffineMap(),
                             apply.getMapOperands(), mask, false, false);
      })
      .Case([&](affine::AffineMinOp min) {
        return execAffineMap(wave, op, min.getAffineMap(), min.getMapOperands(),
                             mask, true, false);
      })
      .Case([&](affine::AffineMaxOp max) {
        return execAffineMap(wave, op, max.getAffineMap(), max.getMapOperands(),
                             mask, false, true);
      })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}
