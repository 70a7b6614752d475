//===- NvidiaChip.h - the target description of NVIDIA GPUs ------*- C++ -*-===//
//
// The NVIDIA half of the target description: the facts the NVVM pipeline,
// fp8-run and the benchmarks read about Hopper (sm_90a). Sources: the PTX
// ISA (wgmma, cp.async.bulk.tensor), the CUDA programming guide's limits
// and the H100 product sheet (../shared/nvidia.md).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TARGET_NVIDIACHIP_H
#define QMM_TARGET_NVIDIACHIP_H

#include "qmm/Dialect/QMM/IR/QMMFormats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>

namespace mlir {
namespace qmm {

struct NvidiaChipInfo {
  llvm::StringRef name;    ///< the PTX target: "sm_90a"
  llvm::StringRef product; ///< "H100 (Hopper)"
  /// The PTX ISA version the kernels declare, as an NVPTX feature.
  llvm::StringRef ptxFeatures;
  int computeCapabilityMajor, computeCapabilityMinor;
  /// The FP8 encoding the tensor cores read (wgmma .e4m3 / .e5m2).
  FormatFamily nativeFP8;
  int warpSize;
  /// Warps that issue one wgmma together (a warpgroup).
  int warpsPerWarpgroup;
  /// Dynamic shared memory one block may opt into (above 48 KiB with
  /// cuFuncSetAttribute), and the default without it.
  int64_t sharedBytesPerBlockOptIn;
  int64_t sharedBytesPerBlockDefault;
  int64_t maxThreadsPerBlock;
  std::array<int64_t, 3> maxGridExtents;
  /// wgmma for 8-bit operands: m64nNk32, N a multiple of 8 up to 256; A
  /// row-major and B "column-major" ([N, K], K contiguous) only.
  int64_t wgmmaM, wgmmaKFP8, wgmmaNStep, wgmmaNMax;
};

/// One product built on an NVIDIA chip (for the benchmark's peak figures).
struct NvidiaDeviceInfo {
  llvm::StringRef name;    ///< "h100-sxm"
  llvm::StringRef product; ///< "NVIDIA H100 SXM5 80GB"
  llvm::StringRef chip;    ///< "sm_90a"
  int multiprocessors;
  double peakDenseFP8Tflops;
  double hbmPeakTBps;
};

/// sm_90a; null for anything else.
const NvidiaChipInfo *lookupNvidiaChip(llvm::StringRef name);
llvm::ArrayRef<NvidiaChipInfo> getSupportedNvidiaChips();
/// "sm_90a", for diagnostics.
std::string getSupportedNvidiaChipNames();
/// The product a chip name stands for (sm_90a: h100-sxm).
const NvidiaDeviceInfo *getDefaultNvidiaDevice(const NvidiaChipInfo &chip);

} // namespace qmm
} // namespace mlir

#endif
