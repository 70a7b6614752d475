//===- Validation.h - references and error metrics --------------*- C++ -*-===//

#ifndef QMM_RUNTIME_VALIDATION_H
#define QMM_RUNTIME_VALIDATION_H

#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostTensor.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace qmm {
namespace host {

struct Reference {
  /// D = A · B^T (+ C), in f64.
  std::vector<double> values;
  /// Σ_k |a·b| (+ |C|) per element: the scale of the f32 accumulation error.
  std::vector<double> magnitudes;
};

/// The f64 GEMM of A [m][k] and B [n][k] (logical row-major), plus C.
Reference referenceGemm(llvm::ArrayRef<double> a, llvm::ArrayRef<double> b,
                        llvm::ArrayRef<double> c, int64_t m, int64_t n,
                        int64_t k);

/// `ref` plus `bias[n]` on every row (`n` columns).
Reference addBias(const Reference &ref, llvm::ArrayRef<double> bias,
                  int64_t n);

/// `activation` (GELU tanh or erf, from their definitions in f64)
/// of every value. The error scale follows the largest slope of GELU
/// (1.13) plus its evaluation in f32 (2^-20 of the pre-activation), in the
/// units compare() uses for a reduction of `reductionSize`.
Reference applyActivation(const Reference &ref, Activation activation,
                          int64_t reductionSize);

/// The exact tier's criterion for f32 outputs: SQNR at least this (dB).
constexpr double kExactTierMinSqnrDb = 80.0;

struct ErrorMetrics {
  double maxAbsError = 0;
  /// max |d - r| / max(|r|, 1e-3 * max|r|): relative error, with a floor so
  /// near-zero references do not dominate.
  double maxRelError = 0;
  /// DeepGEMM's calc_diff: 1 - 2Σxy / Σ(x² + y²).
  double calcDiff = 0;
  /// 20 log10(‖r‖ / ‖d - r‖); +inf when equal.
  double sqnrDb = 0;
  /// bf16/f16 outputs: elements further from the reference rounded to the
  /// output type than one ulp of it plus the f32 accumulation error bound
  /// (k + 2) · 2^-24 · Σ|a·b|. (An f32 sum that cancels can be off by more
  /// than an output ulp without any bug; a wrong scale or layout is far
  /// beyond the bound.)
  int64_t ulpViolations = 0;
  /// Elements where d is NaN but r is finite, or d is finite but r is NaN
  /// or infinite.
  int64_t nanMismatches = 0;
  /// Elements whose reference is NaN or infinite, or whose products sum
  /// past f32's range (NaN or Inf inputs or scales, huge scales): judged
  /// only by whether they are finite (see compare), not in the statistics.
  int64_t outOfRangeElements = 0;
  /// FP8 outputs: blocks whose scale breaks the scale rule (see
  /// checkQuantizedOutput); their codes count in `ulpViolations`.
  int64_t scaleViolations = 0;
};

/// Whether element `i` of `ref` is NaN or infinite, or sums products past
/// f32's range: the output may then be NaN or infinite.
bool isBeyondF32(const Reference &ref, size_t i);

/// The values the exact tier accepts for element `i` of a bf16/f16 output
/// (`outputType`) of reference `ref` (whose k is `reductionSize`): the
/// reference rounded to the type, +- one ulp of it plus the f32
/// accumulation bound; a reference that rounds past the type's range
/// accepts that infinity or the largest finite value. (What compare()
/// counts as ulp violations; a launch plan carries these intervals to a
/// runner without this library.)
/// How a kernel's sums over K round: by default every addition in f32.
/// Matrix units that sum `chunk` products internally with fewer bits (unit
/// roundoff `chunkUnitRoundoff`) before each partial sum is added in f32
/// widen the bound to chunk * chunkUnitRoundoff + (ceil(K / chunk) + 2) *
/// 2^-24 per unit of magnitude (the standard gamma bound of each stage).
struct AccumulationModel {
  int64_t chunk = 0;
  double chunkUnitRoundoff = 0;
};

/// The bound on |computed - exact| of a K-sum, per unit of its magnitude
/// (sum of |a_k b_k|).
double getAccumulationBound(int64_t reductionSize,
                            const AccumulationModel &model = {});

std::pair<double, double>
getExactTierInterval(const Reference &ref, size_t i, ElementType outputType,
                     int64_t reductionSize,
                     const AccumulationModel &model = {});

/// `outputType` is the type D was produced in (f32, bf16, f16). With
/// `checkUlps`, counts `ulpViolations` against `reference` (whose k is
/// `reductionSize`). Elements marked in `excluded` are not judged (they
/// count in `outOfRangeElements`).
ErrorMetrics compare(llvm::ArrayRef<double> output, const Reference &reference,
                     ElementType outputType, bool checkUlps,
                     int64_t reductionSize,
                     llvm::ArrayRef<bool> excluded = {});

/// The exact tier of an FP8 output (`codes` [m, n] with `scales` by the
/// encoding of `output`, quantized by `rounding` / `minAmax`) against
/// the f64 reference D it quantizes, whose values the device computed in
/// f32 in some order (the error bound of compare(), with k =
/// `reductionSize`):
/// * each block's scale must be what the rule gives for some amax within
///   the block's error bound of the reference amax (one f32 ulp of slack
///   for the division of the `none` rule), NaN exactly when the reference
///   block holds a NaN;
/// * each element, in units of its block's scale, must lie within half a
///   unit of the format (at the larger of the code and the reference) of
///   the reference saturated to ±fmax, plus the error bound in those
///   units and 2^-21 relative for the f32 reciprocal.
/// Also returns the usual metrics of the dequantized output.
ErrorMetrics checkQuantizedOutput(const HostTensor &codes,
                                  const HostTensor &scales,
                                  const OperandSpec &output,
                                  const Reference &reference,
                                  ScaleRounding rounding, float minAmax,
                                  int64_t reductionSize);

/// The exact tier of an FP8 output as intervals, for a runner without
/// this library (a launch plan): the criteria of checkQuantizedOutput,
/// with the sums' error bound of `model`, where the codes are judged
/// times their block's scale (the runner does not know which scale in its
/// range the device chose): each element's interval covers the products
/// the criterion allows at the ends of its block's range, at steps
/// between them and where the reference in units of the scale crosses a
/// binade or the format's largest value. References must be finite.
struct QuantizedOutputBounds {
  /// Per scale (`numScales`, storage order): the range of the rule's
  /// scales for the amaxes within the block's error bound.
  std::vector<std::pair<double, double>> scales;
  /// Per element of [m, n]: the range of code x scale.
  std::vector<std::pair<double, double>> values;
};
QuantizedOutputBounds
getQuantizedOutputBounds(const OperandSpec &output, int64_t m, int64_t n,
                         int64_t numScales, const Reference &reference,
                         ScaleRounding rounding, float minAmax,
                         int64_t reductionSize,
                         const AccumulationModel &model = {});

/// Tier-2 calc_diff budget of one format: see getQuantizationThreshold.
double getFormatQuantizationBudget(ElementType type);

/// Tier-2 calc_diff threshold for an A x B format pair: each operand adds
/// its format's budget (e4m3 5e-4, e5m2 2e-3, e2m3 2e-3, e3m2 4e-3,
/// e2m1 9.5e-3), so FP8 e4m3 x e4m3 is held to DeepGEMM's 1e-3, one FP4
/// operand to ~1e-2 and two to ~2e-2.
double getQuantizationThreshold(ElementType aType, ElementType bType);

} // namespace host
} // namespace qmm
} // namespace mlir

#endif
