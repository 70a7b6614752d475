//===- QMMFormats.h - facts about qmm element formats -----------*- C++ -*-===//
//
// The single place that answers "what kind of format is this type": which
// low-precision types qmm accepts, which FP8 family they belong to, and their
// range. Numbers come from the types' APFloat semantics, never from tables.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_DIALECT_QMM_IR_QMMFORMATS_H
#define QMM_DIALECT_QMM_IR_QMMFORMATS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

namespace mlir {
namespace qmm {

/// Values along K that share one E8M0 scale in OCP MX v1.0.
constexpr int64_t kMXBlockSize = 32;

/// FP8 families: the same bits mean different values in each.
enum class FormatFamily { OCP, FNUZ };

/// f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E2M3FN, f6E3M2FN, f4E2M1FN.
bool isQuantizedElementType(Type type);

/// Element types of OCP MX v1.0: f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN,
/// f4E2M1FN.
bool isMXElementType(Type type);

/// f8E4M3FNUZ, f8E5M2FNUZ.
bool isFNUZType(Type type);

/// Family of a quantized element type (FP6/FP4 count as OCP).
FormatFamily getFormatFamily(Type type);

/// Types qmm.matmul may produce and qmm.quantize may read: f32, bf16, f16.
bool isHighPrecisionType(Type type);

/// Scale element types: f32 and f8E8M0FNU.
bool isScaleElementType(Type type);

/// Largest finite value of a float type (448 for f8E4M3FN, ...).
double getFormatMax(Type type);

/// Exponent of the largest finite value: emax_elem of OCP MX v1.0.
int getFormatMaxExponent(Type type);

/// Bytes of a dense buffer of `type` (static shape; sub-byte elements
/// packed, index as 64 bits).
int64_t getBufferBytes(MemRefType type);

/// Human-readable list of the accepted quantized element types.
const char *getQuantizedElementTypeList();

} // namespace qmm
} // namespace mlir

#endif // QMM_DIALECT_QMM_IR_QMMFORMATS_H
