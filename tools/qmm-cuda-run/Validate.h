//===- Validate.h - the checks of a plan's outputs --------------*- C++ -*-===//

#ifndef QMM_CUDA_RUN_VALIDATE_H
#define QMM_CUDA_RUN_VALIDATE_H

#include "Plan.h"

#include <cstdio>
#include <vector>

namespace qmmcuda {

struct BoundsViolation {
  uint64_t index;
  double value, lo, hi;
};

/// The outcome of one `check` line.
struct CheckResult {
  const PlanCheck *check = nullptr;
  std::string metric;    // sqnr_db, calc_diff or violations
  double value = 0;      // the metric's value
  std::string criterion; // e.g. ">= 30 dB, no NaN"
  bool pass = false;
  uint64_t nanCount = 0; // NaN elements of the output
  // bounds
  uint64_t violations = 0;
  double maxMidDistance = 0; // max |d - (lo + hi) / 2|
  std::vector<BoundsViolation> firstViolations;
  // sqnr and calc_diff
  double maxAbsError = 0, maxRelError = 0;
};

/// Decodes one little-endian element of an output buffer to double.
double decodeElement(ElementType element, const unsigned char *bytes);

/// Evaluates \p check on the output bytes (count elements, read back from
/// the device); reads the check's reference file. FP8 codes are judged
/// times their scale: \p scaling and its scales buffer's bytes \p scales.
Status evaluateCheck(const PlanCheck &check, const unsigned char *output,
                     CheckResult &result,
                     const PlanScaling *scaling = nullptr,
                     const unsigned char *scales = nullptr);

/// `check <label> [<tier>]: <kind> <metric>=<value> (<criterion>) PASS|FAIL`
/// and indented detail lines.
void printCheckResult(const CheckResult &result, std::FILE *out);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_VALIDATE_H
