//===- NvidiaChip.h - the target description of NVIDIA GPUs ------*- C++ -*-===//
//
// The NVIDIA half of the target description: the facts the NVVM pipeline
// and the launch plans read about Hopper (sm_90a). Sources: the PTX ISA and
// the CUDA programming guide's limits for compute capability 9.0. (The
// wgmma, TMA and shared-memory facts join when the main loop that reads
// them does.)
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
  /// The FP8 encoding the tensor cores read (wgmma .e4m3 / .e5m2).
  FormatFamily nativeFP8;
  /// Launch limits (CUDA's, compute capability 9.0): threads per block and
  /// the grid's extents.
  int64_t maxThreadsPerBlock;
  std::array<int64_t, 3> maxGridExtents;
};

/// sm_90a; null for anything else.
const NvidiaChipInfo *lookupNvidiaChip(llvm::StringRef name);
llvm::ArrayRef<NvidiaChipInfo> getSupportedNvidiaChips();
/// "sm_90a", for diagnostics.
std::string getSupportedNvidiaChipNames();

} // namespace qmm
} // namespace mlir

#endif
