//===- Scales.h - scale tensors of raised qmm.matmuls ------------*- C++ -*-===//
//
// A dequantization's scale encoding is read off the map its scale is read
// through. qmm.matmul takes its scales as rank-2 tensors of the encoding's
// shape and element type; frontends hand them over as scalars, 0-d, 1-d or
// keepdim tensors, possibly stored in another float type and converted in
// the dequantization's body. This builds the tensor qmm.matmul takes, in a
// form every device's host code runs: reshapes, dense constants and
// element-wise linalg ops (which become kernels), no scalar loads or
// stores on the host.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_LINALGTOQMM_SCALES_H
#define QMM_LIB_CONVERSION_LINALGTOQMM_SCALES_H

#include "MissedRaise.h"

#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::qmm::linalg_to_qmm {

/// The encoding a scale read through `map` describes, the operand's rows
/// and K being loop dimensions `rowDim` and `kDim` of the dequantization
/// (`batchResults` leading results of the map are the batch dimension, and
/// are skipped). Null when the map is not a supported broadcast.
ScaleEncodingAttr classifyScaleMap(MLIRContext *ctx, AffineMap map,
                                   unsigned rowDim, unsigned kDim, bool e8m0,
                                   unsigned batchResults);

/// How a scale is stored otherwise than its encoding wants it: each step
/// is repeated element-wise on the scale tensor by the raising.
struct ScaleSteps {
  /// The dequantization's conversion to f32 (isScaleConversion), cloned.
  Operation *conversion = nullptr;
  /// E8M0 exponents stored as 8-bit integers (decoded arithmetically in the
  /// dequantization): bitcast to f8E8M0FNU.
  bool e8m0Bits = false;
  /// The dequantization divides by the scale (an arith.divf): the scale
  /// becomes its reciprocal, by a clone of that division.
  Operation *division = nullptr;
};

/// Whether `op` converts a scale to the f32 a dequantization multiplies
/// by in a way the raising repeats on the scale tensor: arith.extf of
/// E8M0, bf16 or f16, or arith.truncf of f64. (The raising clones the op,
/// so its rounding mode and fast-math flags are kept.)
bool isScaleConversion(Operation *op);

/// `scale` as the tensor `encoding` wants for an operand of `rows` x `k`
/// (rows may be dynamic: a dynamic M), built at `b`'s insertion point:
/// reshaped (a scalar or 0-d scale to [1, 1], a vector to a column or
/// row), and converted element-wise as `steps` say. A null `scale` is the
/// unit scale. Null when the scale does not fit the encoding, or is a scalar
/// computed outside (see materializeScalarScale in Scales.cpp).
Value materializeScale(OpBuilder &b, Location loc, Value scale,
                       const ScaleSteps &steps, ScaleEncodingAttr encoding,
                       int64_t rows, int64_t k);

/// Scales applied after the product (torch._scaled_mm: (A_q @ B_q) * sa *
/// sb): an element-wise linalg.generic multiplying a unit-scale qmm.matmul's
/// result (read whole, by nothing else) by per-tensor or per-row (A) /
/// per-column (B) f32 scales becomes that qmm.matmul with those scales (per
/// batch after a batched product). On success the replaced qmm.matmul is
/// added to `dead`; on failure the IR is as it was and `why` says why.
LogicalResult foldScalesIntoMatmul(RewriterBase &rewriter,
                                   linalg::GenericOp generic,
                                   SmallVectorImpl<Operation *> &dead,
                                   MissedRaise &why);

} // namespace mlir::qmm::linalg_to_qmm

#endif
