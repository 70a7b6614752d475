//===- StorageSize.h - bytes of densely stored elements ---------*- C++ -*-===//
//
// The one storage-size rule of buffers (getBufferBytes), .npy rows, host
// tensors, kernel arguments and the emulator's memory. Header-only: the
// emulator does not link the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_DIALECT_QMM_IR_STORAGESIZE_H
#define QMM_DIALECT_QMM_IR_STORAGESIZE_H

#include "mlir/IR/Types.h"

#include <cstdint>

namespace mlir {
namespace qmm {

/// Bytes of `count` elements of `bitWidth` bits stored densely: sub-byte
/// elements packed (a little-endian bit stream), wider ones in whole bytes.
inline int64_t getStorageBytes(int64_t count, unsigned bitWidth) {
  return (count * int64_t(bitWidth) + 7) / 8;
}

/// Bits one element of `type` takes in a buffer (index as 64 bits).
inline unsigned getStorageBitWidth(Type type) {
  return type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
}

/// getStorageBytes for elements of `type`.
inline int64_t getStorageBytes(int64_t count, Type type) {
  return getStorageBytes(count, getStorageBitWidth(type));
}

} // namespace qmm
} // namespace mlir

#endif // QMM_DIALECT_QMM_IR_STORAGESIZE_H
