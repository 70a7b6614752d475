//===- Dequantization.h - dequantized operands of a contraction -*- C++ -*-===//
//
// A factor of a contraction is an operand dequantized from quantized data:
// in its own element-wise linalg.generic (possibly in steps, or on reshaped
// views) or in the contraction's body after elementwise fusion. These
// matchers read the data, the scale and the scale encoding off it, and say
// what stopped them (MissedRaise).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_LINALGTOQMM_DEQUANTIZATION_H
#define QMM_LIB_CONVERSION_LINALGTOQMM_DEQUANTIZATION_H

#include "MissedRaise.h"
#include "Scales.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::qmm::linalg_to_qmm {

/// The dequantization of one operand written in a linalg body:
/// * `x * s` (either order) or `x / s` (torchao's and PyTorch's reference
///   convention: the scale is then a reciprocal);
/// * `scaling_extf(q, s)` with E8M0 scales;
/// * `x` alone (a unit scale);
/// where `x` is quantized data `q` (an input's block argument, or a
/// truncf to a quantized type computed in the body) widened by arith.extf,
/// possibly in steps through bf16 or f16 (exact), and `s` is an
/// input's block argument or a scalar from outside (per tensor), possibly
/// converted in the body (isScaleConversion) or decoded from E8M0 bits
/// arithmetically (`2^(extui(e) - 127)` with exponent 255 selecting NaN,
/// as torchao writes it).
struct DequantizedValue {
  BlockArgument data;
  /// Or quantized data that exists only implicitly: `arith.truncf` of a
  /// value computed in the body to a quantized type (quantized and
  /// dequantized in one generic).
  Value implicitData;
  /// Null for a unit scale.
  Value scale;
  /// Scale steps repeated on the scale tensor.
  ScaleSteps steps;
  bool e8m0 = false;
  /// The body operations it takes.
  SmallVector<Operation *> ops;
};

/// Matches `value`, computed in `body`, as a DequantizedValue. The value is
/// f32, or bf16/f16 where it is quantized data only widened (exact).
std::optional<DequantizedValue> matchDequantizedValue(Value value, Block &body,
                                                      MissedRaise &why);

/// A dequantized operand: the quantized data, its scale (a tensor, or a
/// scalar for a per-tensor scale) and the encoding.
struct Dequantized {
  Value data;
  Value scale;
  /// Where the scale is stored otherwise than the encoding wants it.
  ScaleSteps steps;
  ScaleEncodingAttr encoding;
  /// Batched contractions: the scale tensor has a leading batch extent.
  bool scaleBatched = false;
  /// The data tensor holds the dequantized operand transposed (its last
  /// two dimensions swapped): read through a transposing map, or
  /// dequantized before a linalg.transpose.
  bool dataTransposed = false;
};

/// The operand `value` dequantizes, in `op`, whose body computes it: the
/// data and scale tensors (inputs of `op`) and the encoding read off the
/// scale's indexing map, the operand's rows and K being loop dimensions
/// `rowDim` and `kDim` (after `batchDims` batch loops).
std::optional<Dequantized>
classifyDequantized(RewriterBase &rewriter, linalg::LinalgOp op,
                    const DequantizedValue &value, unsigned rowDim,
                    unsigned kDim, unsigned batchDims, MissedRaise &why);

/// Matches `value` as the result of a dequantizing linalg.generic whose
/// body is a DequantizedValue alone, the data read through the identity
/// map or with its last two dimensions swapped. `rowDim` and `kDim` are
/// the loop dimensions holding the operand's rows and K (`batchDims`
/// leading ones are a batch). A dequantization on reshaped views (the
/// result collapsed by tensor.collapse_shape: blockwise scales on [R,
/// K/128, 128], K split in the data's type, rows over several dimensions)
/// is read as the generic on the collapsed loops, and one in element-wise
/// steps (or reading a scale broadcast by a generic of its own) as the
/// steps fused; what that builds goes at the rewriter's insertion point and
/// into `created`.
std::optional<Dequantized> matchDequantize(RewriterBase &rewriter, Value value,
                                           unsigned rowDim, unsigned kDim,
                                           unsigned batchDims,
                                           SmallVectorImpl<Operation *> &created,
                                           MissedRaise &why);

/// `generic` with the element-wise generic producing one of its inputs
/// fused into it (upstream's elementwise fusion), placed at the rewriter's
/// insertion point; `generic` and the producer stay as they are. Null when
/// no input's producer fuses.
linalg::GenericOp fuseInputProducer(RewriterBase &rewriter,
                                    linalg::GenericOp generic);

} // namespace mlir::qmm::linalg_to_qmm

#endif
