//===- Dialects.cpp - C API for the qmm dialect ---------------------------===//

#include "qmm-c/Dialects.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(QMM, qmm, mlir::qmm::QMMDialect)
