//===- CPUPipeline.cpp - qmm to LLVM on the host CPU ----------------------===//

#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

/// Reference lowering, bufferization with identity layouts at function
/// boundaries (so callers pass plain dense buffers), ownership-based
/// deallocation, loops, exact small-float conversions, then LLVM.
static constexpr const char *kCPUPipeline =
    "qmm-lower-to-reference,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref,"
    "func.func(convert-linalg-to-loops),"
    "qmm-expand-float-conversions,"
    "arith-expand{include-bf16=true},"
    "lower-affine,"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "convert-vector-to-llvm,"
    "finalize-memref-to-llvm,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-arith-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts";

LogicalResult qmm::buildCPUPipeline(OpPassManager &pm) {
  return parsePassPipeline(kCPUPipeline, pm);
}

void qmm::registerQMMPipelines() {
  registerGPUToBinaryPipeline();
  registerAMDGPUPipeline();
  PassPipelineRegistration<>(
      "qmm-cpu-pipeline",
      "Lower qmm programs to the LLVM dialect for the host CPU (the cpu "
      "device of fp8-run): reference lowering, bufferization, loops, exact "
      "small-float conversions",
      [](OpPassManager &pm) {
        if (failed(buildCPUPipeline(pm)))
          llvm::report_fatal_error("qmm-cpu-pipeline: invalid pipeline text");
      });
}
