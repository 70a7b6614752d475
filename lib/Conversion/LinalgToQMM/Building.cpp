//===- Building.cpp - what the raising builds, and taking it back ---------===//

#include "Building.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

Value qmm::linalg_to_qmm::sliceBatch(OpBuilder &b, Location loc, Value tensor,
                                     int64_t index) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[0] = b.getIndexAttr(index);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tensor);
  sizes[0] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, tensor, offsets,
                                        sizes, strides);
}

Value qmm::linalg_to_qmm::insertBatch(OpBuilder &b, Location loc, Value slice,
                                      Value into, int64_t index) {
  int64_t rank = cast<RankedTensorType>(into.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = b.getIndexAttr(index);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, slice);
  sizes.insert(sizes.begin(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, slice, into, offsets, sizes,
                                       strides);
}

void qmm::linalg_to_qmm::eraseBuiltBefore(RewriterBase &rewriter,
                                          Operation *op, Operation *before) {
  while (op->getPrevNode() != before)
    rewriter.eraseOp(op->getPrevNode());
}
