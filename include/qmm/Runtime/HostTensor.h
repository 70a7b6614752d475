//===- HostTensor.h - dense host buffers and .npy files ---------*- C++ -*-===//

#ifndef QMM_RUNTIME_HOSTTENSOR_H
#define QMM_RUNTIME_HOSTTENSOR_H

#include "qmm/Runtime/ElementType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace qmm {
namespace host {

/// A dense row-major host buffer holding elements of one type. Formats
/// of 8 bits or fewer take one byte per element (the bit pattern in the low
/// bits), as the compiled kernels read them; f16/bf16 take two bytes, f32
/// four. Packing of FP4/FP6 happens only at the .npy boundary.
struct HostTensor {
  ElementType elementType = ElementType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(ElementType elementType, llvm::ArrayRef<int64_t> shape);

  int64_t getNumElements() const;
  unsigned getElementBytes() const;
  /// Element `i` (row-major) as its bit pattern (formats up to 32 bits).
  uint32_t getBits(int64_t i) const;
  void setBits(int64_t i, uint32_t bits);
  /// Element `i` decoded exactly.
  double getValue(int64_t i) const;
};

/// `tensor` as the AMD pipeline's programs hold it in device memory: FP4 and
/// FP6 rows packed along the last dimension exactly as in .npy files (the
/// storage the qmm dialect documents), other types as stored here.
std::vector<uint8_t> getDeviceBytes(const HostTensor &tensor);

/// The inverse: a tensor of `elementType` and `shape` from its device
/// bytes (FP4/FP6 rows unpacked); an error when the byte count differs.
llvm::Expected<HostTensor> fromDeviceBytes(ElementType elementType,
                                           llvm::ArrayRef<int64_t> shape,
                                           llvm::ArrayRef<uint8_t> bytes);

/// Writes `tensor` as .npy: f32 as '<f4'; types of 8 bits as '|u1' bit
/// patterns; FP4/FP6 packed along the last dimension into '|u1' bytes
/// (little-endian bit stream: element j of a row occupies bits
/// [j*w, (j+1)*w) of the row's bytes, so FP4 element 2i is the low nibble of
/// byte i); f16/bf16 are converted exactly to '<f4'.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

/// Reads a .npy written as above into a tensor of `elementType` and
/// `shape`; the file's dtype and shape must match exactly (8-bit formats
/// also accept '|i1').
llvm::Expected<HostTensor> readNpy(llvm::StringRef path,
                                   ElementType elementType,
                                   llvm::ArrayRef<int64_t> shape);

/// A .npy file as it is: numpy dtype string ('<f4', '|u1', ...), shape and
/// the raw little-endian payload.
struct NpyArray {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};
llvm::Expected<NpyArray> readNpyArray(llvm::StringRef path);
llvm::Error writeNpyArray(llvm::StringRef path, const NpyArray &array);

/// `tensor` as the array writeNpy writes (i32 as '<i4').
NpyArray toNpyArray(const HostTensor &tensor);
/// An array as readNpy reads it (dtype and shape must match exactly).
llvm::Expected<HostTensor> fromNpyArray(const NpyArray &array,
                                        ElementType elementType,
                                        llvm::ArrayRef<int64_t> shape);

/// The shape a tensor has in its .npy file (packed last dimension for
/// FP4/FP6).
std::vector<int64_t> getNpyShape(ElementType elementType,
                                 llvm::ArrayRef<int64_t> shape);

} // namespace host
} // namespace qmm
} // namespace mlir

#endif
