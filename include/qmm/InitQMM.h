//===- InitQMM.h - register the qmm dialect and its extensions --*- C++ -*-===//

#ifndef QMM_INITQMM_H
#define QMM_INITQMM_H

namespace mlir {
class DialectRegistry;
namespace qmm {
/// Registers the qmm dialect and the external models (bufferization) that
/// tools need to process qmm IR.
void registerQMMDialectAndExtensions(DialectRegistry &registry);

/// Registers what fp8-opt registers: every upstream dialect and extension,
/// the translations to LLVM IR that gpu-module-to-binary needs, and the qmm
/// dialect with its extensions. What a tool or a C API client needs to parse
/// frontend IR and run the qmm pipelines on it.
void registerQMMRequiredDialects(DialectRegistry &registry);

/// Registers the qmm passes and pass pipelines with the global registry.
void registerQMMPassesAndPipelines();
} // namespace qmm
} // namespace mlir

#endif
