//===- GPUToBinary.cpp - GPU-level IR to AMDGPU code objects --------------===//

#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Target/Chip.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

LogicalResult qmm::buildGPUToBinaryPipeline(OpPassManager &pm,
                                            StringRef chip, StringRef format,
                                            StringRef toolkit) {
  if (format != "llvm" && format != "isa" && format != "bin")
    return failure();
  GpuROCDLAttachTargetOptions target;
  target.chip = chip.str();
  pm.addPass(createGpuROCDLAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Views (the groups of a grouped matmul) become explicit offsets and
  // strides before the ROCDL conversion.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createQMMExpandIndexMaps());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = chip.str();
  rocdl.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  kernels.addPass(createReconcileUnrealizedCastsPass());
  // Direct loads to LDS and LDS reads in disjoint alias scopes: LLVM then
  // lets the reads run while the next tile's loads are in flight.
  kernels.addPass(createQMMScopeLdsDma());
  // `llvm` stops after the ROCDL conversion.
  if (format != "llvm") {
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = format.str();
    binary.toolkitPath = toolkit.str();
    pm.addPass(createGpuModuleToBinaryPass(binary));
  }
  return success();
}

llvm::Error qmm::runGPUToBinary(ModuleOp module, StringRef chip,
                                StringRef format) {
  if (llvm::Error error = runPipeline(
          module,
          [&](OpPassManager &pm) {
            return buildGPUToBinaryPipeline(pm, chip, format,
                                            getToolkitPath());
          },
          /*withLocations=*/false))
    return llvm::createStringError("compiling for " + chip.str() +
                                   " failed: " +
                                   llvm::toString(std::move(error)));
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
qmm::cloneWithOneKernelModule(ModuleOp module, StringRef gpuModuleName,
                              StringRef kernelName) {
  OwningOpRef<ModuleOp> clone = module.clone();
  gpu::GPUModuleOp kept;
  for (auto gpuModule :
       llvm::make_early_inc_range(clone->getOps<gpu::GPUModuleOp>())) {
    if (!kept &&
        (kernelName.empty() ||
         gpuModule.lookupSymbol<gpu::GPUFuncOp>(kernelName)) &&
        (gpuModuleName.empty() || gpuModule.getName() == gpuModuleName))
      kept = gpuModule;
    else
      gpuModule.erase();
  }
  if (!kept && kernelName.empty())
    return llvm::createStringError("no gpu.module @%s",
                                   gpuModuleName.str().c_str());
  if (!kept)
    return llvm::createStringError("no gpu.module holds kernel @%s",
                                   kernelName.str().c_str());
  // Launches of the other modules' kernels would no longer verify.
  clone->walk([&](gpu::LaunchFuncOp launch) {
    if (launch.getKernelModuleName() != kept.getName())
      launch.erase();
  });
  return clone;
}

llvm::Expected<std::string> qmm::compileKernelModule(ModuleOp module,
                                                     StringRef kernelName,
                                                     StringRef chip,
                                                     StringRef format,
                                                     StringRef gpuModuleName) {
  llvm::Expected<OwningOpRef<ModuleOp>> clone =
      cloneWithOneKernelModule(module, gpuModuleName, kernelName);
  if (!clone)
    return clone.takeError();
  if (llvm::Error error = runGPUToBinary(**clone, chip, format))
    return std::move(error);
  return getFirstObject(**clone);
}

namespace {
struct GPUToBinaryOptions : public PassPipelineOptions<GPUToBinaryOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("target chip: gfx942 or gfx950"),
                           llvm::cl::init("gfx942")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (assembly) or bin (code object)"),
      llvm::cl::init("bin")};
};
} // namespace

void qmm::registerGPUToBinaryPipeline() {
  registerPassPipeline(
      "qmm-gpu-to-binary",
      "Lower GPU-level IR (gpu.module kernels with amdgpu ops) to a "
      "gpu.binary for an AMD GPU: ROCDL with bare-pointer memref "
      "arguments, then assembly or a code object linked with Debian's ld.lld",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GPUToBinaryOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (!lookupChip(options.chip))
          return errorHandler("qmm-gpu-to-binary: unknown chip '" +
                              options.chip + "' (expected " + getSupportedChipNames() + ")");
        if (options.format != "isa" && options.format != "bin" &&
            options.format != "llvm")
          return errorHandler("qmm-gpu-to-binary: unknown format '" +
                              options.format + "' (expected llvm, isa or bin)");
        return buildGPUToBinaryPipeline(pm, options.chip, options.format,
                                        getToolkitPath());
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(GPUToBinaryOptions());
      });
}
