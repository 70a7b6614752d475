//===- Chip.h - the target description of the supported GPUs ----*- C++ -*-===//
//
// The one place chip facts live. Passes, the runner and the emulator read
// them from here; nothing else spells an LDS size or a bank count.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TARGET_CHIP_H
#define QMM_TARGET_CHIP_H

#include "qmm/Dialect/QMM/IR/QMMFormats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
namespace qmm {

struct ChipInfo {
  llvm::StringRef name;    ///< LLVM's gfx name: "gfx942"
  llvm::StringRef product; ///< "MI300X (CDNA3)"
  /// The FP8 encoding the matrix cores read natively.
  FormatFamily nativeFP8;
  int waveSize;
  int64_t ldsBytesPerWorkgroup;
  int ldsBanks;
  int ldsBankBytes;
  /// v_mfma_scale_f32_*_f8f6f4 (MX with E8M0 scales) and FP4/FP6 inputs.
  bool hasScaledMFMA;
};

/// gfx942 or gfx950; null for anything else.
const ChipInfo *lookupChip(llvm::StringRef name);

/// Every supported chip, for diagnostics and --help.
llvm::ArrayRef<ChipInfo> getSupportedChips();

} // namespace qmm
} // namespace mlir

#endif
