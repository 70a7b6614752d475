//===- GemmLimits.h - the sizes of GEMM the host side takes -----*- C++ -*-===//
//
// The host side's limits on a GEMM whose operands it generates or
// allocates (fp8-run --gemm, the Python API's Gemm calls): extents that fit
// in an i32 and at most 2^32 elements in A, B and D, so that a larger
// problem is refused up front instead of exhausting memory (f64 references
// and the operands of 2^32 elements are already tens of GiB).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_GEMMLIMITS_H
#define QMM_RUNTIME_GEMMLIMITS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <tuple>

namespace mlir {
namespace qmm {

constexpr int64_t kMaxGemmExtent = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxGemmMatrixElements = int64_t(1) << 32;

/// Checks extents `m` x `n` x `k` (not negative) against those limits; the
/// message says which is over ("A would have 8589934592 elements, ...").
inline llvm::Error checkGemmSizeLimits(int64_t m, int64_t n, int64_t k) {
  if (m > kMaxGemmExtent || n > kMaxGemmExtent || k > kMaxGemmExtent)
    return llvm::createStringError(
        "extents are limited to " + llvm::Twine(kMaxGemmExtent) + ", got " +
        llvm::Twine(m) + "x" + llvm::Twine(n) + "x" + llvm::Twine(k));
  // A product of two extents below 2^31 fits in an int64_t.
  for (auto [rows, cols, name] :
       {std::tuple(m, k, "A"), std::tuple(n, k, "B"), std::tuple(m, n, "D")})
    if (rows * cols > kMaxGemmMatrixElements)
      return llvm::createStringError(
          llvm::Twine(name) + " would have " + llvm::Twine(rows * cols) +
          " elements, over the runner's limit of 2^32");
  return llvm::Error::success();
}

} // namespace qmm
} // namespace mlir

#endif
