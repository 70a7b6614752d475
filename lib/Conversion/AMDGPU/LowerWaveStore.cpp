//===- LowerWaveStore.cpp - qmm.wave_store to masked vector stores --------===//
//
// Stage 7 of the AMD pipeline, the epilogue: a wave's f32 accumulators are
// converted to the output type and stored, 4 consecutive columns of a row
// per vector store, masked past the matrix.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Target/TargetAttr.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/AMDGPU/WaveLowerings.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERWAVESTORE
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// Stores `value` (f32, or already of the element type) into `memref` at
/// [row, col], converting f32 to the element type.
static void storeConverted(OpBuilder &b, Location loc, Value value,
                           Value memref, Value row, Value col) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  auto vecType = dyn_cast<VectorType>(value.getType());
  if (getElementTypeOrSelf(value.getType()) != element)
    value = arith::TruncFOp::create(
        b, loc, vecType ? Type(vecType.clone(element)) : element, value);
  if (vecType)
    vector::StoreOp::create(b, loc, value, memref, ValueRange{row, col});
  else
    memref::StoreOp::create(b, loc, value, memref, ValueRange{row, col});
}

namespace {
/// The epilogue of one qmm.wave_store at one position: f32 values (one, or
/// 4 consecutive columns of a row) become the output and, with `aux`, the
/// pre-activation.
struct Epilogue {
  WaveStoreOp op;
  Location loc;

  /// `value` at [row, col...] of the output: plus C (accumulate) and
  /// bias[col...], written to aux, then the activation, converted and
  /// stored.
  void store(OpBuilder &b, Value value, Value row, Value col) {
    Type f32 = b.getF32Type();
    auto vecType = dyn_cast<VectorType>(value.getType());
    // Loads `count` values of `memref` at `indices` as f32.
    auto loadF32 = [&](Value memref, ValueRange indices) -> Value {
      Type element = cast<MemRefType>(memref.getType()).getElementType();
      Value loaded;
      if (vecType)
        loaded = vector::LoadOp::create(b, loc, vecType.clone(element), memref,
                                        indices);
      else
        loaded = memref::LoadOp::create(b, loc, memref, indices);
      if (element == f32)
        return loaded;
      return arith::ExtFOp::create(b, loc, vecType ? Type(vecType) : f32,
                                   loaded);
    };
    auto storeAs = [&](Value v, Value memref) {
      storeConverted(b, loc, v, memref, row, col);
    };
    if (op.getAccumulate())
      value = arith::AddFOp::create(b, loc, value,
                                    loadF32(op.getOut(), ValueRange{row, col}));
    if (Value bias = op.getBias())
      value = arith::AddFOp::create(b, loc, value, loadF32(bias, col));
    if (Value aux = op.getAux())
      storeAs(value, aux);
    storeAs(createActivation(b, loc, value, op.getActivation()), op.getOut());
  }
};
} // namespace

/// The consecutive columns `quad` (one accumulator run) of one row starting
/// at `col`: `emit` runs once with the whole vector when all its columns are
/// inside the matrix's `n` (known when `colsInBounds`), else once per
/// element inside it.
static void forEachStoredPart(
    OpBuilder &b, Location loc, Value quad, Value col, int64_t n,
    bool colsInBounds,
    function_ref<void(OpBuilder &, Value part, Value col)> emit) {
  if (colsInBounds)
    return emit(b, quad, col);
  IndexMath im{b, loc};
  int64_t width = cast<VectorType>(quad.getType()).getNumElements();
  Value fits = n >= width ? im.lt(col, n - (width - 1)) : im.boolean(false);
  auto whole = scf::IfOp::create(b, loc, fits, /*withElseRegion=*/true);
  OpBuilder vecB = whole.getThenBodyBuilder();
  emit(vecB, quad, col);
  OpBuilder edgeB = whole.getElseBodyBuilder();
  IndexMath eim{edgeB, loc};
  for (int64_t j = 0; j < width; ++j) {
    Value c = eim.add(col, j);
    auto inside = scf::IfOp::create(edgeB, loc, eim.lt(c, n), false);
    OpBuilder elemB = inside.getThenBodyBuilder();
    emit(elemB, vector::ExtractOp::create(elemB, loc, quad, j), c);
  }
}

/// Item group `first` (4 consecutive columns of one row) of accumulator
/// `tile`, as a vector<4xf32>.
/// Items [first, first + length) of an accumulator: one run of
/// consecutive output columns.
static Value extractRun(OpBuilder &b, Location loc, Value tile, int64_t first,
                        int64_t length) {
  // A shuffle, not extract_strided_slice: it lowers directly to LLVM.
  SmallVector<int64_t, 8> items;
  for (int64_t i = 0; i < length; ++i)
    items.push_back(first + i);
  return vector::ShuffleOp::create(b, loc, tile, tile, items);
}

/// `b` itself when `condition` is null (nothing to test), else the builder
/// of a new scf.if on it.
static OpBuilder guardedBy(OpBuilder &b, Location loc, Value condition) {
  if (!condition)
    return b;
  return scf::IfOp::create(b, loc, condition, false).getThenBodyBuilder();
}

/// `x and y`, where a null operand means `true`.
static Value andOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x || !y)
    return x ? x : y;
  return arith::AndIOp::create(b, loc, x, y);
}

/// A builder inside the tests a store to output row `row` needs: `rowOk`
/// (the row is inside M; null where it cannot fail), and for grouped
/// matmuls the row before `valid_rows` (masked) and not a padding row
/// (contiguous: its `row_groups` entry is not negative). Rows that fail
/// keep their values, FP8 codes and scales alike.
static OpBuilder guardRowWrites(OpBuilder &b, Location loc, WaveStoreOp op,
                                Value row, Value rowOk) {
  if (Value valid = op.getValidRows())
    rowOk = andOf(b, loc, rowOk,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                        valid));
  OpBuilder rowB = guardedBy(b, loc, rowOk);
  Value groups = op.getRowGroups();
  if (!groups)
    return rowB;
  Value group = memref::LoadOp::create(rowB, loc, groups, row);
  auto notPadding = scf::IfOp::create(
      rowB, loc,
      arith::CmpIOp::create(
          rowB, loc, arith::CmpIPredicate::sge, group,
          arith::ConstantOp::create(rowB, loc, rowB.getI32IntegerAttr(0))),
      false);
  return notPadding.getThenBodyBuilder();
}

static void lowerWaveStore(OpBuilder &b, WaveStoreOp op, const ChipInfo &chip) {
  // Each accumulator run is consecutive columns of one row: one vector
  // store when they are all inside the matrix, element stores at the right
  // edge, nothing below the last row (tests left out where in_bounds says
  // they cannot fail).
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  AccumulatorLayout layout(op.getConfig());
  Epilogue epilogue{op, loc};
  // The output's rows (M, maybe dynamic) bound the stores.
  Value m = op.isInBounds(0) ? Value() : im.dim(op.getOut(), 0);
  int64_t n = op.getOut().getType().getDimSize(1);
  Value lane = im.lane(chip.waveSize);
  for (int64_t rm = 0; rm < op.getConfig().getMfmaRepeatsM(); ++rm) {
    Value row = im.add(op.getRow(), layout.row(im, lane, rm));
    for (int64_t rn = 0; rn < op.getConfig().getMfmaRepeatsN(); ++rn) {
      Value tile = op.getAcc()[layout.index(rm, rn)];
      for (int64_t first = 0; first < layout.items();
           first += layout.runLength()) {
        Value col = im.add(op.getCol(), layout.col(im, lane, rn, first));
        Value quad = extractRun(b, loc, tile, first, layout.runLength());
        Value rowOk = op.isInBounds(0) ? Value() : im.lt(row, m);
        OpBuilder rowB = guardRowWrites(b, loc, op, row, rowOk);
        forEachStoredPart(rowB, loc, quad, col, n, op.isInBounds(1),
                          [&](OpBuilder &partB, Value part, Value c) {
                            epilogue.store(partB, part, row, c);
                          });
      }
    }
  }
}

/// bias[col .. col + width - 1] as a vector of f32; columns past `n` read
/// the last bias (their results are never stored).
static Value loadBiasRun(OpBuilder &b, Location loc, Value bias, Value col,
                         int64_t n, int64_t width, bool colsInBounds) {
  IndexMath im{b, loc};
  Type element = cast<MemRefType>(bias.getType()).getElementType();
  auto quadType = VectorType::get({width}, element);
  auto toF32 = [&](Value quad) -> Value {
    if (element.isF32())
      return quad;
    return arith::ExtFOp::create(
        b, loc, VectorType::get({width}, b.getF32Type()), quad);
  };
  if (colsInBounds)
    return toF32(vector::LoadOp::create(b, loc, quadType, bias, col));
  Value fits = n >= width ? im.lt(col, n - (width - 1)) : im.boolean(false);
  auto load = scf::IfOp::create(b, loc, TypeRange{quadType}, fits,
                                /*withElseRegion=*/true);
  OpBuilder vecB = load.getThenBodyBuilder();
  scf::YieldOp::create(vecB, loc,
                       ValueRange{vector::LoadOp::create(vecB, loc, quadType,
                                                         bias, col)});
  OpBuilder edgeB = load.getElseBodyBuilder();
  IndexMath eim{edgeB, loc};
  SmallVector<Value> elements;
  for (int64_t j = 0; j < width; ++j)
    elements.push_back(memref::LoadOp::create(
        edgeB, loc, bias, eim.min(eim.add(col, j), n - 1)));
  scf::YieldOp::create(
      edgeB, loc,
      ValueRange{vector::FromElementsOp::create(edgeB, loc, quadType,
                                                elements)});
  return toF32(load.getResult(0));
}

/// FP8 outputs. For each row, the epilogue's f32 values (bias, aux,
/// activation as usual); per block of C columns the amax over the lane's
/// items inside the matrix, reduced with xor shuffles across the lanes
/// holding the row (lane % m is the row, so lanes m, 2m, ... apart), the
/// block's scale by qmm.quantize's rule, the quantized codes stored 4 to a
/// vector, and the scale stored by the row's first lane.
///
/// Blocks are counted from the wave's first column, which the config keeps
/// at a multiple of C (ConfigAttr::keepsOutputBlocksInWaves). A block may
/// be narrower than an MFMA tile or straddle two: items are then assigned
/// to blocks by their column at run time. MFMA tiles are handled in groups
/// that no block straddles, so a 1x128 block on 32-wide tiles costs no
/// per-item selects.
static void lowerQuantizingWaveStore(OpBuilder &b, WaveStoreOp op,
                                     const ChipInfo &chip) {
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  ConfigAttr config = op.getConfig();
  AccumulatorLayout layout(config);
  MemRefType outType = op.getOut().getType();
  int64_t n = outType.getDimSize(1);
  Value m = op.isInBounds(0) ? Value() : im.dim(op.getOut(), 0);
  ScaleEncodingAttr encoding = *op.getOutEncoding();
  int64_t blockN = encoding.getBlockExtent(outType.getDimSize(0), n).second;
  ScaleRule rule{outType.getElementType(), encoding.getScaleType(),
                 *op.getOutRounding(), op.getOutMinAmax()->convertToFloat()};
  int64_t repeatsN = config.getMfmaRepeatsN();
  int64_t tileN = layout.n();
  Type i32 = b.getI32Type();
  Value lane = im.lane(chip.waveSize);
  Value zero = createF32(b, loc, 0.0);
  bool colsInBounds = op.isInBounds(1);
  auto atLeast = [&](OpBuilder &ob, Value x, int64_t bound) {
    return arith::CmpIOp::create(
        ob, loc, arith::CmpIPredicate::uge, x,
        arith::ConstantIndexOp::create(ob, loc, bound));
  };
  // The blocks (relative to the wave) that columns [rn * tileN, (rn + 1) *
  // tileN) of MFMA tile rn touch: [first, last].
  auto blocksOfTile = [&](int64_t rn) {
    return std::make_pair(rn * tileN / blockN,
                          ((rn + 1) * tileN - 1) / blockN);
  };

  struct Quad {
    Value values; // vector<4xf32> after the activation
    Value col;    // first column in the output
    Value offset; // first column relative to the wave's first column
    int64_t rn;   // MFMA tile along N
  };
  for (int64_t rm = 0; rm < config.getMfmaRepeatsM(); ++rm) {
    Value row = im.add(op.getRow(), layout.row(im, lane, rm));
    Value rowOk = op.isInBounds(0) ? Value() : im.lt(row, m);
    for (int64_t rn0 = 0; rn0 < repeatsN;) {
      // Tiles [rn0, rnEnd): extended while a block crosses the boundary.
      int64_t rnEnd = rn0 + 1;
      while (rnEnd < repeatsN && (rnEnd * tileN) % blockN != 0)
        ++rnEnd;
      int64_t firstBlock = blocksOfTile(rn0).first;
      int64_t lastBlock = blocksOfTile(rnEnd - 1).second;
      SmallVector<Quad> quads;
      SmallVector<Value> amax(lastBlock - firstBlock + 1, zero);
      for (int64_t rn = rn0; rn < rnEnd; ++rn) {
        auto [tileFirstBlock, tileLastBlock] = blocksOfTile(rn);
        Value tile = op.getAcc()[layout.index(rm, rn)];
        for (int64_t first = 0; first < layout.items();
           first += layout.runLength()) {
          Value offset = layout.col(im, lane, rn, first);
          Value col = im.add(op.getCol(), offset);
          Value pre = extractRun(b, loc, tile, first, layout.runLength());
          if (Value bias = op.getBias())
            pre = arith::AddFOp::create(
                b, loc, pre,
                loadBiasRun(b, loc, bias, col, n, layout.runLength(),
                            colsInBounds));
          if (Value aux = op.getAux()) {
            OpBuilder rowB = guardRowWrites(b, loc, op, row, rowOk);
            forEachStoredPart(rowB, loc, pre, col, n, colsInBounds,
                              [&](OpBuilder &partB, Value part, Value c) {
                                storeConverted(partB, loc, part, aux, row, c);
                              });
          }
          Value post = createActivation(b, loc, pre, op.getActivation());
          // Columns past N do not count; arith.maximumf keeps NaN.
          for (int64_t j = 0; j < layout.runLength(); ++j) {
            Value magnitude = math::AbsFOp::create(
                b, loc, vector::ExtractOp::create(b, loc, post, j));
            Value itemOffset = im.add(offset, j);
            Value inside =
                colsInBounds ? Value() : im.lt(im.add(col, j), n);
            for (int64_t block = tileFirstBlock; block <= tileLastBlock;
                 ++block) {
              Value counts = inside;
              if (tileFirstBlock != tileLastBlock) {
                // The tile holds several blocks: is the item in this one?
                // (Every offset is at least 0: no test for block 0.)
                Value fromStart =
                    block == 0 ? Value() : atLeast(b, itemOffset, block * blockN);
                counts = andOf(
                    b, loc, counts,
                    andOf(b, loc, fromStart,
                          im.lt(itemOffset, (block + 1) * blockN)));
              }
              Value &blockAmax = amax[block - firstBlock];
              blockAmax = arith::MaximumFOp::create(
                  b, loc, blockAmax,
                  counts ? arith::SelectOp::create(b, loc, counts, magnitude,
                                                   zero)
                         : magnitude);
            }
          }
          quads.push_back({post, col, offset, rn});
        }
      }
      // The lanes holding this row's items of each block.
      SmallVector<Value> scales, reciprocals;
      for (Value &blockAmax : amax) {
        for (int64_t step = layout.m(); step < chip.waveSize; step *= 2) {
          Value other =
              gpu::ShuffleOp::create(
                  b, loc, blockAmax,
                  arith::ConstantOp::create(b, loc,
                                            b.getIntegerAttr(i32, step)),
                  arith::ConstantOp::create(
                      b, loc, b.getIntegerAttr(i32, chip.waveSize)),
                  gpu::ShuffleMode::XOR)
                  .getShuffleResult();
          blockAmax = arith::MaximumFOp::create(b, loc, blockAmax, other);
        }
        auto [scale, reciprocal] = createBlockScale(b, loc, blockAmax, rule);
        scales.push_back(scale);
        reciprocals.push_back(reciprocal);
      }
      // The shuffles above stay outside the row tests: every lane of the
      // wave takes part in them.
      OpBuilder rowB = guardRowWrites(b, loc, op, row, rowOk);
      IndexMath rim{rowB, loc};
      for (const Quad &quad : quads) {
        auto [tileFirstBlock, tileLastBlock] = blocksOfTile(quad.rn);
        Value reciprocal = reciprocals[tileFirstBlock - firstBlock];
        if (tileFirstBlock != tileLastBlock) {
          // Each item's own block's reciprocal.
          SmallVector<Value> items;
          for (int64_t j = 0; j < layout.runLength(); ++j) {
            Value itemOffset = rim.add(quad.offset, j);
            Value item = reciprocals[tileFirstBlock - firstBlock];
            for (int64_t block = tileFirstBlock + 1; block <= tileLastBlock;
                 ++block)
              item = arith::SelectOp::create(
                  rowB, loc, atLeast(rowB, itemOffset, block * blockN),
                  reciprocals[block - firstBlock], item);
            items.push_back(item);
          }
          reciprocal = vector::FromElementsOp::create(
              rowB, loc,
              VectorType::get({layout.runLength()}, rowB.getF32Type()), items);
        }
        Value codes = createQuantizedElement(rowB, loc, quad.values,
                                             reciprocal, rule.elementType);
        forEachStoredPart(rowB, loc, codes, quad.col, n, colsInBounds,
                          [&](OpBuilder &partB, Value part, Value c) {
                            storeConverted(partB, loc, part, op.getOut(), row,
                                           c);
                          });
      }
      // One lane per row writes each block's scale.
      for (int64_t block = firstBlock; block <= lastBlock; ++block) {
        Value blockStart = rim.add(op.getCol(), block * blockN);
        Value writes = andOf(rowB, loc, rim.lt(lane, layout.m()),
                             colsInBounds ? Value() : rim.lt(blockStart, n));
        OpBuilder writerB = guardedBy(rowB, loc, writes);
        IndexMath wim{writerB, loc};
        memref::StoreOp::create(writerB, loc, scales[block - firstBlock],
                                op.getOutScales(),
                                ValueRange{row, wim.div(blockStart, blockN)});
      }
      rn0 = rnEnd;
    }
  }
}

namespace {
struct LowerWaveStore : public OpRewritePattern<WaveStoreOp> {
  LowerWaveStore(MLIRContext *context, const ChipInfo &chip)
      : OpRewritePattern(context), chip(chip) {}

  LogicalResult matchAndRewrite(WaveStoreOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOut().getType().isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "output of dynamic width");
    rewriter.setInsertionPoint(op);
    if (op.getOutScales())
      lowerQuantizingWaveStore(rewriter, op, chip);
    else
      lowerWaveStore(rewriter, op, chip);
    rewriter.eraseOp(op);
    return success();
  }

  const ChipInfo &chip;
};

struct QMMLowerWaveStorePass
    : public qmm::impl::QMMLowerWaveStoreBase<QMMLowerWaveStorePass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target =
        getTargetChip(getOperation(), chip, "qmm-lower-wave-store");
    if (!target)
      return signalPassFailure();
    WalkResult result = getOperation()->walk([&](WaveStoreOp op) {
      // Rows may be dynamic (a dynamic M, masked at run time); columns
      // are not.
      if (op.getOut().getType().isDynamicDim(1)) {
        op.emitOpError("qmm-lower-wave-store: needs an output of static "
                       "width (N)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateWaveStorePatterns(patterns, *target);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void qmm::populateWaveStorePatterns(RewritePatternSet &patterns,
                                    const ChipInfo &chip) {
  patterns.add<LowerWaveStore>(patterns.getContext(), chip);
}
