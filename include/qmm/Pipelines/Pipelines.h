//===- Pipelines.h - qmm pass pipelines -------------------------*- C++ -*-===//

#ifndef QMM_PIPELINES_PIPELINES_H
#define QMM_PIPELINES_PIPELINES_H

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"

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

/// The toolkit directory holding llvm/bin/ld.lld: $QMM_ROCM_TOOLKIT, else
/// the one the build set up.
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

/// Registers the pipelines with the pass registry (for fp8-opt).
void registerQMMPipelines();
void registerGPUToBinaryPipeline();
void registerAMDGPUPipeline();

} // namespace qmm
} // namespace mlir

#endif
