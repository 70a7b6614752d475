//===- Report.cpp - fp8-run: validation tiers as reported ---------------===//

#include "Runner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;
using namespace mlir::qmm::fp8run;

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//

/// The exact tier's criterion for an output of `typeName`: f32 within
/// 80 dB SQNR, bf16/f16 within one output ulp plus the f32 accumulation
/// bound everywhere; NaN where the reference has it and nowhere else.
void fp8run::judgeExactTier(Tier &tier, const std::string &typeName) {
  if (typeName == "f32") {
    tier.criterion = "sqnr >= 80 dB";
    tier.pass = tier.metrics.sqnrDb >= 80.0;
  } else if (typeName.rfind("f8", 0) == 0) {
    tier.criterion = "every block's scale by the rule from the reference "
                     "amax (+- accumulation bound), every code within half "
                     "a " + typeName + " unit of reference / scale";
    tier.pass = tier.metrics.ulpViolations == 0 &&
                tier.metrics.scaleViolations == 0;
  } else {
    tier.criterion = "every element within 1 ulp of the " + typeName +
                     "-rounded reference + f32 accumulation bound";
    tier.pass = tier.metrics.ulpViolations == 0;
  }
  tier.pass = tier.pass && tier.metrics.nanMismatches == 0;
}

static llvm::json::Value sqnrJson(double sqnr) {
  if (std::isinf(sqnr))
    return nullptr; // exact agreement
  return sqnr;
}

llvm::json::Object fp8run::tierJson(const Tier &tier) {
  if (tier.skipped)
    return llvm::json::Object{{"skipped", true}, {"pass", true}};
  return llvm::json::Object{
      {"max_abs_err", tier.metrics.maxAbsError},
      {"max_rel_err", tier.metrics.maxRelError},
      {"calc_diff", tier.metrics.calcDiff},
      {"sqnr_db", sqnrJson(tier.metrics.sqnrDb)},
      {"ulp_violations", tier.metrics.ulpViolations},
      {"scale_violations", tier.metrics.scaleViolations},
      {"nan_mismatches", tier.metrics.nanMismatches},
      {"criterion", tier.criterion},
      {"pass", tier.pass}};
}

void fp8run::printTier(const Tier &tier) {
  llvm::outs() << "  " << tier.name << ": ";
  if (tier.skipped) {
    llvm::outs() << "skipped (" << tier.criterion << ")\n";
    return;
  }
  const ErrorMetrics &m = tier.metrics;
  llvm::outs() << llvm::formatv("max_abs_err {0:e3}  max_rel_err {1:e3}  "
                                "calc_diff {2:e3}  sqnr ",
                                m.maxAbsError, m.maxRelError, m.calcDiff);
  if (std::isinf(m.sqnrDb))
    llvm::outs() << "inf";
  else
    llvm::outs() << llvm::formatv("{0:f1}", m.sqnrDb);
  llvm::outs() << " dB";
  if (m.ulpViolations)
    llvm::outs() << "  ulp_violations " << m.ulpViolations;
  if (m.scaleViolations)
    llvm::outs() << "  scale_violations " << m.scaleViolations;
  if (m.nanMismatches)
    llvm::outs() << "  nan_mismatches " << m.nanMismatches;
  llvm::outs() << "  [" << tier.criterion << "]  "
               << (tier.pass ? "PASS" : "FAIL") << "\n";
}

