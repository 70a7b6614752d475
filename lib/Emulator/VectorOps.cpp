//===- VectorOps.cpp - register-level vector ops --------------------------===//
//
// n-D vectors are held flattened in row-major order; these ops move elements
// between positions computed from the vector shapes.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <optional>

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

/// The flat offset of lane `lane`'s position (extract / insert); nullopt
/// when it is outside `shape`.
static std::optional<int64_t> flatPosition(WaveInterpreter &wave,
                                           ArrayRef<OpFoldResult> mixed,
                                           ArrayRef<int64_t> shape,
                                           ArrayRef<int64_t> strides,
                                           int lane) {
  SmallVector<int64_t> position = staticOrLanePositions(wave, mixed, lane);
  int64_t start = 0;
  for (size_t d = 0; d < position.size(); ++d) {
    if (position[d] < 0 || position[d] >= shape[d])
      return std::nullopt;
    start += position[d] * strides[d];
  }
  return start;
}

static LogicalResult execBitcast(WaveInterpreter &wave, vector::BitCastOp op) {
  const Lanes &source = wave.get(op.getSource());
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
  const Lanes &in = wave.get(source);
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
  const Lanes &in = wave.get(op.getVector());
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

void mlir::qmm::emu::registerVectorHandlers(Registry &r) {
  r.add<vector::BitCastOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        return execBitcast(wave, cast<vector::BitCastOp>(inst.op));
      });
  r.add<vector::BroadcastOp>([](WaveInterpreter &wave, const Instr &inst,
                                ExecMask) {
    auto broadcast = cast<vector::BroadcastOp>(inst.op);
    return execBroadcast(wave, broadcast.getSource(), broadcast.getResult());
  });
  r.add<vector::ShapeCastOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        // The same elements in the same order: a copy, uniform or not.
        const Lanes &in = wave.operand(0);
        wave.defineResult(0, in.width) = in;
        return success();
      });
  r.add<vector::FromElementsOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        size_t count = inst.operands.size();
        Lanes &out = wave.defineResult(0, count);
        for (size_t e = 0; e < count; ++e) {
          const Lanes &element = wave.operand(e);
          for (int lane = 0; lane < kMaxLanes; ++lane)
            out.at(lane, e) = element.at(lane, 0);
        }
        return success();
      });
  r.add<vector::ExtractOp>([](WaveInterpreter &wave, const Instr &inst,
                              ExecMask) {
    auto extract = cast<vector::ExtractOp>(inst.op);
    const Lanes &in = wave.get(extract.getSource());
    SmallVector<int64_t> shape = shapeOf(extract.getSource().getType());
    SmallVector<int64_t> strides = rowMajorStrides(shape);
    SmallVector<int64_t> resultShape = shapeOf(extract.getResult().getType());
    unsigned count = product(resultShape);
    SmallVector<OpFoldResult> mixed = extract.getMixedPosition();
    Lanes &out = wave.define(extract.getResult(), count);
    for (int lane = 0; lane < kMaxLanes; ++lane) {
      std::optional<int64_t> start =
          flatPosition(wave, mixed, shape, strides, lane);
      if (!start)
        return wave.fail(inst.op, "vector.extract position out of range");
      for (unsigned e = 0; e < count; ++e)
        out.at(lane, e) = in.at(lane, *start + e);
    }
    return success();
  });
  r.add<vector::InsertOp>([](WaveInterpreter &wave, const Instr &inst,
                             ExecMask) {
    auto insert = cast<vector::InsertOp>(inst.op);
    const Lanes &value = wave.get(insert.getValueToStore());
    Lanes dest = wave.get(insert.getDest());
    dest.expand();
    SmallVector<int64_t> shape = shapeOf(insert.getDest().getType());
    SmallVector<int64_t> strides = rowMajorStrides(shape);
    SmallVector<OpFoldResult> mixed = insert.getMixedPosition();
    for (int lane = 0; lane < kMaxLanes; ++lane) {
      std::optional<int64_t> start =
          flatPosition(wave, mixed, shape, strides, lane);
      if (!start)
        return wave.fail(inst.op, "vector.insert position out of range");
      for (unsigned e = 0; e < value.width; ++e)
        dest.at(lane, *start + e) = value.at(lane, e);
    }
    wave.define(insert.getResult(), dest.width) = dest;
    return success();
  });
  r.add<vector::ExtractStridedSliceOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        auto slice = cast<vector::ExtractStridedSliceOp>(inst.op);
        const Lanes &in = wave.get(slice.getSource());
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
      });
  r.add<vector::InsertStridedSliceOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        auto slice = cast<vector::InsertStridedSliceOp>(inst.op);
        const Lanes &value = wave.get(slice.getValueToStore());
        Lanes dest = wave.get(slice.getDest());
        dest.expand();
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
      });
  r.add<vector::FMAOp>([](WaveInterpreter &wave, const Instr &inst, ExecMask) {
    auto fma = cast<vector::FMAOp>(inst.op);
    auto type = cast<FloatType>(fma.getVectorType().getElementType());
    const Lanes &a = wave.get(fma.getLhs()), &b = wave.get(fma.getRhs()),
                &c = wave.get(fma.getAcc());
    Lanes &out = wave.define(fma.getResult(), a.width);
    for (int lane = 0; lane < kMaxLanes; ++lane)
      for (unsigned e = 0; e < a.width; ++e)
        out.at(lane, e) =
            fusedMultiplyAdd(type, a.at(lane, e), b.at(lane, e), c.at(lane, e));
    return success();
  });
  r.add<vector::ReductionOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        auto reduction = cast<vector::ReductionOp>(inst.op);
        return execReduction(wave, reduction);
      });
  r.add<vector::ShuffleOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        auto shuffle = cast<vector::ShuffleOp>(inst.op);
        const Lanes &v1 = wave.get(shuffle.getV1()),
                    &v2 = wave.get(shuffle.getV2());
        ArrayRef<int64_t> positions = shuffle.getMask();
        if (shuffle.getResultVectorType().getRank() != 1)
          return wave.fail(inst.op, "only 1-D vector.shuffle is supported");
        Lanes &out = wave.define(shuffle.getResult(), positions.size());
        for (int lane = 0; lane < kMaxLanes; ++lane)
          for (size_t e = 0; e < positions.size(); ++e) {
            int64_t p = positions[e];
            out.at(lane, e) = p < int64_t(v1.width) ? v1.at(lane, p)
                              : p >= 0              ? v2.at(lane, p - v1.width)
                                                    : 0;
          }
        return success();
      });
  r.add<vector::StepOp>([](WaveInterpreter &wave, const Instr &inst, ExecMask) {
    auto step = cast<vector::StepOp>(inst.op);
    unsigned count = step.getResult().getType().getNumElements();
    Lanes &out = wave.define(step.getResult(), count);
    for (int lane = 0; lane < kMaxLanes; ++lane)
      for (unsigned e = 0; e < count; ++e)
        out.at(lane, e) = e;
    return success();
  });
}
