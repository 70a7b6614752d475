//===- Pipelines.h - qmm pass pipelines -------------------------*- C++ -*-===//

#ifndef QMM_PIPELINES_PIPELINES_H
#define QMM_PIPELINES_PIPELINES_H

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"
#include "qmm/Conversion/NVVM/WgmmaPromotion.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
namespace qmm {

/// The `cpu` device's pipeline: qmm on tensors (or memrefs) to the LLVM
/// dialect, through the reference lowering. Function arguments and results
/// become plain dense memrefs (identity layouts).
LogicalResult buildCPUPipeline(OpPassManager &pm);

/// GPU-level IR (gpu.module with gpu/amdgpu/scf/arith/vector/memref ops) to
/// a gpu.binary for `chip`: ROCDL target attached, lowered with bare-pointer
/// memref arguments, serialized as assembly (`isa`) or a code object
/// (`bin`, linked with ld.lld from `toolkit`).
LogicalResult buildGPUToBinaryPipeline(OpPassManager &pm, llvm::StringRef chip,
                                       llvm::StringRef format,
                                       llvm::StringRef toolkit);

/// The toolkit directory holding llvm/bin/ld.lld, the first of:
///  1. $QMM_ROCM_TOOLKIT, when set and not empty (taken as it is);
///  2. the toolkit installed with qmm (`cmake --install`), beside the
///     binary holding this code: <dir>/../lib/qmm/toolkit for an
///     executable in <prefix>/bin, <dir>/qmm/toolkit for libQMMCAPI.so in
///     <prefix>/lib; found wherever the installed tree was moved;
///  3. the build tree's toolkit (build/toolkit), compiled in, while it
///     exists;
///  4. a toolkit made on first use in the user's cache directory
///     ($XDG_CACHE_HOME or ~/.cache, qmm/rocm-toolkit-llvm<major>), its
///     ld.lld a link to LLVM's own: the ld.lld in the bin/ beside the
///     libMLIR.so or libLLVM.so the process uses, else ld.lld-<LLVM major>
///     on PATH.
/// Else the build tree's directory (the pipeline then reports the missing
/// ld.lld). Installed and downstream binaries never need the build tree.
std::string getToolkitPath();

/// Runs the pipeline above on `module` in place, its error diagnostics
/// collected into the returned error.
llvm::Error runGPUToBinary(ModuleOp module, llvm::StringRef chip,
                           llvm::StringRef format);

/// Compiles the gpu.module of `module` that holds kernel `kernelName` for
/// `chip`, returning the object's bytes (format `bin`: an ELF code object;
/// `isa`: assembly). With `gpuModuleName`, only that gpu.module qualifies.
/// `module` is not modified.
llvm::Expected<std::string>
compileKernelModule(ModuleOp module, llvm::StringRef kernelName,
                    llvm::StringRef chip, llvm::StringRef format,
                    llvm::StringRef gpuModuleName = "");

/// A copy of `module` keeping only gpu.module `gpuModuleName` (when not
/// empty) holding kernel `kernelName` (when not empty), and the launches
/// of its kernels.
llvm::Expected<OwningOpRef<ModuleOp>>
cloneWithOneKernelModule(ModuleOp module, llvm::StringRef gpuModuleName,
                         llvm::StringRef kernelName = "");

struct AMDGPUPipelineOptions {
  std::string chip = "gfx942";
  /// gpu, llvm, isa or bin.
  std::string format = "bin";
  /// A #qmm.config<...> forced on every qmm.matmul; empty to let
  /// qmm-select-config choose.
  std::string config;
  /// A tuning table qmm-select-config reads (empty: none).
  std::string tuningTable;
  /// The M a matmul with a dynamic M is configured for.
  int64_t dynamicM = kDefaultDynamicMBucket;
};

/// The AMD pipeline: qmm on tensors to GPU-level kernels (format `gpu`, the
/// IR the emulator runs), then to ROCDL (`llvm`) and a gpu.binary holding
/// assembly (`isa`) or a code object (`bin`). Fails on an unknown chip or
/// format.
LogicalResult buildAMDGPUPipeline(OpPassManager &pm,
                                  const AMDGPUPipelineOptions &options);

/// Runs the AMD pipeline on `module` in place; the error holds the
/// diagnostics, each with its location.
llvm::Error runAMDGPUPipeline(ModuleOp module,
                              const AMDGPUPipelineOptions &options);

struct NVVMPipelineOptions {
  std::string chip = "sm_90a";
  /// gpu, llvm, ptx or cubin.
  std::string format = "ptx";
  /// A CUDA installation with bin/ptxas (cubin only).
  std::string toolkit;
  /// How matmuls run: `wgmma` (the TMA / wgmma kernel where the matmul is
  /// eligible, qmm-lower-matmul-to-wgmma) or `reference` (the reference
  /// lowering's loops, one thread per output).
  std::string matmulKernels = "wgmma";
  /// Stages of the wgmma kernel's shared-memory ring.
  int64_t stages = kDefaultWgmmaStages;
  /// Blocks of a wgmma kernel's cluster that share B's tiles (TMA
  /// multicast; 0, the default: chosen per matmul; 1: no clusters).
  int64_t clusterRows = 0;
  /// Blocks of a wgmma kernel's cluster that share A's tiles (TMA
  /// multicast; 1, the default: none).
  int64_t clusterColumns = 1;
  /// Whether a wgmma kernel splits a last, at most half-full round of
  /// tiles along K (Stream-K).
  bool streamK = true;
  /// The most persistent blocks of a wgmma kernel (0: one per
  /// multiprocessor).
  int64_t maxBlocks = 0;
  /// K tiles a wgmma kernel without block scales sums between promotions
  /// into f32 (qmm-lower-matmul-to-wgmma's promotion-k-tiles).
  int64_t promotionKTiles = kDefaultWgmmaPromotionKTiles;
  /// Whether a wgmma kernel's blocks draw their tiles from a counter as
  /// they free up (qmm-lower-matmul-to-wgmma's dynamic-schedule).
  bool dynamicSchedule = false;
  /// A wgmma kernel tile's rows and columns (qmm-lower-matmul-to-wgmma's
  /// tile-m and tile-n; 0: chosen per matmul).
  int64_t tileM = 0, tileN = 0;
  /// Whether idle producer warps check block scales once per launch
  /// (qmm-lower-matmul-to-wgmma's check-scales-ahead).
  bool checkScalesAhead = true;
  /// Whether block scales go through shared memory
  /// (qmm-lower-matmul-to-wgmma's stage-scales).
  bool stageScales = true;
  /// Whether a tile's Stream-K parts add their sums in one cluster
  /// (qmm-lower-matmul-to-wgmma's cluster-reduction).
  bool clusterReduction = true;
};

/// The NVIDIA pipeline: qmm on tensors to kernels for an NVIDIA chip
/// (format `gpu`), NVVM (`llvm`) and a gpu.binary holding PTX (`ptx`) or a
/// cubin (`cubin`, with ptxas from `toolkit`). Fails on an unknown chip or
/// format.
LogicalResult buildNVVMPipeline(OpPassManager &pm,
                                const NVVMPipelineOptions &options);
/// The NVIDIA pipeline's back half, on a module whose kernels are
/// outlined (format `gpu`): the NVVM target attached, the kernels lowered
/// with bare-pointer memref arguments, then PTX or a cubin.
LogicalResult buildNVVMKernelPipeline(OpPassManager &pm,
                                      const NVVMPipelineOptions &options);
/// The PTX (format ptx) or cubin of gpu.module `gpuModuleName` of `module`
/// (format gpu), compiled by the back half; `module` is not modified.
llvm::Expected<std::string>
compileNvidiaKernelModule(ModuleOp module, llvm::StringRef gpuModuleName,
                          const NVVMPipelineOptions &options);
/// Runs the NVIDIA pipeline on `module` in place; the error holds the
/// diagnostics, each with its location.
llvm::Error runNVVMPipeline(ModuleOp module,
                            const NVVMPipelineOptions &options);
/// $QMM_CUDA_TOOLKIT, else empty (no CUDA toolkit is needed for PTX).
std::string getCudaToolkitPath();

/// One-shot bufferization with identity layouts at function boundaries
/// (callers pass plain dense buffers): the step every pipeline shares.
void addFunctionBoundaryBufferization(OpPassManager &pm);
/// Builds a pass manager with `build` and runs it on `module`; the error
/// holds the diagnostics: all, each after its location, with
/// `withLocations`; else the errors alone.
llvm::Error runPipeline(ModuleOp module,
                        llvm::function_ref<LogicalResult(OpPassManager &)>
                            build,
                        bool withLocations);
/// The bytes of the first object of `module`'s gpu.binary ops.
llvm::Expected<std::string> getFirstObject(ModuleOp module);

/// Registers the pipelines with the pass registry (for fp8-opt).
void registerQMMPipelines();
void registerGPUToBinaryPipeline();
void registerAMDGPUPipeline();
void registerNVVMPipeline();

} // namespace qmm
} // namespace mlir

#endif
