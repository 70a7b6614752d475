//===- InitQMM.h - register the qmm dialect and its extensions --*- C++ -*-===//

#ifndef QMM_INITQMM_H
#define QMM_INITQMM_H

namespace mlir {
class DialectRegistry;
namespace qmm {
/// Registers the qmm dialect and the external models (bufferization) that
/// tools need to process qmm IR.
void registerQMMDialectAndExtensions(DialectRegistry &registry);

/// Registers the qmm passes and pass pipelines with the global registry.
void registerQMMPassesAndPipelines();
} // namespace qmm
} // namespace mlir

#endif
