//===- LaunchMode.h - fp8-run --module: launch one kernel -------*- C++ -*-===//

#ifndef QMM_TOOLS_FP8RUN_LAUNCHMODE_H
#define QMM_TOOLS_FP8RUN_LAUNCHMODE_H

#include "qmm/Runtime/Device.h"
#include "qmm/Target/Chip.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace mlir {
namespace qmm {

/// Launch mode (--module: one kernel of a GPU-level module) or call mode
/// (an input file with --function: one function of a program, compiled for
/// the device as a whole).
struct LaunchRequest {
  std::string modulePath;
  std::string kernelName;
  /// Call mode: the function called (empty in launch mode).
  std::string functionName;
  /// Call mode: the #qmm.config<...> forced on every matmul.
  std::string config;
  std::string grid = "1,1,1";
  std::string block = "64,1,1";
  std::vector<std::string> args;
  std::string outDir;
  DeviceKind device = DeviceKind::Auto;
  bool stats = false;
  int iterations = 0;
  /// fp8-run's flags: those launch mode does not read are rejected when
  /// given.
  const llvm::cl::OptionCategory *flags = nullptr;
};

/// Runs one kernel of a GPU-level module on `device` (emu; hip later).
/// Returns the exit code: 0 success, 1 kernel error, 2 bad input.
int runLaunchMode(MLIRContext &context, const ChipInfo &chip,
                  const LaunchRequest &request);

/// Calls one function of a program file (tensor arguments from .npy files,
/// results written to DIR/result<N>.npy) on `device`, which compiles the
/// whole program as it would a GEMM's (CallMode.cpp). Returns the exit code:
/// 0 success, 1 the program failed to compile or run, 2 bad input.
int runCallMode(MLIRContext &context, const ChipInfo &chip,
                const LaunchRequest &request);

/// Bad input when a flag of `category` outside `used` was given: the name
/// of the mode goes in the message.
std::optional<std::string>
findUnusedFlag(const llvm::cl::OptionCategory &category,
               llvm::ArrayRef<llvm::StringRef> used, llvm::StringRef mode);

} // namespace qmm
} // namespace mlir

#endif
