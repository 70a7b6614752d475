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
// affine.apply
//===----------------------------------------------------------------------===//

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims,
                        ArrayRef<int64_t> symbols) {
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
  int64_t lhs = evaluate(binary.getLHS(), dims, symbols);
  int64_t rhs = evaluate(binary.getRHS(), dims, symbols);
  switch (expr.getKind()) {
  case AffineExprKind::Add: return lhs + rhs;
  case AffineExprKind::Mul: return lhs * rhs;
  case AffineExprKind::FloorDiv: return floorDiv(lhs, rhs);
  case AffineExprKind::CeilDiv: return -floorDiv(-lhs, rhs);
  case AffineExprKind::Mod: {
    int64_t mod = lhs % rhs;
    return mod < 0 ? mod + std::abs(rhs) : mod;
  }
  default: return 0;
  }
}

static LogicalResult execAffineMap(WaveInterpreter &wave, Operation *op,
                                   AffineMap map, ValueRange operands,
                                   bool isMin, bool isMax) {
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
    int64_t result = evaluate(map.getResult(0), dims, symbols);
    for (AffineExpr expr : map.getResults().drop_front()) {
      int64_t v = evaluate(expr, dims, symbols);
      result = isMin ? std::min(result, v) : isMax ? std::max(result, v) : v;
    }
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
    // Division by zero is undefined behaviour in the IR; report it on the
    // lanes that execute the op.
    const Lanes &rhs = wave.get(op->getOperand(1));
    unsigned width = intWidth();
    for (int lane = 0; lane < kMaxLanes; ++lane)
      if (laneActive(mask, lane))
        for (unsigned e = 0; e < rhs.width; ++e)
          if (truncateBits(rhs.at(lane, e), width) == 0)
            return wave.fail(op, "integer division by zero on lane " +
                                     std::to_string(lane));
    (void)isSigned;
    return success();
  };
  auto safeDiv = [](int64_t a, int64_t b) { return b == 0 ? 0 : a / b; };
  auto safeRem = [](int64_t a, int64_t b) { return b == 0 ? 0 : a % b; };

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
      .Case([&](arith::ShLIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return b >= w ? 0 : a << b;
        });
      })
      .Case([&](arith::ShRUIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return b >= w ? 0 : truncateBits(a, w) >> b;
        });
      })
      .Case([&](arith::ShRSIOp) {
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(signExtend(a, w) >> std::min<uint64_t>(b, w - 1));
        });
      })
      .Case([&](arith::DivSIOp) {
        if (failed(divisionCheck(true)))
          return failure();
        return intBinary([&](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(safeDiv(signExtend(a, w), signExtend(b, w)));
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
        return intBinary([&](uint64_t a, uint64_t b, unsigned w) {
          return uint64_t(safeRem(signExtend(a, w), signExtend(b, w)));
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
          int64_t x = signExtend(a, w), y = signExtend(b, w);
          return y == 0 ? 0 : uint64_t(-floorDiv(-x, y));
        });
      })
      .Case([&](arith::FloorDivSIOp) {
        if (failed(divisionCheck(true)))
          return failure();
        return intBinary([](uint64_t a, uint64_t b, unsigned w) {
          int64_t y = signExtend(b, w);
          return y == 0 ? 0 : uint64_t(floorDiv(signExtend(a, w), y));
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
        mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
          double v = isSigned ? double(signExtend(a, from))
                              : double(truncateBits(a, from));
          return floatBits(to, v);
        });
        return success();
      })
      .Case<arith::FPToSIOp, arith::FPToUIOp>([&](Operation *) {
        auto from = cast<FloatType>(elementTypeOf(op->getOperand(0).getType()));
        unsigned to = intWidth();
        mapUnary(wave, op->getResult(0), op->getOperand(0), [&](uint64_t a) {
          double v = std::trunc(floatValue(from, a));
          if (std::isnan(v))
            return uint64_t(0);
          return truncateBits(uint64_t(int64_t(v)), to);
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
                             apply.getMapOperands(), false, false);
      })
      .Case([&](affine::AffineMinOp min) {
        return execAffineMap(wave, op, min.getAffineMap(),
                             min.getMapOperands(), true, false);
      })
      .Case([&](affine::AffineMaxOp max) {
        return execAffineMap(wave, op, max.getAffineMap(),
                             max.getMapOperands(), false, true);
      })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}
