//===- Chip.cpp - the target description of the supported GPUs ------------===//
//
// Sources: AMD CDNA3 and CDNA4 ISA guides and product pages (see
// ../shared/domain.md).
//
//===----------------------------------------------------------------------===//

#include "qmm/Target/Chip.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace mlir::qmm;

static const MFMAShape kGfx942MFMA[] = {
    {MFMAKind::FP8, 16, 16, 32, 16},
    {MFMAKind::FP8, 32, 32, 16, 32},
};

static const MFMAShape kGfx950MFMA[] = {
    {MFMAKind::FP8, 16, 16, 32, 16},
    {MFMAKind::FP8, 32, 32, 16, 32},
    // Both operands FP6/FP4: twice the FP8 rate.
    {MFMAKind::F8F6F4, 16, 16, 128, 32, /*narrowCycles=*/16},
    {MFMAKind::F8F6F4, 32, 32, 64, 64, /*narrowCycles=*/32},
    {MFMAKind::ScaledF8F6F4, 16, 16, 128, 32, /*narrowCycles=*/16},
    {MFMAKind::ScaledF8F6F4, 32, 32, 64, 64, /*narrowCycles=*/32},
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

// Sustained clocks, latencies and measured bandwidths are parameters of the
// performance model (qmm/PerfModel), not product facts.
static const DeviceInfo kDevices[] = {
    {"mi300x", "AMD Instinct MI300X", "gfx942", /*computeUnits=*/304,
     /*xcds=*/8, /*peakClockGHz=*/2.1, /*l2BytesPerXcd=*/4 << 20,
     /*infinityCacheBytes=*/int64_t(256) << 20, /*hbmPeakTBps=*/5.3},
    {"mi325x", "AMD Instinct MI325X", "gfx942", 304, 8, 2.1, 4 << 20,
     int64_t(256) << 20, 6.0},
    {"mi355x", "AMD Instinct MI355X", "gfx950", 256, 8, 2.4, 4 << 20,
     int64_t(256) << 20, 8.0},
};

std::optional<MFMAMnemonic> mlir::qmm::parseMFMAMnemonic(
    llvm::StringRef mnemonic) {
  MFMAMnemonic result;
  llvm::StringRef rest = mnemonic;
  bool scaled = rest.consume_front("v_mfma_scale_f32_");
  if (!scaled && !rest.consume_front("v_mfma_f32_"))
    return std::nullopt;
  auto [shape, types] = rest.split('_');
  llvm::SmallVector<llvm::StringRef, 3> extents;
  shape.split(extents, 'x');
  if (extents.size() != 3 || extents[0].getAsInteger(10, result.m) ||
      extents[1].getAsInteger(10, result.n) ||
      extents[2].getAsInteger(10, result.k))
    return std::nullopt;
  if (types == "f8f6f4")
    result.kind = scaled ? MFMAKind::ScaledF8F6F4 : MFMAKind::F8F6F4;
  else if (!scaled && (types == "fp8_fp8" || types == "fp8_bf8" ||
                       types == "bf8_fp8" || types == "bf8_bf8"))
    result.kind = MFMAKind::FP8;
  else if (!scaled && types == "bf16")
    result.kind = MFMAKind::BF16;
  else
    return std::nullopt;
  return result;
}

int64_t ChipInfo::getPeakFlopsPerClock(int aBits, int bBits) const {
  int64_t best = 0;
  for (const MFMAShape &shape : mfmaShapes) {
    // What each family reads natively: 8-bit FP8, FP8/FP6/FP4, bf16.
    bool reads = shape.kind == MFMAKind::BF16  ? aBits == 16 && bBits == 16
                 : shape.kind == MFMAKind::FP8 ? aBits == 8 && bBits == 8
                                               : aBits <= 8 && bBits <= 8;
    if (!reads)
      continue;
    int cycles = shape.cycles;
    if (shape.narrowCycles && aBits <= 6 && bBits <= 6)
      cycles = shape.narrowCycles;
    best = std::max(best, simdsPerCU * shape.getFlops() / cycles);
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

const MFMAShape *ChipInfo::findMFMA(MFMAKind kind, int m, int n, int k) const {
  for (const MFMAShape &shape : mfmaShapes)
    if (shape.kind == kind && shape.m == m && shape.n == n && shape.k == k)
      return &shape;
  return nullptr;
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
