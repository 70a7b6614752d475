//===- NVVMPipeline.cpp - qmm to PTX kernels for NVIDIA Hopper ------------===//
//
// The NVIDIA pipeline. Its first form compiles every supported qmm program
// to simple kernels: the reference lowering's loops, one thread per output
// element (qmm-parallel-loops-to-gpu), FP8 decoded with integer arithmetic
// (qmm-expand-kernel-math), then upstream's NVVM conversion and the NVPTX
// backend. It is what the cuda runner validates on an H100 today; the
// wgmma / TMA main loop replaces the matmul kernels stage by stage, as
// qmm-tile-matmul and its successors did on the AMD side.
//
//===----------------------------------------------------------------------===//

#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Target/NvidiaChip.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::qmm;

static bool isMatmulKernels(StringRef kernels) {
  return kernels == "wgmma" || kernels == "reference";
}

static bool isNVVMFormat(StringRef format) {
  return format == "gpu" || format == "llvm" || format == "ptx" ||
         format == "cubin";
}

std::string qmm::getCudaToolkitPath() {
  if (const char *path = std::getenv("QMM_CUDA_TOOLKIT"))
    return path;
  return "";
}

LogicalResult qmm::buildNVVMPipeline(OpPassManager &pm,
                                     const NVVMPipelineOptions &options) {
  const NvidiaChipInfo *chip = lookupNvidiaChip(options.chip);
  if (!chip || !isNVVMFormat(options.format) ||
      !isMatmulKernels(options.matmulKernels))
    return failure();
  // The chip, once, in the IR: every later stage reads it from there.
  pm.addPass(createQMMAttachTarget({options.chip}));
  // What the chip cannot run is refused on the qmm ops themselves.
  pm.addPass(createQMMCheckNvidiaSupport());
  addFunctionBoundaryBufferization(pm);
  if (options.matmulKernels == "wgmma")
    pm.addPass(createQMMLowerMatmulToWgmma(
        {/*chip=*/"", options.stages, /*rasterRows=*/8, options.clusterRows,
         options.clusterColumns, options.streamK, options.maxBlocks,
         options.promotionKTiles, options.dynamicSchedule, options.tileM,
         options.tileN, options.checkScalesAhead, options.stageScales,
         options.clusterReduction}));
  // What the wgmma kernels do not take runs as the reference loops.
  pm.addPass(createQMMLowerToReference());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createQMMParallelLoopsToGPU());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createQMMKernelSizeArguments());
  pm.addNestedPass<gpu::GPUModuleOp>(createQMMExpandKernelMath());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.format == "gpu")
    return success();
  return buildNVVMKernelPipeline(pm, options);
}

LogicalResult qmm::buildNVVMKernelPipeline(OpPassManager &pm,
                                           const NVVMPipelineOptions &options) {
  const NvidiaChipInfo *chip = lookupNvidiaChip(options.chip);
  if (!chip || !isNVVMFormat(options.format) || options.format == "gpu")
    return failure();
  GpuNVVMAttachTargetOptions target;
  target.chip = chip->name.str();
  target.features = chip->ptxFeatures.str();
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createQMMExpandIndexMaps());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  // Bare pointers: one .param per memref, what the runner's launch plan
  // passes (the offsets of static layouts are in the kernel's code).
  kernels.addPass(createConvertNVGPUToNVVMPass());
  // The math left in kernels (the fused multiply-adds of
  // qmm-expand-kernel-math's polynomials) as LLVM intrinsics:
  // convert-gpu-to-nvvm would call libdevice for them, unresolved in the
  // PTX unless a CUDA toolkit is found to link it, and a call makes ptxas
  // serialize wgmma.
  kernels.addPass(createConvertMathToLLVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  QMMExternDynamicSharedMemoryOptions dynamicShared;
  dynamicShared.alignment = 8 * chip->swizzleBytes;
  kernels.addPass(createQMMExternDynamicSharedMemory(dynamicShared));
  // Tensor maps as grid constants, the launch passing their bytes.
  kernels.addPass(createQMMTensorMapsByValue());
  // mbarrier waits and wgmma become inline PTX.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  if (options.format == "llvm")
    return success();
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format == "ptx" ? "isa" : "bin";
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  return success();
}

llvm::Expected<std::string>
qmm::compileNvidiaKernelModule(ModuleOp module, StringRef gpuModuleName,
                               const NVVMPipelineOptions &options) {
  llvm::Expected<OwningOpRef<ModuleOp>> clone =
      cloneWithOneKernelModule(module, gpuModuleName);
  if (!clone)
    return clone.takeError();
  if (llvm::Error error = runPipeline(
          **clone,
          [&](OpPassManager &pm) {
            return buildNVVMKernelPipeline(pm, options);
          },
          /*withLocations=*/false))
    return llvm::createStringError("compiling for " + options.chip +
                                   " failed: " +
                                   llvm::toString(std::move(error)));
  return getFirstObject(**clone);
}

llvm::Error qmm::runNVVMPipeline(ModuleOp module,
                                 const NVVMPipelineOptions &options) {
  return runPipeline(
      module,
      [&](OpPassManager &pm) { return buildNVVMPipeline(pm, options); },
      /*withLocations=*/true);
}

namespace {
struct NVVMPipelineCLOptions
    : public PassPipelineOptions<NVVMPipelineCLOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("target chip: sm_90a"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu (GPU-level IR), llvm (after the NVVM conversion), "
                     "ptx (PTX text in the gpu.binary, what the cuda runner "
                     "loads) or cubin (needs ptxas: toolkit=)"),
      llvm::cl::init("ptx")};
  Option<std::string> matmulKernels{
      *this, "matmul-kernels",
      llvm::cl::desc("wgmma (TMA and wgmma kernels where eligible, the "
                     "default) or reference (one thread per output)"),
      llvm::cl::init("wgmma")};
  Option<int64_t> stages{*this, "stages",
                         llvm::cl::desc("shared-memory stages of the wgmma "
                                        "kernels' ring"),
                         llvm::cl::init(kDefaultWgmmaStages)};
  Option<int64_t> clusterRows{
      *this, "cluster-rows",
      llvm::cl::desc("blocks of a wgmma kernel's cluster that share B's "
                     "tiles through TMA multicast (0, the default: chosen "
                     "per matmul, 2 for tiles of two waves; 1: no "
                     "clusters)"),
      llvm::cl::init(0)};
  Option<int64_t> clusterColumns{
      *this, "cluster-columns",
      llvm::cl::desc("blocks of a wgmma kernel's cluster that share A's "
                     "tiles through TMA multicast (1, the default: none)"),
      llvm::cl::init(1)};
  Option<bool> streamK{
      *this, "stream-k",
      llvm::cl::desc("split a wgmma kernel's last, at most half-full round "
                     "of tiles along K across the idle blocks (the "
                     "default)"),
      llvm::cl::init(true)};
  Option<int64_t> maxBlocks{
      *this, "max-blocks",
      llvm::cl::desc("the most persistent blocks of a wgmma kernel (0, the "
                     "default: one per multiprocessor)"),
      llvm::cl::init(0)};
  Option<int64_t> promotionKTiles{
      *this, "promotion-k-tiles",
      llvm::cl::desc("K tiles (128 products each) a wgmma kernel without "
                     "block scales sums between promotions into f32 (1: "
                     "as cuBLASLt's default FP8 mode; default 4)"),
      llvm::cl::init(kDefaultWgmmaPromotionKTiles)};
  Option<bool> dynamicSchedule{
      *this, "dynamic-schedule",
      llvm::cl::desc("wgmma kernels' blocks draw their tiles from a global "
                     "counter as they free up (unclustered kernels of "
                     "several rounds)"),
      llvm::cl::init(false)};
  Option<int64_t> tileM{
      *this, "tile-m",
      llvm::cl::desc("a wgmma kernel tile's rows, 64, 128 or 256 (0, the "
                     "default: chosen per matmul)"),
      llvm::cl::init(0)};
  Option<int64_t> tileN{
      *this, "tile-n",
      llvm::cl::desc("a wgmma kernel tile's columns, 64, 128 or 192 (0, "
                     "the default: chosen per matmul)"),
      llvm::cl::init(0)};
  Option<bool> checkScalesAhead{
      *this, "check-scales-ahead",
      llvm::cl::desc("with block scales on both operands, idle producer "
                     "warps check every scale once per launch, so that the "
                     "consumers' promotions skip a per-K-tile test "
                     "(default true)"),
      llvm::cl::init(true)};
  Option<bool> stageScales{
      *this, "stage-scales",
      llvm::cl::desc("block scales go through the ring, copied by TMA "
                     "beside each stage's tiles (default true)"),
      llvm::cl::init(true)};
  Option<bool> clusterReduction{
      *this, "cluster-reduction",
      llvm::cl::desc("a wgmma kernel's Stream-K parts of a tile add their "
                     "sums in one cluster's shared memory where every "
                     "block takes one part (default true)"),
      llvm::cl::init(true)};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("a CUDA installation holding bin/ptxas (format=cubin); "
                     "default $QMM_CUDA_TOOLKIT")};
};
} // namespace

void qmm::registerNVVMPipeline() {
  registerPassPipeline(
      "qmm-to-nvvm-pipeline",
      "Compile qmm programs for NVIDIA Hopper (sm_90a): support checks, the "
      "reference lowering's loops as kernels, then (format llvm, ptx, "
      "cubin) NVVM and PTX",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        NVVMPipelineCLOptions cl;
        if (failed(cl.parseFromString(text)))
          return failure();
        if (!lookupNvidiaChip(cl.chip))
          return errorHandler("qmm-to-nvvm-pipeline: unknown chip '" +
                              cl.chip + "' (expected " +
                              getSupportedNvidiaChipNames() + ")");
        if (!isNVVMFormat(cl.format))
          return errorHandler("qmm-to-nvvm-pipeline: unknown format '" +
                              cl.format +
                              "' (expected gpu, llvm, ptx or cubin)");
        std::string toolkit =
            cl.toolkit.empty() ? getCudaToolkitPath() : cl.toolkit.getValue();
        if (cl.format == "cubin" && toolkit.empty())
          return errorHandler("qmm-to-nvvm-pipeline: format=cubin needs "
                              "ptxas: give toolkit=<CUDA installation> or "
                              "set QMM_CUDA_TOOLKIT (format=ptx needs "
                              "neither: the driver compiles PTX at load)");
        if (!isMatmulKernels(cl.matmulKernels))
          return errorHandler("qmm-to-nvvm-pipeline: unknown matmul-kernels "
                              "'" +
                              cl.matmulKernels +
                              "' (expected wgmma or reference)");
        NVVMPipelineOptions options{cl.chip,
                                    cl.format,
                                    toolkit,
                                    cl.matmulKernels,
                                    cl.stages,
                                    cl.clusterRows,
                                    cl.clusterColumns,
                                    cl.streamK,
                                    cl.maxBlocks,
                                    cl.promotionKTiles,
                                    cl.dynamicSchedule,
                                    cl.tileM,
                                    cl.tileN,
                                    cl.checkScalesAhead,
                                    cl.stageScales,
                                    cl.clusterReduction};
        return buildNVVMPipeline(pm, options);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(NVVMPipelineCLOptions());
      });
}
