//===- Chip.cpp - the target description of the supported GPUs ------------===//
//
// Sources: AMD's CDNA3 and CDNA4 ISA guides, the MI300X / MI355X product
// pages and ROCm's GPU architecture specifications.
//
//===----------------------------------------------------------------------===//

#include "qmm/Target/Chip.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::qmm;

static const ChipInfo kChips[] = {
    {"gfx942", "MI300X (CDNA3)", FormatFamily::FNUZ, /*waveSize=*/64,
     /*ldsBytesPerWorkgroup=*/64 * 1024, /*ldsBanks=*/32, /*ldsBankBytes=*/4,
     /*ldsDmaBytes=*/4,
     /*hasScaledMFMA=*/false, CDNA3, /*simdsPerCU=*/4,
     /*registersPerSimdLane=*/512, /*registerGranule=*/8,
     /*maxWavesPerSimd=*/8, /*ldsBytesPerCU=*/64 * 1024,
     /*maxThreadsPerWorkgroup=*/1024,
     /*maxWorkgroupExtents=*/{1024, 1024, 1024},
     /*maxGridWorkItemsPerDimension=*/(int64_t(1) << 32) - 1},
    {"gfx950", "MI355X (CDNA4)", FormatFamily::OCP, /*waveSize=*/64,
     /*ldsBytesPerWorkgroup=*/160 * 1024, /*ldsBanks=*/64, /*ldsBankBytes=*/4,
     /*ldsDmaBytes=*/16,
     /*hasScaledMFMA=*/true, CDNA4, /*simdsPerCU=*/4,
     /*registersPerSimdLane=*/512, /*registerGranule=*/8,
     /*maxWavesPerSimd=*/8, /*ldsBytesPerCU=*/160 * 1024,
     /*maxThreadsPerWorkgroup=*/1024,
     /*maxWorkgroupExtents=*/{1024, 1024, 1024},
     /*maxGridWorkItemsPerDimension=*/(int64_t(1) << 32) - 1},
};

// The sustained clock and the L2 bandwidth under load are the performance
// model's nominal parameters (qmm/PerfModel's getDefaultParameters reads
// them from here and documents their sources), not product facts.
static const DeviceInfo kDevices[] = {
    {"mi300x", "AMD Instinct MI300X", "gfx942", /*computeUnits=*/304,
     /*xcds=*/8, /*peakClockGHz=*/2.1, /*l2BytesPerXcd=*/4 << 20,
     /*infinityCacheBytes=*/int64_t(256) << 20, /*hbmPeakTBps=*/5.3,
     /*nominalClockGHz=*/1.23, /*nominalL2TBps=*/17},
    {"mi325x", "AMD Instinct MI325X", "gfx942", 304, 8, 2.1, 4 << 20,
     int64_t(256) << 20, 6.0, 1.46, 17},
    {"mi355x", "AMD Instinct MI355X", "gfx950", 256, 8, 2.4, 4 << 20,
     int64_t(256) << 20, 8.0, 1.7, 24},
};

int64_t ChipInfo::getPeakFlopsPerClock(int aBits, int bBits) const {
  int64_t best = 0;
  for (const MMAIntrinsicInfo *info : getIntrinsics()) {
    if (!info->readsNatively(aBits) || !info->readsNatively(bBits))
      continue;
    int cycles = info->cycles;
    if (info->narrowCycles && aBits <= 6 && bBits <= 6)
      cycles = info->narrowCycles;
    best = std::max(best, simdsPerCU * info->getFlops() / cycles);
  }
  return best;
}

const ChipInfo &DeviceInfo::getChip() const { return *lookupChip(chip); }

double DeviceInfo::getPeakTflops(int aBits, int bBits) const {
  return double(getChip().getPeakFlopsPerClock(aBits, bBits)) *
         computeUnits * peakClockGHz * 1e-3;
}

const DeviceInfo *mlir::qmm::lookupDevice(llvm::StringRef name) {
  for (const DeviceInfo &device : kDevices)
    if (device.name == name)
      return &device;
  return nullptr;
}

llvm::ArrayRef<DeviceInfo> mlir::qmm::getSupportedDevices() {
  return kDevices;
}

const DeviceInfo *mlir::qmm::getDefaultDevice(const ChipInfo &chip) {
  return lookupDevice(chip.name == "gfx950" ? "mi355x" : "mi300x");
}

const MMAIntrinsicInfo *ChipInfo::findMFMA(MFMAKind kind, int64_t m,
                                           int64_t n, int64_t k) const {
  const MMAIntrinsicInfo *info = lookupMMAIntrinsic(kind, m, n, k);
  return info && executes(*info) ? info : nullptr;
}

llvm::SmallVector<const MMAIntrinsicInfo *> ChipInfo::getIntrinsics() const {
  llvm::SmallVector<const MMAIntrinsicInfo *> intrinsics;
  for (const MMAIntrinsicInfo &info : getMMAIntrinsics())
    if (executes(info))
      intrinsics.push_back(&info);
  return intrinsics;
}

int64_t ChipInfo::countLdsBankConflictCycles(
    llvm::ArrayRef<LdsLaneAccess> accesses) const {
  int64_t bytesPerLane = 0;
  for (const LdsLaneAccess &access : accesses)
    bytesPerLane = std::max(bytesPerLane, access.bytes);
  if (!bytesPerLane)
    return 0;
  int64_t lanesPerPhase = getLdsLanesPerPhase(bytesPerLane);
  // Powers of two (every chip's) divide by shifts and masks, not a 64-bit
  // division per dword: the emulator counts every LDS instruction.
  bool powersOfTwo =
      llvm::isPowerOf2_32(ldsBanks) && llvm::isPowerOf2_32(ldsBankBytes);
  unsigned bankShift = llvm::Log2_32(ldsBankBytes);
  auto dwordOf = [&](int64_t byte) {
    return powersOfTwo && byte >= 0 ? byte >> bankShift : byte / ldsBankBytes;
  };
  auto bankOf = [&](int64_t dword) -> int64_t {
    if (powersOfTwo)
      return dword & (ldsBanks - 1);
    int64_t bank = dword % ldsBanks;
    return bank < 0 ? bank + ldsBanks : bank;
  };
  llvm::SmallVector<int64_t, 256> dwords;
  llvm::SmallVector<unsigned, 64> perBank(ldsBanks);
  int64_t cycles = 0;
  auto servePhase = [&] {
    std::sort(dwords.begin(), dwords.end());
    dwords.erase(std::unique(dwords.begin(), dwords.end()), dwords.end());
    std::fill(perBank.begin(), perBank.end(), 0u);
    unsigned worst = 0;
    for (int64_t dword : dwords)
      worst = std::max(worst, ++perBank[bankOf(dword)]);
    if (worst > 1)
      cycles += worst - 1;
    dwords.clear();
  };
  int64_t phase = -1;
  for (const LdsLaneAccess &access : accesses) {
    int64_t accessPhase = access.lane / lanesPerPhase;
    if (accessPhase != phase && !dwords.empty())
      servePhase();
    phase = accessPhase;
    int64_t first = dwordOf(access.byteAddress);
    int64_t last = dwordOf(access.byteAddress + access.bytes - 1);
    for (int64_t dword = first; dword <= last; ++dword)
      dwords.push_back(dword);
  }
  if (!dwords.empty())
    servePhase();
  return cycles;
}

int64_t ChipInfo::getLdsReadB128LaneOrder(int64_t lane) {
  // Group g (of 8 lanes) holds 4 lanes of quad a and 4 of quad b.
  static const int kGroupQuads[8][2] = {{0, 5}, {1, 4}, {2, 7}, {3, 6},
                                        {8, 13}, {9, 12}, {10, 15}, {11, 14}};
  int64_t quad = lane / 4 % 16, rest = lane % 4, wave = lane / 64;
  for (int g = 0; g < 8; ++g)
    for (int half = 0; half < 2; ++half)
      if (kGroupQuads[g][half] == quad)
        return wave * 64 + g * 8 + half * 4 + rest;
  return lane;
}

int ChipInfo::getAllocatedRegisters(int vgprs, int agprs) const {
  auto alignTo = [](int v, int a) { return (v + a - 1) / a * a; };
  return alignTo(alignTo(std::max(vgprs, 1), 4) + agprs, registerGranule);
}

ChipInfo::Residency ChipInfo::getResidency(int registers,
                                           int64_t ldsBytesPerWorkgroup,
                                           int wavesPerWorkgroup) const {
  wavesPerWorkgroup = std::max(wavesPerWorkgroup, 1);
  int wavesPerSimdPerWorkgroup =
      (wavesPerWorkgroup + simdsPerCU - 1) / simdsPerCU;
  int byRegisters =
      std::min(maxWavesPerSimd,
               registersPerSimdLane / std::max(registers, registerGranule)) /
      wavesPerSimdPerWorkgroup;
  int byWaves = maxWavesPerSimd * simdsPerCU / wavesPerWorkgroup;
  int byLds = ldsBytesPerWorkgroup > 0
                  ? int(ldsBytesPerCU / ldsBytesPerWorkgroup)
                  : byWaves;
  Residency r;
  r.workgroupsPerCU = std::min({byRegisters, byLds, byWaves});
  r.limit = r.workgroupsPerCU == byRegisters ? "registers"
            : r.workgroupsPerCU == byLds     ? "LDS"
                                             : "waves per CU";
  r.wavesPerSimd = std::min(maxWavesPerSimd,
                            r.workgroupsPerCU * wavesPerSimdPerWorkgroup);
  return r;
}

int ChipInfo::getOccupancy(int vgprs, int agprs, int64_t ldsBytesPerWorkgroup,
                           int wavesPerWorkgroup) const {
  return getResidency(getAllocatedRegisters(vgprs, agprs),
                      ldsBytesPerWorkgroup, wavesPerWorkgroup)
      .wavesPerSimd;
}

const ChipInfo *mlir::qmm::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

llvm::ArrayRef<ChipInfo> mlir::qmm::getSupportedChips() { return kChips; }

/// "a, b or c".
template <typename T>
static std::string joinNames(llvm::ArrayRef<T> items) {
  std::string names;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i)
      names += i + 1 == items.size() ? " or " : ", ";
    names += items[i].name.str();
  }
  return names;
}

std::string mlir::qmm::getSupportedChipNames() {
  return joinNames(getSupportedChips());
}

std::string mlir::qmm::getSupportedDeviceNames() {
  return joinNames(getSupportedDevices());
}
