//===- Pipelines.h - qmm pass pipelines -------------------------*- C++ -*-===//

#ifndef QMM_PIPELINES_PIPELINES_H
#define QMM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace qmm {

/// The `cpu` device's pipeline: qmm on tensors (or memrefs) to the LLVM
/// dialect, through the reference lowering. Function arguments and results
/// become plain dense memrefs (identity layouts).
LogicalResult buildCPUPipeline(OpPassManager &pm);

/// Registers the pipelines with the pass registry (for fp8-opt).
void registerQMMPipelines();

} // namespace qmm
} // namespace mlir

#endif
