//===- CopyStridedOperands.cpp - contiguous rows for the kernels ----------===//
//
// The AMD kernels move rows with vector loads and stores: the LDS tile
// copies of A and B, the epilogue's stores of D and aux, its loads of C and
// the bias. A vector access needs the last dimension of its memref to have
// a unit stride. One-shot bufferization gives function arguments identity
// layouts, but views inside a function keep theirs: a tensor.extract_slice
// with a stride along K (what qmm-linalg-to-qmm raises a dequantized slice
// to), a rank-reducing slice that drops the last dimension, a transposed
// memref in a memref-form program. The quantization kernels
// (qmm-lower-quantization-to-loops) index their operands as whole buffers,
// so they need identity layouts. Such an operand is copied into a
// contiguous buffer before the op; an operand the op writes (its inits) is
// copied in before it too (a grouped matmul keeps the rows it does not
// compute) and back out after it. The copies are linalg.copy ops, which
// convert-linalg-to-parallel-loops and qmm-parallel-loops-to-gpu turn into
// kernels like the legalization's, so they appear in the program's launches.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMCOPYSTRIDEDOPERANDS
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// Whether `type` is a memref the kernels of `op` cannot access as it is:
/// the quantization kernels need an identity layout, the matmul kernels a
/// unit stride along the last dimension (their row-wise vector accesses;
/// offsets and row strides, as batch slices have, are fine). Packed FP4/FP6
/// data is left alone: two values share a byte, so no element-wise copy
/// can move it, and the lowerings that address it by byte refuse views
/// other than whole buffers with their own diagnostic.
static bool needsContiguousCopy(Operation *op, Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() == 0)
    return false;
  Type element = memref.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8)
    return false;
  if (isa<QuantizeOp, DequantizeOp>(op))
    return !memref.getLayout().isIdentity();
  return !memref.isLastDimUnitStride();
}

/// A new buffer of `view`'s shape (its dynamic extents read from it) with
/// the identity layout.
static Value allocateContiguous(OpBuilder &b, Location loc, Value view) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, view, d));
  auto contiguous =
      MemRefType::get(type.getShape(), type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  return memref::AllocOp::create(b, loc, contiguous, dynamicSizes);
}

static void copyStridedOperands(DestinationStyleOpInterface op) {
  OpBuilder before(op);
  OpBuilder after(op->getBlock(), std::next(Block::iterator(op)));
  Location loc = op.getLoc();
  for (OpOperand &operand : op->getOpOperands()) {
    Value view = operand.get();
    if (!needsContiguousCopy(op, view.getType()))
      continue;
    Value copy = allocateContiguous(before, loc, view);
    linalg::CopyOp::create(before, loc, view, copy);
    operand.set(copy);
    if (op.isDpsInit(&operand))
      linalg::CopyOp::create(after, loc, copy, view);
  }
}

namespace {
struct QMMCopyStridedOperandsPass
    : public qmm::impl::QMMCopyStridedOperandsBase<
          QMMCopyStridedOperandsPass> {
  void runOnOperation() override {
    SmallVector<DestinationStyleOpInterface> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<MatmulOp, GroupedMatmulOp, QuantizeOp, DequantizeOp>(op) &&
          cast<DestinationStyleOpInterface>(op).hasPureBufferSemantics())
        ops.push_back(cast<DestinationStyleOpInterface>(op));
    });
    for (DestinationStyleOpInterface op : ops)
      copyStridedOperands(op);
  }
};
} // namespace
