//===- Timing.h - GPU time of a launch plan ---------------------*- C++ -*-===//
//
// Three ways to time runs of a plan, each a sample of elapsed time between
// two events on one stream divided by the runs between them:
//  - per run: event, one run, event. Includes the launch latency of each
//    run (a few microseconds, most of a small GEMM's time).
//  - back to back: N runs between two events. The CPU issues the launches
//    faster than the GPU runs them, so the GPU time of N runs is measured,
//    as long as the launch rate keeps up.
//  - CUDA graph: N runs captured once in a graph and replayed between two
//    events: no CPU in the loop at all. The method peers are timed with
//    (torch.cuda.CUDAGraph around N calls), hence the one to compare.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_TIMING_H
#define QMM_CUDA_RUN_TIMING_H

#include "CudaDriver.h"

#include <functional>
#include <vector>

namespace qmmcuda {

enum class TimingMethod { PerRun, BackToBack, Graph };

/// "per-run", "back-to-back" or "graph".
const char *getTimingMethodName(TimingMethod method);

/// The samples of one method.
struct TimingResult {
  TimingMethod method = TimingMethod::PerRun;
  /// Runs of the plan between the two events of a sample.
  unsigned long long runsPerSample = 1;
  /// One per sample: its elapsed time divided by runsPerSample.
  std::vector<double> msPerRun;
  double medianMs = 0, minMs = 0;
};

/// One run of the plan, launched on the given stream.
using PlanLauncher = std::function<Status(CUstream)>;

/// Times `runPlan` by `method` on a stream of its own: `warmup` runs first,
/// then per run `iters` samples of 1 run; back to back and as a graph
/// `rounds` samples of `iters` runs. The driver's graph entry points must
/// be open (CudaDriver::openGraphs).
Status timePlan(const CudaDriver &driver, const PlanLauncher &runPlan,
                TimingMethod method, unsigned long long iters,
                unsigned rounds, unsigned warmup, TimingResult &result);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_TIMING_H
