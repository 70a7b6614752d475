//===- KernelIndexing.h - index arithmetic of the wave-level lowerings -*- C++ -*-===//
//
// Index computations the wave-level lowerings share: folded index
// arithmetic, and where a lane's accumulator items sit in its wave's
// sub-tile (the layout documented on qmm.wave_mma).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_AMDGPU_KERNELINDEXING_H
#define QMM_CONVERSION_AMDGPU_KERNELINDEXING_H

#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Conversion/IndexMath.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace qmm {

/// Positions of a lane's accumulator items in its wave's sub-tile. The
/// wave lowering passes B as the instruction's first operand, so tile
/// (rm, rn) is the transpose of the instruction's D: output row = D's
/// column (lane % the instruction's N), output column = D's row, whose
/// items come in runs of consecutive columns (the intrinsic table's
/// accumulator layout).
struct AccumulatorLayout {
  const MMAIntrinsicInfo &mfma;
  int64_t repeatsN; ///< MFMA tiles along N in a wave's sub-tile

  AccumulatorLayout(const MMAIntrinsicInfo &mfma, int64_t repeatsN)
      : mfma(mfma), repeatsN(repeatsN) {}
  explicit AccumulatorLayout(ConfigAttr config)
      : AccumulatorLayout(config.getIntrinsic(), config.getMfmaRepeatsN()) {}

  int64_t m() const { return mfma.n; } ///< output rows of one tile
  int64_t n() const { return mfma.m; } ///< output columns of one tile
  int64_t items() const { return mfma.getAccumulatorItems(); }
  /// Consecutive output columns in consecutive items.
  int64_t runLength() const { return mfma.accumulatorRunLength; }

  /// (lane) -> (row, column) in the sub-tile of item `i` of accumulator
  /// (rm, rn): row lane % N + rm * m(); column R * (lane / N) + (D's row of
  /// item i for lane 0) + rn * n(). The lowerings apply it, and
  /// qmm-intrinsic-table-check evaluates it against the ISA's D layout.
  AffineMap getItemMap(MLIRContext *context, int64_t rm, int64_t rn,
                       int64_t i) const {
    AffineExpr lane = getAffineDimExpr(0, context);
    return AffineMap::get(
        1, 0,
        {lane % mfma.n + rm * m(),
         lane.floorDiv(mfma.n) * runLength() + rn * n() +
             mfma.getAccumulatorPosition(0, i).first},
        context);
  }
  /// Row in the sub-tile of every item of accumulator (rm, rn).
  Value row(IndexMath &im, Value lane, int64_t rm) const {
    AffineMap map = getItemMap(im.b.getContext(), rm, 0, 0);
    return im.apply(map.getSubMap({0}), {lane})[0];
  }
  /// Column in the sub-tile of item `i` of accumulator (rm, rn).
  Value col(IndexMath &im, Value lane, int64_t rn, int64_t i) const {
    AffineMap map = getItemMap(im.b.getContext(), 0, rn, i);
    return im.apply(map.getSubMap({1}), {lane})[0];
  }
  /// Index of accumulator (rm, rn) in the op's operand list.
  int64_t index(int64_t rm, int64_t rn) const { return rm * repeatsN + rn; }
};

/// The XOR, in 16-byte units, that `swizzle` applies to the columns of LDS
/// tile row `row` (LdsSwizzle::getXorUnits, built as index arithmetic).
Value buildSwizzleUnits(IndexMath &im, Value row, const LdsSwizzle &swizzle);

/// Whether `memref` (ranked or not) lives in LDS (workgroup memory).
inline bool isWorkgroupMemory(Value memref) {
  return gpu::GPUDialect::isWorkgroupMemoryAddressSpace(
      cast<BaseMemRefType>(memref.getType()).getMemorySpace());
}

/// Recomputes `value`, defined in the body of `loop` from its induction
/// variable and values from above, for the induction variable value that
/// `mapping` maps it to (at the builder's insertion point); values from
/// above are used as they are. Fails on anything else (block arguments
/// other than the induction variable, ops with regions or side effects).
FailureOr<Value> recomputeForIteration(OpBuilder &b, scf::ForOp loop,
                                       Value value, IRMapping &mapping);

/// Whether recomputeForIteration succeeds on `value` (builds nothing).
bool canRecomputeForIteration(scf::ForOp loop, Value value);

/// The induction variable's value in the last trip of `loop` (the lower
/// bound when it has none), when the induction variable is an index and
/// the bounds and step are constants.
std::optional<int64_t> getLastIterationValue(scf::ForOp loop);

/// In the body of `loop` (constant bounds): the induction variable of the
/// next trip, or of this one in the last trip, which prefetches read again
/// instead of branching. Built as `iv == last ? iv : iv + step`, a compare
/// with the last trip, so that LLVM peels that trip and the loop proper
/// keeps only `iv + step`.
Value createPrefetchIteration(OpBuilder &b, Location loc, scf::ForOp loop);

} // namespace qmm
} // namespace mlir

#endif
