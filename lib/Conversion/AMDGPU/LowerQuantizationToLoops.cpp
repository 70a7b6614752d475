//===- LowerQuantizationToLoops.cpp - (de)quantization as device loops ----===//
//
// qmm.quantize and qmm.dequantize on memrefs (after bufferization) become
// top-level scf.parallel loops, which qmm-parallel-loops-to-gpu runs as
// kernels. qmm.quantize:
//
//   1. partial amax: one iteration per (row, K block), a serial loop over the
//      block's K extent;
//   2. block scales (only where a block spans several rows: per-tensor,
//      RxC with R > 1): one iteration per scale, a serial loop over the
//      block's partial amaxes; where blocks are one row high, step 1
//      computes the scale directly;
//   3. elements: one iteration per group of u stored elements, u being the
//      fewest that fill whole bytes (1 for FP8, 2 for FP4, 4 for FP6), so
//      no two iterations write the same byte.
//
// qmm.dequantize is step 3 alone, reading codes where quantize writes them.
//
// The scale rule and the element cast are createBlockScale and
// createQuantizedElement, shared with the reference lowering and the FP8
// epilogue: a device kernel quantizes bit for bit as the host does. The
// maximum is exact and order-free (NaN propagates whatever the order), so
// splitting the amax in two passes changes nothing.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Dialect/QMM/IR/StorageSize.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERQUANTIZATIONTOLOOPS
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {

/// What the loops of one quantize or dequantize need: the quantized data
/// ("codes"), stored [rows, K] or, transposed (`layout kn`), [K, rows],
/// and the scale blocks over its logical (row, k) positions.
struct Quantization {
  Location loc;
  Value codes;
  ScaleEncodingAttr encoding;
  bool transposed;
  Value rows, k;
  // Block extents along (rows, K); 0 means the whole extent (per-tensor
  // rows, per-row and per-tensor K).
  int64_t blockRows = 0, blockK = 0;

  Quantization(OpBuilder &b, Location loc, Value codes,
               ScaleEncodingAttr encoding, OperandLayout layout)
      : loc(loc), codes(codes), encoding(encoding),
        transposed(layout == OperandLayout::KN) {
    IndexMath im{b, loc};
    rows = im.dim(codes, transposed ? 1 : 0);
    k = im.dim(codes, transposed ? 0 : 1);
    if (encoding.getKind() == ScaleKind::PerRow) {
      blockRows = 1;
    } else if (encoding.getKind() != ScaleKind::PerTensor) {
      blockRows = encoding.getBlockShape()[0];
      blockK = encoding.getBlockShape()[1];
    }
  }

  /// Logical (row, k) of stored position (outer, inner).
  std::pair<Value, Value> logical(Value outer, Value inner) const {
    return transposed ? std::pair(inner, outer) : std::pair(outer, inner);
  }

  /// The block of (row, k), as indices of a [row blocks, K blocks] array.
  SmallVector<Value, 2> blockOf(OpBuilder &b, Value row, Value k) const {
    IndexMath im{b, loc};
    return {blockRows == 0 ? im.cst(0) : im.div(row, blockRows),
            blockK == 0 ? im.cst(0) : im.div(k, blockK)};
  }
};

/// One top-level scf.parallel over [0, extents) with unit steps.
static void buildParallel(OpBuilder &b, Location loc, ArrayRef<Value> extents,
                          function_ref<void(OpBuilder &, ValueRange)> body) {
  IndexMath im{b, loc};
  SmallVector<Value> zeros(extents.size(), im.cst(0));
  SmallVector<Value> ones(extents.size(), im.cst(1));
  scf::ParallelOp::create(b, loc, zeros, extents, ones,
                          [&](OpBuilder &b, Location, ValueRange ivs) {
                            body(b, ivs);
                            scf::ReduceOp::create(b, loc);
                          });
}

/// A group of `count` consecutive stored codes: row `outer` of the stored
/// array, positions `first`, first + 1, ... along its last dimension, and
/// (packed codes) their byte slot in the flat view `flat`.
struct CodeGroup {
  Value outer, first;
  int64_t count;
  Value flat, slot;
};

/// Loops over the stored codes of `q` in groups of u, u = 8 / gcd(w, 8)
/// codes of w bits filling whole bytes (1 for 8-bit codes), so that no two
/// iterations touch the same byte; a row's last group of `extent % u`
/// codes covers the bytes it has. Packed rows are addressed by byte slot
/// through a flat view (an index into a sub-byte memref names a slot).
static void forEachCodeGroup(OpBuilder &b, const Quantization &q,
                             function_ref<void(OpBuilder &, CodeGroup)> body) {
  Location loc = q.loc;
  IndexMath im{b, loc};
  auto type = cast<MemRefType>(q.codes.getType());
  Type element = type.getElementType();
  unsigned bits = getStorageBitWidth(element);
  int64_t u = 8 / std::gcd<int64_t>(bits, 8);
  Value outer = im.dim(q.codes, 0);
  if (u == 1) {
    buildParallel(b, loc, {outer, im.dim(q.codes, 1)},
                  [&](OpBuilder &b, ValueRange ivs) {
                    body(b, {ivs[0], ivs[1], 1, Value(), Value()});
                  });
    return;
  }
  int64_t inner = type.getDimSize(1);
  int64_t rowBytes = getStorageBytes(inner, bits);
  int64_t groupBytes = u * bits / 8;
  Value flat = memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({type.getNumElements()}, element), q.codes,
      /*offset=*/0, ArrayRef<int64_t>{type.getNumElements()},
      ArrayRef<int64_t>{1});
  auto visit = [&](OpBuilder &b, Value o, Value group, int64_t count) {
    IndexMath im{b, loc};
    body(b, {o, im.mul(group, u), count, flat,
             im.add(im.mul(o, rowBytes), im.mul(group, groupBytes))});
  };
  if (inner / u > 0)
    buildParallel(b, loc, {outer, im.cst(inner / u)},
                  [&](OpBuilder &b, ValueRange ivs) {
                    visit(b, ivs[0], ivs[1], u);
                  });
  if (inner % u != 0)
    buildParallel(b, loc, {outer}, [&](OpBuilder &b, ValueRange ivs) {
      IndexMath im{b, loc};
      visit(b, ivs[0], im.cst(inner / u), inner % u);
    });
}

/// Builds the loops of one quantize in front of it.
class QuantizeLoopBuilder {
public:
  QuantizeLoopBuilder(OpBuilder &b, const Quantization &q, Value input,
                      Value scales, const ScaleRule &rule)
      : b(b), loc(q.loc), q(q), input(input), scales(scales), rule(rule) {}

  void build() {
    IndexMath im{b, loc};
    Value kBlocks = countBlocks(im, q.k, q.blockK);
    // The reciprocal of each block's scale, [rowBlocks, kBlocks].
    Value rowBlocks = countBlocks(im, q.rows, q.blockRows);
    Value reciprocals = allocF32({rowBlocks, kBlocks});
    if (q.blockRows == 1) {
      buildParallel(b, loc, {q.rows, kBlocks},
                    [&](OpBuilder &b, ValueRange ivs) {
                      Value amax = blockAmax(b, ivs[0], ivs[1]);
                      storeScale(b, amax, ivs[0], ivs[1], reciprocals);
                    });
    } else {
      Value partial = allocF32({q.rows, kBlocks});
      buildParallel(b, loc, {q.rows, kBlocks},
                    [&](OpBuilder &b, ValueRange ivs) {
                      memref::StoreOp::create(
                          b, loc, blockAmax(b, ivs[0], ivs[1]), partial, ivs);
                    });
      buildParallel(
          b, loc, {rowBlocks, kBlocks}, [&](OpBuilder &b, ValueRange ivs) {
            IndexMath im{b, loc};
            auto [first, end] = blockRange(im, ivs[0], q.blockRows, q.rows);
            Value amax = serialMax(b, first, end, [&](OpBuilder &b, Value r) {
              return memref::LoadOp::create(b, loc, partial,
                                            ValueRange{r, ivs[1]})
                  .getResult();
            });
            storeScale(b, amax, ivs[0], ivs[1], reciprocals);
          });
      temporaries.push_back(partial);
    }
    temporaries.push_back(reciprocals);
    storeCodes(reciprocals);
    for (Value buffer : temporaries)
      memref::DeallocOp::create(b, loc, buffer);
  }

private:
  /// Number of blocks of `block` along `extent` (1 for a whole-extent block).
  Value countBlocks(IndexMath &im, Value extent, int64_t block) {
    if (block == 0)
      return im.cst(1);
    return im.apply(b.getAffineDimExpr(0).ceilDiv(block), {extent});
  }

  Value allocF32(ArrayRef<Value> extents) {
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    for (Value extent : extents) {
      std::optional<int64_t> value = getConstantIntValue(extent);
      shape.push_back(value ? *value : ShapedType::kDynamic);
      if (!value)
        dynamic.push_back(extent);
    }
    return memref::AllocOp::create(
        b, loc, MemRefType::get(shape, b.getF32Type()), dynamic);
  }

  /// [first, end) of block `index` of `block` elements along `extent`.
  std::pair<Value, Value> blockRange(IndexMath &im, Value index, int64_t block,
                                     Value extent) {
    if (block == 0)
      return {im.cst(0), extent};
    Value first = im.mul(index, block);
    return {first, im.min(im.add(first, block), extent)};
  }

  /// max over i in [first, end) of `element(i)`, from 0; arith.maximumf
  /// propagates NaN as the reference does.
  Value serialMax(OpBuilder &b, Value first, Value end,
                  function_ref<Value(OpBuilder &, Value)> element) {
    IndexMath im{b, loc};
    auto loop = scf::ForOp::create(
        b, loc, first, end, im.cst(1), ValueRange{createF32(b, loc, 0.0)},
        [&](OpBuilder &b, Location, Value i, ValueRange acc) {
          Value max =
              arith::MaximumFOp::create(b, loc, acc[0], element(b, i));
          scf::YieldOp::create(b, loc, max);
        });
    return loop.getResult(0);
  }

  /// The input element at logical (row, k).
  Value loadInput(OpBuilder &b, Value row, Value k) {
    SmallVector<Value, 2> indices = {row, k};
    if (q.transposed)
      std::swap(indices[0], indices[1]);
    return memref::LoadOp::create(b, loc, input, indices);
  }

  /// max |x| over row `row`'s part of K block `kBlock`, in f32.
  Value blockAmax(OpBuilder &b, Value row, Value kBlock) {
    IndexMath im{b, loc};
    auto [first, end] = blockRange(im, kBlock, q.blockK, q.k);
    return serialMax(b, first, end, [&](OpBuilder &b, Value k) {
      Value x = loadInput(b, row, k);
      if (!x.getType().isF32())
        x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      return math::AbsFOp::create(b, loc, x).getResult();
    });
  }

  /// The scale of block (rowBlock, kBlock) in the encoding's storage order,
  /// and its f32 reciprocal.
  void storeScale(OpBuilder &b, Value amax, Value rowBlock, Value kBlock,
                  Value reciprocals) {
    auto [scale, reciprocal] = createBlockScale(b, loc, amax, rule);
    SmallVector<Value, 2> at = {rowBlock, kBlock};
    memref::StoreOp::create(b, loc, reciprocal, reciprocals, at);
    if (q.encoding.isMNMajor())
      std::swap(at[0], at[1]);
    memref::StoreOp::create(b, loc, scale, scales, at);
  }

  /// Step 3: the codes, a group of u stored codes per iteration.
  void storeCodes(Value reciprocals) {
    forEachCodeGroup(b, q, [&](OpBuilder &b, CodeGroup group) {
      IndexMath im{b, loc};
      SmallVector<Value> codes;
      for (int64_t j = 0; j < group.count; ++j) {
        auto [row, k] = q.logical(group.outer, im.add(group.first, j));
        Value reciprocal = memref::LoadOp::create(b, loc, reciprocals,
                                                  q.blockOf(b, row, k));
        codes.push_back(createQuantizedElement(b, loc, loadInput(b, row, k),
                                               reciprocal, rule.elementType));
      }
      if (!group.flat) {
        memref::StoreOp::create(b, loc, codes.front(), q.codes,
                                ValueRange{group.outer, group.first});
        return;
      }
      Value packed = vector::FromElementsOp::create(
          b, loc, VectorType::get({group.count}, rule.elementType), codes);
      vector::StoreOp::create(b, loc, packed, group.flat, group.slot);
    });
  }

  OpBuilder &b;
  Location loc;
  const Quantization &q;
  Value input, scales;
  const ScaleRule &rule;
  SmallVector<Value> temporaries;
};

} // namespace

/// Operands the loops index directly: memrefs of identity layout.
static LogicalResult checkOperands(Operation *op, ValueRange operands,
                                   Value codes) {
  for (Value operand : operands) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      return op->emitOpError("qmm-lower-quantization-to-loops: runs after "
                             "bufferization (memrefs)");
    if (!type.getLayout().isIdentity())
      return op->emitOpError("qmm-lower-quantization-to-loops: needs "
                             "identity-layout memrefs, got ")
             << type;
  }
  auto codesType = cast<MemRefType>(codes.getType());
  Type element = codesType.getElementType();
  if (getStorageBitWidth(element) < 8 && !codesType.hasStaticShape())
    return op->emitOpError("qmm-lower-quantization-to-loops: packed ")
           << element << " data needs static shapes (its rows are addressed "
           << "by byte)";
  return success();
}

static LogicalResult lowerQuantize(QuantizeOp op) {
  if (failed(checkOperands(op, op->getOperands(), op.getQuantized())))
    return failure();
  OpBuilder b(op);
  Quantization q(b, op.getLoc(), op.getQuantized(), op.getEncoding(),
                 op.getLayout());
  ScaleRule rule{getElementTypeOrSelf(op.getQuantized().getType()),
                 op.getEncoding().getScaleType(), op.getEffectiveRounding(),
                 op.getEffectiveMinAmax()};
  QuantizeLoopBuilder(b, q, op.getInput(), op.getScales(), rule).build();
  op.erase();
  return success();
}

/// output = rnd(fl32(value(q) * s)) for each code, a group of u stored
/// codes per iteration (read as one vector where packed).
static LogicalResult lowerDequantize(DequantizeOp op) {
  if (failed(checkOperands(op, op->getOperands(), op.getQuantized())))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  Quantization q(b, loc, op.getQuantized(), op.getEncoding(), op.getLayout());
  Type element = getElementTypeOrSelf(op.getQuantized().getType());
  Type outType = getElementTypeOrSelf(op.getInit().getType());
  Type f32 = b.getF32Type();
  forEachCodeGroup(b, q, [&](OpBuilder &b, CodeGroup group) {
    IndexMath im{b, loc};
    Value packed;
    if (group.flat)
      packed = vector::LoadOp::create(
          b, loc, VectorType::get({group.count}, element), group.flat,
          group.slot);
    for (int64_t j = 0; j < group.count; ++j) {
      Value inner = im.add(group.first, j);
      Value code =
          packed ? vector::ExtractOp::create(b, loc, packed, j).getResult()
                 : memref::LoadOp::create(b, loc, q.codes,
                                          ValueRange{group.outer, inner})
                       .getResult();
      auto [row, k] = q.logical(group.outer, inner);
      SmallVector<Value, 2> at = q.blockOf(b, row, k);
      if (q.encoding.isMNMajor())
        std::swap(at[0], at[1]);
      Value scale = memref::LoadOp::create(b, loc, op.getScales(), at);
      if (!scale.getType().isF32())
        scale = arith::ExtFOp::create(b, loc, f32, scale);
      Value value = arith::MulFOp::create(
          b, loc, arith::ExtFOp::create(b, loc, f32, code), scale);
      if (!outType.isF32())
        value = arith::TruncFOp::create(b, loc, outType, value);
      memref::StoreOp::create(b, loc, value, op.getInit(),
                              ValueRange{group.outer, inner});
    }
  });
  op.erase();
  return success();
}

namespace {
struct QMMLowerQuantizationToLoopsPass
    : public qmm::impl::QMMLowerQuantizationToLoopsBase<
          QMMLowerQuantizationToLoopsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<QuantizeOp, DequantizeOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult lowered =
          isa<QuantizeOp>(op) ? lowerQuantize(cast<QuantizeOp>(op))
                              : lowerDequantize(cast<DequantizeOp>(op));
      if (failed(lowered))
        return signalPassFailure();
    }
  }
};
} // namespace
