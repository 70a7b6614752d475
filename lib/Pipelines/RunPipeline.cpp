//===- RunPipeline.cpp - what every pipeline's entry point shares ---------===//

#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

void qmm::addFunctionBoundaryBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
}

llvm::Error
qmm::runPipeline(ModuleOp module,
                 llvm::function_ref<LogicalResult(OpPassManager &)> build,
                 bool withLocations) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    if (withLocations)
      os << d.getLocation() << ": " << d << "\n";
    else if (d.getSeverity() == DiagnosticSeverity::Error)
      os << d << "\n";
    return success();
  });
  PassManager pm(module.getContext());
  if (failed(build(pm)) || failed(pm.run(module)))
    return llvm::createStringError(diagnostics);
  return llvm::Error::success();
}

llvm::Expected<std::string> qmm::getFirstObject(ModuleOp module) {
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects())
      return cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  return llvm::createStringError("no gpu.binary was produced");
}
