//===- ElementType.cpp - element types of the runtime's buffers -----------===//

#include "qmm/Runtime/ElementType.h"

#include "qmm/Dialect/QMM/IR/StorageSize.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::qmm;

namespace {
struct ElementTypeInfo {
  ElementType type;
  llvm::StringLiteral name;
  unsigned bitWidth;
  Type (*getType)(MLIRContext *);
};
} // namespace

template <typename T> static Type getBuiltin(MLIRContext *context) {
  return T::get(context);
}

static Type getI32(MLIRContext *context) {
  return IntegerType::get(context, 32);
}

static Type getI8(MLIRContext *context) { return IntegerType::get(context, 8); }

/// In the enum's order.
static const ElementTypeInfo kElementTypes[] = {
    {ElementType::F32, "f32", 32, getBuiltin<Float32Type>},
    {ElementType::BF16, "bf16", 16, getBuiltin<BFloat16Type>},
    {ElementType::F16, "f16", 16, getBuiltin<Float16Type>},
    {ElementType::F8E4M3FN, "f8E4M3FN", 8, getBuiltin<Float8E4M3FNType>},
    {ElementType::F8E5M2, "f8E5M2", 8, getBuiltin<Float8E5M2Type>},
    {ElementType::F8E4M3FNUZ, "f8E4M3FNUZ", 8,
     getBuiltin<Float8E4M3FNUZType>},
    {ElementType::F8E5M2FNUZ, "f8E5M2FNUZ", 8,
     getBuiltin<Float8E5M2FNUZType>},
    {ElementType::F6E2M3FN, "f6E2M3FN", 6, getBuiltin<Float6E2M3FNType>},
    {ElementType::F6E3M2FN, "f6E3M2FN", 6, getBuiltin<Float6E3M2FNType>},
    {ElementType::F4E2M1FN, "f4E2M1FN", 4, getBuiltin<Float4E2M1FNType>},
    {ElementType::F8E8M0FNU, "f8E8M0FNU", 8, getBuiltin<Float8E8M0FNUType>},
    {ElementType::I32, "i32", 32, getI32},
    {ElementType::I8, "i8", 8, getI8},
};

static const ElementTypeInfo &getInfo(ElementType type) {
  // Looked up, not indexed: the table's order cannot drift from the enum's.
  for (const ElementTypeInfo &info : kElementTypes)
    if (info.type == type)
      return info;
  llvm_unreachable("an ElementType missing from kElementTypes");
}

llvm::StringRef qmm::getElementTypeName(ElementType type) {
  return getInfo(type).name;
}

std::optional<ElementType> qmm::parseElementTypeName(llvm::StringRef name) {
  for (const ElementTypeInfo &info : kElementTypes)
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

unsigned qmm::getElementBitWidth(ElementType type) {
  return getInfo(type).bitWidth;
}

int64_t qmm::getStorageBytes(int64_t count, ElementType type) {
  return getStorageBytes(count, getElementBitWidth(type));
}

Type qmm::getMLIRType(ElementType type, MLIRContext *context) {
  return getInfo(type).getType(context);
}

std::optional<ElementType> qmm::getElementType(Type type) {
  if (!type)
    return std::nullopt;
  for (const ElementTypeInfo &info : kElementTypes)
    if (info.getType(type.getContext()) == type)
      return info.type;
  return std::nullopt;
}

ElementType qmm::toElementType(Type type) {
  std::optional<ElementType> elementType = getElementType(type);
  if (!elementType)
    llvm::report_fatal_error("qmm runtime: no element type for an MLIR type "
                             "outside its table");
  return *elementType;
}
