//===- AttachTarget.cpp - record the module's chip in the IR --------------===//
//
// Stage 0 of both vendors' pipelines: the chip every later stage reads.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Target/TargetAttr.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMATTACHTARGET
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
struct QMMAttachTargetPass
    : public qmm::impl::QMMAttachTargetBase<QMMAttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    // Resolving the option against the IR rejects unknown chips and a
    // module already compiled for another one.
    TargetChip target = getTarget(getOperation(), chip, "qmm-attach-target");
    if (!target)
      return signalPassFailure();
    setTargetChip(getOperation(), target);
  }
};
} // namespace
