//===- ElementType.h - element types of the runtime's buffers ---*- C++ -*-===//
//
// The element types host tensors, devices and validation work with, as an
// enum with one table behind it (MLIR spelling, bit width, MLIR type).
// Names appear only at the edges: command lines, .npy/JSON files, messages.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_ELEMENTTYPE_H
#define QMM_RUNTIME_ELEMENTTYPE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace qmm {

enum class ElementType : uint8_t {
  F32,
  BF16,
  F16,
  F8E4M3FN,
  F8E5M2,
  F8E4M3FNUZ,
  F8E5M2FNUZ,
  F6E2M3FN,
  F6E3M2FN,
  F4E2M1FN,
  F8E8M0FNU,
  I32, ///< group indices and counts of grouped GEMMs
  I8,  ///< raw bytes, e.g. E8M0 exponents a frontend decodes itself
};

/// The MLIR spelling ("f8E4M3FN"), as files, JSON and messages use it.
llvm::StringRef getElementTypeName(ElementType type);

/// The type spelled `name` in MLIR, or none.
std::optional<ElementType> parseElementTypeName(llvm::StringRef name);

/// Bits of one element: 4, 6, 8, 16 or 32.
unsigned getElementBitWidth(ElementType type);

/// Bytes of `count` elements stored densely (sub-byte elements packed).
int64_t getStorageBytes(int64_t count, ElementType type);

/// The MLIR type, and back (none for types outside the table).
Type getMLIRType(ElementType type, MLIRContext *context);
std::optional<ElementType> getElementType(Type type);

/// getElementType of a type the caller knows is in the table (the element
/// types of verified qmm ops).
ElementType toElementType(Type type);

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os, ElementType type) {
  return os << getElementTypeName(type);
}

} // namespace qmm
} // namespace mlir

#endif
