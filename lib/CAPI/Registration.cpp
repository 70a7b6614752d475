//===- Registration.cpp - C API: registering what qmm needs ---------------===//

#include "qmm-c/Registration.h"
#include "qmm/InitQMM.h"
#include "qmm/Pipelines/Pipelines.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <mutex>

void qmmRegisterRequiredDialects(MlirDialectRegistry registry) {
  mlir::qmm::registerQMMRequiredDialects(*unwrap(registry));
}

void qmmRegisterPasses(void) {
  // Registering a pipeline twice is a fatal error.
  static std::once_flag registered;
  std::call_once(registered, mlir::qmm::registerQMMPassesAndPipelines);
}

void qmmGetROCMToolkitPath(MlirStringCallback callback, void *userData) {
  std::string path = mlir::qmm::getToolkitPath();
  callback(mlirStringRefCreate(path.data(), path.size()), userData);
}
