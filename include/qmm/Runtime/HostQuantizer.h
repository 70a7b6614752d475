//===- HostQuantizer.h - the runner's own quantizer -------------*- C++ -*-===//
//
// Quantizes f32 data on the host, following the qmm.quantize rules, with the
// independent codec of HostFormats.h: amax per block, scale by the rounding
// rule (log2 and powers of two via frexp/ldexp, not bit tricks), saturating
// round-to-nearest-even of x * (1/s).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_HOSTQUANTIZER_H
#define QMM_RUNTIME_HOSTQUANTIZER_H

#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostTensor.h"

namespace mlir {
namespace qmm {
namespace host {

struct QuantizedOperand {
  HostTensor data;   ///< codes, storage shape
  HostTensor scales; ///< f32 values or E8M0 codes, scale shape
};

struct FormatSpec;

/// One block's scale by qmm.quantize's rule: `scale`, the `inverse` the
/// elements are multiplied by, and for the power-of-two rules the
/// exponent. NaN/Inf amax gives NaN scale and inverse.
struct BlockScale {
  float scale = 0, inverse = 0;
  int exponent = 0;
};
BlockScale computeBlockScale(const FormatSpec &format, float amax,
                             ScaleRounding rounding, float minAmax);

/// Quantizes `values` (f32, storage order of `operand`, rows x k logical).
QuantizedOperand quantize(llvm::ArrayRef<float> values,
                          const OperandSpec &operand, int64_t rows, int64_t k,
                          ScaleRounding rounding, float minAmax);

/// dequant(x) of every element, as f64, in logical [rows][k] order.
std::vector<double> dequantize(const HostTensor &data, const HostTensor &scales,
                               const OperandSpec &operand, int64_t rows,
                               int64_t k);

/// The scale that covers logical element (row, col), flattened into the
/// scale tensor.
int64_t getScaleIndex(const OperandSpec &operand, int64_t rows, int64_t k,
                      int64_t row, int64_t col);

} // namespace host
} // namespace qmm
} // namespace mlir

#endif
