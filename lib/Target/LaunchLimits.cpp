//===- LaunchLimits.cpp - kernel launches a chip takes --------------------===//

#include "qmm/Target/LaunchLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>

using namespace mlir::qmm;

llvm::Error mlir::qmm::verifyBlockExtents(const ChipInfo &chip,
                                          const std::array<int64_t, 3> &block) {
  std::string extents =
      llvm::formatv("{0},{1},{2}", block[0], block[1], block[2]);
  if (llvm::any_of(block, [](int64_t extent) { return extent <= 0; }))
    return llvm::createStringError("extents must be positive, got " + extents);
  std::optional<int64_t> threads = llvm::checkedMul(block[0], block[1]);
  if (threads)
    threads = llvm::checkedMul(*threads, block[2]);
  if (!threads || *threads > chip.maxThreadsPerWorkgroup)
    return llvm::createStringError(
        "at most " + std::to_string(chip.maxThreadsPerWorkgroup) +
        " threads per workgroup, got " +
        (threads ? std::to_string(*threads) : extents));
  for (unsigned d = 0; d < 3; ++d)
    if (block[d] > chip.maxWorkgroupExtents[d])
      return llvm::createStringError(llvm::formatv(
          "extent {0} = {1} is above {2}'s limit of {3}", "xyz"[d], block[d],
          chip.name, chip.maxWorkgroupExtents[d]));
  return llvm::Error::success();
}

llvm::Error mlir::qmm::verifyGridExtents(const ChipInfo &chip,
                                         const std::array<int64_t, 3> &grid,
                                         const std::array<int64_t, 3> &block) {
  for (unsigned d = 0; d < 3; ++d) {
    if (grid[d] <= 0)
      return llvm::createStringError(
          llvm::formatv("extents must be positive, got {0},{1},{2}", grid[0],
                        grid[1], grid[2]));
    std::optional<int64_t> workItems = llvm::checkedMul(grid[d], block[d]);
    if (!workItems || *workItems > chip.maxGridWorkItemsPerDimension)
      return llvm::createStringError(llvm::formatv(
          "{0}: {1} workgroups of {2} threads exceed the {3} work-items a "
          "grid dimension holds",
          "xyz"[d], grid[d], block[d], chip.maxGridWorkItemsPerDimension));
  }
  return llvm::Error::success();
}
