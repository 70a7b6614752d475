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

/// `expr` over `dims` and `symbols` with unsigned division and remainder.
static Value expandUnsigned(OpBuilder &b, Location loc, AffineExpr expr,
                            ValueRange dims, ValueRange symbols) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return arith::ConstantIndexOp::create(b, loc, constant.getValue());
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[symbol.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  Value lhs = expandUnsigned(b, loc, binary.getLHS(), dims, symbols);
  Value rhs = expandUnsigned(b, loc, binary.getRHS(), dims, symbols);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mod:
    return arith::RemUIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::CeilDiv:
    return arith::CeilDivUIOp::create(b, loc, lhs, rhs);
  default:
    llvm_unreachable("not a binary affine expression");
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
