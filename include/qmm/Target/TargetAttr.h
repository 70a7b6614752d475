//===- TargetAttr.h - the chip a module is compiled for ----------*- C++ -*-===//
//
// The target is set once in the IR: `qmm.target = #rocdl.target<chip = ...>`
// or `#nvvm.target<chip = ...>` on the module (qmm-attach-target), or the
// target of a gpu.module. Every stage of either vendor's pipeline reads it
// through getTarget (getTargetChip, getNvidiaTargetChip), so two stages
// cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TARGET_TARGETATTR_H
#define QMM_TARGET_TARGETATTR_H

#include "qmm/Target/Chip.h"
#include "qmm/Target/NvidiaChip.h"

#include "mlir/IR/Operation.h"

namespace mlir {
namespace qmm {

/// The discardable attribute holding a module's target.
inline constexpr llvm::StringLiteral kTargetAttrName = "qmm.target";

/// A chip of either vendor: exactly one of the two descriptions is set
/// (neither: no chip).
struct TargetChip {
  const ChipInfo *amd = nullptr;
  const NvidiaChipInfo *nvidia = nullptr;
  explicit operator bool() const { return amd || nvidia; }
  llvm::StringRef getName() const {
    return amd ? amd->name : nvidia ? nvidia->name : llvm::StringRef();
  }
  /// The FP8 family the chip's matrix instructions read natively (FNUZ on
  /// gfx942, OCP elsewhere); requires a chip.
  FormatFamily getNativeFP8() const {
    assert(*this && "no chip");
    return amd ? amd->nativeFP8 : nvidia->nativeFP8;
  }
  bool operator==(const TargetChip &other) const {
    return amd == other.amd && nvidia == other.nvidia;
  }
  bool operator!=(const TargetChip &other) const { return !(*this == other); }
};

/// The chip of either vendor named `name`, or none.
TargetChip lookupTargetChip(llvm::StringRef name);

/// Every chip name of both vendors, for diagnostics.
std::string getAllChipNames();

/// The chip name the IR around `op` targets: the qmm.target of `op` or its
/// nearest ancestor that has one, else the #rocdl.target or #nvvm.target
/// of an enclosing gpu.module; empty when there is none.
llvm::StringRef lookupTargetChipName(Operation *op);

/// The chip a pass `passName` compiles `op` for: its `chipOption` when set
/// (it must agree with the IR's target, if any), else the IR's target.
/// Emits "PASS: ..." at `op` and returns no chip for an unknown chip, a
/// disagreement, or no target at all.
TargetChip getTarget(Operation *op, llvm::StringRef chipOption,
                     llvm::StringRef passName);

/// getTarget for a pass of the AMD pipeline (an NVIDIA chip is an error).
const ChipInfo *getTargetChip(Operation *op, llvm::StringRef chipOption,
                              llvm::StringRef passName);

/// getTarget for a pass of the NVIDIA pipeline (an AMD chip is an error).
const NvidiaChipInfo *getNvidiaTargetChip(Operation *op,
                                          llvm::StringRef chipOption,
                                          llvm::StringRef passName);

/// Records `chip` as `module`'s target: qmm.target = #rocdl.target<...>
/// for AMD chips, #nvvm.target<...> (with the PTX version the kernels
/// declare) for NVIDIA ones.
void setTargetChip(Operation *module, const TargetChip &chip);
inline void setTargetChip(Operation *module, const ChipInfo &chip) {
  setTargetChip(module, TargetChip{&chip, nullptr});
}

} // namespace qmm
} // namespace mlir

#endif // QMM_TARGET_TARGETATTR_H
