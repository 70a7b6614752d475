//===- Chip.cpp - the target description of the supported GPUs ------------===//
//
// Sources: AMD CDNA3 and CDNA4 ISA guides and product pages (see
// ../shared/domain.md).
//
//===----------------------------------------------------------------------===//

#include "qmm/Target/Chip.h"

using namespace mlir::qmm;

static const ChipInfo kChips[] = {
    {"gfx942", "MI300X (CDNA3)", FormatFamily::FNUZ, /*waveSize=*/64,
     /*ldsBytesPerWorkgroup=*/64 * 1024, /*ldsBanks=*/32, /*ldsBankBytes=*/4,
     /*hasScaledMFMA=*/false},
    {"gfx950", "MI355X (CDNA4)", FormatFamily::OCP, /*waveSize=*/64,
     /*ldsBytesPerWorkgroup=*/160 * 1024, /*ldsBanks=*/64, /*ldsBankBytes=*/4,
     /*hasScaledMFMA=*/true},
};

const ChipInfo *mlir::qmm::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

llvm::ArrayRef<ChipInfo> mlir::qmm::getSupportedChips() { return kChips; }
