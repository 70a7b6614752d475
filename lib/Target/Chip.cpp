//===- Chip.cpp - the target description of the supported GPUs ------------===//
//
// Sources: AMD CDNA3 and CDNA4 ISA guides and product pages (see
// ../shared/domain.md).
//
//===----------------------------------------------------------------------===//

#include "qmm/Target/Chip.h"

#include <algorithm>

using namespace mlir::qmm;

static const MFMAShape kGfx942MFMA[] = {
    {MFMAKind::FP8, 16, 16, 32, 16},
    {MFMAKind::FP8, 32, 32, 16, 32},
};

static const MFMAShape kGfx950MFMA[] = {
    {MFMAKind::FP8, 16, 16, 32, 16},
    {MFMAKind::FP8, 32, 32, 16, 32},
    {MFMAKind::F8F6F4, 16, 16, 128, 32},
    {MFMAKind::F8F6F4, 32, 32, 64, 64},
    {MFMAKind::ScaledF8F6F4, 16, 16, 128, 32},
    {MFMAKind::ScaledF8F6F4, 32, 32, 64, 64},
    // gfx950's 8-value bf16 forms; cycles from bf16's half-of-FP8 peak rate.
    {MFMAKind::BF16, 16, 16, 32, 16},
    {MFMAKind::BF16, 32, 32, 16, 32},
};

static const ChipInfo kChips[] = {
    {"gfx942", "MI300X (CDNA3)", FormatFamily::FNUZ, /*waveSize=*/64,
     /*ldsBytesPerWorkgroup=*/64 * 1024, /*ldsBanks=*/32, /*ldsBankBytes=*/4,
     /*hasScaledMFMA=*/false, kGfx942MFMA, /*simdsPerCU=*/4,
     /*registersPerSimdLane=*/512, /*registerGranule=*/8,
     /*maxWavesPerSimd=*/8, /*ldsBytesPerCU=*/64 * 1024,
     /*maxThreadsPerWorkgroup=*/1024,
     /*maxWorkgroupExtents=*/{1024, 1024, 1024},
     /*maxGridWorkItemsPerDimension=*/(int64_t(1) << 32) - 1},
    {"gfx950", "MI355X (CDNA4)", FormatFamily::OCP, /*waveSize=*/64,
     /*ldsBytesPerWorkgroup=*/160 * 1024, /*ldsBanks=*/64, /*ldsBankBytes=*/4,
     /*hasScaledMFMA=*/true, kGfx950MFMA, /*simdsPerCU=*/4,
     /*registersPerSimdLane=*/512, /*registerGranule=*/8,
     /*maxWavesPerSimd=*/8, /*ldsBytesPerCU=*/160 * 1024,
     /*maxThreadsPerWorkgroup=*/1024,
     /*maxWorkgroupExtents=*/{1024, 1024, 1024},
     /*maxGridWorkItemsPerDimension=*/(int64_t(1) << 32) - 1},
};

const MFMAShape *ChipInfo::findMFMA(MFMAKind kind, int m, int n, int k) const {
  for (const MFMAShape &shape : mfmaShapes)
    if (shape.kind == kind && shape.m == m && shape.n == n && shape.k == k)
      return &shape;
  return nullptr;
}

int ChipInfo::getOccupancy(int vgprs, int agprs, int64_t ldsBytesPerWorkgroup,
                           int wavesPerWorkgroup) const {
  // AGPRs are allocated after the VGPRs (aligned to 4), the sum rounded up
  // to the allocation granule.
  auto alignTo = [](int v, int a) { return (v + a - 1) / a * a; };
  int registers =
      alignTo(alignTo(std::max(vgprs, 1), 4) + agprs, registerGranule);
  int byRegisters = std::min(maxWavesPerSimd, registersPerSimdLane / registers);
  int byLds = maxWavesPerSimd;
  if (ldsBytesPerWorkgroup > 0) {
    int64_t workgroups = ldsBytesPerCU / ldsBytesPerWorkgroup;
    byLds = int(std::min<int64_t>(
        maxWavesPerSimd,
        (workgroups * wavesPerWorkgroup + simdsPerCU - 1) / simdsPerCU));
  }
  return std::min(byRegisters, byLds);
}

const ChipInfo *mlir::qmm::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

llvm::ArrayRef<ChipInfo> mlir::qmm::getSupportedChips() { return kChips; }

std::string mlir::qmm::getSupportedChipNames() {
  std::string names;
  llvm::ArrayRef<ChipInfo> chips = getSupportedChips();
  for (size_t i = 0; i < chips.size(); ++i) {
    if (i)
      names += i + 1 == chips.size() ? " or " : ", ";
    names += chips[i].name.str();
  }
  return names;
}
