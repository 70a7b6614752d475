//===- QualityBudget.cpp - what the quantization tier allows --------------===//

#include "qmm/Runtime/QualityBudget.h"
#include "qmm/Runtime/HostFormats.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir::qmm;
using namespace mlir::qmm::host;

/// The recipe's scale of a block whose largest magnitude is `amax` (qmm.
/// quantize's rules, in f64: exact, 2^(floor(log2 amax) - emax_elem), or
/// 2^ceil(log2(amax / fmax))); 0 for an all-zero block without a floor.
static double recipeScale(const FormatSpec &format, double amax,
                          ScaleRounding rounding, double minAmax) {
  amax = std::max(amax, minAmax);
  if (!(amax > 0))
    return 0;
  double fmax = maxFinite(format);
  switch (rounding) {
  case ScaleRounding::None:
    return amax / fmax;
  case ScaleRounding::Pow2Floor:
    return std::ldexp(1.0, std::ilogb(amax) - maxExponent(format));
  case ScaleRounding::Pow2Ceil:
    return std::exp2(std::ceil(std::log2(amax / fmax)));
  }
  return amax / fmax;
}

std::vector<double> mlir::qmm::host::quantizeIdeally(
    llvm::ArrayRef<double> values, const OperandSpec &operand, int64_t rows,
    int64_t k, ScaleRounding rounding, double minAmax) {
  std::vector<double> result(values.size(), 0.0);
  const FormatSpec *format =
      lookupFormat(toElementType(operand.elementType));
  if (!format || rows == 0 || k == 0)
    return result;
  auto [blockRows, blockK] = operand.encoding.getBlockExtent(rows, k);
  blockRows = std::max<int64_t>(blockRows, 1);
  blockK = std::max<int64_t>(blockK, 1);
  double fmax = maxFinite(*format);
  for (int64_t r0 = 0; r0 < rows; r0 += blockRows)
    for (int64_t k0 = 0; k0 < k; k0 += blockK) {
      int64_t r1 = std::min(rows, r0 + blockRows);
      int64_t k1 = std::min(k, k0 + blockK);
      double amax = 0;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = k0; c < k1; ++c)
          amax = std::max(amax, std::fabs(values[r * k + c]));
      double scale = recipeScale(*format, amax, rounding, minAmax);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = k0; c < k1; ++c) {
          double x = values[r * k + c];
          double &q = result[r * k + c];
          if (!std::isfinite(scale) || std::isnan(amax)) {
            q = NAN;
            continue;
          }
          if (!(scale > 0))
            continue; // an all-zero block without a floor
          // Nearest value of the format (ties to even: nearbyint's default
          // mode), saturating.
          double y = std::fabs(x) / scale;
          double ulp = ulpOf(*format, y);
          double rounded = std::min(std::nearbyint(y / ulp) * ulp, fmax);
          q = std::copysign(rounded * scale, x);
        }
    }
  return result;
}

void QualityBudget::addOutput(double reference, double ideal,
                              double preActivation, Activation activation,
                              ElementType outputType) {
  idealXY += ideal * reference;
  idealSquares += ideal * ideal + reference * reference;
  signalEnergy += reference * reference;
  if (const FormatSpec *format = lookupFormat(outputType)) {
    double ulp = ulpOf(*format, std::fabs(reference));
    roundingEnergy += ulp * ulp / 12.0;
  }
  if (activation != Activation::None) {
    double evaluation = std::ldexp(std::fabs(preActivation), -20);
    roundingEnergy += evaluation * evaluation;
  }
  ++outputs;
}

QualityThreshold mlir::qmm::host::getQualityThreshold(
    const QualityBudget &budget, double formatBudget, double outputBudget) {
  QualityThreshold result;
  result.formatBudget = formatBudget + outputBudget;
  if (!(budget.signalEnergy > 0) || !(budget.idealSquares > 0)) {
    result.judged = false;
    result.reason = "cannot judge: the unquantized outputs are all zero";
    return result;
  }
  double idealCalcDiff = 1.0 - 2.0 * budget.idealXY / budget.idealSquares;
  double rounding = budget.roundingEnergy / (2.0 * budget.signalEnergy);
  result.expected = idealCalcDiff + rounding + outputBudget;
  // A quarter more than a faithful quantizer: f32 scales, the codes' ties
  // and the f32 sums move the statistic by far less.
  result.threshold =
      std::max(formatBudget + outputBudget, 1.25 * result.expected);
  // calc_diff is 1 for unrelated values: a threshold near it judges
  // nothing.
  if (!(result.threshold < 0.25)) {
    result.judged = false;
    result.reason = llvm::formatv(
        "cannot judge: this recipe, ideally applied, reaches calc_diff "
        "{0:e1} on these data over {1} outputs (the output's own rounding "
        "alone: {2:e1})",
        result.expected, budget.outputs, rounding);
  }
  return result;
}
