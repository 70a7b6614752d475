//===- Building.h - what the raising builds, and taking it back -*- C++ -*-===//
//
// Helpers the raisings share: one batch of a batched tensor and its
// insertion back, and removing what a failed attempt built before an op
// (each attempt builds right before the op it raises, so that failing
// leaves the IR as it was).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_LINALGTOQMM_BUILDING_H
#define QMM_LIB_CONVERSION_LINALGTOQMM_BUILDING_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::qmm::linalg_to_qmm {

/// Batch `index` of `tensor` (a leading batch extent), without it.
Value sliceBatch(OpBuilder &b, Location loc, Value tensor, int64_t index);

/// `slice` (one batch, without the batch extent; a dynamic extent as its
/// tensor.dim) inserted into `into` as batch `index`.
Value insertBatch(OpBuilder &b, Location loc, Value slice, Value into,
                  int64_t index);

/// Erases the operations between `before` (exclusive; null: the block's
/// start) and `op`, newest first: what an attempt on `op` built.
void eraseBuiltBefore(RewriterBase &rewriter, Operation *op,
                      Operation *before);

} // namespace mlir::qmm::linalg_to_qmm

#endif
