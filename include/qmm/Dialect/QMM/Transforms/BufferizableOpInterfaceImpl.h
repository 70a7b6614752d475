//===- BufferizableOpInterfaceImpl.h - qmm bufferization --------*- C++ -*-===//

#ifndef QMM_DIALECT_QMM_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define QMM_DIALECT_QMM_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace qmm {
/// Attaches BufferizableOpInterface to the qmm ops so that one-shot
/// bufferization turns their tensor form into their memref form.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace qmm
} // namespace mlir

#endif
