//===- TargetAttr.cpp - the chip a module is compiled for -----------------===//

#include "qmm/Target/TargetAttr.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::qmm;

TargetChip qmm::lookupTargetChip(llvm::StringRef name) {
  return {lookupChip(name), lookupNvidiaChip(name)};
}

std::string qmm::getAllChipNames() {
  llvm::SmallVector<llvm::StringRef> names;
  for (const ChipInfo &chip : getSupportedChips())
    names.push_back(chip.name);
  for (const NvidiaChipInfo &chip : getSupportedNvidiaChips())
    names.push_back(chip.name);
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      joined += i + 1 == names.size() ? " or " : ", ";
    joined += names[i].str();
  }
  return joined;
}

/// The chip a target attribute of either vendor names, or empty.
static llvm::StringRef getChipOfTarget(Attribute attr) {
  if (auto target = dyn_cast_or_null<ROCDL::ROCDLTargetAttr>(attr))
    return target.getChip();
  if (auto target = dyn_cast_or_null<NVVM::NVVMTargetAttr>(attr))
    return target.getChip();
  return {};
}

/// Every chip the IR around `op` names, innermost first, with where.
static void collectTargetChips(
    Operation *op,
    llvm::SmallVectorImpl<std::pair<llvm::StringRef, Operation *>> &chips) {
  for (Operation *at = op; at; at = at->getParentOp()) {
    llvm::StringRef chip = getChipOfTarget(at->getAttr(kTargetAttrName));
    if (!chip.empty())
      chips.push_back({chip, at});
    if (auto module = dyn_cast<gpu::GPUModuleOp>(at))
      if (ArrayAttr targets = module.getTargetsAttr())
        for (Attribute attr : targets) {
          llvm::StringRef chip = getChipOfTarget(attr);
          if (!chip.empty())
            chips.push_back({chip, at});
        }
  }
}

llvm::StringRef qmm::lookupTargetChipName(Operation *op) {
  llvm::SmallVector<std::pair<llvm::StringRef, Operation *>> chips;
  collectTargetChips(op, chips);
  return chips.empty() ? llvm::StringRef() : chips.front().first;
}

/// The chip name `chipOption` or the IR names, checked to agree; empty
/// after a diagnostic.
static llvm::StringRef resolveChipName(Operation *op,
                                       llvm::StringRef chipOption,
                                       llvm::StringRef passName,
                                       llvm::StringRef expected) {
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
      return {};
    }
  llvm::StringRef inIR = chips.empty() ? llvm::StringRef() : chips.front().first;
  llvm::StringRef name = chipOption.empty() ? inIR : chipOption;
  if (name.empty()) {
    op->emitError() << passName
                    << ": no target chip: set one with qmm-attach-target "
                       "(or the pass's chip option), expected "
                    << expected;
    return {};
  }
  if (!inIR.empty() && inIR != name) {
    op->emitError() << passName << ": chip=" << name
                    << " disagrees with the IR's target " << inIR;
    return {};
  }
  return name;
}

TargetChip qmm::getTarget(Operation *op, llvm::StringRef chipOption,
                          llvm::StringRef passName) {
  llvm::StringRef name =
      resolveChipName(op, chipOption, passName, getAllChipNames());
  if (name.empty())
    return {};
  TargetChip chip = lookupTargetChip(name);
  if (!chip)
    op->emitError() << passName << ": unknown chip '" << name << "' (expected "
                    << getAllChipNames() << ")";
  return chip;
}

const ChipInfo *qmm::getTargetChip(Operation *op, llvm::StringRef chipOption,
                                   llvm::StringRef passName) {
  llvm::StringRef name =
      resolveChipName(op, chipOption, passName, getSupportedChipNames());
  if (name.empty())
    return nullptr;
  const ChipInfo *chip = lookupChip(name);
  if (!chip)
    op->emitError() << passName << ": unknown chip '" << name << "' (expected "
                    << getSupportedChipNames() << ")";
  return chip;
}

const NvidiaChipInfo *qmm::getNvidiaTargetChip(Operation *op,
                                               llvm::StringRef chipOption,
                                               llvm::StringRef passName) {
  llvm::StringRef name = resolveChipName(op, chipOption, passName,
                                         getSupportedNvidiaChipNames());
  if (name.empty())
    return nullptr;
  const NvidiaChipInfo *chip = lookupNvidiaChip(name);
  if (!chip)
    op->emitError() << passName << ": unknown chip '" << name << "' (expected "
                    << getSupportedNvidiaChipNames() << ")";
  return chip;
}

void qmm::setTargetChip(Operation *module, const TargetChip &chip) {
  MLIRContext *ctx = module->getContext();
  if (chip.amd) {
    module->setAttr(kTargetAttrName,
                    ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/2,
                                                /*triple=*/"amdgcn-amd-amdhsa",
                                                chip.amd->name));
    return;
  }
  if (chip.nvidia)
    module->setAttr(kTargetAttrName,
                    NVVM::NVVMTargetAttr::get(
                        ctx, /*optLevel=*/2, /*triple=*/"nvptx64-nvidia-cuda",
                        chip.nvidia->name, chip.nvidia->ptxFeatures));
}
