//===- ParallelLoopsToGPU.cpp - element-wise host loops as kernels --------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"

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

/// Replaces `loop` (constant bounds, no results) by a gpu.launch running one
/// thread per iteration.
static LogicalResult convertLoop(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return loop.emitOpError("qmm-parallel-loops-to-gpu: reductions are not "
                            "supported");
  SmallVector<int64_t> lower, upper, steps, extents;
  for (auto [lb, ub, st] : llvm::zip(loop.getLowerBound(),
                                     loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(st);
    if (!l || !u || !s || *s <= 0)
      return loop.emitOpError(
          "qmm-parallel-loops-to-gpu: needs constant bounds and steps");
    lower.push_back(*l);
    steps.push_back(*s);
    extents.push_back(*u > *l ? llvm::divideCeil(*u - *l, *s) : 0);
  }
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  if (total == 0) {
    loop.erase();
    return success();
  }
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  Value one = cst(b, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, cst(b, llvm::divideCeil(total, kThreadsPerWorkgroup)), one, one,
      cst(b, kThreadsPerWorkgroup), one, one);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  IndexMath im{body, loc};
  Value linear = im.apply(body.getAffineDimExpr(0) * kThreadsPerWorkgroup +
                              body.getAffineDimExpr(1),
                          {launch.getBlockIds().x, launch.getThreadIds().x});
  auto guard = scf::IfOp::create(body, loc, im.lt(linear, total), false);
  gpu::TerminatorOp::create(body, loc);

  // Iteration `linear` in row-major order over the extents: induction
  // variable d is lower + step * ((linear floordiv inner) mod extent), inner
  // being the product of the extents after d.
  OpBuilder inner = guard.getThenBodyBuilder();
  IndexMath iim{inner, loc};
  IRMapping mapping;
  int64_t innerIterations = 1;
  for (int64_t d = (int64_t)extents.size() - 1; d >= 0; --d) {
    AffineExpr position = inner.getAffineDimExpr(0).floorDiv(innerIterations) %
                          extents[d];
    mapping.map(loop.getInductionVars()[d],
                iim.apply(position * steps[d] + lower[d], {linear}));
    innerIterations *= extents[d];
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
    SmallVector<scf::ParallelOp> loops;
    for (auto func : getOperation().getOps<func::FuncOp>())
      for (Operation &op : func.getBody().getOps())
        if (auto loop = dyn_cast<scf::ParallelOp>(op))
          loops.push_back(loop);
    for (scf::ParallelOp loop : loops)
      if (failed(convertLoop(loop)))
        return signalPassFailure();
    if (!loops.empty())
      getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                              UnitAttr::get(&getContext()));
  }
};
} // namespace
