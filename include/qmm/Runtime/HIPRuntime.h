//===- HIPRuntime.h - the HIP runtime, loaded at run time -------*- C++ -*-===//
//
// fp8-run's hip device. libamdhip64 is opened with dlopen, so building the
// project needs no ROCm; without the library or a GPU of the requested chip
// every entry point returns one clear error.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_HIPRUNTIME_H
#define QMM_RUNTIME_HIPRUNTIME_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace mlir {
namespace qmm {

class HIPRuntime {
public:
  /// Opens $QMM_HIP_LIBRARY, else libamdhip64.so(.6, .5).
  static llvm::Expected<std::unique_ptr<HIPRuntime>> load();
  ~HIPRuntime();

  /// The first device whose architecture is `chip` (gfx942, gfx950).
  llvm::Expected<int> findDevice(llvm::StringRef chip);

  /// A kernel argument: a device copy of `buffer` (copied back after the
  /// launch), or the `bytes` low bytes of `scalar`.
  struct Argument {
    std::vector<uint8_t> *buffer = nullptr;
    uint64_t scalar = 0;
    unsigned bytes = 8;
  };

  /// Loads `codeObject`, runs `kernel` once to warm up and `iterations`
  /// times timed with HIP events, copies the buffers back. Returns the mean
  /// milliseconds per timed run (0 with no timed runs).
  llvm::Expected<double> launch(int device, llvm::StringRef codeObject,
                                llvm::StringRef kernel,
                                std::array<int64_t, 3> grid,
                                std::array<int64_t, 3> block,
                                llvm::ArrayRef<Argument> args, int iterations);

private:
  HIPRuntime() = default;
  struct Symbols;
  void *handle = nullptr;
  std::unique_ptr<Symbols> symbols;
};

} // namespace qmm
} // namespace mlir

#endif
