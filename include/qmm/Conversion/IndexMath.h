//===- IndexMath.h - folded index arithmetic of kernel lowerings -*- C++ -*-===//
//
// Index arithmetic that both vendors' kernel lowerings build (the wave
// lowerings, the loops-to-GPU mapping): affine applies composed and folded
// as they are built.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_INDEXMATH_H
#define QMM_CONVERSION_INDEXMATH_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace qmm {

/// Index arithmetic on non-negative `index` values, built as affine.apply
/// ops composed with the applies that produce their operands and folded
/// (adding zero, multiplying by one and constant operands build nothing).
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// `expr` over dimensions d0, d1, ... bound to `operands`, composed with
  /// the affine.apply ops that produce them and folded.
  Value apply(AffineExpr expr, ArrayRef<OpFoldResult> operands) {
    return apply(AffineMap::get(operands.size(), 0, expr), operands).front();
  }
  /// Each result of `map` applied to `operands`.
  SmallVector<Value, 2> apply(AffineMap map, ArrayRef<OpFoldResult> operands) {
    SmallVector<Value, 2> results;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      results.push_back(getValueOrCreateConstantIndexOp(
          b, loc,
          affine::makeComposedFoldedAffineApply(b, loc, map.getSubMap({i}),
                                                operands)));
    return results;
  }
  Value add(Value x, Value y) {
    return apply(b.getAffineDimExpr(0) + b.getAffineDimExpr(1), {x, y});
  }
  Value add(Value x, int64_t y) {
    return apply(b.getAffineDimExpr(0) + y, {x});
  }
  Value mul(Value x, int64_t y) {
    return apply(b.getAffineDimExpr(0) * y, {x});
  }
  Value div(Value x, int64_t y) {
    return apply(b.getAffineDimExpr(0).floorDiv(y), {x});
  }
  Value rem(Value x, int64_t y) {
    return apply(b.getAffineDimExpr(0) % y, {x});
  }
  Value min(Value x, int64_t y) {
    return arith::MinUIOp::create(b, loc, x, cst(y));
  }
  Value min(Value x, Value y) {
    return arith::MinUIOp::create(b, loc, x, y);
  }
  Value lt(Value x, int64_t y) { return lt(x, cst(y)); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  /// Extent `dim` of `memref`: a constant where the type knows it, else
  /// memref.dim (a dynamic M: the rows of A, its scales and the output).
  Value dim(Value memref, int64_t dim) {
    auto type = cast<MemRefType>(memref.getType());
    if (!type.isDynamicDim(dim))
      return cst(type.getDimSize(dim));
    return memref::DimOp::create(b, loc, memref, dim);
  }
  /// `extent` - 1 for a clamp into [0, extent): folded for a constant.
  Value last(Value extent) { return add(extent, -1); }
  Value boolean(bool value) {
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(value));
  }
  /// This thread's lane within its wave (threads are numbered along x).
  Value lane(int64_t waveSize) {
    return rem(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x), waveSize);
  }
};

} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_INDEXMATH_H
