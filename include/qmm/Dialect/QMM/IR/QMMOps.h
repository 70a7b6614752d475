//===- QMMOps.h - qmm operations --------------------------------*- C++ -*-===//

#ifndef QMM_DIALECT_QMM_IR_QMMOPS_H
#define QMM_DIALECT_QMM_IR_QMMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"

#define GET_OP_CLASSES
#include "qmm/Dialect/QMM/IR/QMMOps.h.inc"

namespace mlir {
namespace qmm {
/// Rows of a group segment of a contiguous qmm.grouped_matmul start at
/// multiples of this (padding rows fill the gaps).
int64_t getGroupedMatmulMAlignment();

/// qmm.quantize's defaults (also those of an FP8 matmul output): the scale
/// rule is pow2_floor for E8M0 scales and none for f32 ones; amax is
/// clamped at 1e-4 (DeepGEMM) except under pow2_floor (OCP MX: no clamp).
ScaleRounding getDefaultScaleRounding(ScaleEncodingAttr encoding);
float getDefaultMinAmax(ScaleRounding rounding);
} // namespace qmm
} // namespace mlir

#endif // QMM_DIALECT_QMM_IR_QMMOPS_H
