//===- ExpandIndexMaps.cpp - affine.apply on kernel indices to arith -------===//
//
// The kernels' index maps as unsigned arithmetic: every index the AMD
// pipeline builds (thread, lane and block ids, tile offsets) is
// non-negative, where floordiv and mod are divui and remui; lower-affine's
// signed expansion would cost selects the backend cannot remove.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExprVisitor.h"

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

/// `expr` over `dims` and `symbols` with unsigned division and remainder.
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
    if (sum.terms.size() == 1 && sum.constant == 0 &&
        sum.terms.front().second == 1 &&
        sum.terms.front().first.getKind() == AffineExprKind::Mul) {
      // A product of two non-constant expressions.
      auto product = cast<AffineBinaryOpExpr>(sum.terms.front().first);
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
  Value lhs = expandUnsigned(b, loc, binary.getLHS(), dims, symbols);
  Value rhs = expandUnsigned(b, loc, binary.getRHS(), dims, symbols);
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
