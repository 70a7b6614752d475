//===- Report.h - what a run found, and its JSON form -----------*- C++ -*-===//

#ifndef QMM_CUDA_RUN_REPORT_H
#define QMM_CUDA_RUN_REPORT_H

#include "Plan.h"
#include "Timing.h"
#include "Validate.h"

#include <functional>
#include <vector>

namespace qmmcuda {

struct RunReport {
  /// PASS, FAIL, SKIPPED, ERROR or DRY_RUN.
  std::string result = "ERROR";
  std::string message; // the error or skip reason
  const Plan *plan = nullptr; // when it parsed
  unsigned long long seed = 1;

  bool haveDevice = false;
  int deviceIndex = 0;
  std::string deviceName;
  int ccMajor = 0, ccMinor = 0, multiprocessors = 0, driverVersion = 0;

  bool validated = false;
  std::vector<CheckResult> checks;

  /// One per timing method run (--iters), in the order run.
  std::vector<TimingResult> timings;
};

/// Reads `bytes` of buffer `buffer` (for the check of plan line `line`)
/// into `host`: the device's copy after a run, or the buffer's file.
using BufferReader = std::function<Status(unsigned buffer, uint64_t bytes,
                                          unsigned line, HostBytes &host)>;

/// Evaluates and prints every check of the plan on buffers `read` gives
/// (an FP8 buffer's checks with its scales), into report.checks.
Status evaluateChecks(const Plan &plan, const BufferReader &read,
                      RunReport &report);

/// "12.4" for cuDriverGetVersion's 12040.
std::string formatDriverVersion(int version);

/// Writes \p report as JSON (non-finite numbers as the strings "inf",
/// "-inf" and "nan", which strict JSON has no literal for).
Status writeJsonReport(const std::string &path, const RunReport &report);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_REPORT_H
