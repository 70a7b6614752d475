//===- Report.cpp - fp8-run: the report, text or JSON ---------------------===//

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

/// The exact tier's criterion for an output of `type`: f32 within
/// 80 dB SQNR, bf16/f16 within one output ulp plus the f32 accumulation
/// bound everywhere; NaN where the reference has it and nowhere else.
void fp8run::judgeExactTier(Tier &tier, ElementType type) {
  std::string typeName = getElementTypeName(type).str();
  if (type == ElementType::F32) {
    tier.criterion = llvm::formatv("sqnr >= {0:f0} dB", kExactTierMinSqnrDb).str();
    tier.pass = tier.metrics.sqnrDb >= kExactTierMinSqnrDb;
  } else if (getElementBitWidth(type) == 8) {
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

void fp8run::judgeQualityTier(Tier &tier, double threshold) {
  tier.criterion = llvm::formatv("calc_diff < {0:e1}", threshold).str();
  tier.pass =
      tier.metrics.calcDiff < threshold && tier.metrics.nanMismatches == 0;
}

void fp8run::judgeQualityTier(Tier &tier, const QualityThreshold &rule) {
  if (!rule.judged) {
    tier.skipped = true;
    tier.pass = true;
    tier.criterion = rule.reason;
    return;
  }
  judgeQualityTier(tier, rule.threshold);
  tier.expectedCalcDiff = rule.expected;
  // Where the recipe itself, ideally applied, misses the formats' budget
  // on these data, the threshold follows it: say so.
  if (rule.threshold > rule.formatBudget)
    tier.criterion += llvm::formatv(" (the recipe's ideal quantizer reaches "
                                    "{0:e1} on these data, above the "
                                    "formats' budget {1:e1})",
                                    rule.expected, rule.formatBudget)
                          .str();
}

static llvm::json::Value sqnrJson(double sqnr) {
  if (std::isinf(sqnr))
    return nullptr; // exact agreement
  return sqnr;
}

llvm::json::Object fp8run::tierJson(const Tier &tier) {
  if (tier.skipped)
    return llvm::json::Object{
        {"skipped", true}, {"pass", true}, {"criterion", tier.criterion}};
  llvm::json::Object object{
      {"max_abs_err", tier.metrics.maxAbsError},
      {"max_rel_err", tier.metrics.maxRelError},
      {"calc_diff", tier.metrics.calcDiff},
      {"sqnr_db", sqnrJson(tier.metrics.sqnrDb)},
      {"ulp_violations", tier.metrics.ulpViolations},
      {"scale_violations", tier.metrics.scaleViolations},
      {"nan_mismatches", tier.metrics.nanMismatches},
      {"beyond_f32", tier.metrics.outOfRangeElements},
      {"criterion", tier.criterion},
      {"pass", tier.pass}};
  if (tier.expectedCalcDiff)
    object["ideal_calc_diff"] = *tier.expectedCalcDiff;
  return object;
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
  if (m.outOfRangeElements)
    llvm::outs() << "  beyond_f32 " << m.outOfRangeElements;
  if (tier.expectedCalcDiff)
    llvm::outs() << llvm::formatv("  ideal_calc_diff {0:e1}",
                                  *tier.expectedCalcDiff);
  llvm::outs() << "  [" << tier.criterion << "]  "
               << (tier.pass ? "PASS" : "FAIL") << "\n";
}


//===----------------------------------------------------------------------===//
// Non-finite inputs
//===----------------------------------------------------------------------===//

static int64_t countNonFinite(const host::HostTensor &tensor) {
  int64_t count = 0;
  for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i)
    count += !std::isfinite(tensor.getValue(i));
  return count;
}

llvm::SmallVector<std::pair<std::string, int64_t>>
fp8run::countNonFiniteInputs(const OperandData &a, const OperandData &b,
                             const host::HostTensor &c,
                             const host::HostTensor *bias) {
  llvm::SmallVector<std::pair<std::string, int64_t>> counts;
  auto add = [&](const std::string &name, int64_t count) {
    if (count)
      counts.push_back({name, count});
  };
  for (auto [operand, name] : {std::pair(&a, "a"), std::pair(&b, "b")}) {
    if (operand->highPrecision)
      add(std::string(name) + "_hp",
          llvm::count_if(*operand->highPrecision,
                         [](float v) { return !std::isfinite(v); }));
    add(std::string(name) + " codes (NaN)",
        countNonFinite(operand->quantized.data));
    add(std::string(name) + "_scale", countNonFinite(operand->quantized.scales));
  }
  add("c", countNonFinite(c));
  if (bias)
    add("bias", countNonFinite(*bias));
  return counts;
}

void fp8run::printNonFiniteInputs(
    llvm::ArrayRef<std::pair<std::string, int64_t>> counts) {
  if (counts.empty())
    return;
  llvm::outs() << "  inputs not finite:";
  for (auto [name, count] : counts)
    llvm::outs() << " " << name << " " << count << ",";
  llvm::outs() << " values NaN or Inf: outputs that depend on them must be "
                  "NaN or Inf (either: IEEE f32 in an unspecified order), "
                  "and are not in the error statistics (beyond_f32)\n";
}

//===----------------------------------------------------------------------===//
// The run's report
//===----------------------------------------------------------------------===//

static std::string printToString(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream(text) << attr;
  return text;
}

void GemmRunner::printJsonReport(bool pass, double tflops) const {
  const ChipInfo &chip = amdChip();
  const OperandData &a = aParts.front(), &b = bParts.front();
  auto nonFiniteInputs =
      countNonFiniteInputs(a, b, init, bias ? &*bias : nullptr);
  llvm::json::Object report{
      {"gemm", llvm::formatv("{0}x{1}x{2}", spec.m, spec.n, spec.k).str()},
      {"m", spec.m},
      {"n", spec.n},
      {"k", spec.k},
      {"a_type", getTypeName(spec.a.elementType)},
      {"b_type", getTypeName(spec.b.elementType)},
      {"b_layout", stringifyOperandLayout(spec.b.layout).str()},
      {"out_type", getTypeName(spec.outputType)},
      {"out_scale", spec.outEncoding
                        ? llvm::json::Value(printToString(spec.outEncoding))
                        : llvm::json::Value(nullptr)},
      {"accumulate", spec.accumulate},
      {"chip", chip.name.str()},
      {"device", device->getName().str()},
      {"exact", tierJson(exact)},
      {"quantization", tierJson(quality)},
      {"non_finite_inputs",
       [&] {
         llvm::json::Object counts;
         for (auto [name, count] : nonFiniteInputs)
           counts[name] = count;
         return counts;
       }()},
      {"quantize", deviceQuantizes ? "device" : "host"},
      {"iters", int64_t(result.iterations)},
      {"result", pass ? "PASS" : "FAIL"}};
  report["a_scale"] = printToString(spec.a.encoding);
  if (spec.biasType)
    report["bias"] = getTypeName(spec.biasType);
  if (spec.activation != Activation::None)
    report["activation"] = stringifyActivation(spec.activation).str();
  if (spec.auxType) {
    report["aux_type"] = getTypeName(spec.auxType);
    report["aux_exact"] = tierJson(auxExact);
  }
  report["b_scale"] = printToString(spec.b.encoding);
  if (quantizerCheck.ran)
    report["quantizer_check"] = llvm::json::Object{
        {"code_mismatches", quantizerCheck.codeMismatches},
        {"codes", quantizerCheck.codes},
        {"scale_mismatches", quantizerCheck.scaleMismatches},
        {"scales", quantizerCheck.scales},
        {"pass", quantizerCheck.agrees()}};
  if (result.iterations) {
    report["time_ms"] = result.secondsPerIteration * 1e3;
    report["tflops"] = tflops;
  }
  if (config.model.device)
    report["model"] = modelJson(predictions);
  llvm::outs() << llvm::formatv("{0}", llvm::json::Value(std::move(report)))
               << "\n";
}

void GemmRunner::printTextReport(bool pass, double tflops) const {
  const ChipInfo &chip = amdChip();
  llvm::raw_ostream &os = llvm::outs();
  os << "fp8-run: " << spec.describe() << "\n";
  if (isGrouped()) {
    bool masked = config.masked;
    os << "  grouped " << stringifyGroupedLayout(getGroupedLayout()) << ", "
       << config.groups << " groups, "
       << (masked ? "valid rows per group:" : "rows per group:");
    for (int64_t g = 0; g < config.groups; ++g) {
      int64_t rows = 0;
      if (masked)
        rows = groupInfo[g];
      else
        for (int32_t v : groupInfo)
          rows += v == g;
      os << " " << rows;
    }
    if (!masked)
      os << " (+" << llvm::count(groupInfo, -1) << " padding)";
    os << "\n  chip " << chip.name << " (" << chip.product << "), device "
       << device->getName() << ", seed " << config.seed << "\n";
  } else {
    os << "  chip " << chip.name << " (" << chip.product << "), device "
       << device->getName() << ", seed " << config.seed << ", dist "
       << getDistributionName(config.distribution) << "\n";
    if (quantizerCheck.ran)
      os << llvm::formatv(
          "  quantizer check (device qmm.quantize vs host quantizer): "
          "{0} of {1} codes and {2} of {3} scales differ  [bit-exact]  {4}\n",
          quantizerCheck.codeMismatches, quantizerCheck.codes,
          quantizerCheck.scaleMismatches, quantizerCheck.scales,
          quantizerCheck.agrees() ? "PASS" : "FAIL");
    printNonFiniteInputs(countNonFiniteInputs(
        aParts.front(), bParts.front(), init, bias ? &*bias : nullptr));
  }
  printTier(exact);
  if (spec.auxType)
    printTier(auxExact);
  printTier(quality);
  if (isGrouped())
    os << llvm::formatv(
        "  rows not computed ({0}): {1} of {2} values differ from init{4}  "
        "[untouched]  {3}\n",
        config.masked ? "past the counts" : "padding", untouchedDiffer,
        untouched, untouchedDiffer == 0 ? "PASS" : "FAIL",
        spec.auxType && spec.outEncoding ? " (output, aux and output scales)"
        : spec.auxType                   ? " (output and aux)"
        : spec.outEncoding               ? " (output and output scales)"
                                         : "");
  else if (result.iterations)
    os << llvm::formatv(
        "  time: {0:f3} ms/iter, {1:f4} TFLOP/s ({2} iterations)\n",
        result.secondsPerIteration * 1e3, tflops, result.iterations);
  if (config.model.device)
    printModel(predictions, &result, device->getName());
  os << "RESULT: " << (pass ? "PASS" : "FAIL") << "\n";
}
