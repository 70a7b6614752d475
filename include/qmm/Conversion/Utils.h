//===- Utils.h - helpers shared by the qmm conversions ----------*- C++ -*-===//

#ifndef QMM_CONVERSION_UTILS_H
#define QMM_CONVERSION_UTILS_H

#include "qmm/Dialect/QMM/IR/QMMDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace qmm {

/// floor(log2(x)) of a non-negative f32 `x`, computed exactly from its bit
/// pattern (subnormals included) as an i32. Zero gives INT32_MIN / 2 so that
/// later clamping maps it to the smallest exponent. Undefined for NaN/Inf.
Value createFloorLog2(OpBuilder &b, Location loc, Value x);

/// ceil(log2(x)) of a positive finite f32 `x`, exact, as an i32.
Value createCeilLog2(OpBuilder &b, Location loc, Value x);

/// 2^e as an f32, exactly, for an i32 `e` in [-149, 127].
Value createExp2(OpBuilder &b, Location loc, Value e);

/// An f32 / i32 constant.
Value createF32(OpBuilder &b, Location loc, double value);
Value createI32(OpBuilder &b, Location loc, int64_t value);

/// `activation` (see #qmm.activation) of `x`, an f32 or a vector of f32,
/// in f32 with math.tanh / math.erf (targets without a math library
/// expand them into polynomials).
Value createActivation(OpBuilder &b, Location loc, Value x,
                       Activation activation);

} // namespace qmm
} // namespace mlir

#endif
