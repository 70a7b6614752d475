//===- Validate.cpp - the checks of a plan's outputs ----------------------===//
//
// The metrics of the three check kinds, in f64 over the decoded outputs:
//   bounds     lo_i <= d_i <= hi_i and d_i not NaN, for every element
//   sqnr       10 log10(sum r^2 / sum (d - r)^2) >= threshold (dB)
//   calc_diff  1 - 2 sum(d r) / sum(d^2 + r^2) < threshold (DeepGEMM's)
// NaN outputs fail sqnr and calc_diff and are left out of their sums so
// that the metric still says how close the rest is. A NaN reference
// leaves its element out of sqnr and calc_diff (an element the program
// must not write, which a bounds check of the same buffer judges). FP8 codes are judged
// as code x their block's scale (a 'scaled' line), both exact in f64.
//
//===----------------------------------------------------------------------===//

#include "Validate.h"

#include <cmath>
#include <cstring>

// The plan's data files and the device's buffers are little-endian.
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "qmm-cuda-run reads little-endian data as host values"
#endif

namespace qmmcuda {

namespace {

double decodeF16(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  unsigned exponent = (bits >> 10) & 0x1f;
  unsigned mantissa = bits & 0x3ff;
  if (exponent == 0) // zero and subnormals
    return sign * std::ldexp(static_cast<double>(mantissa), -24);
  if (exponent == 0x1f)
    return mantissa ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(static_cast<double>(mantissa | 0x400),
                           static_cast<int>(exponent) - 25);
}

/// An FP8 / E8M0 code's value (OCP definitions: E4M3FN has no infinity
/// and NaN at S.1111.111; E5M2 is IEEE-like; E8M0 is 2^(bits - 127) with
/// NaN at 0xFF).
double decodeSmallFloat(ElementType element, unsigned bits) {
  if (element == ElementType::F8E8M0FNU)
    return bits == 0xFF ? std::nan("") : std::ldexp(1.0, int(bits) - 127);
  bool isE4M3 = element == ElementType::F8E4M3FN;
  int mantissaBits = isE4M3 ? 3 : 2;
  int bias = isE4M3 ? 7 : 15;
  unsigned exponentMask = isE4M3 ? 0xF : 0x1F;
  double sign = (bits & 0x80) ? -1.0 : 1.0;
  unsigned exponent = (bits >> mantissaBits) & exponentMask;
  unsigned mantissa = bits & ((1u << mantissaBits) - 1);
  if (isE4M3 && exponent == 0xF && mantissa == 0x7)
    return std::nan("");
  if (!isE4M3 && exponent == 0x1F)
    return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(double(mantissa), 1 - bias - mantissaBits);
  return sign * std::ldexp(double(mantissa | (1u << mantissaBits)),
                           int(exponent) - bias - mantissaBits);
}

/// Element `i` of the checked output: decoded, times its scale for FP8
/// codes.
struct OutputReader {
  const PlanCheck &check;
  const unsigned char *output;
  const PlanScaling *scaling;
  const unsigned char *scales;
  double operator()(uint64_t i) const {
    unsigned elementBytes = getElementBytes(check.element);
    double value = decodeElement(check.element, output + i * elementBytes);
    if (!scaling)
      return value;
    uint64_t row = i / scaling->columns, column = i % scaling->columns;
    uint64_t index =
        row * scaling->scalesPerRow() + column / scaling->blockColumns;
    return value * decodeElement(scaling->scaleElement,
                                 scales + index * getElementBytes(
                                                      scaling->scaleElement));
  }
};

double loadF64(const unsigned char *bytes) {
  double value;
  std::memcpy(&value, bytes, 8);
  return value;
}

void evaluateBounds(const PlanCheck &check, const OutputReader &read,
                    const unsigned char *reference, CheckResult &result) {
  for (uint64_t i = 0; i < check.count; ++i) {
    double d = read(i);
    double lo = loadF64(reference + 16 * i);
    double hi = loadF64(reference + 16 * i + 8);
    bool isNan = std::isnan(d);
    result.nanCount += isNan;
    if (isNan || !(lo <= d && d <= hi)) {
      if (result.firstViolations.size() < 3)
        result.firstViolations.push_back({i, d, lo, hi});
      ++result.violations;
    }
    double distance = std::fabs(d - (lo + hi) / 2);
    if (distance > result.maxMidDistance) // NaN compares false: skipped
      result.maxMidDistance = distance;
  }
  result.metric = "violations";
  result.value = static_cast<double>(result.violations);
  result.criterion = formatString(
      "== 0 of %llu", static_cast<unsigned long long>(check.count));
  result.pass = result.violations == 0;
}

void evaluateReference(const PlanCheck &check, const OutputReader &read,
                       const unsigned char *reference, CheckResult &result) {
  double maxAbsReference = 0;
  for (uint64_t i = 0; i < check.count; ++i)
    maxAbsReference =
        std::fmax(maxAbsReference, std::fabs(loadF64(reference + 8 * i)));
  double sumR2 = 0, sumE2 = 0, sumDR = 0, sumD2R2 = 0;
  double relativeFloor = 1e-3 * maxAbsReference;
  for (uint64_t i = 0; i < check.count; ++i) {
    double r = loadF64(reference + 8 * i);
    if (std::isnan(r))
      continue;
    double d = read(i);
    if (std::isnan(d)) {
      ++result.nanCount;
      continue;
    }
    double error = d - r;
    sumR2 += r * r;
    sumE2 += error * error;
    sumDR += d * r;
    sumD2R2 += d * d + r * r;
    double absError = std::fabs(error);
    double denominator = std::fmax(std::fabs(r), relativeFloor);
    double relError = denominator > 0 ? absError / denominator
                      : absError == 0 ? 0.0
                                      : INFINITY;
    result.maxAbsError = std::fmax(result.maxAbsError, absError);
    result.maxRelError = std::fmax(result.maxRelError, relError);
  }
  bool noNan = result.nanCount == 0;
  if (check.kind == CheckKind::Sqnr) {
    result.metric = "sqnr_db";
    result.value = sumE2 == 0 ? INFINITY : 10 * std::log10(sumR2 / sumE2);
    result.criterion =
        ">= " + formatDouble(check.threshold) + " dB, no NaN";
    result.pass = noNan && result.value >= check.threshold;
  } else {
    result.metric = "calc_diff";
    result.value = sumD2R2 == 0 ? 0.0 : 1 - 2 * sumDR / sumD2R2;
    result.criterion = "< " + formatDouble(check.threshold) + ", no NaN";
    result.pass = noNan && result.value < check.threshold;
  }
}

} // namespace

double decodeElement(ElementType element, const unsigned char *bytes) {
  switch (element) {
  case ElementType::F32: {
    float value;
    std::memcpy(&value, bytes, 4);
    return value;
  }
  case ElementType::Bf16: {
    uint32_t bits = (uint32_t(bytes[1]) << 24) | (uint32_t(bytes[0]) << 16);
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
  }
  case ElementType::F16:
    return decodeF16(static_cast<uint16_t>(bytes[0] | (bytes[1] << 8)));
  case ElementType::F8E4M3FN:
  case ElementType::F8E5M2:
  case ElementType::F8E8M0FNU:
    return decodeSmallFloat(element, bytes[0]);
  }
  return std::nan("");
}

Status evaluateCheck(const PlanCheck &check, const unsigned char *output,
                     CheckResult &result, const PlanScaling *scaling,
                     const unsigned char *scales) {
  result = CheckResult();
  result.check = &check;
  uint64_t referenceBytes =
      check.count * (check.kind == CheckKind::Bounds ? 16 : 8);
  HostBytes reference;
  if (!reference.allocate(referenceBytes))
    return Status::error(formatString(
        "cannot allocate %llu bytes of host memory for '%s'",
        static_cast<unsigned long long>(referenceBytes), check.file.c_str()));
  if (Status status = readFileBytes(check.path, check.file, referenceBytes,
                                    reference.data());
      !status.isOk())
    return status;
  OutputReader read{check, output, scaling, scales};
  if (check.kind == CheckKind::Bounds)
    evaluateBounds(check, read, reference.data(), result);
  else
    evaluateReference(check, read, reference.data(), result);
  return Status::ok();
}

void printCheckResult(const CheckResult &result, std::FILE *out) {
  const PlanCheck &check = *result.check;
  std::fprintf(out, "check %s [%s]: %s %s=%s (%s) %s\n", check.label.c_str(),
               check.tier.c_str(), getCheckKindName(check.kind),
               result.metric.c_str(), formatDouble(result.value).c_str(),
               result.criterion.c_str(), result.pass ? "PASS" : "FAIL");
  if (check.kind == CheckKind::Bounds) {
    std::fprintf(out, "  max |d - (lo+hi)/2| = %s\n",
                 formatDouble(result.maxMidDistance).c_str());
    for (const BoundsViolation &violation : result.firstViolations)
      std::fprintf(out, "  violation at %llu: d=%s, lo=%s, hi=%s\n",
                   static_cast<unsigned long long>(violation.index),
                   formatDouble(violation.value, 9).c_str(),
                   formatDouble(violation.lo, 9).c_str(),
                   formatDouble(violation.hi, 9).c_str());
  } else {
    std::fprintf(out, "  max abs err %s, max rel err %s\n",
                 formatDouble(result.maxAbsError).c_str(),
                 formatDouble(result.maxRelError).c_str());
  }
  if (result.nanCount)
    std::fprintf(out, "  NaN in %llu of %llu outputs%s\n",
                 static_cast<unsigned long long>(result.nanCount),
                 static_cast<unsigned long long>(check.count),
                 check.kind == CheckKind::Bounds
                     ? ""
                     : " (left out of the metrics)");
}

} // namespace qmmcuda
