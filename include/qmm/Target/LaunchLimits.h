//===- LaunchLimits.h - kernel launches a chip takes ------------*- C++ -*-===//
//
// The checks of a launch's extents against the chip's launch limits
// (ChipInfo::maxThreadsPerWorkgroup and friends), as HIP makes them: the
// emulator, fp8-run --module and the embedding API's compile() share them.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TARGET_LAUNCHLIMITS_H
#define QMM_TARGET_LAUNCHLIMITS_H

#include "qmm/Target/Chip.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>

namespace mlir {
namespace qmm {

/// Checks workgroup extents against the chip's limits; the message says
/// what is wrong ("at most 1024 threads per workgroup, got 2048").
llvm::Error verifyBlockExtents(const ChipInfo &chip,
                               const std::array<int64_t, 3> &block);

/// Checks grid extents (positive, gridDim * blockDim within the chip's
/// limit per dimension) for valid workgroup extents.
llvm::Error verifyGridExtents(const ChipInfo &chip,
                              const std::array<int64_t, 3> &grid,
                              const std::array<int64_t, 3> &block);

} // namespace qmm
} // namespace mlir

#endif
