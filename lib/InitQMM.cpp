//===- InitQMM.cpp - register the qmm dialect and its extensions ----------===//

#include "qmm/InitQMM.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Dialect/QMM/Transforms/BufferizableOpInterfaceImpl.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::qmm::registerQMMDialectAndExtensions(DialectRegistry &registry) {
  registry.insert<QMMDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
}
