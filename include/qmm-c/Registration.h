//===- Registration.h - C API: registering what qmm needs ---------*- C -*-===//
//
// What a C client registers before it parses qmm or frontend IR and runs
// qmm's passes and pipelines from a textual pipeline
// (mlirParsePassPipeline), as fp8-opt does.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_C_REGISTRATION_H
#define QMM_C_REGISTRATION_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Inserts into `registry` what qmm IR, the frontend IR it raises and its
/// pipelines need: every upstream dialect and extension, the translations
/// to LLVM IR (gpu-module-to-binary), and the qmm dialect with its external
/// models (bufferization).
MLIR_CAPI_EXPORTED void
qmmRegisterRequiredDialects(MlirDialectRegistry registry);

/// Registers qmm's passes (qmm-linalg-to-qmm, ...) and pipelines
/// (qmm-to-amdgpu-pipeline, qmm-to-nvvm-pipeline, qmm-to-cpu-pipeline, ...)
/// with the global registry; once per process, whatever the number of
/// calls. Upstream passes: mlirRegisterAllPasses (mlir-c/RegisterEverything.h).
MLIR_CAPI_EXPORTED void qmmRegisterPasses(void);

/// Calls `callback` with the toolkit directory the AMD pipeline links code
/// objects with (<toolkit>/llvm/bin/ld.lld; the rule is getToolkitPath()'s
/// in qmm/Pipelines/Pipelines.h).
MLIR_CAPI_EXPORTED void qmmGetROCMToolkitPath(MlirStringCallback callback,
                                              void *userData);

#ifdef __cplusplus
}
#endif

#endif // QMM_C_REGISTRATION_H
