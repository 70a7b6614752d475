//===- MissedRaise.cpp - why a contraction was not raised -----------------===//

#include "MissedRaise.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

std::string qmm::linalg_to_qmm::describeOp(Operation *op) {
  return ("`" + op->getName().getStringRef() + "`").str();
}

std::string qmm::linalg_to_qmm::describeProducer(Value value) {
  if (Operation *def = value.getDefiningOp())
    return describeOp(def);
  auto arg = cast<BlockArgument>(value);
  if (arg.getOwner()->isEntryBlock() &&
      isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return "a function argument";
  return "a block argument";
}

std::string qmm::linalg_to_qmm::describeType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}
