//===- PrefetchScales.cpp - load the K loop's scales one iteration ahead --===//
//
// Stage 6b of the AMD pipeline: the scalar scale loads of a K loop (block
// scales for the FMAs, E8M0 scales for the scaled MFMAs) are issued one
// iteration before their use and carried across the back edge, so their
// latency hides behind a trip of MFMAs instead of ending every trip.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMPREFETCHSCALES
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// Whether nothing in `loop` may write memory outside the workgroup's:
/// then a global load reads the same in every iteration it is issued in.
/// Ops that declare no effects count as writers, barriers and scheduling
/// hints (which order, but do not write) aside.
static bool writesOnlyWorkgroupMemory(scf::ForOp loop) {
  WalkResult result = loop.getBody()->walk([](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance(); // Its nested ops are walked.
      // rocdl.readfirstlane (the wave's LDS row of a direct copy) reads a
      // register and declares no effects.
      return isa<gpu::BarrierOp, amdgpu::LDSBarrierOp,
                 amdgpu::SchedBarrierOp, ROCDL::ReadfirstlaneOp>(op)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(
              instance.getEffect()))
        continue;
      Value written = instance.getValue();
      if (!written || !isa<BaseMemRefType>(written.getType()) ||
          !isWorkgroupMemory(written))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Whether `load` is one this pass rotates (see the pass description),
/// short of the loop-wide checks.
static bool isScaleLoadToRotate(memref::LoadOp load, scf::ForOp loop) {
  Value memref = load.getMemRef();
  if (isWorkgroupMemory(memref) ||
      loop.getRegion().isAncestor(memref.getParentRegion()))
    return false;
  return llvm::all_of(load.getIndices(), [&](Value index) {
    return canRecomputeForIteration(loop, index);
  });
}

/// Rotates the qualifying loads of `loop` (replacing the loop by one with
/// more loop-carried values).
static void prefetchScales(IRRewriter &rewriter, scf::ForOp loop) {
  std::optional<int64_t> lastIv = getLastIterationValue(loop);
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  if (!lastIv || *lastIv == *lb) // Dynamic bounds or fewer than two trips.
    return;
  SmallVector<memref::LoadOp> loads;
  for (auto load : loop.getBody()->getOps<memref::LoadOp>())
    if (isScaleLoadToRotate(load, loop))
      loads.push_back(load);
  if (loads.empty() || !writesOnlyWorkgroupMemory(loop))
    return;

  // One carried value per distinct (memref, indices).
  SmallVector<memref::LoadOp> distinct;
  DenseMap<Operation *, unsigned> slotOf;
  for (memref::LoadOp load : loads) {
    auto same = llvm::find_if(distinct, [&](memref::LoadOp seen) {
      return seen.getMemRef() == load.getMemRef() &&
             seen.getIndices() == load.getIndices();
    });
    slotOf[load] = same - distinct.begin();
    if (same == distinct.end())
      distinct.push_back(load);
  }

  Location loc = loop.getLoc();
  auto loadFor = [&](OpBuilder &b, Value iv) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), iv);
    SmallVector<Value> values;
    for (memref::LoadOp load : distinct) {
      SmallVector<Value> indices;
      for (Value index : load.getIndices())
        indices.push_back(*recomputeForIteration(b, loop, index, mapping));
      values.push_back(
          memref::LoadOp::create(b, loc, load.getMemRef(), indices));
    }
    return values;
  };
  // The first trip's scales before the loop; the next trip's (the last
  // trip's own, again, in the last trip) at the top of the body.
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> first = loadFor(rewriter, loop.getLowerBound());
  rewriter.setInsertionPointToStart(loop.getBody());
  Value prefetchIv = createPrefetchIteration(rewriter, loc, loop);
  SmallVector<Value> nextValues = loadFor(rewriter, prefetchIv);

  unsigned oldResults = loop.getNumResults();
  FailureOr<LoopLikeOpInterface> rotated = loop.replaceWithAdditionalYields(
      rewriter, first, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return nextValues;
      });
  if (failed(rotated))
    return;
  auto newLoop = cast<scf::ForOp>(rotated->getOperation());
  ValueRange carried = newLoop.getRegionIterArgs().drop_front(oldResults);
  for (memref::LoadOp load : loads) {
    rewriter.replaceAllUsesWith(load.getResult(), carried[slotOf[load]]);
    rewriter.eraseOp(load);
  }
}

namespace {
struct QMMPrefetchScalesPass
    : public qmm::impl::QMMPrefetchScalesBase<QMMPrefetchScalesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      prefetchScales(rewriter, loop);
  }
};
} // namespace
