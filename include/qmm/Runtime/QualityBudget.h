//===- QualityBudget.h - what the quantization tier allows -------*- C++ -*-===//
//
// The quantization tier compares a result with the f64 GEMM of the
// unquantized inputs. What it may differ by depends on the formats, on the
// recipe (a power-of-two rule clips values a rule of exact scales keeps)
// and on the data (cancelling sums make small outputs whose relative error
// is large; a GELU's tail is below f32's resolution of it). The budget is
// the larger of the formats' fixed budgets (DeepGEMM's 1e-3 for e4m3 x
// e4m3) and a quarter more than the calc_diff of an ideal quantizer of the
// recipe on these inputs, plus the output's own rounding. The ideal
// quantizer is written here in f64 from the op's definition (the rule's
// scale from the block's amax, round to nearest, saturation), apart from
// the quantizers it judges.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_QUALITYBUDGET_H
#define QMM_RUNTIME_QUALITYBUDGET_H

#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/Validation.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace mlir {
namespace qmm {
namespace host {

/// The values of a logical [rows][k] operand (f64, row-major) after an
/// ideal quantization by `operand`'s format and encoding with the scale
/// rule `rounding` and amax floor `minAmax`, dequantized, in f64 (NaN
/// where a block holds a non-finite value).
std::vector<double> quantizeIdeally(llvm::ArrayRef<double> values,
                                    const OperandSpec &operand, int64_t rows,
                                    int64_t k, ScaleRounding rounding,
                                    double minAmax);

/// The quantization tier's inputs, accumulated over the judged outputs.
struct QualityBudget {
  /// calc_diff's sums for the ideal quantizer's output against the
  /// unquantized one.
  double idealXY = 0, idealSquares = 0;
  /// Σ of the unquantized reference's squares.
  double signalEnergy = 0;
  /// Σ of what the output's own arithmetic may add, squared: its rounding
  /// (uniform within its ulp) and an activation's f32 evaluation (the
  /// exact tier's 2^-20 of the pre-activation).
  double roundingEnergy = 0;
  int64_t outputs = 0;

  /// Adds one output: the unquantized `reference`, the ideal quantizer's
  /// `ideal`, the pre-activation, rounded to `outputType`.
  void addOutput(double reference, double ideal, double preActivation,
                 Activation activation, ElementType outputType);
};

/// The tier's verdict rule for `budget`: calc_diff below `threshold`, or
/// not judged (`judged` false, `reason` why) where even the expected noise
/// is too large a part of the outputs' energy to tell a faulty quantizer
/// from an ideal one.
struct QualityThreshold {
  double threshold = 0;
  /// The calc_diff expected of a faithful quantizer: the ideal one's plus
  /// the output's rounding (energy / 2 signal).
  double expected = 0;
  /// The formats' fixed budget (getQuantizationThreshold's, plus an FP8
  /// output's): the threshold unless the recipe's ideal quantizer does
  /// worse on these data.
  double formatBudget = 0;
  bool judged = true;
  std::string reason;
};

/// `formatBudget`: getQuantizationThreshold's (plus an FP8 output's
/// format budget, `outputBudget`, also added to the expectation).
QualityThreshold getQualityThreshold(const QualityBudget &budget,
                                     double formatBudget,
                                     double outputBudget = 0);

} // namespace host
} // namespace qmm
} // namespace mlir

#endif
