//===- InitQMM.cpp - register the qmm dialect and its extensions ----------===//

#include "qmm/InitQMM.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Dialect/QMM/Transforms/BufferizableOpInterfaceImpl.h"
#include "qmm/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::qmm::registerQMMDialectAndExtensions(DialectRegistry &registry) {
  registry.insert<QMMDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
}

void mlir::qmm::registerQMMRequiredDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates to LLVM IR and serializes for ROCDL.
  registerAllToLLVMIRTranslations(registry);
  registerQMMDialectAndExtensions(registry);
}

void mlir::qmm::registerQMMPassesAndPipelines() {
  registerQMMConversionPasses();
  registerQMMPipelines();
}
