//===- Device.h - where fp8-run executes a GEMM -----------------*- C++ -*-===//
//
// A device compiles a module for itself and calls one of its functions on
// host buffers. Which function, which arguments in which order and which
// results come back are fixed by the caller (GemmSpec for GEMMs), the same
// for every device.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_DEVICE_H
#define QMM_RUNTIME_DEVICE_H

#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostTensor.h"
#include "qmm/Target/Chip.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>

namespace mlir {
namespace qmm {

/// Element type and shape of one function result.
struct TensorSpec {
  ElementType elementType;
  std::vector<int64_t> shape;
};

struct RunResult {
  std::vector<host::HostTensor> results;
  double secondsPerIteration = 0;
  int iterations = 0;
};

/// A module compiled once by a device, called many times: with a dynamic
/// M, on arguments of any M (the result specs say each call's shapes).
class CompiledProgram {
public:
  virtual ~CompiledProgram();
  /// Calls the function on `args`, as Device::run does.
  virtual llvm::Expected<RunResult>
  run(llvm::ArrayRef<const host::HostTensor *> args,
      llvm::ArrayRef<TensorSpec> results, int iterations) = 0;
};

class Device {
public:
  virtual ~Device();
  virtual llvm::StringRef getName() const = 0;
  /// Compiles `module` (not modified) for calls of `function` with
  /// `numArguments` arguments and `numResults` results. The default
  /// compiles again at every call, through run (the cpu device); emu and
  /// hip compile here, once. A device overrides compile, run or both.
  virtual llvm::Expected<std::unique_ptr<CompiledProgram>>
  compile(ModuleOp module, llvm::StringRef function, size_t numArguments,
          size_t numResults);
  /// Compiles `module` (not modified) and calls `function` on `args` (rank-2
  /// tensors), returning rank-2 `results`; with `iterations` > 0, times that
  /// many calls after one warm-up call. Inputs are never modified.
  /// The default: compile, then one call.
  virtual llvm::Expected<RunResult>
  run(ModuleOp module, llvm::StringRef function,
      llvm::ArrayRef<const host::HostTensor *> args,
      llvm::ArrayRef<TensorSpec> results, int iterations);
};

/// The reference lowering JIT-compiled for the host CPU.
std::unique_ptr<Device> createCPUDevice();

/// A program a GPU device cannot run because the AMD pipeline does not
/// compile it (yet): the `auto` device then runs it on the CPU.
class NotCompiledForGPUError : public llvm::ErrorInfo<NotCompiledForGPUError> {
public:
  static char ID;
  explicit NotCompiledForGPUError(std::string message)
      : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  const std::string &getMessage() const { return message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string message;
};

/// The AMD pipeline's kernels run on the lane-accurate emulator.
/// `config`, when not empty, is the #qmm.config<...> forced on every matmul.
std::unique_ptr<Device> createEmulatorDevice(const ChipInfo &chip,
                                             llvm::StringRef config = "");

/// The AMD pipeline's kernels as code objects on the first GPU of `chip`
/// (through the HIP runtime, opened at run time).
llvm::Expected<std::unique_ptr<Device>>
createHIPDevice(const ChipInfo &chip, llvm::StringRef config = "");

/// `auto`: hip when a GPU of the chip is present, else emu; programs the AMD
/// pipeline does not compile yet run on the cpu device (with a note).
llvm::Expected<std::unique_ptr<Device>>
createAutoDevice(const ChipInfo &chip, llvm::StringRef config = "");

/// Where a program runs.
enum class DeviceKind { CPU, Emulator, HIP, Auto };

/// The spellings of the command line and the Python API: `cpu`, `emu`,
/// `hip`, `auto`.
llvm::StringRef getDeviceKindName(DeviceKind kind);
std::optional<DeviceKind> parseDeviceKind(llvm::StringRef name);

/// An error names what is not available.
llvm::Expected<std::unique_ptr<Device>>
createDevice(DeviceKind kind, const ChipInfo &chip,
             llvm::StringRef config = "");

/// createDevice by names (the Python API); an unknown name is an error.
llvm::Expected<std::unique_ptr<Device>>
createDevice(llvm::StringRef name, llvm::StringRef chip,
             llvm::StringRef config = "");

} // namespace qmm
} // namespace mlir

#endif
