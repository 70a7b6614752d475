//===- HostFormats.cpp - host-side codec of the low-precision formats -----===//

#include "qmm/Runtime/HostFormats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

using namespace mlir::qmm;
using namespace mlir::qmm::host;

static const FormatSpec kFormats[] = {
    {ElementType::F8E4M3FN, 4, 3, 7, Specials::FN},
    {ElementType::F8E5M2, 5, 2, 15, Specials::IEEE},
    {ElementType::F8E4M3FNUZ, 4, 3, 8, Specials::FNUZ},
    {ElementType::F8E5M2FNUZ, 5, 2, 16, Specials::FNUZ},
    {ElementType::F6E2M3FN, 2, 3, 1, Specials::Finite},
    {ElementType::F6E3M2FN, 3, 2, 3, Specials::Finite},
    {ElementType::F4E2M1FN, 2, 1, 1, Specials::Finite},
    {ElementType::F8E8M0FNU, 8, 0, 127, Specials::E8M0},
    {ElementType::F16, 5, 10, 15, Specials::IEEE},
    {ElementType::BF16, 8, 7, 127, Specials::IEEE},
    {ElementType::F32, 8, 23, 127, Specials::IEEE},
};

const FormatSpec *mlir::qmm::host::lookupFormat(ElementType type) {
  for (const FormatSpec &format : kFormats)
    if (format.type == type)
      return &format;
  return nullptr;
}

double mlir::qmm::host::decode(const FormatSpec &f, uint32_t code) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (f.specials == Specials::E8M0)
    return code == 0xFF ? nan : std::ldexp(1.0, int(code) - 127);
  uint32_t signMask = 1u << (f.getBits() - 1);
  uint32_t magnitude = code & (signMask - 1);
  bool negative = code & signMask;
  uint32_t exponent = magnitude >> f.mantissaBits;
  uint32_t mantissa = magnitude & ((1u << f.mantissaBits) - 1);
  uint32_t allOnesExponent = (1u << f.exponentBits) - 1;
  switch (f.specials) {
  case Specials::IEEE:
    if (exponent == allOnesExponent)
      return mantissa ? nan
                      : (negative ? -std::numeric_limits<double>::infinity()
                                  : std::numeric_limits<double>::infinity());
    break;
  case Specials::FN:
    if (magnitude == signMask - 1)
      return nan;
    break;
  case Specials::FNUZ:
    if (code == signMask)
      return nan;
    break;
  case Specials::Finite:
  case Specials::E8M0:
    break;
  }
  double value =
      exponent == 0
          ? std::ldexp(double(mantissa), 1 - f.bias - f.mantissaBits)
          : std::ldexp(double((1u << f.mantissaBits) | mantissa),
                       int(exponent) - f.bias - f.mantissaBits);
  return negative ? -value : value;
}

namespace {
/// Positive finite values of a format in code order (which is value order).
struct PositiveTable {
  std::vector<double> values;
  std::vector<uint32_t> codes;
};
} // namespace

static const PositiveTable &getPositiveTable(const FormatSpec &f) {
  static std::mutex mutex;
  static std::map<const FormatSpec *, PositiveTable> tables;
  std::lock_guard<std::mutex> lock(mutex);
  PositiveTable &table = tables[&f];
  if (table.values.empty()) {
    uint32_t limit = f.specials == Specials::E8M0 ? (1u << f.getBits())
                                                  : (1u << (f.getBits() - 1));
    for (uint32_t code = 0; code < limit; ++code) {
      double value = decode(f, code);
      if (std::isfinite(value)) {
        table.values.push_back(value);
        table.codes.push_back(code);
      }
    }
  }
  return table;
}

double mlir::qmm::host::maxFinite(const FormatSpec &f) {
  return getPositiveTable(f).values.back();
}

int mlir::qmm::host::maxExponent(const FormatSpec &f) {
  return std::ilogb(maxFinite(f));
}

static uint32_t nanCode(const FormatSpec &f) {
  uint32_t signMask = 1u << (f.getBits() - 1);
  switch (f.specials) {
  case Specials::IEEE: // all-ones exponent, top mantissa bit: a quiet NaN
    return (((1u << f.exponentBits) - 1) << f.mantissaBits) |
           (1u << (f.mantissaBits - 1));
  case Specials::FN:
    return signMask - 1;
  case Specials::FNUZ:
    return signMask;
  case Specials::E8M0:
    return 0xFF;
  case Specials::Finite:
    return 0;
  }
  return 0;
}

uint32_t mlir::qmm::host::encodeSaturating(const FormatSpec &f, float value) {
  if (std::isnan(value))
    return nanCode(f);
  const PositiveTable &table = getPositiveTable(f);
  double magnitude = std::fabs(double(value));
  uint32_t code;
  if (magnitude >= table.values.back()) {
    code = table.codes.back();
  } else {
    // values[lo] <= magnitude < values[lo + 1]
    size_t hi = std::upper_bound(table.values.begin(), table.values.end(),
                                 magnitude) -
                table.values.begin();
    size_t lo = hi - 1;
    double below = magnitude - table.values[lo];
    double above = table.values[hi] - magnitude;
    if (below < above)
      code = table.codes[lo];
    else if (above < below)
      code = table.codes[hi];
    else // a tie goes to the even code, whose mantissa ends in 0
      code = (table.codes[lo] & 1) == 0 ? table.codes[lo] : table.codes[hi];
  }
  bool negative = std::signbit(value);
  bool hasNegativeZero = f.specials != Specials::FNUZ;
  if (negative && (code != 0 || hasNegativeZero))
    code |= 1u << (f.getBits() - 1);
  return code;
}

double mlir::qmm::host::roundToFormat(const FormatSpec &f, double value) {
  if (!std::isfinite(value))
    return value;
  if (value == 0)
    return value;
  // The spacing at |value|: 2^(exponent - mantissaBits), where subnormals
  // use the smallest normal exponent.
  int minExponent = 1 - f.bias;
  int exponent = std::max(std::ilogb(value), minExponent);
  double quantum = std::ldexp(1.0, exponent - f.mantissaBits);
  double rounded = std::nearbyint(value / quantum) * quantum; // ties-to-even
  double maxValue = std::ldexp(2.0 - std::ldexp(1.0, -f.mantissaBits),
                               (1 << f.exponentBits) - 2 - f.bias);
  if (std::fabs(rounded) > maxValue)
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  return rounded;
}

double mlir::qmm::host::ulpOf(const FormatSpec &f, double value) {
  int minExponent = 1 - f.bias;
  int exponent = value == 0 ? minExponent
                            : std::max(std::ilogb(value), minExponent);
  return std::ldexp(1.0, exponent - f.mantissaBits);
}
