//===- ArithOps.cpp - arith, math, index and affine ops -------------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/IR/AffineExprVisitor.h"

#include <array>
#include <cmath>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::qmm::emu;

/// out[i] = fn(in[i]) over every lane and element (once for a uniform
/// operand).
template <typename Fn>
static void mapUnary(WaveInterpreter &wave, const Lanes &in, Fn fn) {
  if (in.uniform) {
    Lanes &out = wave.defineUniform(0, in.width);
    for (unsigned e = 0; e < in.width; ++e)
      out.bits[e] = fn(in.bits[e]);
    return;
  }
  Lanes &out = wave.defineResult(0, in.width);
  for (size_t i = 0; i < in.bits.size(); ++i)
    out.bits[i] = fn(in.bits[i]);
}

/// The same for any number of operands of one width.
template <size_t N, typename Fn>
static void mapElements(WaveInterpreter &wave,
                        const std::array<const Lanes *, N> &in, Fn fn) {
  unsigned width = in[0]->width;
  bool uniform = llvm::all_of(in, [](const Lanes *l) { return l->uniform; });
  std::array<uint64_t, N> args;
  if (uniform) {
    Lanes &out = wave.defineUniform(0, width);
    for (unsigned e = 0; e < width; ++e) {
      for (size_t k = 0; k < N; ++k)
        args[k] = in[k]->bits[e];
      out.bits[e] = std::apply(fn, args);
    }
    return;
  }
  Lanes &out = wave.defineResult(0, width);
  if (llvm::none_of(in, [](const Lanes *l) { return l->uniform; })) {
    for (size_t i = 0; i < out.bits.size(); ++i) {
      for (size_t k = 0; k < N; ++k)
        args[k] = in[k]->bits[i];
      out.bits[i] = std::apply(fn, args);
    }
    return;
  }
  for (int lane = 0; lane < kMaxLanes; ++lane)
    for (unsigned e = 0; e < width; ++e) {
      for (size_t k = 0; k < N; ++k)
        args[k] = in[k]->at(lane, e);
      out.bits[size_t(lane) * width + e] = std::apply(fn, args);
    }
}

template <typename Fn>
static void mapBinary(WaveInterpreter &wave, Fn fn) {
  mapElements<2>(wave, {&wave.operand(0), &wave.operand(1)}, fn);
}

static FloatType resultFloatType(const Instr &inst) {
  return cast<FloatType>(getElementTypeOrSelf(inst.op->getResult(0).getType()));
}

/// A float op computed in f32 (f32 operands) or exactly in f64 and rounded
/// once (narrower types).
template <typename Fn>
static LogicalResult floatBinary(WaveInterpreter &wave, const Instr &inst,
                                 Fn fn) {
  FloatType type = resultFloatType(inst);
  if (type.isF32()) {
    mapBinary(wave, [&](uint64_t a, uint64_t b) {
      return f32Bits(
          float(fn(double(f32Value(a)), double(f32Value(b)), true)));
    });
    return success();
  }
  mapBinary(wave, [&](uint64_t a, uint64_t b) {
    return floatBits(type, fn(floatValue(type, a), floatValue(type, b), false));
  });
  return success();
}

template <typename Fn>
static LogicalResult floatUnary(WaveInterpreter &wave, const Instr &inst,
                                Fn fn) {
  FloatType type = resultFloatType(inst);
  mapUnary(wave, wave.operand(0), [&](uint64_t a) {
    if (type.isF32())
      return f32Bits(float(fn(double(f32Value(a)))));
    return floatBits(type, fn(floatValue(type, a)));
  });
  return success();
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

namespace {
/// A constant's elements, decoded once.
struct ConstantInfo {
  bool supported = false;
  SmallVector<uint64_t> elements;
};
} // namespace

static void decodeConstant(DecodedKernel &kernel, Instr &inst) {
  ConstantInfo &info = kernel.allocate<ConstantInfo>();
  Attribute value = cast<arith::ConstantOp>(inst.op).getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    info.supported = true;
    if (isa<FloatType>(dense.getElementType()))
      for (APFloat element : dense.getValues<APFloat>())
        info.elements.push_back(element.bitcastToAPInt().getZExtValue());
    else
      for (APInt element : dense.getValues<APInt>())
        info.elements.push_back(element.getZExtValue());
  } else if (isa<IntegerAttr, FloatAttr>(value)) {
    info.supported = true;
    info.elements.push_back(attributeBits(value));
  }
  inst.data = &info;
}

/// Constants are the same in every lane: stored once.
static LogicalResult execConstant(WaveInterpreter &wave, const Instr &inst,
                                  ExecMask) {
  const auto &info = *static_cast<const ConstantInfo *>(inst.data);
  if (!info.supported)
    return wave.fail(inst.op, "unsupported constant");
  Lanes &out = wave.defineUniform(0, info.elements.size());
  std::copy(info.elements.begin(), info.elements.end(), out.bits.begin());
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

namespace {
/// An affine map's results as postfix programs over its operands (dims,
/// then symbols), decoded once: the handler runs each step over all lanes
/// at a time instead of walking the expression tree per lane.
struct AffineProgram {
  struct Step {
    AffineExprKind kind;
    int64_t value; ///< the constant, or the operand index
  };
  SmallVector<SmallVector<Step, 8>, 1> results;
  unsigned depth = 0; ///< the stack depth the programs need
};
} // namespace

/// Appends `expr` in postfix order; returns the stack depth it needs.
static unsigned compileAffineExpr(AffineExpr expr, unsigned numDims,
                                  SmallVectorImpl<AffineProgram::Step> &out) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    out.push_back({AffineExprKind::Constant,
                   cast<AffineConstantExpr>(expr).getValue()});
    return 1;
  case AffineExprKind::DimId:
    out.push_back({AffineExprKind::DimId,
                   int64_t(cast<AffineDimExpr>(expr).getPosition())});
    return 1;
  case AffineExprKind::SymbolId:
    out.push_back(
        {AffineExprKind::DimId,
         int64_t(numDims + cast<AffineSymbolExpr>(expr).getPosition())});
    return 1;
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  unsigned lhs = compileAffineExpr(binary.getLHS(), numDims, out);
  unsigned rhs = compileAffineExpr(binary.getRHS(), numDims, out);
  out.push_back({expr.getKind(), 0});
  return std::max(lhs, rhs + 1);
}

template <typename OpTy>
static void decodeAffineMap(DecodedKernel &kernel, Instr &inst) {
  AffineProgram &program = kernel.allocate<AffineProgram>();
  AffineMap map = cast<OpTy>(inst.op).getAffineMap();
  for (AffineExpr expr : map.getResults()) {
    program.results.emplace_back();
    program.depth = std::max(
        program.depth,
        compileAffineExpr(expr, map.getNumDims(), program.results.back()));
  }
  inst.data = &program;
}

/// affine.apply / min / max over the lanes (once when every operand is
/// uniform), as their lowering (expandAffineExpr) computes them: sums and
/// products wrap; mod, floordiv and ceildiv need a positive divisor, and
/// any other divisor on an executing lane is reported (on the first such
/// lane, with the first bad divisor its evaluation met).
static LogicalResult execAffineMap(WaveInterpreter &wave, const Instr &inst,
                                   ExecMask mask, bool isMin, bool isMax) {
  const auto &program = *static_cast<const AffineProgram *>(inst.data);
  SmallVector<const Lanes *, 4> inputs;
  bool uniform = true;
  for (unsigned i = 0; i < inst.operands.size(); ++i) {
    inputs.push_back(&wave.operand(i));
    uniform &= inputs.back()->uniform;
  }
  int lanes = uniform ? 1 : kMaxLanes;
  using Column = std::array<int64_t, kMaxLanes>;
  SmallVector<Column, 8> stack(program.depth);
  std::array<std::optional<int64_t>, kMaxLanes> badDivisor;
  Column result;
  for (auto [index, steps] : llvm::enumerate(program.results)) {
    unsigned top = 0;
    for (const AffineProgram::Step &step : steps) {
      if (step.kind == AffineExprKind::Constant) {
        std::fill_n(stack[top++].begin(), lanes, step.value);
        continue;
      }
      if (step.kind == AffineExprKind::DimId) {
        const Lanes &in = *inputs[step.value];
        Column &out = stack[top++];
        for (int lane = 0; lane < lanes; ++lane)
          out[lane] = int64_t(in.at(lane, 0));
        continue;
      }
      Column &lhs = stack[top - 2];
      const Column &rhs = stack[top - 1];
      --top;
      for (int lane = 0; lane < lanes; ++lane) {
        int64_t a = lhs[lane], b = rhs[lane];
        switch (step.kind) {
        case AffineExprKind::Add:
          lhs[lane] = int64_t(uint64_t(a) + uint64_t(b));
          continue;
        case AffineExprKind::Mul:
          lhs[lane] = int64_t(uint64_t(a) * uint64_t(b));
          continue;
        default:
          break;
        }
        if (b <= 0) {
          if (!badDivisor[lane])
            badDivisor[lane] = b;
          lhs[lane] = 0;
          continue;
        }
        if (step.kind == AffineExprKind::FloorDiv) {
          lhs[lane] = floorDivideSigned(a, b);
        } else if (step.kind == AffineExprKind::CeilDiv) {
          lhs[lane] = ceilDivideSigned(a, b);
        } else {
          int64_t remainder = a % b;
          lhs[lane] = remainder < 0 ? remainder + b : remainder;
        }
      }
    }
    for (int lane = 0; lane < lanes; ++lane)
      result[lane] = index == 0 ? stack[0][lane]
                     : isMin    ? std::min(result[lane], stack[0][lane])
                     : isMax    ? std::max(result[lane], stack[0][lane])
                                : stack[0][lane];
  }
  for (int lane = 0; lane < lanes; ++lane) {
    if (!badDivisor[lane] || !(uniform || laneActive(mask, lane)))
      continue;
    int reported = uniform ? llvm::countr_zero(mask) : lane;
    return wave.fail(inst.op, "mod, floordiv or ceildiv by " +
                                  std::to_string(*badDivisor[lane]) +
                                  " on lane " + std::to_string(reported) +
                                  " (the affine lowering needs positive "
                                  "divisors)");
  }
  Lanes &out = uniform ? wave.defineUniform(0, 1) : wave.defineResult(0, 1);
  for (int lane = 0; lane < lanes; ++lane)
    out.at(lane, 0) = uint64_t(result[lane]);
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// An integer op on the result's width.
template <typename Fn>
static LogicalResult intBinary(WaveInterpreter &wave, const Instr &inst,
                               Fn fn) {
  unsigned width = inst.bitWidth;
  mapBinary(wave, [&](uint64_t a, uint64_t b) {
    return truncateBits(fn(a, b, width), width);
  });
  return success();
}

/// Division by zero and signed overflow (the minimum value by -1) are
/// undefined behaviour in LLVM IR; report them on the lanes that execute
/// the op.
static LogicalResult divisionCheck(WaveInterpreter &wave, const Instr &inst,
                                   ExecMask mask, bool isSigned) {
  const Lanes &lhs = wave.operand(0);
  const Lanes &rhs = wave.operand(1);
  unsigned width = inst.bitWidth;
  int64_t minimum = signExtend(uint64_t(1) << (width - 1), width);
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    for (unsigned e = 0; e < rhs.width; ++e) {
      uint64_t divisor = truncateBits(rhs.at(lane, e), width);
      if (divisor == 0)
        return wave.fail(inst.op, "integer division by zero on lane " +
                                      std::to_string(lane));
      if (isSigned && signExtend(divisor, width) == -1 &&
          signExtend(lhs.at(lane, e), width) == minimum)
        return wave.fail(inst.op, "signed integer division overflows (" +
                                      std::to_string(minimum) +
                                      " / -1) on lane " + std::to_string(lane));
    }
    // Uniform operands: every executing lane is the same.
    if (lhs.uniform && rhs.uniform)
      break;
  }
  return success();
}

#define QMM_INT_BINARY(EXPR)                                                   \
  [](WaveInterpreter &wave, const Instr &inst, ExecMask) {                     \
    return intBinary(wave, inst, [](uint64_t a, uint64_t b, unsigned w) {      \
      (void)w;                                                                 \
      return uint64_t(EXPR);                                                   \
    });                                                                        \
  }

/// A division: checked on the executing lanes, then computed on all.
#define QMM_INT_DIVISION(SIGNED, EXPR)                                         \
  [](WaveInterpreter &wave, const Instr &inst, ExecMask mask) {                \
    if (failed(divisionCheck(wave, inst, mask, SIGNED)))                       \
      return failure();                                                        \
    return intBinary(wave, inst, [](uint64_t a, uint64_t b, unsigned w) {      \
      return uint64_t(EXPR);                                                   \
    });                                                                        \
  }

#define QMM_FLOAT_BINARY(EXPR)                                                 \
  [](WaveInterpreter &wave, const Instr &inst, ExecMask) {                     \
    return floatBinary(wave, inst, [](double a, double b, bool isF32) {        \
      (void)isF32;                                                             \
      return double(EXPR);                                                     \
    });                                                                        \
  }

#define QMM_FLOAT_UNARY(EXPR)                                                  \
  [](WaveInterpreter &wave, const Instr &inst, ExecMask) {                     \
    return floatUnary(wave, inst, [](double a) { return double(EXPR); });      \
  }

static double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? b : a;
  return std::max(a, b);
}

static double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? a : b;
  return std::min(a, b);
}

static Type operandElementType(const Instr &inst, unsigned i = 0) {
  return getElementTypeOrSelf(inst.op->getOperand(i).getType());
}

static void registerIntegerOps(Registry &r) {
  r.add<arith::ConstantOp>(execConstant, decodeConstant);
  r.add<arith::AddIOp>(QMM_INT_BINARY(a + b));
  r.add<arith::SubIOp>(QMM_INT_BINARY(a - b));
  r.add<arith::MulIOp>(QMM_INT_BINARY(a * b));
  r.add<arith::AndIOp>(QMM_INT_BINARY(a & b));
  r.add<arith::OrIOp>(QMM_INT_BINARY(a | b));
  r.add<arith::XOrIOp>(QMM_INT_BINARY(a ^ b));
  // Shifts by the width or more are poison in LLVM; the emulator defines
  // them (0, or the sign for shrsi) so that a select that discards them
  // stays valid.
  r.add<arith::ShLIOp>(
      QMM_INT_BINARY(truncateBits(b, w) >= w ? 0 : a << truncateBits(b, w)));
  r.add<arith::ShRUIOp>(QMM_INT_BINARY(
      truncateBits(b, w) >= w ? 0 : truncateBits(a, w) >> truncateBits(b, w)));
  r.add<arith::ShRSIOp>(QMM_INT_BINARY(
      signExtend(a, w) >> std::min<uint64_t>(truncateBits(b, w), w - 1)));
  r.add<arith::DivSIOp>(
      QMM_INT_DIVISION(true, divideSigned(signExtend(a, w), signExtend(b, w))));
  r.add<arith::DivUIOp>(QMM_INT_DIVISION(
      false, truncateBits(b, w) ? truncateBits(a, w) / truncateBits(b, w) : 0));
  r.add<arith::RemSIOp>(QMM_INT_DIVISION(
      true, remainderSigned(signExtend(a, w), signExtend(b, w))));
  r.add<arith::RemUIOp>(QMM_INT_DIVISION(
      false, truncateBits(b, w) ? truncateBits(a, w) % truncateBits(b, w) : 0));
  r.add<arith::CeilDivSIOp>(QMM_INT_DIVISION(
      true, ceilDivideSigned(signExtend(a, w), signExtend(b, w))));
  r.add<arith::CeilDivUIOp>(QMM_INT_DIVISION(
      false, truncateBits(b, w) == 0 || truncateBits(a, w) == 0
                 ? 0
                 : (truncateBits(a, w) - 1) / truncateBits(b, w) + 1));
  r.add<arith::FloorDivSIOp>(QMM_INT_DIVISION(
      true, floorDivideSigned(signExtend(a, w), signExtend(b, w))));
  r.add<arith::MaxSIOp>(
      QMM_INT_BINARY(signExtend(a, w) >= signExtend(b, w) ? a : b));
  r.add<arith::MinSIOp>(
      QMM_INT_BINARY(signExtend(a, w) <= signExtend(b, w) ? a : b));
  r.add<arith::MaxUIOp>(
      QMM_INT_BINARY(truncateBits(a, w) >= truncateBits(b, w) ? a : b));
  r.add<arith::MinUIOp>(
      QMM_INT_BINARY(truncateBits(a, w) <= truncateBits(b, w) ? a : b));
  // Bit counts within the operand's width (a zero operand counts all of its
  // bits as leading / trailing zeros).
  r.add<math::CountLeadingZerosOp, math::CountTrailingZerosOp, math::CtPopOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        unsigned width = inst.bitWidth;
        bool leading = isa<math::CountLeadingZerosOp>(inst.op);
        bool trailing = isa<math::CountTrailingZerosOp>(inst.op);
        mapUnary(wave, wave.operand(0), [&](uint64_t a) {
          a = truncateBits(a, width);
          if (leading)
            return uint64_t(a == 0 ? width
                                   : llvm::countl_zero(a) - (64 - width));
          if (trailing)
            return uint64_t(a == 0 ? width : llvm::countr_zero(a));
          return uint64_t(llvm::popcount(a));
        });
        return success();
      });
  r.add<arith::CmpIOp>([](WaveInterpreter &wave, const Instr &inst, ExecMask) {
    arith::CmpIPredicate predicate =
        cast<arith::CmpIOp>(inst.op).getPredicate();
    unsigned width = getBitWidth(operandElementType(inst));
    mapBinary(wave, [&](uint64_t a, uint64_t b) {
      return uint64_t(compareInts(predicate, a, b, width));
    });
    return success();
  });
  r.add<affine::AffineApplyOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask mask) {
        return execAffineMap(wave, inst, mask, false, false);
      },
      decodeAffineMap<affine::AffineApplyOp>);
  r.add<affine::AffineMinOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask mask) {
        return execAffineMap(wave, inst, mask, true, false);
      },
      decodeAffineMap<affine::AffineMinOp>);
  r.add<affine::AffineMaxOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask mask) {
        return execAffineMap(wave, inst, mask, false, true);
      },
      decodeAffineMap<affine::AffineMaxOp>);
}

static void registerFloatOps(Registry &r) {
  r.add<arith::AddFOp>(QMM_FLOAT_BINARY(a + b));
  r.add<arith::SubFOp>(QMM_FLOAT_BINARY(a - b));
  r.add<arith::MulFOp>(QMM_FLOAT_BINARY(a * b));
  r.add<arith::DivFOp>(
      QMM_FLOAT_BINARY(isF32 ? double(float(a) / float(b)) : a / b));
  r.add<arith::MaximumFOp>(QMM_FLOAT_BINARY(maximumF(a, b)));
  r.add<arith::MinimumFOp>(QMM_FLOAT_BINARY(minimumF(a, b)));
  r.add<arith::MaxNumFOp>(QMM_FLOAT_BINARY(std::fmax(a, b)));
  r.add<arith::MinNumFOp>(QMM_FLOAT_BINARY(std::fmin(a, b)));
  r.add<arith::NegFOp>(QMM_FLOAT_UNARY(-a));
  r.add<math::AbsFOp>(QMM_FLOAT_UNARY(std::fabs(a)));
  r.add<math::SqrtOp>(QMM_FLOAT_UNARY(std::sqrt(a)));
  r.add<math::ExpOp>(QMM_FLOAT_UNARY(std::exp(a)));
  r.add<math::TanhOp>(QMM_FLOAT_UNARY(std::tanh(a)));
  r.add<math::ErfOp>(QMM_FLOAT_UNARY(std::erf(a)));
  r.add<math::Exp2Op>(QMM_FLOAT_UNARY(std::exp2(a)));
  r.add<math::LogOp>(QMM_FLOAT_UNARY(std::log(a)));
  r.add<math::Log2Op>(QMM_FLOAT_UNARY(std::log2(a)));
  r.add<math::RsqrtOp>(QMM_FLOAT_UNARY(1.0 / std::sqrt(a)));
  r.add<math::FloorOp>(QMM_FLOAT_UNARY(std::floor(a)));
  r.add<math::CeilOp>(QMM_FLOAT_UNARY(std::ceil(a)));
  r.add<math::RoundEvenOp>(QMM_FLOAT_UNARY(std::nearbyint(a)));
  r.add<math::FmaOp>([](WaveInterpreter &wave, const Instr &inst, ExecMask) {
    FloatType type = resultFloatType(inst);
    mapElements<3>(wave, {&wave.operand(0), &wave.operand(1), &wave.operand(2)},
                   [&](uint64_t a, uint64_t b, uint64_t c) {
                     return fusedMultiplyAdd(type, a, b, c);
                   });
    return success();
  });
  r.add<arith::CmpFOp>([](WaveInterpreter &wave, const Instr &inst, ExecMask) {
    arith::CmpFPredicate predicate =
        cast<arith::CmpFOp>(inst.op).getPredicate();
    auto type = cast<FloatType>(operandElementType(inst));
    mapBinary(wave, [&](uint64_t a, uint64_t b) {
      return uint64_t(
          compareFloats(predicate, floatValue(type, a), floatValue(type, b)));
    });
    return success();
  });
}

static LogicalResult execSelect(WaveInterpreter &wave, const Instr &inst,
                                ExecMask) {
  const Lanes &condition = wave.operand(0);
  const Lanes &t = wave.operand(1);
  const Lanes &f = wave.operand(2);
  bool uniform = condition.uniform && t.uniform && f.uniform;
  if (t.isMemRef()) {
    Lanes &out = uniform ? wave.defineUniform(0, 1) : wave.defineResult(0, 1);
    for (int lane = 0; lane < (uniform ? 1 : kMaxLanes); ++lane)
      out.views[lane] =
          (condition.at(lane, 0) & 1) ? t.view(lane) : f.view(lane);
    return success();
  }
  Lanes &out =
      uniform ? wave.defineUniform(0, t.width) : wave.defineResult(0, t.width);
  for (int lane = 0; lane < (uniform ? 1 : kMaxLanes); ++lane)
    for (unsigned e = 0; e < t.width; ++e) {
      uint64_t c =
          condition.width == 1 ? condition.at(lane, 0) : condition.at(lane, e);
      out.at(lane, e) = (c & 1) ? t.at(lane, e) : f.at(lane, e);
    }
  return success();
}

static LogicalResult execIntToFloat(WaveInterpreter &wave, const Instr &inst,
                                    ExecMask) {
  unsigned from = getBitWidth(operandElementType(inst));
  FloatType to = resultFloatType(inst);
  bool isSigned = isa<arith::SIToFPOp>(inst.op);
  const llvm::fltSemantics &semantics = to.getFloatSemantics();
  mapUnary(wave, wave.operand(0), [&](uint64_t a) {
    uint64_t extended =
        isSigned ? uint64_t(signExtend(a, from)) : truncateBits(a, from);
    double v = isSigned ? double(int64_t(extended)) : double(extended);
    // Integers above 2^53 would be rounded twice through f64; round them
    // once, like the hardware.
    if (std::fabs(v) < 0x1p53 || to.isF64() ||
        APFloat::semanticsMaxExponent(semantics) < 53)
      return floatBits(to, v);
    APFloat value(semantics);
    value.convertFromAPInt(APInt(64, extended), isSigned,
                           APFloat::rmNearestTiesToEven);
    return value.bitcastToAPInt().getZExtValue();
  });
  return success();
}

/// As v_cvt_{i32,u32}_f32 do: toward zero, saturated to the result type's
/// range, NaN to 0 (LLVM makes out-of-range results poison).
static LogicalResult execFloatToInt(WaveInterpreter &wave, const Instr &inst,
                                    ExecMask) {
  auto from = cast<FloatType>(operandElementType(inst));
  unsigned to = inst.bitWidth;
  bool isSigned = isa<arith::FPToSIOp>(inst.op);
  uint64_t maxUnsigned = truncateBits(~uint64_t(0), to);
  int64_t maxSigned = int64_t(maxUnsigned >> 1);
  int64_t minSigned = -maxSigned - 1;
  // 2^(w-1) and 2^w: the first values out of range.
  double signedBound = std::ldexp(1.0, int(to) - 1);
  double unsignedBound = std::ldexp(1.0, int(to));
  mapUnary(wave, wave.operand(0), [&](uint64_t a) {
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
}

static void registerConversions(Registry &r) {
  r.add<arith::SelectOp>(execSelect);
  r.add<arith::IndexCastOp, arith::ExtSIOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        unsigned from = getBitWidth(operandElementType(inst));
        unsigned to = inst.bitWidth;
        mapUnary(wave, wave.operand(0), [&](uint64_t a) {
          return truncateBits(uint64_t(signExtend(a, from)), to);
        });
        return success();
      });
  r.add<arith::IndexCastUIOp, arith::ExtUIOp, arith::TruncIOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        unsigned from = getBitWidth(operandElementType(inst));
        unsigned to = inst.bitWidth;
        mapUnary(wave, wave.operand(0), [&](uint64_t a) {
          return truncateBits(truncateBits(a, from), to);
        });
        return success();
      });
  r.add<arith::SIToFPOp, arith::UIToFPOp>(execIntToFloat);
  r.add<arith::FPToSIOp, arith::FPToUIOp>(execFloatToInt);
  r.add<arith::ExtFOp, arith::TruncFOp>([](WaveInterpreter &wave,
                                           const Instr &inst, ExecMask) {
    auto from = cast<FloatType>(operandElementType(inst));
    FloatType to = resultFloatType(inst);
    mapUnary(wave, wave.operand(0),
             [&](uint64_t a) { return floatBits(to, floatValue(from, a)); });
    return success();
  });
  r.add<arith::BitcastOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        unsigned width = inst.bitWidth;
        mapUnary(wave, wave.operand(0),
                 [&](uint64_t a) { return truncateBits(a, width); });
        return success();
      });
}

void mlir::qmm::emu::registerArithHandlers(Registry &registry) {
  registerIntegerOps(registry);
  registerFloatOps(registry);
  registerConversions(registry);
}
