//===- NvidiaChip.cpp - the target description of NVIDIA GPUs -------------===//
//
// Sources: PTX ISA 8.0 (sm_90a: wgmma.mma_async shapes and .e4m3 / .e5m2
// operands, matrix descriptors and their swizzle modes, cp.async.bulk.tensor),
// the CUDA C programming guide's compute capability 9.0 limits (227 KiB of
// shared memory per block, 64 Ki registers per multiprocessor, clusters of
// up to 8 blocks portably), the H100
// SXM5 datasheet (132 multiprocessors), PTX's setmaxnreg (24 to 256) and the driver API's cuTensorMapEncodeTiled
// requirements (box extents <= 256, 16-byte aligned addresses and strides).
//
//===----------------------------------------------------------------------===//

#include "qmm/Target/NvidiaChip.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::qmm;

static const NvidiaChipInfo kNvidiaChips[] = {
    {"sm_90a", "H100 (Hopper)", "+ptx83", FormatFamily::OCP,
     /*maxThreadsPerBlock=*/1024,
     /*maxGridExtents=*/{(int64_t(1) << 31) - 1, 65535, 65535},
     /*maxPortableClusterBlocks=*/8,
     /*multiprocessors=*/132, /*registersPerMultiprocessor=*/65536,
     /*minRegistersPerThread=*/24, /*maxRegistersPerThread=*/256,
     /*maxSharedBytesPerBlock=*/227 * 1024,
     /*isa=*/HOPPER, /*wgmmaFP8AccumulatorBits=*/14,
     /*swizzleBytes=*/128, /*tmaMaxBoxExtent=*/256,
     /*tmaGlobalAlignment=*/16},
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
