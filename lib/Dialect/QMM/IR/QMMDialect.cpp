//===- QMMDialect.cpp - qmm dialect ---------------------------------------===//

#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::qmm;

#include "qmm/Dialect/QMM/IR/QMMOpsDialect.cpp.inc"

void QMMDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "qmm/Dialect/QMM/IR/QMMOps.cpp.inc"
      >();
}
