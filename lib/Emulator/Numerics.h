//===- Numerics.h - element values as bit patterns --------------*- C++ -*-===//
//
// The emulator keeps every element as the bit pattern of its MLIR type in a
// uint64_t. These helpers read and write those patterns as numbers.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_EMULATOR_NUMERICS_H
#define QMM_LIB_EMULATOR_NUMERICS_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace qmm {
namespace emu {

/// Width in bits of an element type (index is 64).
unsigned getBitWidth(Type type);
/// Bytes an element occupies in memory (sub-byte types take a whole byte).
unsigned getStorageBytes(Type type);

/// Value of a float pattern, exactly (via f64, which holds every value of
/// the types up to f32).
double floatValue(FloatType type, uint64_t bits);
/// Round-to-nearest-even of `value` to `type`'s pattern (IEEE overflow
/// rules: Inf where the type has it, else NaN, else the largest value).
uint64_t floatBits(FloatType type, double value);
/// The same for f32, without going through APFloat.
inline float f32Value(uint64_t bits) {
  uint32_t word = uint32_t(bits);
  float value;
  __builtin_memcpy(&value, &word, 4);
  return value;
}
inline uint64_t f32Bits(float value) {
  uint32_t word;
  __builtin_memcpy(&word, &value, 4);
  return word;
}

/// Sign-extends the low `width` bits.
inline int64_t signExtend(uint64_t bits, unsigned width) {
  if (width >= 64)
    return int64_t(bits);
  uint64_t sign = uint64_t(1) << (width - 1);
  bits &= (sign << 1) - 1;
  return int64_t((bits ^ sign) - sign);
}
inline uint64_t truncateBits(uint64_t bits, unsigned width) {
  return width >= 64 ? bits : bits & ((uint64_t(1) << width) - 1);
}

/// int64 arithmetic that gives nullopt on overflow (llvm::checkedMul and
/// friends go through APInt, too slow for per-lane address arithmetic).
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}
/// a * b + c.
inline std::optional<int64_t> checkedMulAdd(int64_t a, int64_t b, int64_t c) {
  std::optional<int64_t> product = checkedMul(a, b);
  return product ? checkedAdd(*product, c) : std::nullopt;
}

/// fma(a, b, c) with one rounding to `type`.
uint64_t fusedMultiplyAdd(FloatType type, uint64_t a, uint64_t b, uint64_t c);

/// A 2^w-entry table of f32 values for a float type of at most 8 bits.
const float *getDecodeTable(FloatType type);

} // namespace emu
} // namespace qmm
} // namespace mlir

#endif
