//===- CheckNvidiaSupport.cpp - what the NVVM pipeline compiles -----------===//
//
// Stage 0 of the NVVM pipeline: refuses, with a diagnostic on the op, what
// the pipeline does not compile for the chip, before any lowering could
// turn it into wrong code or a backend abort.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/NvidiaChip.h"
#include "qmm/Target/TargetAttr.h"

#include "llvm/ADT/DenseSet.h"

#include <type_traits>

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMCHECKNVIDIASUPPORT
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// Hopper's tensor cores read OCP FP8 only (wgmma .e4m3 / .e5m2).
static bool isHopperFP8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

static Type getElementType(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

template <typename MatmulLike>
static LogicalResult checkMatmul(MatmulLike op, const NvidiaChipInfo &chip) {
  for (auto [name, operand] : {std::pair{"A", op.getA()}, {"B", op.getB()}}) {
    Type element = getElementType(operand);
    if (!isHopperFP8(element))
      return op.emitOpError("qmm-check-nvidia-support: ")
             << chip.name << " reads OCP FP8 (f8E4M3FN, f8E5M2) in its "
             << "tensor cores; " << name << " is " << element;
  }
  for (ScaleEncodingAttr encoding : {op.getAEncoding(), op.getBEncoding()})
    if (encoding.isMX())
      return op.emitOpError("qmm-check-nvidia-support: MX scales (E8M0 per "
                            "32 elements) need block-scaled MMA, which ")
             << chip.name << " does not have";
  // FP8 outputs feed the next layer's tensor cores: OCP FP8 only.
  if (Type out = getElementType(op.getInit());
      op.getOutScales() && !isHopperFP8(out))
    return op.emitOpError("qmm-check-nvidia-support: ")
           << chip.name << " reads OCP FP8 (f8E4M3FN, f8E5M2) in its "
           << "tensor cores; an FP8 output of " << out
           << " could not feed them";
  // M may be known at run time only: the rows of A, its scales, the
  // output, aux, the output's scales and a contiguous grouped matmul's row
  // groups (a masked one's Mmax is its buffer's bound).
  DenseSet<Value> rowOperands;
  bool masked = false;
  if constexpr (std::is_same_v<MatmulLike, GroupedMatmulOp>) {
    masked = op.getLayout() == GroupedLayout::Masked;
    rowOperands.insert(op.getGroups());
  }
  for (Value operand : {op.getA(), op.getAScales(), op.getInit(), op.getAux(),
                        op.getOutScales()})
    if (operand)
      rowOperands.insert(operand);
  for (Value operand : op->getOperands()) {
    auto shaped = dyn_cast<ShapedType>(operand.getType());
    if (!shaped || shaped.hasStaticShape())
      continue;
    bool onlyRows = !masked && rowOperands.contains(operand);
    for (int64_t d = onlyRows ? 1 : 0; d < shaped.getRank(); ++d)
      if (shaped.isDynamicDim(d))
        return op.emitOpError("qmm-check-nvidia-support: ")
               << chip.name << " compiles a run-time M (the rows of A and "
               << "the output) only; operand " << shaped << " has another "
               << "dynamic extent";
  }
  return success();
}

namespace {
struct QMMCheckNvidiaSupportPass
    : public qmm::impl::QMMCheckNvidiaSupportBase<QMMCheckNvidiaSupportPass> {
  using Base::Base;
  void runOnOperation() override {
    const NvidiaChipInfo *target =
        getNvidiaTargetChip(getOperation(), chip, "qmm-check-nvidia-support");
    if (!target)
      return signalPassFailure();
    WalkResult result = getOperation().walk([&](Operation *op) {
      LogicalResult checked = success();
      if (auto matmul = dyn_cast<MatmulOp>(op))
        checked = checkMatmul(matmul, *target);
      else if (auto grouped = dyn_cast<GroupedMatmulOp>(op))
        checked = checkMatmul(grouped, *target);
      else if (isa<QuantizeOp, DequantizeOp>(op))
        checked = op->emitOpError("qmm-check-nvidia-support: not compiled "
                                  "for ")
                  << target->name << " yet (the cpu device runs it)";
      return failed(checked) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
