//===- SelectConfig.cpp - choose and check #qmm.config ---------------------===//

#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/AsmParser/AsmParser.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMSELECTCONFIG
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
struct QMMSelectConfigPass
    : public qmm::impl::QMMSelectConfigBase<QMMSelectConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = lookupChip(chip);
    if (!target) {
      getOperation()->emitError("qmm-select-config: unknown chip '")
          << chip << "' (expected " << getSupportedChipNames() << ")";
      return signalPassFailure();
    }
    ConfigAttr forced;
    if (!override.empty()) {
      forced = llvm::dyn_cast_or_null<ConfigAttr>(
          parseAttribute(override, &getContext()));
      if (!forced) {
        getOperation()->emitError("qmm-select-config: override '")
            << override << "' is not a #qmm.config<...>";
        return signalPassFailure();
      }
    }
    WalkResult result = getOperation()->walk([&](MatmulOp op) {
      return succeeded(configure(op, *target, forced)) ? WalkResult::advance()
                                                      : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult configure(MatmulOp op, const ChipInfo &target,
                          ConfigAttr forced) {
    auto aType = cast<ShapedType>(op.getA().getType());
    auto initType = cast<ShapedType>(op.getInit().getType());
    Type aElement = aType.getElementType();
    Type bElement = cast<ShapedType>(op.getB().getType()).getElementType();
    int64_t m = initType.getDimSize(0), n = initType.getDimSize(1),
            k = aType.getDimSize(1);
    if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
        ShapedType::isDynamic(k))
      return op.emitOpError("qmm-select-config: needs static shapes");
    OperandTypes operands{aElement, bElement,
                          op.getAEncoding().isMX() && op.getBEncoding().isMX()};
    if (forced)
      op.setConfigAttr(forced);
    if (!op.getConfigAttr()) {
      int64_t scaleBlockK =
          std::min(op.getAEncoding().getBlockExtent(m, k).second,
                   op.getBEncoding().getBlockExtent(n, k).second);
      ConfigAttr chosen = selectConfig(&getContext(), target, m, n, k,
                                       operands, scaleBlockK);
      if (!chosen)
        return op.emitOpError("qmm-select-config: no configuration on ")
               << target.name << " reads " << aElement << " x " << bElement
               << (operands.mxScales ? " with MX scales" : "")
               << " (run qmm-legalize-for-chip first; FP4/FP6 operands are "
                  "not implemented yet)";
      op.setConfigAttr(chosen);
    }
    return verifyConfigForChip(op.getConfigAttr(), target, operands,
                               [&]() { return op.emitOpError(); });
  }
};
} // namespace
