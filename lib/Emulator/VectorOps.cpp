//===- VectorOps.cpp - register-level vector ops --------------------------===//
//
// n-D vectors are held flattened in row-major order; these ops move elements
// between positions computed from the vector shapes.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmm::emu;

static SmallVector<int64_t> shapeOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return SmallVector<int64_t>(vector.getShape());
  return {};
}

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Multi-index of flat position `flat` in `shape`.
static SmallVector<int64_t> unflatten(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int i = int(shape.size()) - 1; i >= 0; --i) {
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return index;
}

static SmallVector<int64_t> staticOrLanePositions(WaveInterpreter &wave,
                                                  ArrayRef<OpFoldResult> mixed,
                                                  int lane) {
  SmallVector<int64_t> positions;
  for (OpFoldResult position : mixed) {
    if (auto attr = dyn_cast<Attribute>(position))
      positions.push_back(cast<IntegerAttr>(attr).getInt());
    else
      positions.push_back(
          int64_t(wave.get(cast<Value>(position)).at(lane, 0)));
  }
  return positions;
}

static LogicalResult execBitcast(WaveInterpreter &wave, vector::BitCastOp op) {
  Lanes source = wave.get(op.getSource());
  unsigned fromBits = getBitWidth(op.getSourceVectorType().getElementType());
  unsigned toBits = getBitWidth(op.getResultVectorType().getElementType());
  unsigned toCount = op.getResultVectorType().getNumElements();
  Lanes &out = wave.define(op.getResult(), toCount);
  for (int lane = 0; lane < kMaxLanes; ++lane)
    for (unsigned e = 0; e < toCount; ++e) {
      uint64_t value = 0;
      for (unsigned b = 0; b < toBits; ++b) {
        unsigned bit = e * toBits + b;
        uint64_t sourceWord = source.at(lane, bit / fromBits);
        value |= ((sourceWord >> (bit % fromBits)) & 1) << b;
      }
      out.at(lane, e) = value;
    }
  return success();
}

static LogicalResult execBroadcast(WaveInterpreter &wave, Value source,
                                   Value result) {
  Lanes in = wave.get(source);
  SmallVector<int64_t> fromShape = shapeOf(source.getType());
  SmallVector<int64_t> toShape = shapeOf(result.getType());
  unsigned count = product(toShape);
  Lanes &out = wave.define(result, count);
  SmallVector<int64_t> fromStrides = rowMajorStrides(fromShape);
  size_t lead = toShape.size() - fromShape.size();
  for (unsigned e = 0; e < count; ++e) {
    SmallVector<int64_t> index = unflatten(e, toShape);
    int64_t from = 0;
    for (size_t d = 0; d < fromShape.size(); ++d)
      from += (fromShape[d] == 1 ? 0 : index[lead + d]) * fromStrides[d];
    for (int lane = 0; lane < kMaxLanes; ++lane)
      out.at(lane, e) = in.at(lane, from);
  }
  return success();
}

static LogicalResult execReduction(WaveInterpreter &wave,
                                   vector::ReductionOp op) {
  Lanes in = wave.get(op.getVector());
  Type elementType = op.getType();
  Lanes &out = wave.define(op.getResult(), 1);
  auto floatType = dyn_cast<FloatType>(elementType);
  unsigned width = getBitWidth(elementType);
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (floatType) {
      double acc = floatValue(floatType, in.at(lane, 0));
      for (unsigned e = 1; e < in.width; ++e) {
        double v = floatValue(floatType, in.at(lane, e));
        switch (op.getKind()) {
        case vector::CombiningKind::ADD: acc = floatType.isF32() ? double(float(acc + v)) : acc + v; break;
        case vector::CombiningKind::MUL: acc = floatType.isF32() ? double(float(acc * v)) : acc * v; break;
        case vector::CombiningKind::MAXIMUMF:
          acc = (std::isnan(acc) || std::isnan(v)) ? NAN : std::max(acc, v); break;
        case vector::CombiningKind::MINIMUMF:
          acc = (std::isnan(acc) || std::isnan(v)) ? NAN : std::min(acc, v); break;
        case vector::CombiningKind::MAXNUMF: acc = std::fmax(acc, v); break;
        case vector::CombiningKind::MINNUMF: acc = std::fmin(acc, v); break;
        default:
          return wave.fail(op, "unsupported float reduction kind");
        }
      }
      if (op.getAcc())
        return wave.fail(op, "reductions with an accumulator are not supported");
      out.at(lane, 0) = floatBits(floatType, acc);
    } else {
      int64_t acc = signExtend(in.at(lane, 0), width);
      for (unsigned e = 1; e < in.width; ++e) {
        int64_t v = signExtend(in.at(lane, e), width);
        switch (op.getKind()) {
        // Wrapping, as the integer ops are (no host overflow).
        case vector::CombiningKind::ADD:
          acc = int64_t(uint64_t(acc) + uint64_t(v));
          break;
        case vector::CombiningKind::MUL:
          acc = int64_t(uint64_t(acc) * uint64_t(v));
          break;
        case vector::CombiningKind::MAXSI: acc = std::max(acc, v); break;
        case vector::CombiningKind::MINSI: acc = std::min(acc, v); break;
        case vector::CombiningKind::AND: acc &= v; break;
        case vector::CombiningKind::OR: acc |= v; break;
        case vector::CombiningKind::XOR: acc ^= v; break;
        default:
          return wave.fail(op, "unsupported integer reduction kind");
        }
      }
      out.at(lane, 0) = truncateBits(uint64_t(acc), width);
    }
  }
  return success();
}

LogicalResult mlir::qmm::emu::execVectorOp(WaveInterpreter &wave,
                                           Operation *op, ExecMask mask,
                                           bool &handled) {
  handled = true;
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](vector::BitCastOp bitcast) { return execBitcast(wave, bitcast); })
      .Case([&](vector::BroadcastOp broadcast) {
        return execBroadcast(wave, broadcast.getSource(), broadcast.getResult());
      })
      .Case([&](vector::ShapeCastOp cast) {
        Lanes in = wave.get(cast.getSource());
        wave.define(cast.getResult(), in.width) = in;
        return success();
      })
      .Case([&](vector::FromElementsOp from) {
        SmallVector<Lanes> elements;
        for (Value element : from.getElements())
          elements.push_back(wave.get(element));
        Lanes &out = wave.define(from.getResult(), elements.size());
        for (int lane = 0; lane < kMaxLanes; ++lane)
          for (size_t e = 0; e < elements.size(); ++e)
            out.at(lane, e) = elements[e].at(lane, 0);
        return success();
      })
      .Case([&](vector::ExtractOp extract) {
        Lanes in = wave.get(extract.getSource());
        SmallVector<int64_t> shape = shapeOf(extract.getSource().getType());
        SmallVector<int64_t> strides = rowMajorStrides(shape);
        SmallVector<int64_t> resultShape = shapeOf(extract.getResult().getType());
        unsigned count = product(resultShape);
        Lanes &out = wave.define(extract.getResult(), count);
        for (int lane = 0; lane < kMaxLanes; ++lane) {
          SmallVector<int64_t> position = staticOrLanePositions(
              wave, extract.getMixedPosition(), lane);
          int64_t start = 0;
          for (size_t d = 0; d < position.size(); ++d) {
            if (position[d] < 0 || position[d] >= shape[d])
              return wave.fail(op, "vector.extract position out of range");
            start += position[d] * strides[d];
          }
          for (unsigned e = 0; e < count; ++e)
            out.at(lane, e) = in.at(lane, start + e);
        }
        return success();
      })
      .Case([&](vector::InsertOp insert) {
        Lanes value = wave.get(insert.getValueToStore());
        Lanes dest = wave.get(insert.getDest());
        SmallVector<int64_t> shape = shapeOf(insert.getDest().getType());
        SmallVector<int64_t> strides = rowMajorStrides(shape);
        for (int lane = 0; lane < kMaxLanes; ++lane) {
          SmallVector<int64_t> position =
              staticOrLanePositions(wave, insert.getMixedPosition(), lane);
          int64_t start = 0;
          for (size_t d = 0; d < position.size(); ++d) {
            if (position[d] < 0 || position[d] >= shape[d])
              return wave.fail(op, "vector.insert position out of range");
            start += position[d] * strides[d];
          }
          for (unsigned e = 0; e < value.width; ++e)
            dest.at(lane, start + e) = value.at(lane, e);
        }
        wave.define(insert.getResult(), dest.width) = dest;
        return success();
      })
      .Case([&](vector::ExtractStridedSliceOp slice) {
        Lanes in = wave.get(slice.getSource());
        SmallVector<int64_t> shape = shapeOf(slice.getSource().getType());
        SmallVector<int64_t> strides = rowMajorStrides(shape);
        SmallVector<int64_t> resultShape = shapeOf(slice.getType());
        SmallVector<int64_t> offsets, steps;
        for (Attribute a : slice.getOffsets())
          offsets.push_back(cast<IntegerAttr>(a).getInt());
        for (Attribute a : slice.getStrides())
          steps.push_back(cast<IntegerAttr>(a).getInt());
        unsigned count = product(resultShape);
        Lanes &out = wave.define(slice.getResult(), count);
        for (unsigned e = 0; e < count; ++e) {
          SmallVector<int64_t> index = unflatten(e, resultShape);
          int64_t from = 0;
          for (size_t d = 0; d < shape.size(); ++d) {
            int64_t i = index[d];
            if (d < offsets.size())
              i = offsets[d] + i * steps[d];
            from += i * strides[d];
          }
          for (int lane = 0; lane < kMaxLanes; ++lane)
            out.at(lane, e) = in.at(lane, from);
        }
        return success();
      })
      .Case([&](vector::InsertStridedSliceOp slice) {
        Lanes value = wave.get(slice.getValueToStore());
        Lanes dest = wave.get(slice.getDest());
        SmallVector<int64_t> shape = shapeOf(slice.getDest().getType());
        SmallVector<int64_t> strides = rowMajorStrides(shape);
        SmallVector<int64_t> valueShape = shapeOf(slice.getSourceVectorType());
        SmallVector<int64_t> offsets, steps;
        for (Attribute a : slice.getOffsets())
          offsets.push_back(cast<IntegerAttr>(a).getInt());
        for (Attribute a : slice.getStrides())
          steps.push_back(cast<IntegerAttr>(a).getInt());
        size_t lead = shape.size() - valueShape.size();
        for (unsigned e = 0; e < value.width; ++e) {
          SmallVector<int64_t> index = unflatten(e, valueShape);
          int64_t to = 0;
          for (size_t d = 0; d < shape.size(); ++d) {
            int64_t i = d < lead ? 0 : index[d - lead];
            int64_t step = d < lead ? 1 : steps[d - lead];
            to += (offsets[d] + i * step) * strides[d];
          }
          for (int lane = 0; lane < kMaxLanes; ++lane)
            dest.at(lane, to) = value.at(lane, e);
        }
        wave.define(slice.getResult(), dest.width) = dest;
        return success();
      })
      .Case([&](vector::FMAOp fma) {
        auto type = cast<FloatType>(fma.getVectorType().getElementType());
        Lanes a = wave.get(fma.getLhs()), b = wave.get(fma.getRhs()),
              c = wave.get(fma.getAcc());
        Lanes &out = wave.define(fma.getResult(), a.width);
        for (size_t i = 0; i < a.bits.size(); ++i)
          out.bits[i] =
              fusedMultiplyAdd(type, a.bits[i], b.bits[i], c.bits[i]);
        return success();
      })
      .Case([&](vector::ReductionOp reduction) {
        return execReduction(wave, reduction);
      })
      .Case([&](vector::ShuffleOp shuffle) {
        Lanes v1 = wave.get(shuffle.getV1()), v2 = wave.get(shuffle.getV2());
        ArrayRef<int64_t> positions = shuffle.getMask();
        if (shuffle.getResultVectorType().getRank() != 1)
          return wave.fail(op, "only 1-D vector.shuffle is supported");
        Lanes &out = wave.define(shuffle.getResult(), positions.size());
        for (int lane = 0; lane < kMaxLanes; ++lane)
          for (size_t e = 0; e < positions.size(); ++e) {
            int64_t p = positions[e];
            out.at(lane, e) = p < int64_t(v1.width)
                                  ? v1.at(lane, p)
                                  : p >= 0 ? v2.at(lane, p - v1.width) : 0;
          }
        return success();
      })
      .Case([&](vector::StepOp step) {
        unsigned count = step.getResult().getType().getNumElements();
        Lanes &out = wave.define(step.getResult(), count);
        for (int lane = 0; lane < kMaxLanes; ++lane)
          for (unsigned e = 0; e < count; ++e)
            out.at(lane, e) = e;
        return success();
      })
      .Default([&](Operation *) {
        handled = false;
        (void)mask;
        return failure();
      });
}
