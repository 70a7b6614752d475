//===- NvidiaChip.cpp - the target description of NVIDIA GPUs -------------===//
//
// Sources: PTX ISA 8.0 (wgmma.mma_async shapes and operand layouts), the
// CUDA C programming guide's compute capability 9.0 limits, the H100 SXM
// product sheet (132 SMs, 1979 dense FP8 TFLOP/s, 3.35 TB/s).
//
//===----------------------------------------------------------------------===//

#include "qmm/Target/NvidiaChip.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::qmm;

static const NvidiaChipInfo kNvidiaChips[] = {
    {"sm_90a", "H100 (Hopper)", "+ptx80", /*computeCapability=*/9, 0, FormatFamily::OCP,
     /*warpSize=*/32, /*warpsPerWarpgroup=*/4,
     /*sharedBytesPerBlockOptIn=*/227 * 1024,
     /*sharedBytesPerBlockDefault=*/48 * 1024, /*maxThreadsPerBlock=*/1024,
     /*maxGridExtents=*/{(int64_t(1) << 31) - 1, 65535, 65535},
     /*wgmmaM=*/64, /*wgmmaKFP8=*/32, /*wgmmaNStep=*/8, /*wgmmaNMax=*/256},
};

static const NvidiaDeviceInfo kNvidiaDevices[] = {
    {"h100-sxm", "NVIDIA H100 SXM5 80GB", "sm_90a", /*multiprocessors=*/132,
     /*peakDenseFP8Tflops=*/1979, /*hbmPeakTBps=*/3.35},
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

const NvidiaDeviceInfo *
mlir::qmm::getDefaultNvidiaDevice(const NvidiaChipInfo &chip) {
  for (const NvidiaDeviceInfo &device : kNvidiaDevices)
    if (device.chip == chip.name)
      return &device;
  return nullptr;
}
