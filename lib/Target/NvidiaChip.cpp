//===- NvidiaChip.cpp - the target description of NVIDIA GPUs -------------===//
//
// Sources: PTX ISA 8.0 (sm_90a, .e4m3 / .e5m2 operands of wgmma), the CUDA
// C programming guide's compute capability 9.0 limits.
//
//===----------------------------------------------------------------------===//

#include "qmm/Target/NvidiaChip.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::qmm;

static const NvidiaChipInfo kNvidiaChips[] = {
    {"sm_90a", "H100 (Hopper)", "+ptx80", FormatFamily::OCP,
     /*maxThreadsPerBlock=*/1024,
     /*maxGridExtents=*/{(int64_t(1) << 31) - 1, 65535, 65535}},
};

const NvidiaChipInfo *mlir::qmm::lookupNvidiaChip(llvm::StringRef name) {
  for (const NvidiaChipInfo &chip : kNvidiaChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

llvm::ArrayRef<NvidiaChipInfo> mlir::qmm::getSupportedNvidiaChips() {
  return kNvidiaChips;
}

std::string mlir::qmm::getSupportedNvidiaChipNames() {
  std::string names;
  for (const NvidiaChipInfo &chip : kNvidiaChips)
    names += (names.empty() ? "" : ", ") + chip.name.str();
  return names;
}
