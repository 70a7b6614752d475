//===- HostFormats.h - host-side codec of the low-precision formats -*- C++ -*-===//
//
// The runner's own encoder and decoder for every element and scale format.
// Written from the format definitions (OCP FP8, OCP MX v1.0, the FNUZ
// variants) independently of the compiler: it shares no code with the MLIR
// lowering, which reads APFloat semantics, so each checks the other.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_HOSTFORMATS_H
#define QMM_RUNTIME_HOSTFORMATS_H

#include "qmm/Runtime/ElementType.h"

#include <cstdint>

namespace mlir {
namespace qmm {
namespace host {

/// How a format spends its special encodings.
enum class Specials {
  IEEE,   ///< all-ones exponent: Inf (zero mantissa) and NaN (f16, bf16, e5m2)
  FN,     ///< all-ones magnitude is NaN, no Inf (e4m3fn)
  FNUZ,   ///< 1000...0 is NaN, no -0, no Inf (e4m3fnuz, e5m2fnuz)
  Finite, ///< no NaN, no Inf (FP6, FP4)
  E8M0    ///< unsigned power of two, 0xFF is NaN
};

struct FormatSpec {
  ElementType type;
  int exponentBits;
  int mantissaBits;
  int bias;
  Specials specials;

  int getBits() const { return getElementBitWidth(type); }
};

/// The format of a float element type (every type but i32), or null.
const FormatSpec *lookupFormat(ElementType type);

/// The exact value of `code`; NaN for NaN encodings.
double decode(const FormatSpec &format, uint32_t code);

/// Largest finite value and its exponent (emax_elem of OCP MX).
double maxFinite(const FormatSpec &format);
int maxExponent(const FormatSpec &format);

/// Quantizer rounding: nearest representable value, ties to the even code,
/// saturating to ±max (Inf included); NaN becomes the format's NaN, or 0 when
/// it has none; -0 keeps its sign where the format has -0. Not for E8M0.
uint32_t encodeSaturating(const FormatSpec &format, float value);

/// Round-to-nearest-even of a double to f16 / bf16 / f32, non-saturating
/// (overflow gives Inf), returned as a double; used to judge outputs.
double roundToFormat(const FormatSpec &format, double value);

/// Distance from `value` (a value of the format) to the next representable
/// value away from zero: one unit in the last place.
double ulpOf(const FormatSpec &format, double value);

} // namespace host
} // namespace qmm
} // namespace mlir

#endif
