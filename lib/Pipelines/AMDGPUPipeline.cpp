//===- AMDGPUPipeline.cpp - qmm to MFMA kernels for gfx942 / gfx950 -------===//

#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qmm;

LogicalResult qmm::buildAMDGPUPipeline(OpPassManager &pm,
                                       const AMDGPUPipelineOptions &options) {
  if (!lookupChip(options.chip))
    return failure();
  if (options.format != "gpu" && options.format != "llvm" &&
      options.format != "isa" && options.format != "bin")
    return failure();
  // The chip is recorded once in the IR; every stage reads it from there.
  // Legalize and configure on tensors, bufferize, run the legalization's
  // element-wise loops as kernels; then the matmul kernels stage by stage
  // (tiling, LDS promotion, MFMA, scales, epilogue); outline; expand the
  // math the kernels cannot call.
  pm.addPass(createQMMAttachTarget({options.chip}));
  pm.addPass(createQMMLegalizeForChip());
  QMMSelectConfigOptions select;
  select.override = options.config;
  select.tuningTable = options.tuningTable;
  select.dynamicM = options.dynamicM;
  pm.addPass(createQMMSelectConfig(select));
  addFunctionBoundaryBufferization(pm);
  pm.addNestedPass<func::FuncOp>(createQMMCopyStridedOperands());
  pm.addNestedPass<func::FuncOp>(createQMMLowerPackedTransposes());
  pm.addNestedPass<func::FuncOp>(createQMMLowerQuantizationToLoops());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createQMMParallelLoopsToGPU());
  pm.addPass(createQMMTileMatmul());
  // The kernel stages work function by function (in parallel when the
  // context is multithreaded), each reading the module's target.
  OpPassManager &functions = pm.nest<func::FuncOp>();
  functions.addPass(createQMMPromoteOperandsToLds());
  functions.addPass(createQMMLowerWaveMmaToMFMA());
  functions.addPass(createQMMLowerWaveScales());
  functions.addPass(createQMMPrefetchScales());
  functions.addPass(createQMMLowerWaveStore());
  pm.addPass(createGpuKernelOutliningPass());
  // Dynamic extents (a dynamic M) travel as index arguments: the code
  // objects pass memrefs as bare pointers.
  pm.addPass(createQMMKernelSizeArguments());
  pm.addNestedPass<gpu::GPUModuleOp>(createQMMExpandKernelMath());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.format == "gpu")
    return success();
  return buildGPUToBinaryPipeline(pm, options.chip, options.format,
                                  getToolkitPath());
}

llvm::Error qmm::runAMDGPUPipeline(ModuleOp module,
                                   const AMDGPUPipelineOptions &options) {
  return runPipeline(
      module,
      [&](OpPassManager &pm) { return buildAMDGPUPipeline(pm, options); },
      /*withLocations=*/true);
}

namespace {
struct AMDGPUPipelineCLOptions
    : public PassPipelineOptions<AMDGPUPipelineCLOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("target chip: gfx942 or gfx950"),
                           llvm::cl::init("gfx942")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu (GPU-level IR, what the emulator runs), llvm "
                     "(after the ROCDL conversion), isa (assembly) or bin "
                     "(code object)"),
      llvm::cl::init("bin")};
  Option<std::string> config{
      *this, "config",
      llvm::cl::desc("a #qmm.config<...> forced on every qmm.matmul")};
  Option<std::string> tuningTable{
      *this, "tuning-table",
      llvm::cl::desc("a tuning table (JSON) qmm-select-config takes configs "
                     "from (see fp8-run --tune)")};
  Option<int64_t> dynamicM{
      *this, "dynamic-m",
      llvm::cl::desc("the M a matmul with a dynamic M is configured for"),
      llvm::cl::init(kDefaultDynamicMBucket)};
};
} // namespace

void qmm::registerAMDGPUPipeline() {
  // Registered with an error handler so that a bad chip or format is a
  // diagnostic, not an abort.
  registerPassPipeline(
      "qmm-to-amdgpu-pipeline",
      "Compile qmm programs for gfx942 / gfx950: legalization, "
      "configuration, bufferization, MFMA kernels with LDS staging, then "
      "(format llvm, isa, bin) ROCDL and a code object",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        AMDGPUPipelineCLOptions cl;
        if (failed(cl.parseFromString(text)))
          return failure();
        if (!lookupChip(cl.chip))
          return errorHandler("qmm-to-amdgpu-pipeline: unknown chip '" +
                              cl.chip + "' (expected " + getSupportedChipNames() + ")");
        if (cl.format != "gpu" && cl.format != "llvm" && cl.format != "isa" &&
            cl.format != "bin")
          return errorHandler("qmm-to-amdgpu-pipeline: unknown format '" +
                              cl.format + "' (expected gpu, llvm, isa or bin)");
        if (cl.dynamicM <= 0)
          return errorHandler("qmm-to-amdgpu-pipeline: dynamic-m must be "
                              "positive");
        qmm::AMDGPUPipelineOptions options{cl.chip, cl.format, cl.config,
                                           cl.tuningTable, cl.dynamicM};
        return buildAMDGPUPipeline(pm, options);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(AMDGPUPipelineCLOptions());
      });
}
