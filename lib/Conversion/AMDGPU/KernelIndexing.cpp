//===- KernelIndexing.cpp - loop iterations of the wave-level lowerings ---===//
//
// Recomputing a K loop's index values for another iteration, which the
// prefetching stages (qmm-promote-operands-to-lds with stages = 2,
// qmm-prefetch-scales) share.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/AMDGPU/KernelIndexing.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::qmm;

/// An op in `loop` that recomputeForIteration clones: no regions, no side
/// effects.
static bool isClonable(Operation *def) {
  return def && def->getNumRegions() == 0 && isMemoryEffectFree(def);
}

FailureOr<Value> qmm::recomputeForIteration(OpBuilder &b, scf::ForOp loop,
                                            Value value, IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  if (!loop.getRegion().isAncestor(value.getParentRegion()))
    return value; // Defined above the loop: the same in every iteration.
  Operation *def = value.getDefiningOp();
  if (!isClonable(def))
    return failure();
  for (Value operand : def->getOperands())
    if (failed(recomputeForIteration(b, loop, operand, mapping)))
      return failure();
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

bool qmm::canRecomputeForIteration(scf::ForOp loop, Value value) {
  if (value == loop.getInductionVar() ||
      !loop.getRegion().isAncestor(value.getParentRegion()))
    return true;
  Operation *def = value.getDefiningOp();
  return isClonable(def) &&
         llvm::all_of(def->getOperands(), [&](Value operand) {
           return canRecomputeForIteration(loop, operand);
         });
}

std::optional<int64_t> qmm::getLastIterationValue(scf::ForOp loop) {
  if (!loop.getInductionVar().getType().isIndex())
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub > *lb ? *lb + (*ub - *lb - 1) / *step * *step : *lb;
}

Value qmm::createPrefetchIteration(OpBuilder &b, Location loc,
                                   scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  Value last =
      arith::ConstantIndexOp::create(b, loc, *getLastIterationValue(loop));
  Value isLast =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, iv, last);
  Value next = arith::AddIOp::create(b, loc, iv, loop.getStep());
  return arith::SelectOp::create(b, loc, isLast, iv, next);
}

Value qmm::buildSwizzleUnits(IndexMath &im, Value row,
                             const LdsSwizzle &swizzle) {
  Value units = im.rem(im.div(row, swizzle.rowsPerStep), swizzle.steps);
  if (!swizzle.flipUnits)
    return units;
  Value flip =
      im.mul(im.rem(im.div(row, swizzle.flipRows), 2), swizzle.flipUnits);
  return arith::XOrIOp::create(im.b, im.loc, units, flip);
}
