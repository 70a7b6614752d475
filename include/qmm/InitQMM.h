//===- InitQMM.h - register the qmm dialect and its extensions --*- C++ -*-===//

#ifndef QMM_INITQMM_H
#define QMM_INITQMM_H

namespace mlir {
class DialectRegistry;
namespace qmm {
/// Registers the qmm dialect and the external models (bufferization) that
/// tools need to process qmm IR.
void registerQMMDialectAndExtensions(DialectRegistry &registry);
} // namespace qmm
} // namespace mlir

#endif
