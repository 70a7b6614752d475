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

#include <array>
#include <cstdint>
#include <string>

namespace mlir {
namespace qmm {

/// The matrix-core instruction families the compiler targets.
enum class MFMAKind {
  FP8,          ///< v_mfma_f32_*_{fp8,bf8}_{fp8,bf8}: 8 FP8 values per lane
  F8F6F4,       ///< v_mfma_f32_*_f8f6f4: 32 FP8/FP6/FP4 values per lane
  ScaledF8F6F4, ///< v_mfma_scale_f32_*_f8f6f4: the same with E8M0 scales
  BF16,         ///< v_mfma_f32_*_bf16: 8 bf16 values per lane
};

struct MFMAShape {
  MFMAKind kind;
  int m, n, k;
  /// Issue cycles (CDNA3/CDNA4 ISA guides; the f8f6f4 forms take the
  /// larger value when an operand is FP8).
  int cycles;
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
  /// v_mfma_scale_f32_*_f8f6f4 (MX with E8M0 scales) and FP4/FP6 inputs.
  bool hasScaledMFMA;
  /// The MFMA shapes the chip executes.
  llvm::ArrayRef<MFMAShape> mfmaShapes;
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

  const MFMAShape *findMFMA(MFMAKind kind, int m, int n, int k) const;

  /// Waves per SIMD a kernel reaches, limited by its registers (`vgprs` +
  /// `agprs` per lane) and by the LDS of its workgroups.
  int getOccupancy(int vgprs, int agprs, int64_t ldsBytesPerWorkgroup,
                   int wavesPerWorkgroup) const;
};

/// gfx942 or gfx950; null for anything else.
const ChipInfo *lookupChip(llvm::StringRef name);

/// Every supported chip, for diagnostics and --help.
llvm::ArrayRef<ChipInfo> getSupportedChips();

/// "gfx942 or gfx950", for diagnostics.
std::string getSupportedChipNames();

} // namespace qmm
} // namespace mlir

#endif
