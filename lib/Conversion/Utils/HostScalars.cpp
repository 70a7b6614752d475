//===- HostScalars.cpp - evaluating host index arithmetic -----------------===//
//
// The host code of a compiled function computes grids, checks and
// allocation sizes from runtime extents with arith and affine ops. Both the
// host-program interpreter and the performance model evaluate that code;
// they do it through the ops' own folders, so there is one definition of
// what each op computes: upstream's.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

static bool isHostScalarType(Type type) {
  return type.isIndex() || type.isSignlessInteger();
}

bool qmm::isHostScalarOp(Operation *op) {
  // (Free of memory effects, not necessarily speculatable: a division by a
  // run-time value, a grid's rounds, evaluates too; by zero it does not
  // fold, and the caller reports it.)
  if (!isa_and_present<arith::ArithDialect, affine::AffineDialect>(
          op->getDialect()) ||
      op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isHostScalarType(op->getResult(0).getType()) ||
      !isMemoryEffectFree(op))
    return false;
  return llvm::all_of(op->getOperandTypes(), isHostScalarType);
}

std::optional<APInt> qmm::foldHostScalarOp(Operation *op,
                                           ArrayRef<APInt> operands) {
  if (!isHostScalarOp(op) || operands.size() != op->getNumOperands())
    return std::nullopt;
  SmallVector<Attribute> constants;
  for (auto [value, operand] : llvm::zip_equal(operands, op->getOperands())) {
    unsigned width = operand.getType().isIndex()
                         ? IndexType::kInternalStorageBitWidth
                         : operand.getType().getIntOrFloatBitWidth();
    constants.push_back(
        IntegerAttr::get(operand.getType(), value.zextOrTrunc(width)));
  }
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(constants, folded)) || folded.size() != 1)
    return std::nullopt;
  // A fold to one of the operands (x + 0) is that operand's value.
  if (auto value = dyn_cast<Value>(folded[0])) {
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (operand == value)
        return cast<IntegerAttr>(constants[i]).getValue();
    return std::nullopt;
  }
  auto attr = dyn_cast<IntegerAttr>(cast<Attribute>(folded[0]));
  if (!attr)
    return std::nullopt;
  return attr.getValue();
}
