//===- LoopGroups.h - linalg ops on reshaped views, collapsed back -*- C++ -*-===//
//
// Frontends write blockwise dequantization on reshaped views ([R, K/128,
// 128] through tensor.expand_shape, collapsed back with
// tensor.collapse_shape); elementwise fusion then carries the split loops
// into the contraction. qmm-linalg-to-qmm reads such an op as the op on
// the unsplit loops: a loop group becomes one loop, and a scale indexed by
// a group's outer loop is indexed by `loop floordiv inner extent`.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_LINALGTOQMM_LOOPGROUPS_H
#define QMM_LIB_CONVERSION_LINALGTOQMM_LOOPGROUPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::qmm::linalg_to_qmm {

/// The loops of `op`, grouped as its inputs' tensor.expand_shape views
/// split them (each group consecutive loops, a loop not split alone);
/// none when no input splits a loop or the views disagree.
std::optional<SmallVector<ReassociationIndices>>
getExpandedLoopGroups(linalg::GenericOp op);

/// `op` on one loop per group of `groups`.
struct CollapsedOp {
  linalg::GenericOp op;
  /// How the result's dimensions collapsed (its init's reassociation).
  SmallVector<ReassociationIndices> resultReassociation;
};

/// Builds `op` on one loop per group (inner loops of a group need static
/// extents) at the rewriter's insertion point, leaving `op` as it is. An
/// operand read by whole groups in order is collapsed the same way (an
/// expand_shape with that reassociation is looked through, else a
/// tensor.collapse_shape is made); any other input is read through the
/// collapsed loops' expressions (`outer` -> `d floordiv inner extent`,
/// `inner` -> `d mod extent`). Failure (nothing built) for an init that
/// is not read by whole groups, mixed iterator types within a group, or a
/// body that reads linalg.index.
FailureOr<CollapsedOp> collapseLoopGroups(RewriterBase &rewriter,
                                          linalg::GenericOp op,
                                          ArrayRef<ReassociationIndices> groups);

/// Builds `op` with loop `loop` split into consecutive loops of static
/// `extents` (outer first; their product the loop's extent) at the
/// rewriter's insertion point, leaving `op` as it is: an operand indexed by
/// the loop (as a bare dimension) is viewed split the same way by
/// tensor.expand_shape, the loop's other uses fail. The inverse of
/// collapseLoopGroups for one loop.
FailureOr<linalg::GenericOp> splitLoop(RewriterBase &rewriter,
                                       linalg::GenericOp op, unsigned loop,
                                       ArrayRef<int64_t> extents);

} // namespace mlir::qmm::linalg_to_qmm

#endif
