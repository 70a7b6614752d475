//===- Validation.cpp - references and error metrics ----------------------===//

#include "qmm/Runtime/Validation.h"
#include "qmm/Runtime/HostFormats.h"
#include "qmm/Runtime/HostQuantizer.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace mlir::qmm;
using namespace mlir::qmm::host;

Reference mlir::qmm::host::referenceGemm(llvm::ArrayRef<double> a,
                                         llvm::ArrayRef<double> b,
                                         llvm::ArrayRef<double> c, int64_t m,
                                         int64_t n, int64_t k) {
  Reference reference;
  reference.values.resize(m * n);
  reference.magnitudes.resize(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double *aRow = a.data() + i * k;
      const double *bRow = b.data() + j * k;
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < k; ++p) {
        double product = aRow[p] * bRow[p];
        sum += product;
        magnitude += std::fabs(product);
      }
      double accumulator = c.empty() ? 0.0 : c[i * n + j];
      reference.values[i * n + j] = sum + accumulator;
      reference.magnitudes[i * n + j] = magnitude + std::fabs(accumulator);
    }
  return reference;
}

Reference mlir::qmm::host::addBias(const Reference &ref,
                                   llvm::ArrayRef<double> bias, int64_t n) {
  Reference result = ref;
  for (size_t i = 0; i < result.values.size(); ++i) {
    result.values[i] += bias[i % n];
    result.magnitudes[i] += std::fabs(bias[i % n]);
  }
  return result;
}

Reference mlir::qmm::host::applyActivation(const Reference &ref,
                                           Activation activation,
                                           int64_t reductionSize) {
  Reference result = ref;
  double unit = double(reductionSize + 2) * std::ldexp(1.0, -24);
  for (size_t i = 0; i < result.values.size(); ++i) {
    double x = ref.values[i];
    double inner = activation == Activation::GeluTanh
                       ? std::tanh(std::sqrt(2.0 / M_PI) *
                                   (x + 0.044715 * x * x * x))
                       : std::erf(x / std::sqrt(2.0));
    result.values[i] = 0.5 * x * (1.0 + inner);
    result.magnitudes[i] =
        1.13 * ref.magnitudes[i] + std::ldexp(std::fabs(x), -20) / unit;
  }
  return result;
}

bool mlir::qmm::host::isBeyondF32(const Reference &ref, size_t i) {
  return !std::isfinite(ref.values[i]) ||
         !(ref.magnitudes[i] < std::numeric_limits<float>::max());
}

double mlir::qmm::host::getAccumulationBound(int64_t reductionSize,
                                             const AccumulationModel &model) {
  double f32Unit = std::ldexp(1.0, -24);
  if (model.chunk <= 0)
    return double(reductionSize + 2) * f32Unit;
  int64_t chunks = (reductionSize + model.chunk - 1) / model.chunk;
  return double(model.chunk) * model.chunkUnitRoundoff +
         double(chunks + 2) * f32Unit;
}

std::pair<double, double>
mlir::qmm::host::getExactTierInterval(const Reference &ref, size_t i,
                                      ElementType outputType,
                                      int64_t reductionSize,
                                      const AccumulationModel &model) {
  const FormatSpec *format = lookupFormat(outputType);
  assert(format && "an output type of a format");
  double bound =
      getAccumulationBound(reductionSize, model) * ref.magnitudes[i];
  double rounded = roundToFormat(*format, ref.values[i]);
  if (std::isinf(rounded)) {
    // Past the type's range: the infinity of that sign, or the largest
    // finite value when the f32 sum lands below the rounding boundary.
    double largest = maxFinite(*format);
    double low = largest - ulpOf(*format, largest) - bound;
    return rounded > 0 ? std::make_pair(low, rounded)
                       : std::make_pair(rounded, -low);
  }
  double allowed = ulpOf(*format, rounded) + bound;
  return {rounded - allowed, rounded + allowed};
}

ErrorMetrics mlir::qmm::host::compare(llvm::ArrayRef<double> output,
                                      const Reference &ref,
                                      ElementType outputType,
                                      bool checkUlps, int64_t reductionSize,
                                      llvm::ArrayRef<bool> excluded) {
  ErrorMetrics metrics;
  llvm::ArrayRef<double> reference = ref.values;
  double accumulationBound = getAccumulationBound(reductionSize);
  double maxReference = 0;
  for (double r : reference)
    if (std::isfinite(r))
      maxReference = std::max(maxReference, std::fabs(r));
  double relativeFloor = std::max(1e-3 * maxReference,
                                  std::numeric_limits<double>::min());
  const FormatSpec *format = lookupFormat(outputType);
  double sumXY = 0, sumSquares = 0, signal = 0, noise = 0;
  for (size_t i = 0; i < output.size(); ++i) {
    double d = output[i], r = reference[i];
    if (!excluded.empty() && excluded[i]) {
      ++metrics.outOfRangeElements;
      continue;
    }
    // Outside f32's range (a NaN or Inf input, or values past FLT_MAX) the
    // op's semantics -- dequantized values rounded to f32, IEEE f32 in an
    // unspecified order, block scales possibly applied to partial sums --
    // allow NaN or either infinity: where the reference is not finite, the
    // output must not be either; where only intermediates overflow, a
    // finite output must still be within the accumulation bound. Such
    // elements stay out of the statistics.
    if (isBeyondF32(ref, i)) {
      ++metrics.outOfRangeElements;
      if (!std::isfinite(r))
        metrics.nanMismatches += std::isfinite(d);
      else if (std::isfinite(d) &&
               std::fabs(d - r) > accumulationBound * ref.magnitudes[i])
        ++metrics.ulpViolations;
      continue;
    }
    if (std::isnan(d)) {
      ++metrics.nanMismatches;
      continue;
    }
    if (std::isnan(d))
      continue;
    double error = std::fabs(d - r);
    metrics.maxAbsError = std::max(metrics.maxAbsError, error);
    metrics.maxRelError = std::max(
        metrics.maxRelError, error / std::max(std::fabs(r), relativeFloor));
    sumXY += d * r;
    sumSquares += d * d + r * r;
    signal += r * r;
    noise += (d - r) * (d - r);
    if (checkUlps && format && outputType != ElementType::F32) {
      auto [low, high] =
          getExactTierInterval(ref, i, outputType, reductionSize);
      if (!(d >= low && d <= high))
        ++metrics.ulpViolations;
    }
  }
  metrics.calcDiff = sumSquares > 0 ? 1.0 - 2.0 * sumXY / sumSquares : 0.0;
  metrics.sqnrDb = noise > 0 ? 10.0 * std::log10(signal / noise)
                             : std::numeric_limits<double>::infinity();
  return metrics;
}

namespace {
/// What the exact tier of an FP8 output derives from the reference: per
/// block (scale index) the range of scales the rule gives for the amaxes
/// within the block's error bound, and whether the block holds NaN or Inf.
struct QuantizedOutputReference {
  const FormatSpec *format;
  double fmax;
  /// Per element: what the device's f32 result may differ from the
  /// reference by (the accumulation bound plus the rounding to f32).
  std::vector<double> errorBounds;
  std::vector<std::pair<double, double>> scaleRanges;
  std::vector<bool> hasNaN;
};
} // namespace

static QuantizedOutputReference
analyzeQuantizedOutput(const OperandSpec &output, int64_t m, int64_t n,
                       int64_t numScales, const Reference &reference,
                       ScaleRounding rounding, float minAmax,
                       int64_t reductionSize, const AccumulationModel &model) {
  QuantizedOutputReference result;
  result.format = lookupFormat(toElementType(output.elementType));
  result.fmax = maxFinite(*result.format);
  double unit = getAccumulationBound(reductionSize, model);
  result.errorBounds.resize(m * n);
  for (int64_t i = 0; i < m * n; ++i)
    result.errorBounds[i] = unit * reference.magnitudes[i] +
                            std::ldexp(std::fabs(reference.values[i]), -23);
  std::vector<double> amax(numScales, 0.0), amaxError(numScales, 0.0);
  result.hasNaN.assign(numScales, false);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      int64_t i = r * n + c;
      int64_t block = getScaleIndex(output, m, n, r, c);
      double value = reference.values[i];
      if (std::isnan(value) || std::isinf(value))
        result.hasNaN[block] = true;
      else
        amax[block] = std::max(amax[block], std::fabs(value));
      amaxError[block] = std::max(amaxError[block], result.errorBounds[i]);
    }
  result.scaleRanges.resize(numScales);
  for (int64_t block = 0; block < numScales; ++block) {
    double lowest = std::max(0.0, amax[block] - amaxError[block]);
    double highest = amax[block] + amaxError[block];
    // The rules are monotone in amax.
    double low =
        computeBlockScale(*result.format, float(lowest), rounding, minAmax)
            .scale;
    double high =
        computeBlockScale(*result.format, float(highest), rounding, minAmax)
            .scale;
    if (rounding == ScaleRounding::None) {
      low *= 1.0 - std::ldexp(1.0, -22);
      high *= 1.0 + std::ldexp(1.0, -22);
    }
    result.scaleRanges[block] = {low, high};
  }
  return result;
}

namespace {
/// The exact tier's criterion for one element of an FP8 output: code `q`
/// (a value of the format) is allowed for reference value `value` (error
/// bound `error`) at block scale `scale` when |q - t| <= half a unit of
/// the format at max(|q|, |rne(t)|) + error / scale + 2^-21 |t|, t the
/// reference in units of the scale saturated to +-fmax.
struct AllowedCodes {
  double target, rounded, slack;
  const FormatSpec &format;

  AllowedCodes(const FormatSpec &format, double fmax, double value,
               double error, double scale)
      : format(format) {
    target = std::clamp(value / scale, -fmax, fmax);
    rounded =
        std::fabs(decode(format, encodeSaturating(format, float(target))));
    slack = error / scale + std::ldexp(std::fabs(target), -21);
  }
  bool contains(double q) const {
    double magnitude = std::max(std::fabs(q), rounded);
    return std::fabs(q - target) <= 0.5 * ulpOf(format, magnitude) + slack;
  }
};

/// How far from its target `allowed` accepts values on the side of
/// `direction` (+1 up, -1 down), as a real number: the largest d with
/// d <= half a unit at max(|t + direction d|, |rne(t)|) + slack. Units
/// grow with magnitude, so the allowance is widened while the magnitude it
/// reaches, or the start of the next binade, earns a larger unit.
double getAllowance(const AllowedCodes &allowed, double fmax,
                    double direction) {
  const FormatSpec &format = allowed.format;
  double t = allowed.target;
  auto unitAt = [&](double magnitude) {
    return 0.5 * ulpOf(format, std::min(fmax, std::max(magnitude,
                                                       allowed.rounded))) +
           allowed.slack;
  };
  double allowance = unitAt(0);
  for (int step = 0; step < 64; ++step) {
    double magnitude = std::fabs(t + direction * allowance);
    double wider = unitAt(magnitude);
    // The next binade on this side: magnitude 2^(e+1), reached at the
    // distance where t + direction d has that magnitude.
    if (magnitude > 0) {
      double next = std::ldexp(1.0, std::ilogb(magnitude) + 1);
      double distance = INFINITY;
      for (double end : {next, -next})
        if (double d = direction * (end - t); d >= 0)
          distance = std::min(distance, d);
      if (next <= fmax && distance <= unitAt(next))
        wider = std::max(wider, unitAt(next));
    }
    if (wider <= allowance)
      break;
    allowance = wider;
  }
  return allowance;
}
} // namespace

ErrorMetrics mlir::qmm::host::checkQuantizedOutput(
    const HostTensor &codes, const HostTensor &scales,
    const OperandSpec &output, const Reference &reference,
    ScaleRounding rounding, float minAmax, int64_t reductionSize) {
  int64_t m = codes.shape[0], n = codes.shape[1];
  int64_t numScales = scales.getNumElements();
  QuantizedOutputReference expected =
      analyzeQuantizedOutput(output, m, n, numScales, reference, rounding,
                             minAmax, reductionSize, AccumulationModel());

  ErrorMetrics metrics;
  for (int64_t block = 0; block < numScales; ++block) {
    double scale = scales.getValue(block);
    bool hasNaN = expected.hasNaN[block];
    if (hasNaN || std::isnan(scale)) {
      metrics.scaleViolations += hasNaN != std::isnan(scale);
      continue;
    }
    auto [low, high] = expected.scaleRanges[block];
    if (scale < low || scale > high)
      ++metrics.scaleViolations;
  }

  std::vector<double> dequantized(m * n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      int64_t i = r * n + c;
      int64_t block = getScaleIndex(output, m, n, r, c);
      double scale = scales.getValue(block);
      double q = codes.getValue(i);
      dequantized[i] = q * scale;
      if (std::isnan(scale) || expected.hasNaN[block]) {
        // Every element of a NaN block is NaN (a NaN scale's reciprocal).
        metrics.nanMismatches += !std::isnan(q);
        continue;
      }
      if (std::isnan(q)) {
        ++metrics.nanMismatches;
        continue;
      }
      AllowedCodes allowed(*expected.format, expected.fmax,
                           reference.values[i], expected.errorBounds[i],
                           scale);
      if (!allowed.contains(q))
        ++metrics.ulpViolations;
    }
  ErrorMetrics values =
      compare(dequantized, reference, ElementType::F32, /*checkUlps=*/false,
              reductionSize);
  metrics.maxAbsError = values.maxAbsError;
  metrics.maxRelError = values.maxRelError;
  metrics.calcDiff = values.calcDiff;
  metrics.sqnrDb = values.sqnrDb;
  return metrics;
}

QuantizedOutputBounds mlir::qmm::host::getQuantizedOutputBounds(
    const OperandSpec &output, int64_t m, int64_t n, int64_t numScales,
    const Reference &reference, ScaleRounding rounding, float minAmax,
    int64_t reductionSize, const AccumulationModel &model) {
  QuantizedOutputReference expected =
      analyzeQuantizedOutput(output, m, n, numScales, reference, rounding,
                             minAmax, reductionSize, model);
  QuantizedOutputBounds bounds;
  bounds.scales = expected.scaleRanges;
  bounds.values.resize(m * n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      int64_t i = r * n + c;
      double value = reference.values[i];
      auto [low, high] =
          expected.scaleRanges[getScaleIndex(output, m, n, r, c)];
      // Code x scale over the block's scale range: at its ends, at even
      // steps, and where the reference in units of the scale crosses a
      // binade (the unit changes) or fmax (saturation); in between, the
      // allowed products move linearly with the scale.
      SmallVector<double> samples;
      for (int step = 0; step <= 8; ++step)
        samples.push_back(low + (high - low) * step / 8);
      if (value != 0 && low > 0) {
        for (int e = std::ilogb(std::fabs(value) / high);
             e <= std::ilogb(std::fabs(value) / low) + 1; ++e) {
          double crossing = std::fabs(value) / std::ldexp(1.0, e);
          if (crossing > low && crossing < high)
            samples.push_back(crossing);
        }
        double saturation = std::fabs(value) / expected.fmax;
        if (saturation > low && saturation < high)
          samples.push_back(saturation);
      }
      double lowest = INFINITY, highest = -INFINITY;
      for (double scale : samples) {
        if (!(scale > 0))
          continue;
        AllowedCodes allowed(*expected.format, expected.fmax, value,
                             expected.errorBounds[i], scale);
        double first = std::max(
            -expected.fmax,
            allowed.target - getAllowance(allowed, expected.fmax, -1));
        double last = std::min(
            expected.fmax,
            allowed.target + getAllowance(allowed, expected.fmax, +1));
        lowest = std::min(lowest, first * scale);
        highest = std::max(highest, last * scale);
      }
      bounds.values[i] = {lowest, highest};
    }
  return bounds;
}

double mlir::qmm::host::getFormatQuantizationBudget(ElementType type) {
  switch (type) {
  case ElementType::F8E4M3FN:
  case ElementType::F8E4M3FNUZ:
    return 5e-4;
  case ElementType::F8E5M2:
  case ElementType::F8E5M2FNUZ:
  case ElementType::F6E2M3FN:
    return 2e-3;
  case ElementType::F6E3M2FN:
    return 4e-3;
  default:
    return 9.5e-3; // f4E2M1FN
  }
}

double mlir::qmm::host::getQuantizationThreshold(ElementType aType,
                                                 ElementType bType) {
  return getFormatQuantizationBudget(aType) +
         getFormatQuantizationBudget(bType);
}
