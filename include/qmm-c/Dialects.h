//===- Dialects.h - C API for the qmm dialect ---------------------*- C -*-===//
//
// The qmm dialect's handle, in the upstream C API's style:
// mlirGetDialectHandle__qmm__() for mlirDialectHandleInsertDialect /
// mlirDialectHandleRegisterDialect / mlirDialectHandleLoadDialect.
// Registration.h registers everything qmm IR and its pipelines need.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_C_DIALECTS_H
#define QMM_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(QMM, qmm);

#ifdef __cplusplus
}
#endif

#endif // QMM_C_DIALECTS_H
