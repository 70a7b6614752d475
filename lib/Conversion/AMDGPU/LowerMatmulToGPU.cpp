//===- LowerMatmulToGPU.cpp - qmm.matmul to an MFMA workgroup kernel ------===//
//
// Replaces a bufferized, configured qmm.matmul with a gpu.launch whose body
// is the GPU-level kernel: a grid of workgroup tiles, A and B tiles staged
// through LDS, amdgpu.mfma on LDS fragments, per-K-block scaling of f32
// partial sums and a masked epilogue. gpu-kernel-outlining turns the launch
// into a gpu.func afterwards.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERMATMULTOGPU
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {

/// Index arithmetic on `index` values, folded where both sides are known.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, cst(y)); }
  Value mul(Value x, int64_t y) {
    return y == 1 ? x : arith::MulIOp::create(b, loc, x, cst(y)).getResult();
  }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, loc, x, cst(y)).getResult();
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, cst(y));
  }
  Value min(Value x, int64_t y) {
    return arith::MinUIOp::create(b, loc, x, cst(y));
  }
  Value lt(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, cst(y));
  }
};

/// What the kernel builder needs to know about one qmm.matmul.
struct MatmulProblem {
  int64_t m, n, k;
  Type aType, bType, outType;
  ScaleEncodingAttr aEncoding, bEncoding;
  /// Extent along K over which one product of scales holds; the partial sum
  /// of one such block is scaled once.
  int64_t scaleBlockK;
  bool accumulate;
};

class MatmulKernelBuilder {
public:
  MatmulKernelBuilder(OpBuilder &b, Location loc, const ChipInfo &chip,
                      ConfigAttr config, const MatmulProblem &problem,
                      MatmulOp op)
      : b(b), loc(loc), im{b, loc}, chip(chip), config(config), p(problem),
        op(op), mfma(getMFMAOperandLayout(config)) {}

  void build();

private:
  int64_t threads() const { return chip.waveSize * config.getNumWaves(); }
  int64_t waveTileM() const { return config.getTileM() / config.getWaves()[0]; }
  int64_t waveTileN() const { return config.getTileN() / config.getWaves()[1]; }
  int64_t repeatsM() const { return waveTileM() / mfma.m; }
  int64_t repeatsN() const { return waveTileN() / mfma.n; }
  VectorType accType() const {
    return VectorType::get({mfma.accElements}, b.getF32Type());
  }

  void stageTile(Value global, Value lds, int64_t rows, int64_t tileRows,
                 Value rowBase, Value kBase, Value stage);
  Value readFragment(Value lds, Value row, int64_t kBase, Value stage);
  SmallVector<Value> multiplyTile(Value stage, SmallVector<Value> partials);
  SmallVector<Value> computeBlockPartials(Value kBegin, Value kEnd);
  ValueRange buildBlockLoop(ValueRange init);
  ValueRange buildPipelinedLoop(ValueRange init);
  /// LDS indices [stage,] row, col: `stage` is null with one LDS buffer.
  static SmallVector<Value, 3> ldsIndices(Value stage, Value row, Value col) {
    SmallVector<Value, 3> indices;
    if (stage)
      indices.push_back(stage);
    indices.append({row, col});
    return indices;
  }
  SmallVector<Value> scaleAndAccumulate(Value kBlock, ValueRange partials,
                                        ValueRange acc);
  void storeResults(ValueRange acc);

  // The MFMAs compute the transposed tile, B fragments as the instruction's
  // A operand: accumulator item i of a lane then holds output row
  // lane % m and a column that runs over 4 consecutive values per group of
  // 4 items, so the epilogue stores 4 consecutive elements of a row.
  /// Column (within the MFMA output tile) of accumulator item `i`.
  Value itemCol(int64_t i) {
    int64_t groups = chip.waveSize / mfma.n;
    return im.add(im.mul(im.div(lane, mfma.n), 4),
                  (i % 4) + 4 * groups * (i / 4));
  }
  /// Row (within the MFMA output tile) of every accumulator item.
  Value itemRow() { return im.rem(lane, mfma.m); }
  Value waveRowBase(int64_t rm) {
    return im.add(im.add(tileRow, im.mul(waveM, waveTileM())), rm * mfma.m);
  }
  Value waveColBase(int64_t rn) {
    return im.add(im.add(tileCol, im.mul(waveN, waveTileN())), rn * mfma.n);
  }

  OpBuilder &b;
  Location loc;
  IndexMath im;
  const ChipInfo &chip;
  ConfigAttr config;
  MatmulProblem p;
  MatmulOp op;
  MFMAOperandLayout mfma;

  Value ldsA, ldsB;
  Value tid, lane, waveM, waveN, tileRow, tileCol;
};

} // namespace

void MatmulKernelBuilder::stageTile(Value global, Value lds, int64_t rows,
                                    int64_t tileRows, Value rowBase,
                                    Value kBase, Value stage) {
  // 16-byte chunks, consecutive threads on consecutive chunks of a row so a
  // wave reads whole rows of global memory.
  constexpr int64_t kChunk = 16;
  int64_t tileK = config.getTileK();
  int64_t chunksPerRow = tileK / kChunk;
  int64_t chunks = tileRows * chunksPerRow;
  // When one LDS phase of 16-byte writes covers two rows, it writes rows r
  // and r + D, with D * rowWords = half the banks (mod the banks), so that
  // the two rows fill the banks exactly once.
  int64_t pairDistance = 0;
  int64_t rowWords =
      (tileK + getLdsRowPadding(chip, config)) / chip.ldsBankBytes;
  int64_t phaseChunks = chip.ldsBanks * chip.ldsBankBytes / kChunk;
  if (phaseChunks == 2 * chunksPerRow)
    for (int64_t d = 1; 2 * d <= tileRows; ++d)
      if ((d * rowWords) % chip.ldsBanks == chip.ldsBanks / 2 &&
          tileRows % (2 * d) == 0) {
        pairDistance = d;
        break;
      }
  Type elementType = cast<MemRefType>(global.getType()).getElementType();
  auto chunkType = VectorType::get({kChunk}, elementType);
  for (int64_t first = 0; first < chunks; first += threads()) {
    Value chunk = im.add(tid, first);
    auto copyChunk = [&](OpBuilder &nested) {
      IndexMath nim{nested, loc};
      Value row, col;
      if (pairDistance > 0) {
        int64_t groupRows = 2 * pairDistance;
        Value group = nim.div(chunk, groupRows * chunksPerRow);
        Value inGroup = nim.rem(chunk, groupRows * chunksPerRow);
        Value inPhase = nim.rem(inGroup, phaseChunks);
        row = nim.add(
            nim.add(nim.mul(group, groupRows), nim.div(inGroup, phaseChunks)),
            nim.mul(nim.div(inPhase, chunksPerRow), pairDistance));
        col = nim.mul(nim.rem(inPhase, chunksPerRow), kChunk);
      } else {
        row = nim.div(chunk, chunksPerRow);
        col = nim.mul(nim.rem(chunk, chunksPerRow), kChunk);
      }
      // Rows past the matrix read the last row: their products land in
      // output rows the epilogue does not store.
      Value globalRow = nim.min(nim.add(rowBase, row), rows - 1);
      Value globalK = nim.add(kBase, col);
      Value data;
      if (p.k % tileK == 0) {
        data = vector::LoadOp::create(nested, loc, chunkType, global,
                                      ValueRange{globalRow, globalK});
      } else {
        // K tail: a chunk wholly inside K is one vector load; one that
        // crosses K (K not a multiple of 16) loads its bytes one by one,
        // zeros past K; one past K is zeros.
        Value whole = p.k >= kChunk
                          ? nim.lt(globalK, p.k - kChunk + 1)
                          : arith::ConstantOp::create(
                                nested, loc, nested.getBoolAttr(false))
                                .getResult();
        auto inBounds = scf::IfOp::create(nested, loc, TypeRange{chunkType},
                                          whole, /*withElseRegion=*/true);
        OpBuilder thenB = inBounds.getThenBodyBuilder();
        scf::YieldOp::create(
            thenB, loc,
            vector::LoadOp::create(thenB, loc, chunkType, global,
                                   ValueRange{globalRow, globalK})
                .getResult());
        OpBuilder elseB = inBounds.getElseBodyBuilder();
        Value tail;
        if (p.k % kChunk == 0) {
          tail = arith::ConstantOp::create(
              elseB, loc,
              DenseElementsAttr::get(chunkType, elseB.getZeroAttr(elementType)));
        } else {
          IndexMath eim{elseB, loc};
          Value zero = arith::ConstantOp::create(
              elseB, loc, cast<TypedAttr>(elseB.getZeroAttr(elementType)));
          SmallVector<Value> bytes;
          for (int64_t j = 0; j < kChunk; ++j) {
            Value k = eim.add(globalK, j);
            Value loaded = memref::LoadOp::create(
                elseB, loc, global, ValueRange{globalRow, eim.min(k, p.k - 1)});
            bytes.push_back(arith::SelectOp::create(elseB, loc, eim.lt(k, p.k),
                                                    loaded, zero));
          }
          tail = vector::FromElementsOp::create(elseB, loc, chunkType, bytes);
        }
        scf::YieldOp::create(elseB, loc, tail);
        data = inBounds.getResult(0);
      }
      vector::StoreOp::create(nested, loc, data, lds,
                              ldsIndices(stage, row, col));
    };
    if (first + threads() <= chunks) {
      copyChunk(b);
      continue;
    }
    auto guard = scf::IfOp::create(b, loc, im.lt(chunk, chunks),
                                   /*withElseRegion=*/false);
    OpBuilder thenB = guard.getThenBodyBuilder();
    copyChunk(thenB);
  }
}

/// FNUZ FP8 elements to bf16, exactly, with integer and f32 arithmetic the
/// backend lowers on any chip: normal codes move their exponent and
/// mantissa fields, subnormals go through m * 2^(1 - bias - mantissa bits)
/// in f32 (exact; truncating its bits to bf16 is too), 0x80 is NaN.
static Value convertFNUZToBF16(OpBuilder &b, Location loc, Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  auto floatType = cast<FloatType>(type.getElementType());
  int mantissaBits = floatType.getFPMantissaWidth() - 1;
  int bias = isa<Float8E4M3FNUZType>(floatType) ? 8 : 16;
  int64_t width = type.getNumElements();
  auto i8s = VectorType::get({width}, b.getI8Type());
  auto i16s = VectorType::get({width}, b.getI16Type());
  auto i32s = VectorType::get({width}, b.getI32Type());
  auto f32s = VectorType::get({width}, b.getF32Type());
  auto splat = [&](VectorType t, Attribute value) -> Value {
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(t, value));
  };
  auto i16 = [&](int64_t v) { return splat(i16s, b.getI16IntegerAttr(v)); };
  Value bytes = arith::BitcastOp::create(b, loc, i8s, fragment);
  Value x = arith::ExtUIOp::create(b, loc, i16s, bytes);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, x, i16(0x80)), i16(8));
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, x, i16(mantissaBits)),
      i16((0x7F >> mantissaBits)));
  Value mantissa = arith::AndIOp::create(b, loc, x, i16((1 << mantissaBits) - 1));
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc,
                            arith::AddIOp::create(b, loc, exponent,
                                                  i16(127 - bias)),
                            i16(7)),
      arith::ShLIOp::create(b, loc, mantissa, i16(7 - mantissaBits)));
  Value subnormalValue = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32s, mantissa),
      splat(f32s, b.getF32FloatAttr(std::ldexp(1.0f, 1 - bias - mantissaBits))));
  Value subnormal = arith::TruncIOp::create(
      b, loc, i16s,
      arith::ShRUIOp::create(
          b, loc, arith::BitcastOp::create(b, loc, i32s, subnormalValue),
          splat(i32s, b.getI32IntegerAttr(16))));
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            exponent, i16(0));
  Value magnitude =
      arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  Value bits = arith::OrIOp::create(b, loc, sign, magnitude);
  Value isNaN =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, i16(0x80));
  bits = arith::SelectOp::create(b, loc, isNaN, i16(0x7FC0), bits);
  return arith::BitcastOp::create(
      b, loc, VectorType::get({width}, b.getBF16Type()), bits);
}

Value MatmulKernelBuilder::readFragment(Value lds, Value row, int64_t kBase,
                                        Value stage) {
  Type elementType = cast<MemRefType>(lds.getType()).getElementType();
  Value group = im.div(lane, mfma.m);
  auto pieceType = VectorType::get({mfma.itemsPerPiece}, elementType);
  SmallVector<Value> pieces;
  for (int64_t piece = 0; piece < mfma.pieces; ++piece) {
    Value k = im.add(im.mul(group, mfma.itemsPerPiece),
                     kBase + piece * mfma.pieceStrideK);
    pieces.push_back(
        vector::LoadOp::create(b, loc, pieceType, lds,
                               ldsIndices(stage, row, k)));
  }
  if (pieces.size() == 1)
    return config.getMfmaKind() == MFMAKindAttrValue::BF16
               ? convertFNUZToBF16(b, loc, pieces.front())
               : pieces.front();
  SmallVector<int64_t> concat(2 * mfma.itemsPerPiece);
  for (int64_t i = 0; i < (int64_t)concat.size(); ++i)
    concat[i] = i;
  return vector::ShuffleOp::create(b, loc, pieces[0], pieces[1], concat);
}

SmallVector<Value>
MatmulKernelBuilder::multiplyTile(Value stage, SmallVector<Value> partials) {
  Value fragRow = im.rem(lane, mfma.m);
  Value fragCol = im.rem(lane, mfma.n);
  for (int64_t kStep = 0; kStep < config.getTileK(); kStep += mfma.k) {
    SmallVector<Value> aFrags, bFrags;
    for (int64_t rm = 0; rm < repeatsM(); ++rm) {
      Value row = im.add(im.add(im.mul(waveM, waveTileM()), rm * mfma.m),
                         fragRow);
      aFrags.push_back(readFragment(ldsA, row, kStep, stage));
    }
    for (int64_t rn = 0; rn < repeatsN(); ++rn) {
      Value row = im.add(im.add(im.mul(waveN, waveTileN()), rn * mfma.n),
                         fragCol);
      bFrags.push_back(readFragment(ldsB, row, kStep, stage));
    }
    for (int64_t rm = 0; rm < repeatsM(); ++rm)
      for (int64_t rn = 0; rn < repeatsN(); ++rn) {
        Value &acc = partials[rm * repeatsN() + rn];
        acc = amdgpu::MFMAOp::create(b, loc, accType(), mfma.n, mfma.m,
                                     mfma.k, /*blocks=*/1, bFrags[rn],
                                     aFrags[rm], acc);
      }
  }
  return partials;
}

SmallVector<Value> MatmulKernelBuilder::computeBlockPartials(Value kBegin,
                                                            Value kEnd) {
  int64_t count = repeatsM() * repeatsN();
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType(), b.getF32FloatAttr(0.0f)));
  SmallVector<Value> init(count, zero);
  auto loop = scf::ForOp::create(b, loc, kBegin, kEnd,
                                 im.cst(config.getTileK()), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value k0 = loop.getInductionVar();
  // Every wave is done reading the previous tiles before they are replaced.
  gpu::BarrierOp::create(b, loc);
  stageTile(op.getA(), ldsA, p.m, config.getTileM(), tileRow, k0, nullptr);
  stageTile(op.getB(), ldsB, p.n, config.getTileN(), tileCol, k0, nullptr);
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(
      b, loc,
      multiplyTile(nullptr, SmallVector<Value>(loop.getRegionIterArgs())));
  return SmallVector<Value>(loop.getResults());
}

ValueRange MatmulKernelBuilder::buildBlockLoop(ValueRange init) {
  // One iteration per K block of the scales; per-tensor and per-row scales
  // have a single block spanning K. Two barriers per K tile.
  int64_t numBlocks = llvm::divideCeil(p.k, p.scaleBlockK);
  auto blocks = scf::ForOp::create(b, loc, im.cst(0), im.cst(numBlocks),
                                   im.cst(1), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blocks.getBody());
  Value kBegin = im.mul(blocks.getInductionVar(), p.scaleBlockK);
  Value kEnd = im.min(im.add(kBegin, p.scaleBlockK), p.k);
  SmallVector<Value> partials = computeBlockPartials(kBegin, kEnd);
  scf::YieldOp::create(
      b, loc, scaleAndAccumulate(kBegin, partials, blocks.getRegionIterArgs()));
  return blocks.getResults();
}

ValueRange MatmulKernelBuilder::buildPipelinedLoop(ValueRange init) {
  // Two LDS buffers: while the waves multiply K tile t out of buffer t % 2,
  // they copy tile t + 1 into the other one; one barrier per tile both
  // publishes tile t + 1 and frees buffer t % 2 for tile t + 2. A block's
  // partial sums are scaled after its last tile.
  int64_t tileK = config.getTileK();
  int64_t numTiles = llvm::divideCeil(p.k, tileK);
  int64_t tilesPerBlock =
      p.scaleBlockK >= p.k ? numTiles : p.scaleBlockK / tileK;
  stageTile(op.getA(), ldsA, p.m, config.getTileM(), tileRow, im.cst(0),
            im.cst(0));
  stageTile(op.getB(), ldsB, p.n, config.getTileN(), tileCol, im.cst(0),
            im.cst(0));
  gpu::BarrierOp::create(b, loc);

  size_t count = init.size();
  SmallVector<Value> carried(init);
  carried.append(SmallVector<Value>(count, init.front()));
  auto tiles = scf::ForOp::create(b, loc, im.cst(0), im.cst(numTiles),
                                  im.cst(1), carried);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tiles.getBody());
  Value t = tiles.getInductionVar();
  ValueRange acc = tiles.getRegionIterArgs().take_front(count);
  SmallVector<Value> partials(tiles.getRegionIterArgs().drop_front(count));

  Value next = im.add(t, 1);
  auto prefetch = scf::IfOp::create(b, loc, im.lt(next, numTiles), false);
  {
    OpBuilder::InsertionGuard prefetchGuard(b);
    b.setInsertionPoint(prefetch.thenBlock()->getTerminator());
    Value stage = im.rem(next, 2);
    Value k = im.mul(next, tileK);
    stageTile(op.getA(), ldsA, p.m, config.getTileM(), tileRow, k, stage);
    stageTile(op.getB(), ldsB, p.n, config.getTileN(), tileCol, k, stage);
  }
  partials = multiplyTile(im.rem(t, 2), partials);

  Value blockEnds = arith::OrIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            im.rem(next, tilesPerBlock), im.cst(0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next,
                            im.cst(numTiles)));
  SmallVector<Type> types(2 * count, accType());
  auto scale = scf::IfOp::create(b, loc, types, blockEnds,
                                 /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard scaleGuard(b);
    b.setInsertionPointToStart(scale.thenBlock());
    Value kBlockStart = im.mul(im.div(t, tilesPerBlock), p.scaleBlockK);
    SmallVector<Value> results =
        scaleAndAccumulate(kBlockStart, partials, acc);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType(), b.getF32FloatAttr(0.0f)));
    results.append(SmallVector<Value>(count, zero));
    scf::YieldOp::create(b, loc, results);
    b.setInsertionPointToStart(scale.elseBlock());
    SmallVector<Value> unchanged(acc);
    unchanged.append(partials);
    scf::YieldOp::create(b, loc, unchanged);
  }
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, scale.getResults());
  return tiles.getResults().take_front(count);
}

/// Loads the scale of `row` (clamped into the matrix) in K block `kBlock`.
static Value loadScale(IndexMath &im, Value scales, ScaleEncodingAttr encoding,
                       int64_t rows, int64_t k, Value row, Value kBlockStart) {
  auto [blockRows, blockK] = encoding.getBlockExtent(rows, k);
  Value r = im.div(im.min(row, rows - 1), blockRows);
  Value c = im.div(kBlockStart, blockK);
  if (encoding.isMNMajor())
    std::swap(r, c);
  return memref::LoadOp::create(im.b, im.loc, scales, ValueRange{r, c});
}

SmallVector<Value> MatmulKernelBuilder::scaleAndAccumulate(Value kBlockStart,
                                                           ValueRange partials,
                                                           ValueRange acc) {
  // acc += partial * (scale_a(row) * scale_b(col)): one rounding of the
  // block's f32 partial sum per K block, every scale loaded once per block.
  SmallVector<Value> aScales;
  for (int64_t rm = 0; rm < repeatsM(); ++rm)
    aScales.push_back(loadScale(im, op.getAScales(), p.aEncoding, p.m, p.k,
                                im.add(waveRowBase(rm), itemRow()),
                                kBlockStart));
  SmallVector<Value> result;
  for (int64_t rn = 0; rn < repeatsN(); ++rn) {
    SmallVector<Value> bScales;
    for (int64_t i = 0; i < mfma.accElements; ++i)
      bScales.push_back(loadScale(im, op.getBScales(), p.bEncoding, p.n, p.k,
                                  im.add(waveColBase(rn), itemCol(i)),
                                  kBlockStart));
    for (int64_t rm = 0; rm < repeatsM(); ++rm) {
      SmallVector<Value> products;
      for (Value bScale : bScales)
        products.push_back(arith::MulFOp::create(b, loc, aScales[rm], bScale));
      Value scale = vector::FromElementsOp::create(b, loc, accType(), products);
      int64_t index = rm * repeatsN() + rn;
      result.push_back(vector::FMAOp::create(b, loc, partials[index], scale,
                                             acc[index]));
    }
  }
  // Results in (rm, rn) order, as the accumulators.
  SmallVector<Value> ordered(result.size());
  for (int64_t rn = 0, at = 0; rn < repeatsN(); ++rn)
    for (int64_t rm = 0; rm < repeatsM(); ++rm, ++at)
      ordered[rm * repeatsN() + rn] = result[at];
  return ordered;
}

/// `value` (f32 elements) plus, when accumulating, what `out` holds at
/// [row, col...], converted to the output element type.
static Value finishOutput(OpBuilder &b, Location loc, Value value, Value out,
                          Value row, Value col, bool accumulate,
                          Type outType) {
  Type f32 = b.getF32Type();
  auto vecType = dyn_cast<VectorType>(value.getType());
  if (accumulate) {
    Value c;
    if (vecType) {
      c = vector::LoadOp::create(b, loc, vecType.clone(outType), out,
                                 ValueRange{row, col});
      if (outType != f32)
        c = arith::ExtFOp::create(b, loc, vecType, c);
    } else {
      c = memref::LoadOp::create(b, loc, out, ValueRange{row, col});
      if (outType != f32)
        c = arith::ExtFOp::create(b, loc, f32, c);
    }
    value = arith::AddFOp::create(b, loc, value, c);
  }
  if (outType != f32)
    value = arith::TruncFOp::create(
        b, loc, vecType ? Type(vecType.clone(outType)) : outType, value);
  return value;
}

void MatmulKernelBuilder::storeResults(ValueRange acc) {
  // Each group of 4 accumulator items is 4 consecutive columns of one row:
  // one vector store when they are all inside the matrix, element stores
  // at the right edge, nothing below the last row.
  Value out = op.getInit();
  for (int64_t rm = 0; rm < repeatsM(); ++rm) {
    Value row = im.add(waveRowBase(rm), itemRow());
    for (int64_t rn = 0; rn < repeatsN(); ++rn) {
      Value tile = acc[rm * repeatsN() + rn];
      for (int64_t group = 0; group < mfma.accElements / 4; ++group) {
        Value col = im.add(waveColBase(rn), itemCol(4 * group));
        // A shuffle, not extract_strided_slice: it lowers directly to LLVM.
        int64_t first = 4 * group;
        Value quad = vector::ShuffleOp::create(
            b, loc, tile, tile,
            ArrayRef<int64_t>{first, first + 1, first + 2, first + 3});
        auto rowInside = scf::IfOp::create(b, loc, im.lt(row, p.m), false);
        OpBuilder rowB = rowInside.getThenBodyBuilder();
        IndexMath rim{rowB, loc};
        Value fits = p.n >= 4 ? rim.lt(col, p.n - 3)
                              : arith::ConstantOp::create(
                                    rowB, loc, rowB.getBoolAttr(false))
                                    .getResult();
        auto whole = scf::IfOp::create(rowB, loc, fits,
                                       /*withElseRegion=*/true);
        OpBuilder vecB = whole.getThenBodyBuilder();
        vector::StoreOp::create(vecB, loc,
                                finishOutput(vecB, loc, quad, out, row, col,
                                             p.accumulate, p.outType),
                                out, ValueRange{row, col});
        OpBuilder edgeB = whole.getElseBodyBuilder();
        IndexMath eim{edgeB, loc};
        for (int64_t j = 0; j < 4; ++j) {
          Value c = eim.add(col, j);
          auto inside = scf::IfOp::create(edgeB, loc, eim.lt(c, p.n), false);
          OpBuilder elemB = inside.getThenBodyBuilder();
          Value v = vector::ExtractOp::create(elemB, loc, quad, j);
          memref::StoreOp::create(elemB, loc,
                                  finishOutput(elemB, loc, v, out, row, c,
                                               p.accumulate, p.outType),
                                  out, ValueRange{row, c});
        }
      }
    }
  }
}

void MatmulKernelBuilder::build() {
  int64_t gridX = llvm::divideCeil(p.n, config.getTileN());
  int64_t gridY = llvm::divideCeil(p.m, config.getTileM());
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  int64_t rowBytes = config.getTileK() + getLdsRowPadding(chip, config);
  auto ldsType = [&](int64_t rows, Type element) {
    SmallVector<int64_t, 3> shape;
    if (config.getStages() > 1)
      shape.push_back(config.getStages());
    shape.append({rows, rowBytes});
    return MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  Type ldsTypes[] = {ldsType(config.getTileM(), p.aType),
                     ldsType(config.getTileN(), p.bType)};
  auto launch = gpu::LaunchOp::create(
      b, loc, im.cst(gridX), im.cst(gridY), im.cst(1), im.cst(threads()),
      im.cst(1), im.cst(1), /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, ldsTypes);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  ldsA = launch.getWorkgroupAttributions()[0];
  ldsB = launch.getWorkgroupAttributions()[1];

  tid = launch.getThreadIds().x;
  lane = im.rem(tid, chip.waveSize);
  Value wave = im.div(tid, chip.waveSize);
  waveM = im.div(wave, config.getWaves()[1]);
  waveN = im.rem(wave, config.getWaves()[1]);
  tileRow = im.mul(launch.getBlockIds().y, config.getTileM());
  tileCol = im.mul(launch.getBlockIds().x, config.getTileN());

  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType(), b.getF32FloatAttr(0.0f)));
  SmallVector<Value> init(repeatsM() * repeatsN(), zero);
  ValueRange acc = config.getStages() == 2 ? buildPipelinedLoop(init)
                                           : buildBlockLoop(init);
  storeResults(acc);
  gpu::TerminatorOp::create(b, loc);
}

/// Checks everything the kernel builder assumes; the diagnostic names the
/// first thing that does not hold.
static FailureOr<MatmulProblem> analyzeMatmul(MatmulOp op,
                                              const ChipInfo &chip) {
  auto fail = [&](const Twine &message) {
    return op.emitOpError("qmm-lower-matmul-to-gpu: ") << message;
  };
  auto outType = dyn_cast<MemRefType>(op.getInit().getType());
  if (!outType)
    return fail("runs on the memref form (after bufferization)");
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return fail("has no #qmm.config; run qmm-select-config first");
  if (op.getBLayout() != OperandLayout::NK)
    return fail("B must be [N, K]; run qmm-legalize-for-chip first");
  MatmulProblem p;
  p.m = outType.getDimSize(0);
  p.n = outType.getDimSize(1);
  auto aType = cast<MemRefType>(op.getA().getType());
  p.k = aType.getDimSize(1);
  if (ShapedType::isDynamic(p.m) || ShapedType::isDynamic(p.n) ||
      ShapedType::isDynamic(p.k))
    return fail("needs static shapes");
  p.aType = aType.getElementType();
  p.bType = cast<MemRefType>(op.getB().getType()).getElementType();
  p.outType = outType.getElementType();
  p.aEncoding = op.getAEncoding();
  p.bEncoding = op.getBEncoding();
  p.accumulate = op.getAccumulate();
  if (p.aEncoding.isMX() || p.bEncoding.isMX())
    return fail("MX scales are lowered by the scaled-MFMA path, which this "
                "pass does not implement yet");
  bool convertsToBF16 = config.getMfmaKind() == MFMAKindAttrValue::BF16;
  for (Type t : {p.aType, p.bType}) {
    if (t.getIntOrFloatBitWidth() != 8)
      return fail("operand type ") << t << " is not an 8-bit format";
    if (getFormatFamily(t) != chip.nativeFP8 && !convertsToBF16)
      return fail("operand type ")
             << t << " is not native to " << chip.name
             << "; run qmm-legalize-for-chip first";
  }
  if (failed(verifyConfigForChip(config, chip, p.aType, p.bType,
                                 [&]() { return op.emitOpError(); })))
    return failure();
  if (config.getStages() > 2)
    return fail("stages = ") << config.getStages()
                             << " is not implemented; use 1 (one LDS "
                                "buffer) or 2 (double buffering)";
  int64_t aBlockK = p.aEncoding.getBlockExtent(p.m, p.k).second;
  int64_t bBlockK = p.bEncoding.getBlockExtent(p.n, p.k).second;
  p.scaleBlockK = std::min(aBlockK, bBlockK);
  if (std::max(aBlockK, bBlockK) % p.scaleBlockK != 0)
    return fail("scale blocks along K (") << aBlockK << " and " << bBlockK
                                          << ") must nest";
  if (p.scaleBlockK < p.k && p.scaleBlockK % config.getTileK() != 0)
    return fail("tile K = ") << config.getTileK()
                             << " must divide the scale block along K ("
                             << p.scaleBlockK << ")";
  return p;
}

namespace {
struct QMMLowerMatmulToGPUPass
    : public qmm::impl::QMMLowerMatmulToGPUBase<QMMLowerMatmulToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = lookupChip(chip);
    if (!target) {
      getOperation()->emitError("qmm-lower-matmul-to-gpu: unknown chip '")
          << chip << "' (expected " << getSupportedChipNames() << ")";
      return signalPassFailure();
    }
    SmallVector<MatmulOp> matmuls;
    getOperation()->walk([&](MatmulOp op) { matmuls.push_back(op); });
    for (MatmulOp op : matmuls) {
      FailureOr<MatmulProblem> problem = analyzeMatmul(op, *target);
      if (failed(problem))
        return signalPassFailure();
      OpBuilder b(op);
      MatmulKernelBuilder(b, op.getLoc(), *target, op.getConfigAttr(),
                          *problem, op)
          .build();
      op.erase();
    }
    getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                            UnitAttr::get(&getContext()));
  }
};
} // namespace
