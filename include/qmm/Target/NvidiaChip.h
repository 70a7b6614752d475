//===- NvidiaChip.h - the target description of NVIDIA GPUs ------*- C++ -*-===//
//
// The NVIDIA half of the target description: the facts the NVVM pipeline
// and the launch plans read about Hopper (sm_90a). Sources: the PTX ISA and
// the CUDA programming guide's limits for compute capability 9.0.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TARGET_NVIDIACHIP_H
#define QMM_TARGET_NVIDIACHIP_H

#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.h"

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
  /// The PTX ISA version the kernels declare, as an NVPTX feature: 8.3,
  /// the first with the tensor-map acquire fence (the wgmma kernels read
  /// tensor maps the host copied into global memory).
  llvm::StringRef ptxFeatures;
  /// The FP8 encoding the tensor cores read (wgmma .e4m3 / .e5m2).
  FormatFamily nativeFP8;
  /// Launch limits (CUDA's, compute capability 9.0): threads per block and
  /// the grid's extents.
  int64_t maxThreadsPerBlock;
  std::array<int64_t, 3> maxGridExtents;
  /// Blocks of a thread-block cluster that any launch may ask for (the
  /// portable size; more needs an opt-in attribute).
  int64_t maxPortableClusterBlocks;
  /// Multiprocessors of the product (H100 SXM: 132); persistent kernels
  /// launch one block per multiprocessor.
  int64_t multiprocessors;
  /// Registers: per multiprocessor, and the range setmaxnreg accepts per
  /// thread (multiples of 8).
  int64_t registersPerMultiprocessor, minRegistersPerThread,
      maxRegistersPerThread;
  /// Shared memory one block may use (dynamic, after the opt-in through
  /// cuFuncSetAttribute), in bytes.
  int64_t maxSharedBytesPerBlock;

  /// The chip's generation (a MatrixISA bit): its matrix instructions are
  /// the rows of the intrinsic table (QMMIntrinsics.def) that name it.
  unsigned isa;
  /// Bits FP8 wgmma keeps while it sums products into its accumulator
  /// (about 14: DeepSeek-V3 technical report, section 3.3.2, measured on
  /// H800; measured here too: f32 results of K = 4096 at 78 dB SQNR against
  /// the exact sum, below f32 accumulation's 80 dB). Kernels therefore add
  /// wgmma's partial sums into f32 registers every K tile, and the exact
  /// tier bounds each tile's sum with this precision.
  int64_t wgmmaFP8AccumulatorBits;
  /// The widest swizzle TMA writes and wgmma descriptors read: rows of this
  /// many bytes, permuted in 16-byte chunks within atoms of 8 rows.
  int64_t swizzleBytes;
  /// TMA (cp.async.bulk.tensor): box extents are at most this many elements
  /// per dimension; global addresses and strides are multiples of
  /// `tmaGlobalAlignment` bytes.
  int64_t tmaMaxBoxExtent, tmaGlobalAlignment;

  /// The K of one wgmma kernel tile: one swizzled row of FP8 elements. The
  /// kernels promote wgmma's sums to f32 once per tile.
  int64_t getWgmmaKTile() const { return swizzleBytes; }
  /// The warpgroup MMA the kernels issue on FP8 operands (the intrinsic
  /// table's row for this generation).
  const WgmmaIntrinsicInfo &getWgmma() const {
    return *lookupWgmmaIntrinsic(isa);
  }
};

/// sm_90a; null for anything else.
const NvidiaChipInfo *lookupNvidiaChip(llvm::StringRef name);
llvm::ArrayRef<NvidiaChipInfo> getSupportedNvidiaChips();
/// "sm_90a", for diagnostics.
std::string getSupportedNvidiaChipNames();

} // namespace qmm
} // namespace mlir

#endif
