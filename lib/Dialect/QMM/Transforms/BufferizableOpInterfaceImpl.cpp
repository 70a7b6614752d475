//===- BufferizableOpInterfaceImpl.cpp - qmm bufferization ----------------===//
//
// The qmm ops are in destination-passing style: their tensor results alias
// their `outs` operands. Bufferization rebuilds each op on memrefs, without
// results, writing the destination buffers in place.
//
//===----------------------------------------------------------------------===//

#include "qmm/Dialect/QMM/Transforms/BufferizableOpInterfaceImpl.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::qmm;

namespace {
template <typename OpTy>
struct QMMOpBufferizationModel
    : public DstBufferizableOpInterfaceExternalModel<
          QMMOpBufferizationModel<OpTy>, OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &opOperand,
                              const AnalysisState &state) const {
    auto dpsOp = cast<DestinationStyleOpInterface>(op);
    if (!dpsOp.isDpsInit(&opOperand))
      return true;
    // Destinations are write-only, except the accumulator of
    // `qmm.matmul ... accumulate` (not its `aux`).
    if (auto matmul = dyn_cast<MatmulOp>(op))
      return matmul.getAccumulate() && opOperand.get() == matmul.getInit() &&
             &opOperand == &matmul.getInitMutable();
    // Rows a grouped matmul does not compute keep what the destination
    // holds.
    if (isa<GroupedMatmulOp>(op))
      return true;
    return false;
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dpsOp = cast<DestinationStyleOpInterface>(op);
    SmallVector<Value> newOperands;
    SmallVector<Value> initBuffers;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (isa<TensorType>(value.getType())) {
        FailureOr<Value> buffer = getBuffer(rewriter, value, options, state);
        if (failed(buffer))
          return failure();
        value = *buffer;
      }
      newOperands.push_back(value);
      if (dpsOp.isDpsInit(&operand))
        initBuffers.push_back(value);
    }
    rewriter.setInsertionPoint(op);
    OpTy::create(rewriter, op->getLoc(), TypeRange{}, newOperands,
                 op->getAttrs());
    replaceOpWithBufferizedValues(rewriter, op, initBuffers);
    return success();
  }
};
} // namespace

void qmm::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, QMMDialect *) {
    MatmulOp::attachInterface<QMMOpBufferizationModel<MatmulOp>>(*ctx);
    GroupedMatmulOp::attachInterface<QMMOpBufferizationModel<GroupedMatmulOp>>(
        *ctx);
    QuantizeOp::attachInterface<QMMOpBufferizationModel<QuantizeOp>>(*ctx);
    DequantizeOp::attachInterface<QMMOpBufferizationModel<DequantizeOp>>(*ctx);
  });
}
