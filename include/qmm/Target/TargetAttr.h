//===- TargetAttr.h - the chip a module is compiled for ----------*- C++ -*-===//
//
// The target is set once in the IR: `qmm.target = #rocdl.target<chip = ...>`
// on the module (qmm-attach-target), or the #rocdl.target of a gpu.module.
// Every stage reads it through getTargetChip, so two stages cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TARGET_TARGETATTR_H
#define QMM_TARGET_TARGETATTR_H

#include "qmm/Target/Chip.h"

#include "mlir/IR/Operation.h"

namespace mlir {
namespace qmm {

/// The discardable attribute holding a module's target.
inline constexpr llvm::StringLiteral kTargetAttrName = "qmm.target";

/// The chip name the IR around `op` targets: the qmm.target of `op` or its
/// nearest ancestor that has one, else the #rocdl.target of an enclosing
/// gpu.module; empty when there is none.
llvm::StringRef lookupTargetChipName(Operation *op);

/// The chip a pass `passName` compiles `op` for: its `chipOption` when set
/// (it must agree with the IR's target, if any), else the IR's target.
/// Emits "PASS: ..." at `op` and returns null for an unknown chip, a
/// disagreement, or no target at all.
const ChipInfo *getTargetChip(Operation *op, llvm::StringRef chipOption,
                              llvm::StringRef passName);

/// Records `chip` as `module`'s target (qmm.target = #rocdl.target<...>).
void setTargetChip(Operation *module, const ChipInfo &chip);

} // namespace qmm
} // namespace mlir

#endif // QMM_TARGET_TARGETATTR_H
