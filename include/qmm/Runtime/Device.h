//===- Device.h - where fp8-run executes a GEMM -----------------*- C++ -*-===//
//
// A device compiles a GEMM module for itself and runs it on host buffers.
// Which function, which arguments in which order, and the output's shape are
// fixed by GemmSpec, which every device shares.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_DEVICE_H
#define QMM_RUNTIME_DEVICE_H

#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostTensor.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace mlir {
namespace qmm {

struct RunResult {
  host::HostTensor output;
  double secondsPerIteration = 0;
  int iterations = 0;
};

class Device {
public:
  virtual ~Device();
  virtual llvm::StringRef getName() const = 0;
  /// Compiles `module` (not modified) and runs `spec`'s function on `args`
  /// (a, a_scales, b, b_scales, init); with `iterations` > 0, times that many
  /// runs after one warm-up run. Inputs are never modified.
  virtual llvm::Expected<RunResult>
  run(ModuleOp module, const GemmSpec &spec,
      llvm::ArrayRef<const host::HostTensor *> args, int iterations) = 0;
};

/// The reference lowering JIT-compiled for the host CPU.
std::unique_ptr<Device> createCPUDevice();

/// `cpu`, `emu`, `hip` or `auto`; an error names what is not available.
llvm::Expected<std::unique_ptr<Device>> createDevice(llvm::StringRef name,
                                                     llvm::StringRef chip);

} // namespace qmm
} // namespace mlir

#endif
