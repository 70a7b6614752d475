//===- TargetAttr.cpp - the chip a module is compiled for -----------------===//

#include "qmm/Target/TargetAttr.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::qmm;

llvm::StringRef qmm::lookupTargetChipName(Operation *op) {
  for (Operation *at = op; at; at = at->getParentOp()) {
    if (auto target = at->getAttrOfType<ROCDL::ROCDLTargetAttr>(kTargetAttrName))
      return target.getChip();
    if (auto module = dyn_cast<gpu::GPUModuleOp>(at))
      if (ArrayAttr targets = module.getTargetsAttr())
        for (Attribute attr : targets)
          if (auto target = dyn_cast<ROCDL::ROCDLTargetAttr>(attr))
            return target.getChip();
  }
  return {};
}

const ChipInfo *qmm::getTargetChip(Operation *op, llvm::StringRef chipOption,
                                   llvm::StringRef passName) {
  llvm::StringRef inIR = lookupTargetChipName(op);
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
