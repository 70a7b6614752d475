//===- Chip.h - the target description of the supported GPUs ----*- C++ -*-===//
//
// The one place chip facts live. Passes, the runner and the emulator read
// them from here; nothing else spells an LDS size or a bank count.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TARGET_CHIP_H
#define QMM_TARGET_CHIP_H

#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace qmm {

// The matrix instructions themselves (shapes, cycles, lane layouts) are
// the rows of the dialect's intrinsic table (QMMIntrinsics.def); a chip
// names its generation and executes the rows of that generation.

/// One lane's part of an LDS instruction (or one thread's chunk of a tile
/// copy): `bytes` bytes from `byteAddress`.
struct LdsLaneAccess {
  int64_t lane;
  int64_t byteAddress;
  int64_t bytes;
};

struct ChipInfo {
  llvm::StringRef name;    ///< LLVM's gfx name: "gfx942"
  llvm::StringRef product; ///< "MI300X (CDNA3)"
  /// The FP8 encoding the matrix cores read natively.
  FormatFamily nativeFP8;
  int waveSize;
  int64_t ldsBytesPerWorkgroup;
  int ldsBanks;
  int ldsBankBytes;
  /// Widest load from global memory straight into LDS per lane
  /// (global_load_lds_dword*: 4 bytes on CDNA3, 16 on CDNA4).
  int ldsDmaBytes;
  /// v_mfma_scale_f32_*_f8f6f4 (MX with E8M0 scales) and FP4/FP6 inputs.
  bool hasScaledMFMA;
  /// The chip's generation (a MatrixISA bit): which rows of the intrinsic
  /// table it executes.
  MatrixISA matrixISA;
  /// Occupancy limits (CDNA3/CDNA4 ISA guides): SIMDs per CU, the unified
  /// VGPR+AGPR file per SIMD lane, its allocation granule, waves per SIMD,
  /// and the LDS one CU shares among its workgroups.
  int simdsPerCU;
  int registersPerSimdLane;
  int registerGranule;
  int maxWavesPerSimd;
  int64_t ldsBytesPerCU;
  /// Launch limits, as HIP checks them (hipDeviceProp_t maxThreadsPerBlock
  /// and maxThreadsDim; the dispatch packet holds the grid in work-items as
  /// a u32 per dimension, so gridDim * blockDim stays below 2^32 in each).
  int64_t maxThreadsPerWorkgroup;
  std::array<int64_t, 3> maxWorkgroupExtents;
  int64_t maxGridWorkItemsPerDimension;

  /// The instruction of this family and shape, when the chip executes it.
  const MMAIntrinsicInfo *findMFMA(MFMAKind kind, int64_t m, int64_t n,
                                   int64_t k) const;
  bool executes(const MMAIntrinsicInfo &info) const {
    return info.isa & matrixISA;
  }
  /// Every instruction of the table the chip executes, in table order.
  llvm::SmallVector<const MMAIntrinsicInfo *> getIntrinsics() const;

  /// The LDS bank model, for the emulator's statistics and the compiler's
  /// layout choices alike: an instruction is served in phases of
  /// banks * bank bytes / (bytes per lane) consecutive lanes; in a phase,
  /// the distinct dwords that fall into one bank are served one per cycle
  /// (lanes reading the same dword share it). Returns the extra cycles over
  /// one per phase. `accesses` are in increasing lane order.
  int64_t countLdsBankConflictCycles(
      llvm::ArrayRef<LdsLaneAccess> accesses) const;
  /// Where lane `lane` of a 128-bit LDS read (ds_read_b128) falls in that
  /// model's lane order: the hardware serves such reads in groups of 8
  /// lanes that are not consecutive (lanes 0-3 with 20-23, 4-7 with 16-19,
  /// 8-11 with 28-31, 12-15 with 24-27, and the same from 32; AMD's
  /// CK-Tile LDS bank-conflict guide for gfx942). A 64-bank LDS serves two
  /// such groups per phase (G0+G1, ...): an assumption, since the gfx950
  /// guide does not list them. Only the performance model uses this so far;
  /// the emulator and the compiler's layout search still take lanes in
  /// order.
  static int64_t getLdsReadB128LaneOrder(int64_t lane);
  /// Lanes one phase of that model serves when each accesses `bytesPerLane`.
  int64_t getLdsLanesPerPhase(int64_t bytesPerLane) const {
    return std::max<int64_t>(1, int64_t(ldsBanks) * ldsBankBytes /
                                    std::max<int64_t>(bytesPerLane,
                                                      ldsBankBytes));
  }

  /// Bytes the LDS of one CU serves per clock (one dword per bank).
  int64_t getLdsBytesPerClock() const { return int64_t(ldsBanks) * ldsBankBytes; }

  /// Dense FLOP per CU per clock of the fastest MFMA reading operands of
  /// `aBits` and `bBits` bits (8, 6, 4; 16 for bf16) natively: every SIMD's
  /// matrix pipe busy. 0 when no MFMA of the chip reads them (gfx942 has
  /// no FP6/FP4 MFMA: kernels convert them to FP8).
  int64_t getPeakFlopsPerClock(int aBits, int bBits) const;

  /// Registers per lane a kernel of `vgprs` and `agprs` allocates: the
  /// AGPRs after the VGPRs (aligned to 4), rounded up to the granule.
  int getAllocatedRegisters(int vgprs, int agprs) const;

  /// What one CU holds of a kernel: whole workgroups (their waves go
  /// round-robin over the SIMDs), as many as the registers (`registers`
  /// allocated per lane), the LDS and the waves per SIMD allow.
  struct Residency {
    int workgroupsPerCU = 0; ///< 0: a workgroup does not fit
    int wavesPerSimd = 0;
    llvm::StringRef limit; ///< "registers", "LDS" or "waves per CU"
  };
  Residency getResidency(int registers, int64_t ldsBytesPerWorkgroup,
                         int wavesPerWorkgroup) const;

  /// Waves per SIMD a kernel reaches (getResidency of its allocation).
  int getOccupancy(int vgprs, int agprs, int64_t ldsBytesPerWorkgroup,
                   int wavesPerWorkgroup) const;
};

/// One product built on a chip: what a performance model needs beyond the
/// chip (product pages and ROCm gpu-arch-specs). Clocks and bandwidths
/// under load are model parameters, not facts: the nominal ones are here,
/// their sources in qmm/PerfModel.
struct DeviceInfo {
  llvm::StringRef name;    ///< "mi300x"
  llvm::StringRef product; ///< "AMD Instinct MI300X"
  llvm::StringRef chip;    ///< "gfx942"
  int computeUnits;
  /// Chiplets (XCDs), each with its own L2; workgroups are dispatched
  /// round-robin over them.
  int xcds;
  double peakClockGHz;
  int64_t l2BytesPerXcd;
  int64_t infinityCacheBytes;
  /// Peak HBM bandwidth of the product sheet (TB/s).
  double hbmPeakTBps;
  /// The performance model's nominal sustained clock under dense MFMA load
  /// and L2-to-CU bandwidth (TB/s): its default parameters, also what the
  /// analytic config cost (qmm/Conversion/AMDGPU/ConfigCost.h) uses.
  double nominalClockGHz;
  double nominalL2TBps;

  const ChipInfo &getChip() const;
  /// Dense peak TFLOP/s at the peak clock for operands of these widths.
  double getPeakTflops(int aBits, int bBits) const;
};

/// mi300x, mi325x or mi355x; null for anything else.
const DeviceInfo *lookupDevice(llvm::StringRef name);
llvm::ArrayRef<DeviceInfo> getSupportedDevices();
/// "mi300x, mi325x or mi355x", for diagnostics.
std::string getSupportedDeviceNames();
/// The product a chip name stands for when no device is named (gfx942:
/// mi300x, gfx950: mi355x).
const DeviceInfo *getDefaultDevice(const ChipInfo &chip);

/// gfx942 or gfx950; null for anything else.
const ChipInfo *lookupChip(llvm::StringRef name);

/// Every supported chip, for diagnostics and --help.
llvm::ArrayRef<ChipInfo> getSupportedChips();

/// "gfx942 or gfx950", for diagnostics.
std::string getSupportedChipNames();

} // namespace qmm
} // namespace mlir

#endif
