//===- QMMFormats.cpp - facts about qmm element formats -------------------===//

#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/StorageSize.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::qmm;

bool qmm::isMXElementType(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float6E2M3FNType,
             Float6E3M2FNType, Float4E2M1FNType>(type);
}

bool qmm::isFNUZType(Type type) {
  return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(type);
}

bool qmm::isQuantizedElementType(Type type) {
  return isMXElementType(type) || isFNUZType(type);
}

FormatFamily qmm::getFormatFamily(Type type) {
  return isFNUZType(type) ? FormatFamily::FNUZ : FormatFamily::OCP;
}

bool qmm::isHighPrecisionType(Type type) {
  return type.isF32() || type.isBF16() || type.isF16();
}

bool qmm::isScaleElementType(Type type) {
  return type.isF32() || isa<Float8E8M0FNUType>(type);
}

double qmm::getFormatMax(Type type) {
  const llvm::fltSemantics &sem = cast<FloatType>(type).getFloatSemantics();
  return llvm::APFloat::getLargest(sem).convertToDouble();
}

int qmm::getFormatMaxExponent(Type type) {
  const llvm::fltSemantics &sem = cast<FloatType>(type).getFloatSemantics();
  return llvm::ilogb(llvm::APFloat::getLargest(sem));
}

int64_t qmm::getBufferBytes(MemRefType type) {
  return getStorageBytes(type.getNumElements(), type.getElementType());
}

const char *qmm::getQuantizedElementTypeList() {
  return "f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E2M3FN, f6E3M2FN or "
         "f4E2M1FN";
}
