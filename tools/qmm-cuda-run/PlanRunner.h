//===- PlanRunner.h - a launch plan on the GPU ------------------*- C++ -*-===//
//
// The GPU side of a run: the driver, the device, and what the plan puts on
// it (modules, buffers, tensor maps, each launch's parameters). It runs the
// plan's launches on a given stream; the checks (Report.h) and the timing
// (Timing.h) are built on that.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_PLANRUNNER_H
#define QMM_CUDA_RUN_PLANRUNNER_H

#include "CudaDriver.h"
#include "Plan.h"
#include "Report.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace qmmcuda {

struct RunnerOptions {
  int device = 0;
  uint64_t seed = 1;        ///< of the random fills
  unsigned long long runs = 1; ///< runs of the plan before the checks
  /// Copies of the plan's buffers and tensor maps the timed runs cycle
  /// through (--rotate): more bytes than the L2 cache holds, as a model's
  /// layers read their weights.
  unsigned copies = 1;
};

/// What one copy of the plan puts on the device: its buffers, its tensor
/// maps, and each launch's parameters over them.
struct PlanCopy {
  std::vector<CUdeviceptr> buffers;
  /// One allocation for all tensor maps, 128 bytes each (cuMemAlloc's
  /// 256-byte alignment keeps each at the 64 bytes TMA needs).
  CUdeviceptr tensorMapBlock = 0;
  /// The encoded tensor maps, what a 128-byte parameter receives.
  std::vector<CUtensorMap> hostTensorMaps;
  /// Per launch: 8 bytes of storage per argument and the pointers to them
  /// or to a tensor map's bytes (cuLaunchKernel reads each parameter's
  /// size from the kernel).
  std::vector<std::vector<uint64_t>> argStorage;
  std::vector<std::vector<void *>> argPointers;
};

class PlanRunner {
public:
  PlanRunner(const Plan &plan, const RunnerOptions &options, RunReport &report)
      : plan(plan), options(options), report(report) {}
  ~PlanRunner();

  /// Opens the driver and the device; prints the device line.
  Status openDevice();
  /// Loads the modules, makes the buffers and the launches' parameters;
  /// with options.copies > 1, the further copies (device copies of the
  /// first's filled buffers).
  Status prepare();
  /// Writes every input buffer (a file's or a random fill, as the device
  /// holds it before any launch) to DIR/buffer<I>.bin, for other libraries
  /// to be run on the same bytes.
  Status saveInputs(const std::string &dir);
  /// Writes every output buffer (a zero or poison fill, as the last run
  /// left it) to DIR/buffer<I>.bin, for other tools to judge.
  Status saveOutputs(const std::string &dir);
  /// --runs N runs of the plan with a synchronization after every launch,
  /// so a failing launch is named; the checked outputs and poisoned
  /// buffers restored between runs.
  Status runChecked();
  /// Evaluates and prints every check.
  Status validate();
  /// One run of the plan on copy `copy`: every launch in order on
  /// `stream` (null: the legacy default stream), optionally synchronizing
  /// after each. The checks and saved buffers read copy 0.
  Status launchAll(CUstream stream, bool synchronizeEach, unsigned copy = 0);
  unsigned getCopies() const { return unsigned(copies.size()); }

  CudaDriver &getDriver() { return driver; }

private:
  Status call(CUresult result, const std::string &what) const {
    return driver.check(result, what);
  }
  /// Writes the buffers `selected` picks to DIR/buffer<I>.bin.
  Status saveBuffers(const std::string &dir, const char *option,
                     bool (*selected)(Fill fill));
  /// Gives buffer `index` its fill (the file, zeros, poison or random).
  Status fillBuffer(size_t index, std::mt19937_64 &random);
  /// Launches plan.launches[index] on `stream`, with cuLaunchKernelEx where
  /// it has a cluster shape, else cuLaunchKernel.
  Status launchOne(size_t index, CUstream stream, PlanCopy &copy);
  /// Encodes every tensor map over its buffer in `copy` (already
  /// allocated), keeps it for the kernels that take it by value and copies
  /// it to the device for those that take its address.
  Status prepareTensorMaps(PlanCopy &copy);
  /// Each launch's parameters over `copy`'s buffers and tensor maps.
  void prepareArguments(PlanCopy &copy) const;
  /// Copy 0's buffers.
  std::vector<CUdeviceptr> &buffers() { return copies.front().buffers; }

  const Plan &plan;
  const RunnerOptions &options;
  RunReport &report;
  CudaDriver driver;
  bool haveContext = false;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;
  /// Copy 0 is the plan's; the others exist for timing (--rotate).
  std::vector<PlanCopy> copies;
};

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_PLANRUNNER_H
