//===- SelectConfig.cpp - choose and check #qmm.config ---------------------===//

#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Target/TargetAttr.h"
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
    const ChipInfo *target = getTargetChip(getOperation(), chip, "qmm-select-config");
    if (!target)
      return signalPassFailure();
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
    WalkResult result = getOperation()->walk([&](Operation *op) {
      LogicalResult configured = success();
      if (auto matmul = dyn_cast<MatmulOp>(op))
        configured = configure(matmul, *target, forced);
      else if (auto grouped = dyn_cast<GroupedMatmulOp>(op))
        configured = configure(grouped, *target, forced);
      return succeeded(configured) ? WalkResult::advance()
                                   : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  /// Configures a qmm.matmul or qmm.grouped_matmul (one group's product).
  template <typename OpTy>
  LogicalResult configure(OpTy op, const ChipInfo &target, ConfigAttr forced) {
    Type aElement = getElementTypeOrSelf(op.getA().getType());
    Type bElement = getElementTypeOrSelf(op.getB().getType());
    int64_t m = op.getM(), n = op.getN(), k = op.getK();
    if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
        ShapedType::isDynamic(k))
      return op.emitOpError("qmm-select-config: needs static shapes");
    OperandTypes operands{aElement, bElement,
                          op.getAEncoding().isMX() && op.getBEncoding().isMX()};
    if (forced)
      op.setConfigAttr(forced);
    int64_t outputBlockN = 0;
    if constexpr (std::is_same_v<OpTy, MatmulOp>) {
      if (ScaleEncodingAttr out = op.getOutEncodingAttr())
        outputBlockN = out.getBlockExtent(m, n).second;
    }
    if (!op.getConfigAttr()) {
      int64_t scaleBlockK =
          std::min(op.getAEncoding().getBlockExtent(m, k).second,
                   op.getBEncoding().getBlockExtent(n, k).second);
      ConfigAttr chosen = selectConfig(&getContext(), target, m, n, k,
                                       operands, scaleBlockK, outputBlockN);
      // K tiles must not straddle scale blocks, and are whole 16-byte rows
      // and whole MFMA steps.
      if (!chosen && scaleBlockK < k && scaleBlockK % 16 != 0)
        return op.emitOpError("qmm-select-config: scale blocks of ")
               << scaleBlockK << " along K are not a multiple of 16: no K "
               << "tile of the AMD pipeline fits inside one";
      if (!chosen)
        return op.emitOpError("qmm-select-config: no configuration on ")
               << target.name << " reads " << aElement << " x " << bElement
               << (operands.mxScales ? " with MX scales" : "")
               << " (run qmm-legalize-for-chip first)";
      op.setConfigAttr(chosen);
    }
    if constexpr (std::is_same_v<OpTy, GroupedMatmulOp>) {
      // A contiguous tile of A must not straddle two groups' segments.
      int64_t alignment = getGroupedMatmulMAlignment();
      if (op.getLayout() == GroupedLayout::Contiguous &&
          alignment % op.getConfigAttr().getTileM() != 0)
        return op.emitOpError("config: tile M (")
               << op.getConfigAttr().getTileM()
               << ") must divide the M alignment of contiguous groups ("
               << alignment << ")";
    }
    ConfigAttr config = op.getConfigAttr();
    if (outputBlockN && !config.keepsOutputBlocksInWaves(n, outputBlockN))
      return op.emitOpError("config: the FP8 output's blocks of ")
             << outputBlockN << " columns must lie within one wave's sub-tile ("
             << config.getWaveTileN()
             << " columns), starting at a multiple of the block; use "
                "waves = [W, 1] or a tile N that is a multiple of the block";
    return verifyConfigForChip(op.getConfigAttr(), target, operands,
                               [&]() { return op.emitOpError(); });
  }
};
} // namespace
