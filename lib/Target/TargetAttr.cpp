//===- TargetAttr.cpp - the chip a module is compiled for -----------------===//

#include "qmm/Target/TargetAttr.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::qmm;

/// Every chip the IR around `op` names, innermost first, with where.
static void collectTargetChips(
    Operation *op,
    llvm::SmallVectorImpl<std::pair<llvm::StringRef, Operation *>> &chips) {
  for (Operation *at = op; at; at = at->getParentOp()) {
    if (auto target = at->getAttrOfType<ROCDL::ROCDLTargetAttr>(kTargetAttrName))
      chips.push_back({target.getChip(), at});
    if (auto module = dyn_cast<gpu::GPUModuleOp>(at))
      if (ArrayAttr targets = module.getTargetsAttr())
        for (Attribute attr : targets)
          if (auto target = dyn_cast<ROCDL::ROCDLTargetAttr>(attr))
            chips.push_back({target.getChip(), at});
  }
}

llvm::StringRef qmm::lookupTargetChipName(Operation *op) {
  llvm::SmallVector<std::pair<llvm::StringRef, Operation *>> chips;
  collectTargetChips(op, chips);
  return chips.empty() ? llvm::StringRef() : chips.front().first;
}

const ChipInfo *qmm::getTargetChip(Operation *op, llvm::StringRef chipOption,
                                   llvm::StringRef passName) {
  llvm::SmallVector<std::pair<llvm::StringRef, Operation *>> chips;
  collectTargetChips(op, chips);
  // One chip per compilation: targets that disagree (a module's qmm.target
  // and a gpu.module's, or two in one gpu.module) are an error, not a
  // choice.
  for (const auto &[other, where] : chips)
    if (other != chips.front().first) {
      op->emitError() << passName << ": the IR names two target chips, "
                      << chips.front().first << " and " << other << " (on '"
                      << where->getName() << "')";
      return nullptr;
    }
  llvm::StringRef inIR = chips.empty() ? llvm::StringRef() : chips.front().first;
  llvm::StringRef name = chipOption.empty() ? inIR : chipOption;
  if (name.empty()) {
    op->emitError() << passName
                    << ": no target chip: set one with qmm-attach-target "
                       "(or the pass's chip option), expected "
                    << getSupportedChipNames();
    return nullptr;
  }
  const ChipInfo *chip = lookupChip(name);
  if (!chip) {
    op->emitError() << passName << ": unknown chip '" << name << "' (expected "
                    << getSupportedChipNames() << ")";
    return nullptr;
  }
  if (!inIR.empty() && inIR != name) {
    op->emitError() << passName << ": chip=" << name
                    << " disagrees with the IR's target " << inIR;
    return nullptr;
  }
  return chip;
}

void qmm::setTargetChip(Operation *module, const ChipInfo &chip) {
  module->setAttr(kTargetAttrName,
                  ROCDL::ROCDLTargetAttr::get(module->getContext(),
                                              /*optLevel=*/2,
                                              /*triple=*/"amdgcn-amd-amdhsa",
                                              chip.name));
}
