//===- QMMDialect.h - qmm dialect, enums and attributes ---------*- C++ -*-===//

#ifndef QMM_DIALECT_QMM_IR_QMMDIALECT_H
#define QMM_DIALECT_QMM_IR_QMMDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "qmm/Dialect/QMM/IR/QMMOpsDialect.h.inc"

#include "qmm/Dialect/QMM/IR/QMMEnums.h.inc"

namespace mlir::qmm {
struct MMAIntrinsicInfo;
} // namespace mlir::qmm

#define GET_ATTRDEF_CLASSES
#include "qmm/Dialect/QMM/IR/QMMAttrs.h.inc"

#endif // QMM_DIALECT_QMM_IR_QMMDIALECT_H
