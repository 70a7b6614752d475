//===- ExpandIndexMaps.cpp - kernel index maps to unsigned arith -----------===//
//
// The kernels' affine.apply ops as arith. Their operands (thread, lane and
// block ids, loop counters from 0, tile offsets) are non-negative, so a
// floordiv or mod of a non-negative expression is divui / remui, where
// lower-affine's signed expansion costs selects the backend cannot remove.
// Composition also writes `k * (x mod c)` as `k * x - k * c * (x floordiv
// c)`; the mods are restored, so no index needs a 64-bit subtraction.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMEXPANDINDEXMAPS
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
/// A sum `constant + sum(coefficient * term)` over terms that are not sums
/// or products by constants.
struct LinearSum {
  SmallVector<std::pair<AffineExpr, int64_t>> terms;
  int64_t constant = 0;

  void add(AffineExpr expr, int64_t coefficient) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      constant += coefficient * c.getValue();
      return;
    }
    if (auto binary = dyn_cast<AffineBinaryOpExpr>(expr)) {
      if (expr.getKind() == AffineExprKind::Add) {
        add(binary.getLHS(), coefficient);
        add(binary.getRHS(), coefficient);
        return;
      }
      if (expr.getKind() == AffineExprKind::Mul) {
        if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS())) {
          add(binary.getLHS(), coefficient * c.getValue());
          return;
        }
      }
    }
    for (auto &[term, existing] : terms)
      if (term == expr) {
        existing += coefficient;
        return;
      }
    terms.push_back({expr, coefficient});
  }

  /// The product of two non-constant expressions this sum is, if it is one.
  AffineBinaryOpExpr getSingleProduct() const {
    if (terms.size() != 1 || constant != 0 || terms.front().second != 1 ||
        terms.front().first.getKind() != AffineExprKind::Mul)
      return nullptr;
    return cast<AffineBinaryOpExpr>(terms.front().first);
  }

  int64_t coefficientOf(AffineExpr expr) const {
    for (auto &[term, coefficient] : terms)
      if (term == expr)
        return coefficient;
    return 0;
  }

  /// Composition writes `k * (x mod c)` as `k * x - k * c * (x floordiv c)`
  /// (a subtraction the backend must do in 64 bits); restores the mod
  /// where this sum holds k times each term of x.
  void restoreMods() {
    for (bool changed = true; changed;) {
      changed = false;
      for (auto &[term, coefficient] : terms) {
        auto div = dyn_cast<AffineBinaryOpExpr>(term);
        if (coefficient >= 0 || !div ||
            term.getKind() != AffineExprKind::FloorDiv)
          continue;
        auto divisor = dyn_cast<AffineConstantExpr>(div.getRHS());
        if (!divisor || divisor.getValue() <= 0 ||
            coefficient % divisor.getValue() != 0)
          continue;
        int64_t k = -coefficient / divisor.getValue();
        LinearSum dividend;
        dividend.add(div.getLHS(), 1);
        if (!llvm::all_of(dividend.terms, [&](auto &entry) {
              return entry.second > 0 &&
                     coefficientOf(entry.first) >= k * entry.second;
            }))
          continue;
        AffineExpr mod = div.getLHS() % divisor.getValue();
        coefficient = 0;
        for (auto &[dividendTerm, q] : dividend.terms)
          add(dividendTerm, -k * q);
        constant -= k * dividend.constant;
        add(mod, k);
        changed = true;
        break;
      }
      llvm::erase_if(terms, [](auto &entry) { return entry.second == 0; });
    }
  }
};
} // namespace

/// Whether `expr` is non-negative whenever its dimensions and symbols are:
/// sums with positive coefficients (after restoring mods), products,
/// quotients and remainders of such expressions by positive constants.
static bool isNonNegativeForm(AffineExpr expr) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue() >= 0;
  if (isa<AffineDimExpr, AffineSymbolExpr>(expr))
    return true;
  auto binary = cast<AffineBinaryOpExpr>(expr);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
  case AffineExprKind::Mul: {
    LinearSum sum;
    sum.add(expr, 1);
    sum.restoreMods();
    if (AffineBinaryOpExpr product = sum.getSingleProduct())
      return isNonNegativeForm(product.getLHS()) &&
             isNonNegativeForm(product.getRHS());
    return sum.constant >= 0 && llvm::all_of(sum.terms, [](auto &term) {
             return term.second > 0 && isNonNegativeForm(term.first);
           });
  }
  default: {
    auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
    return divisor && divisor.getValue() > 0 &&
           isNonNegativeForm(binary.getLHS());
  }
  }
}

/// `expr` over `dims` and `symbols` with unsigned division and remainder
/// where the dividend is non-negative, the exact signed expansion where it
/// may not be.
static Value expandUnsigned(OpBuilder &b, Location loc, AffineExpr expr,
                            ValueRange dims, ValueRange symbols) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return constant(c.getValue());
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[symbol.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  if (expr.getKind() == AffineExprKind::Add ||
      expr.getKind() == AffineExprKind::Mul) {
    LinearSum sum;
    sum.add(expr, 1);
    sum.restoreMods();
    if (AffineBinaryOpExpr product = sum.getSingleProduct()) {
      return arith::MulIOp::create(
          b, loc, expandUnsigned(b, loc, product.getLHS(), dims, symbols),
          expandUnsigned(b, loc, product.getRHS(), dims, symbols));
    }
    // Positive terms and constant first, so that no partial sum of an
    // index is negative; among them the terms without dimensions (loop
    // invariants: ids and sizes) first, so their partial sum is hoisted.
    auto rank = [](const std::pair<AffineExpr, int64_t> &term) {
      return (term.second < 0 ? 2 : 0) +
             (term.first.isSymbolicOrConstant() ? 0 : 1);
    };
    llvm::stable_sort(sum.terms, [&](auto &x, auto &y) {
      return rank(x) < rank(y);
    });
    Value result;
    auto accumulate = [&](Value value, bool negative) {
      if (!result && !negative)
        result = value;
      else if (negative)
        result = arith::SubIOp::create(
            b, loc, result ? result : constant(0), value);
      else
        result = arith::AddIOp::create(b, loc, result, value);
    };
    bool constantAdded = sum.constant == 0;
    for (auto &[term, coefficient] : sum.terms) {
      if (coefficient < 0 && !constantAdded && sum.constant > 0) {
        accumulate(constant(sum.constant), false);
        constantAdded = true;
      }
      Value value = expandUnsigned(b, loc, term, dims, symbols);
      int64_t magnitude = coefficient < 0 ? -coefficient : coefficient;
      if (magnitude != 1)
        value = arith::MulIOp::create(b, loc, value, constant(magnitude));
      accumulate(value, coefficient < 0);
    }
    if (!result)
      return constant(sum.constant);
    if (!constantAdded)
      accumulate(constant(sum.constant > 0 ? sum.constant : -sum.constant),
                 sum.constant < 0);
    return result;
  }
  auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
  if (!divisor || divisor.getValue() <= 0 ||
      !isNonNegativeForm(binary.getLHS()))
    return affine::expandAffineExpr(b, loc, expr, dims, symbols);
  Value lhs = expandUnsigned(b, loc, binary.getLHS(), dims, symbols);
  Value rhs = constant(divisor.getValue());
  switch (expr.getKind()) {
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mod:
    return arith::RemUIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::CeilDiv:
    return arith::CeilDivUIOp::create(b, loc, lhs, rhs);
  default:
    llvm_unreachable("not a division or remainder");
  }
}

namespace {
struct QMMExpandIndexMapsPass
    : public qmm::impl::QMMExpandIndexMapsBase<QMMExpandIndexMapsPass> {
  void runOnOperation() override {
    // The precondition, where it can be seen: no operand is a negative
    // constant.
    WalkResult checked = getOperation()->walk([](affine::AffineApplyOp apply) {
      for (Value operand : apply.getOperands()) {
        APInt value;
        if (matchPattern(operand, m_ConstantInt(&value)) &&
            value.isNegative()) {
          apply.emitOpError("qmm-expand-index-maps: operand ")
              << value.getSExtValue()
              << " is negative; kernel indices must not be";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();
    getOperation()->walk([](affine::AffineApplyOp apply) {
      AffineMap map = apply.getAffineMap();
      OpBuilder b(apply);
      unsigned dims = map.getNumDims();
      Value value = expandUnsigned(b, apply.getLoc(), map.getResult(0),
                                   apply.getOperands().take_front(dims),
                                   apply.getOperands().drop_front(dims));
      apply.replaceAllUsesWith(value);
      apply.erase();
    });
  }
};
} // namespace
