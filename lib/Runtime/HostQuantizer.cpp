//===- HostQuantizer.cpp - the runner's own quantizer ---------------------===//

#include "qmm/Runtime/HostQuantizer.h"
#include "qmm/Runtime/HostFormats.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;

int64_t host::getScaleIndex(const OperandSpec &operand, int64_t rows,
                            int64_t k, int64_t row, int64_t col) {
  auto [blockRows, blockK] = operand.encoding.getBlockExtent(rows, k);
  std::vector<int64_t> scaleShape = operand.getScaleShape(rows, k);
  int64_t rowBlock = blockRows ? row / blockRows : 0;
  int64_t kBlock = blockK ? col / blockK : 0;
  if (operand.encoding.isMNMajor())
    return kBlock * scaleShape[1] + rowBlock;
  return rowBlock * scaleShape[1] + kBlock;
}

/// Storage index of logical element (row, col).
static int64_t getDataIndex(const OperandSpec &operand, int64_t rows,
                            int64_t k, int64_t row, int64_t col) {
  return operand.layout == OperandLayout::NK ? row * k + col : col * rows + row;
}

/// 2^e for the power-of-two rules, clamped to the E8M0 range.
static int clampExponent(int e) { return std::min(127, std::max(-127, e)); }

BlockScale host::computeBlockScale(const FormatSpec &format, float amax,
                                   ScaleRounding rounding, float minAmax) {
  const float fmax = float(maxFinite(format));
  const int emax = maxExponent(format);
  BlockScale block;
  float clamped = std::isnan(amax) ? amax : std::max(amax, minAmax);
  if (!std::isfinite(clamped)) {
    block.scale = block.inverse = std::numeric_limits<float>::quiet_NaN();
  } else if (rounding == ScaleRounding::None) {
    block.scale = clamped / fmax;
    block.inverse = fmax / clamped;
  } else {
    if (rounding == ScaleRounding::Pow2Floor) {
      // floor(log2(amax)): frexp gives amax = f * 2^e with f in [0.5, 1).
      int e;
      std::frexp(clamped, &e);
      block.exponent = clamped == 0.0f ? -127 : clampExponent(e - 1 - emax);
    } else {
      float ratio = clamped / fmax;
      int e;
      float fraction = std::frexp(ratio, &e);
      // ratio = fraction * 2^e: an exact power of two has fraction 0.5.
      block.exponent = clampExponent(fraction == 0.5f ? e - 1 : e);
    }
    block.scale = std::ldexp(1.0f, block.exponent);
    block.inverse = std::ldexp(1.0f, -block.exponent);
  }
  return block;
}

QuantizedOperand host::quantize(llvm::ArrayRef<float> values,
                                const OperandSpec &operand, int64_t rows,
                                int64_t k, ScaleRounding rounding,
                                float minAmax) {
  ElementType dataType = toElementType(operand.elementType);
  const FormatSpec &format = *lookupFormat(dataType);
  bool e8m0Scales = isa<Float8E8M0FNUType>(operand.encoding.getScaleType());

  std::vector<int64_t> scaleShape = operand.getScaleShape(rows, k);
  int64_t numScales = scaleShape[0] * scaleShape[1];

  // amax per block; a NaN anywhere makes the block's amax NaN.
  std::vector<float> amax(numScales, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < k; ++c) {
      float x = values[getDataIndex(operand, rows, k, r, c)];
      float &block = amax[getScaleIndex(operand, rows, k, r, c)];
      if (std::isnan(x) || std::isnan(block))
        block = std::numeric_limits<float>::quiet_NaN();
      else
        block = std::max(block, std::fabs(x));
    }

  QuantizedOperand result{
      HostTensor(dataType, operand.getDataShape(rows, k)),
      HostTensor(e8m0Scales ? ElementType::F8E8M0FNU : ElementType::F32,
                 scaleShape)};
  std::vector<float> reciprocal(numScales);
  for (int64_t i = 0; i < numScales; ++i) {
    BlockScale block = computeBlockScale(format, amax[i], rounding, minAmax);
    reciprocal[i] = block.inverse;
    if (e8m0Scales)
      result.scales.setBits(i, std::isnan(block.scale)
                                   ? 0xFF
                                   : uint32_t(block.exponent + 127));
    else
      std::memcpy(result.scales.bytes.data() + 4 * i, &block.scale, 4);
  }

  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < k; ++c) {
      int64_t index = getDataIndex(operand, rows, k, r, c);
      float scaled =
          values[index] * reciprocal[getScaleIndex(operand, rows, k, r, c)];
      result.data.setBits(index, encodeSaturating(format, scaled));
    }
  return result;
}

std::vector<double> host::dequantize(const HostTensor &data,
                                     const HostTensor &scales,
                                     const OperandSpec &operand, int64_t rows,
                                     int64_t k) {
  std::vector<double> result(rows * k);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < k; ++c)
      result[r * k + c] =
          data.getValue(getDataIndex(operand, rows, k, r, c)) *
          scales.getValue(getScaleIndex(operand, rows, k, r, c));
  return result;
}
