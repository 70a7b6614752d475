//===- Report.h - what a run found, and its JSON form -----------*- C++ -*-===//

#ifndef QMM_CUDA_RUN_REPORT_H
#define QMM_CUDA_RUN_REPORT_H

#include "Plan.h"
#include "Validate.h"

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

  bool timed = false;
  std::vector<double> timesMs; // one per timed run of the whole plan
  double medianMs = 0, minMs = 0;
  double tflops = 0; // 0 when the plan gives no flops
};

/// "12.4" for cuDriverGetVersion's 12040.
std::string formatDriverVersion(int version);

/// Writes \p report as JSON (non-finite numbers as the strings "inf",
/// "-inf" and "nan", which strict JSON has no literal for).
Status writeJsonReport(const std::string &path, const RunReport &report);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_REPORT_H
