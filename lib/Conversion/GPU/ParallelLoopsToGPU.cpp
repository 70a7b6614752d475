//===- ParallelLoopsToGPU.cpp - element-wise host loops as kernels --------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/IndexMath.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMPARALLELLOOPSTOGPU
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

static constexpr int64_t kThreadsPerWorkgroup = 256;

/// Replaces `loop` (constant lower bounds and steps, no results) by a
/// gpu.launch running one thread per iteration. A dynamic upper bound (an
/// element-wise loop over a dynamic M, lower bound at most the upper)
/// sizes the grid at run time, and the launch sits in an scf.if that skips
/// an empty iteration space (a grid must not be empty).
static LogicalResult convertLoop(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return loop.emitOpError("qmm-parallel-loops-to-gpu: reductions are not "
                            "supported");
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  IndexMath im{b, loc};
  SmallVector<int64_t> lower, steps;
  SmallVector<OpFoldResult> extents;
  for (auto [lb, ub, st] : llvm::zip(loop.getLowerBound(),
                                     loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(st);
    if (!l || !s || *s <= 0)
      return loop.emitOpError("qmm-parallel-loops-to-gpu: needs constant "
                              "lower bounds and steps");
    lower.push_back(*l);
    steps.push_back(*s);
    if (u)
      extents.push_back(
          b.getIndexAttr(*u > *l ? llvm::divideCeil(*u - *l, *s) : 0));
    else
      extents.push_back(im.apply(
          (b.getAffineDimExpr(0) - *l).ceilDiv(*s), {ub}));
  }
  // The product of the extents: folded where they are constants.
  auto multiply = [](OpBuilder &at, Location l, OpFoldResult x,
                     OpFoldResult y) -> OpFoldResult {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return at.getIndexAttr(*cx * *cy);
    // A constant factor: an affine product, folded (x * 1 is x).
    IndexMath aim{at, l};
    if (cx)
      return aim.mul(getValueOrCreateConstantIndexOp(at, l, y), *cx);
    if (cy)
      return aim.mul(getValueOrCreateConstantIndexOp(at, l, x), *cy);
    return arith::MulIOp::create(
               at, l, getValueOrCreateConstantIndexOp(at, l, x),
               getValueOrCreateConstantIndexOp(at, l, y))
        .getResult();
  };
  OpFoldResult total = b.getIndexAttr(1);
  for (OpFoldResult e : extents)
    total = multiply(b, loc, total, e);
  std::optional<int64_t> staticTotal = getConstantIntValue(total);
  if (staticTotal == 0) {
    loop.erase();
    return success();
  }
  OpBuilder::InsertionGuard hostGuard(b);
  Value totalValue = staticTotal ? Value() : cast<Value>(total);
  if (!staticTotal) {
    auto nonEmpty = scf::IfOp::create(b, loc, im.lt(im.cst(0), totalValue),
                                      /*withElseRegion=*/false);
    b.setInsertionPoint(nonEmpty.thenBlock()->getTerminator());
  }
  Value one = im.cst(1);
  auto launch = gpu::LaunchOp::create(
      b, loc,
      im.apply(b.getAffineDimExpr(0).ceilDiv(kThreadsPerWorkgroup), {total}),
      one, one, im.cst(kThreadsPerWorkgroup), one, one);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  IndexMath bim{body, loc};
  Value linear = bim.apply(body.getAffineDimExpr(0) * kThreadsPerWorkgroup +
                               body.getAffineDimExpr(1),
                           {launch.getBlockIds().x, launch.getThreadIds().x});
  // A static count is a constant of the kernel, a dynamic one its operand.
  auto guard = scf::IfOp::create(
      body, loc,
      bim.lt(linear, staticTotal ? bim.cst(*staticTotal) : totalValue), false);
  gpu::TerminatorOp::create(body, loc);

  // Iteration `linear` in row-major order over the extents: induction
  // variable d is lower + step * ((linear floordiv inner) mod extent), inner
  // being the product of the extents after d.
  OpBuilder inner = guard.getThenBodyBuilder();
  IndexMath iim{inner, loc};
  IRMapping mapping;
  OpFoldResult innerIterations = inner.getIndexAttr(1);
  for (int64_t d = (int64_t)extents.size() - 1; d >= 0; --d) {
    std::optional<int64_t> innerCount = getConstantIntValue(innerIterations),
                           extent = getConstantIntValue(extents[d]);
    Value position;
    if (innerCount && extent) {
      position = iim.apply(inner.getAffineDimExpr(0).floorDiv(*innerCount) %
                               *extent,
                           {linear});
    } else {
      Value quotient = arith::DivUIOp::create(
          inner, loc, linear,
          getValueOrCreateConstantIndexOp(inner, loc, innerIterations));
      position = arith::RemUIOp::create(
          inner, loc, quotient,
          getValueOrCreateConstantIndexOp(inner, loc, extents[d]));
    }
    mapping.map(loop.getInductionVars()[d],
                iim.apply(inner.getAffineDimExpr(0) * steps[d] + lower[d],
                          {position}));
    innerIterations = multiply(inner, loc, innerIterations, extents[d]);
  }
  for (Operation &op : loop.getBody()->without_terminator())
    inner.clone(op, mapping);
  loop.erase();
  return success();
}

namespace {
struct QMMParallelLoopsToGPUPass
    : public qmm::impl::QMMParallelLoopsToGPUBase<QMMParallelLoopsToGPUPass> {
  void runOnOperation() override {
    // Outermost loops of host code: in the body or in host-side branches
    // (a dynamic M's versions), not inside another loop or a kernel.
    SmallVector<scf::ParallelOp> loops;
    for (auto func : getOperation().getOps<func::FuncOp>())
      func.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isa<gpu::LaunchOp>(op))
          return WalkResult::skip();
        if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
          loops.push_back(loop);
          return WalkResult::skip();
        }
        return WalkResult::advance();
      });
    for (scf::ParallelOp loop : loops)
      if (failed(convertLoop(loop)))
        return signalPassFailure();
    if (!loops.empty())
      getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                              UnitAttr::get(&getContext()));
  }
};
} // namespace
