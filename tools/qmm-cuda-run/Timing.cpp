//===- Timing.cpp - GPU time of a launch plan -----------------------------===//

#include "Timing.h"

#include <algorithm>

namespace qmmcuda {

const char *getTimingMethodName(TimingMethod method) {
  switch (method) {
  case TimingMethod::PerRun:
    return "per-run";
  case TimingMethod::BackToBack:
    return "back-to-back";
  case TimingMethod::Graph:
    return "graph";
  }
  return "?";
}

namespace {

/// The driver objects of one timing, released however it ends.
class TimingResources {
public:
  explicit TimingResources(const CudaDriver &driver) : driver(driver) {}
  ~TimingResources() {
    if (exec)
      driver.cuGraphExecDestroy(exec);
    if (graph)
      driver.cuGraphDestroy(graph);
    if (start)
      driver.cuEventDestroy(start);
    if (stop)
      driver.cuEventDestroy(stop);
    if (stream)
      driver.cuStreamDestroy(stream);
  }
  TimingResources(const TimingResources &) = delete;
  TimingResources &operator=(const TimingResources &) = delete;

  const CudaDriver &driver;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

Status runMany(const PlanLauncher &runPlan, CUstream stream,
               unsigned long long runs) {
  for (unsigned long long i = 0; i < runs; ++i)
    if (Status status = runPlan(stream); !status.isOk())
      return status;
  return Status::ok();
}

} // namespace

Status timePlan(const CudaDriver &driver, const PlanLauncher &runPlan,
                TimingMethod method, unsigned long long iters,
                unsigned rounds, unsigned warmup, TimingResult &result) {
  if (iters == 0 || rounds == 0)
    return Status::error("timing needs at least one run and one round");
  auto call = [&](CUresult code, const char *what) {
    return driver.check(code, what);
  };
  TimingResources r(driver);
  // A stream of its own: the legacy default stream cannot be captured.
  if (Status status = call(driver.cuStreamCreate(&r.stream,
                                                 CU_STREAM_NON_BLOCKING),
                           "cuStreamCreate");
      !status.isOk())
    return status;
  if (Status status = call(driver.cuEventCreate(&r.start, 0), "cuEventCreate");
      !status.isOk())
    return status;
  if (Status status = call(driver.cuEventCreate(&r.stop, 0), "cuEventCreate");
      !status.isOk())
    return status;
  if (Status status = runMany(runPlan, r.stream, warmup); !status.isOk())
    return status;

  result = TimingResult();
  result.method = method;
  unsigned long long samples = rounds;
  switch (method) {
  case TimingMethod::PerRun:
    result.runsPerSample = 1;
    samples = iters;
    break;
  case TimingMethod::BackToBack:
    result.runsPerSample = iters;
    break;
  case TimingMethod::Graph: {
    result.runsPerSample = iters;
    if (Status status = call(driver.cuStreamBeginCapture(
                                 r.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                             "cuStreamBeginCapture");
        !status.isOk())
      return status;
    Status captured = runMany(runPlan, r.stream, iters);
    // The capture ends whether or not a launch failed in it.
    Status ended =
        call(driver.cuStreamEndCapture(r.stream, &r.graph), "cuStreamEndCapture");
    if (!captured.isOk())
      return captured;
    if (!ended.isOk())
      return ended;
    if (Status status = call(driver.cuGraphInstantiateWithFlags(&r.exec,
                                                                r.graph, 0),
                             "cuGraphInstantiateWithFlags");
        !status.isOk())
      return status;
    // One replay before the samples: the graph's first upload.
    if (Status status = call(driver.cuGraphLaunch(r.exec, r.stream),
                             "cuGraphLaunch (warm-up)");
        !status.isOk())
      return status;
    break;
  }
  }
  if (Status status =
          call(driver.cuStreamSynchronize(r.stream), "cuStreamSynchronize");
      !status.isOk())
    return status;

  for (unsigned long long sample = 0; sample < samples; ++sample) {
    if (Status status = call(driver.cuEventRecord(r.start, r.stream),
                             "cuEventRecord");
        !status.isOk())
      return status;
    Status ran = method == TimingMethod::Graph
                     ? call(driver.cuGraphLaunch(r.exec, r.stream),
                            "cuGraphLaunch")
                     : runMany(runPlan, r.stream, result.runsPerSample);
    if (!ran.isOk())
      return ran;
    if (Status status = call(driver.cuEventRecord(r.stop, r.stream),
                             "cuEventRecord");
        !status.isOk())
      return status;
    if (Status status = call(driver.cuEventSynchronize(r.stop),
                             "cuEventSynchronize (timed runs)");
        !status.isOk())
      return status;
    float ms = 0;
    if (Status status = call(driver.cuEventElapsedTime(&ms, r.start, r.stop),
                             "cuEventElapsedTime");
        !status.isOk())
      return status;
    result.msPerRun.push_back(double(ms) / double(result.runsPerSample));
  }
  std::vector<double> sorted = result.msPerRun;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  result.medianMs =
      n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  result.minMs = sorted.front();
  return Status::ok();
}

} // namespace qmmcuda
