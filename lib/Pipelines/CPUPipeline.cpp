//===- CPUPipeline.cpp - qmm to LLVM on the host CPU ----------------------===//

#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::qmm;

/// Reference lowering, bufferization with identity layouts at function
/// boundaries (so callers pass plain dense buffers), ownership-based
/// deallocation, loops, exact small-float conversions, then LLVM.
LogicalResult qmm::buildCPUPipeline(OpPassManager &pm) {
  pm.addPass(createQMMLowerToReference());
  addFunctionBoundaryBufferization(pm);
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createQMMExpandFloatConversions());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return success();
}

void qmm::registerQMMPipelines() {
  registerGPUToBinaryPipeline();
  registerAMDGPUPipeline();
  registerNVVMPipeline();
  PassPipelineRegistration<>(
      "qmm-cpu-pipeline",
      "Lower qmm programs to the LLVM dialect for the host CPU (the cpu "
      "device of fp8-run): reference lowering, bufferization, loops, exact "
      "small-float conversions",
      [](OpPassManager &pm) {
        (void)buildCPUPipeline(pm);
      });
}
