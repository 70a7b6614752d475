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

struct LaunchRequest {
  std::string modulePath;
  std::string kernelName;
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

} // namespace qmm
} // namespace mlir

#endif
