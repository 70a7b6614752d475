//===- TileMatmul.cpp - qmm.matmul to a grid of workgroups and waves ------===//
//
// Stage 3 of the AMD pipeline: a configured, bufferized qmm.matmul becomes a
// gpu.launch whose waves loop over the K tiles with qmm.wave_mma, scale
// each K block's partial sums with qmm.wave_scale_accumulate and store with
// qmm.wave_store. Later stages lower those ops one at a time.
//
//===----------------------------------------------------------------------===//

#include "TileMatmul.h"

#include "qmm/Conversion/Passes.h"
#include "qmm/Target/TargetAttr.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>
#include <numeric>

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMTILEMATMUL
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::tiling;


namespace {
/// The operands whose extents follow M (A's rows) in a qmm.matmul or a
/// qmm.grouped_matmul: along dimension 0, or 1 behind the group dimension
/// of a masked grouped matmul (M is then each group's Mmax).
struct RowOperands {
  StringRef opName;
  Value a, init, aux, aScales, outScales, rowGroups;
  ScaleEncodingAttr aEncoding, outEncoding;
  unsigned rowDim = 0;

  explicit RowOperands(MatmulOp op)
      : opName("qmm.matmul"), a(op.getA()), init(op.getInit()),
        aux(op.getAux()), aScales(op.getAScales()),
        outScales(op.getOutScales()), aEncoding(op.getAEncoding()),
        outEncoding(op.getOutEncodingAttr()) {}
  explicit RowOperands(GroupedMatmulOp op)
      : opName("qmm.grouped_matmul"), a(op.getA()), init(op.getInit()),
        aux(op.getAux()), aScales(op.getAScales()),
        outScales(op.getOutScales()), aEncoding(op.getAEncoding()),
        outEncoding(op.getOutEncodingAttr()) {
    // Masked: `groups` holds counts, not one entry per row.
    if (op.getLayout() == GroupedLayout::Masked)
      rowDim = 1;
    else
      rowGroups = op.getGroups();
  }

  /// The dimension of `scales` along which their rows follow M.
  unsigned scaleRowDim(ScaleEncodingAttr encoding) const {
    return rowDim + (encoding.isMNMajor() ? 1 : 0);
  }

  /// Whether one of the extents that follow M is dynamic.
  bool hasDynamicRows() const {
    auto dynamicAt = [](Value v, unsigned dim) {
      return v && cast<MemRefType>(v.getType()).isDynamicDim(dim);
    };
    auto scalesDynamic = [&](Value scales, ScaleEncodingAttr encoding) {
      return scales && encoding.getKind() != ScaleKind::PerTensor &&
             dynamicAt(scales, scaleRowDim(encoding));
    };
    return dynamicAt(a, rowDim) || dynamicAt(init, rowDim) ||
           dynamicAt(aux, rowDim) || dynamicAt(rowGroups, 0) ||
           scalesDynamic(aScales, aEncoding) ||
           (outEncoding && scalesDynamic(outScales, outEncoding));
  }

  /// M (A's rows), read on the host. Every other extent that follows M
  /// (the output's, aux's and the row groups' rows, A's scale rows or
  /// blocks, an FP8 output's scale rows) is checked against it with
  /// cf.assert, so a call with mismatched shapes stops with a message
  /// instead of reading or writing past a buffer. Built wherever one of
  /// them is dynamic (the kernels size their row masks and clamps from
  /// them).
  Value readRows(OpBuilder &b, Location loc) const {
    IndexMath im{b, loc};
    Value m = im.dim(a, rowDim);
    auto check = [&](Value actual, Value expected, const Twine &what) {
      Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         actual, expected);
      cf::AssertOp::create(b, loc, same, (opName + ": " + what).str());
    };
    check(im.dim(init, rowDim), m,
          "the output's rows differ from A's rows (M)");
    if (aux)
      check(im.dim(aux, rowDim), m, "aux's rows differ from A's rows (M)");
    if (rowGroups)
      check(im.dim(rowGroups, 0), m,
            "the row groups differ in length from A's rows (M)");
    // Scale rows: M per row, ceil(M / block rows) per block; a per-tensor
    // scale does not follow M.
    auto checkScales = [&](Value scales, ScaleEncodingAttr encoding,
                           StringRef name) {
      if (!scales || encoding.getKind() == ScaleKind::PerTensor)
        return;
      int64_t blockRows = encoding.getKind() == ScaleKind::PerRow
                              ? 1
                              : encoding.getBlockShape()[0];
      Value expected =
          im.apply(b.getAffineDimExpr(0).ceilDiv(blockRows), {m});
      std::string count = blockRows == 1
                              ? std::string("M")
                              : "ceil(M / " + std::to_string(blockRows) + ")";
      check(im.dim(scales, scaleRowDim(encoding)), expected,
            name + " do not match A's rows (M): expected " + count +
                " scales along M");
    };
    checkScales(aScales, aEncoding, "A's scales");
    if (outEncoding)
      checkScales(outScales, outEncoding, "the output's scales");
    return m;
  }

  /// With a dynamic M: checks, then an scf.if that skips M = 0 (a grid
  /// must not be empty), the builder left inside it; the grid's rows of
  /// `tileM`-row tiles. With a static M: those checks where an operand is
  /// dynamic, and the constant rows of the grid.
  Value buildGridRows(OpBuilder &b, Location loc, int64_t staticM,
                      int64_t tileM, int64_t maxM = 0) const {
    IndexMath im{b, loc};
    if (!ShapedType::isDynamic(staticM)) {
      if (hasDynamicRows())
        readRows(b, loc);
      return im.cst(llvm::divideCeil(staticM, tileM));
    }
    Value m = readRows(b, loc);
    if (maxM > 0) {
      // The bound sizes split-K's workspace: a larger M would overrun it.
      Value within = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           m, im.cst(maxM));
      cf::AssertOp::create(b, loc, within,
                           (opName + ": M exceeds its bound qmm.max_m = " +
                            Twine(maxM))
                               .str());
    }
    auto nonEmpty = scf::IfOp::create(b, loc, im.lt(im.cst(0), m),
                                      /*withElseRegion=*/false);
    b.setInsertionPoint(nonEmpty.thenBlock()->getTerminator());
    return im.apply(b.getAffineDimExpr(0).ceilDiv(tileM), {m});
  }
};
} // namespace

/// Checks everything the tiled kernel assumes; the diagnostic names the
/// first thing that does not hold.
template <typename OpTy>
static FailureOr<MatmulProblem> analyzeMatmul(OpTy op, const ChipInfo &chip) {
  auto fail = [&](const Twine &message) {
    return op.emitOpError("qmm-tile-matmul: ") << message;
  };
  if (!isa<MemRefType>(op.getInit().getType()))
    return fail("runs on the memref form (after bufferization)");
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return fail("has no #qmm.config; run qmm-select-config first");
  if constexpr (std::is_same_v<OpTy, MatmulOp>) {
    if (op.getBLayout() != OperandLayout::NK)
      return fail("B must be [N, K]; run qmm-legalize-for-chip first");
  }
  auto aType = cast<MemRefType>(op.getA().getType());
  Type bElement = cast<MemRefType>(op.getB().getType()).getElementType();
  MatmulProblem p{op.getM(), op.getN(), op.getK(), 0};
  if (ShapedType::isDynamic(p.n) || ShapedType::isDynamic(p.k))
    return fail("needs static N and K (only M, the rows of A, may be "
                "dynamic)");
  if constexpr (!std::is_same_v<OpTy, MatmulOp>) {
    // Only the extents that follow M may be dynamic: the rows of A, its
    // scales, the output, aux and the output's scales, and the row groups
    // of a contiguous matmul (a masked one's rows come after G).
    RowOperands rows(op);
    auto rowDimOf = [&](Value operand) -> std::optional<unsigned> {
      if (operand == op.getA() || operand == op.getInit() ||
          operand == op.getAux())
        return rows.rowDim;
      if (operand == rows.rowGroups)
        return 0u;
      if (operand == op.getAScales())
        return rows.scaleRowDim(op.getAEncoding());
      if (operand == op.getOutScales())
        return rows.scaleRowDim(op.getOutEncodingAttr());
      return std::nullopt;
    };
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type || type.hasStaticShape())
        continue;
      std::optional<unsigned> rowDim = rowDimOf(operand);
      if (!rowDim || type.getNumDynamicDims() != 1 ||
          !type.isDynamicDim(*rowDim))
        return fail("a dynamic M may only be the rows of A, its scales, the "
                    "output, aux, the output's scales and (contiguous) the "
                    "row groups; G, N, K and B are static");
    }
    if (rows.rowDim == 1 && ShapedType::isDynamic(p.m) &&
        aType.getElementType().getIntOrFloatBitWidth() < 8)
      return fail("a dynamic M of a masked grouped matmul with packed ")
             << aType.getElementType()
             << " A is not implemented (its group matrices are addressed by "
                "byte from static extents)";
  }
  if (ShapedType::isDynamic(p.m)) {
    if (auto bound = op->template getAttrOfType<IntegerAttr>(kMaxMAttrName)) {
      if (bound.getInt() <= 0 ||
          bound.getInt() > std::numeric_limits<int32_t>::max())
        return fail("qmm.max_m must be in [1, 2^31 - 1], got ")
               << bound.getInt();
      p.maxM = bound.getInt();
    }
    if (config.getSplit() > 1 && p.maxM <= 0)
      return fail("split = ")
             << config.getSplit()
             << ": split-K needs a static or bounded M (the grid sizes its "
                "workspace and arrival counters)";
  }
  ScaleEncodingAttr aEncoding = op.getAEncoding(), bEncoding = op.getBEncoding();
  if (aEncoding.isMX() != bEncoding.isMX())
    return fail("MX scales on one operand only are not implemented");
  bool mx = aEncoding.isMX();
  if (mx && (aEncoding.isMNMajor() || bEncoding.isMNMajor()))
    return fail("MX scales must be K-major ([rows, K / 32])");
  bool convertsToBF16 = config.getMfmaKind() == MFMAKind::BF16;
  for (Value operand : {op.getA(), op.getB()}) {
    auto type = cast<MemRefType>(operand.getType());
    Type t = type.getElementType();
    // FP4/FP6 (packed, see the dialect) are read by gfx950's f8f6f4 forms
    // and converted in registers on gfx942.
    if (t.getIntOrFloatBitWidth() < 8) {
      if (p.k % kMXBlockSize != 0)
        return fail("packed ")
               << t << " operands need K to be a multiple of " << kMXBlockSize;
      // Packed rows are addressed by byte from the operand's start: a view
      // into a larger buffer (a batch slice) would read the wrong bytes.
      if (!type.getLayout().isIdentity())
        return fail("packed ")
               << t << " operands must be whole buffers (identity layout), "
               << "got " << type;
      continue;
    }
    if (getFormatFamily(t) != chip.nativeFP8 && !convertsToBF16)
      return fail("operand type ")
             << t << " is not native to " << chip.name
             << "; run qmm-legalize-for-chip first";
  }
  if (failed(verifyConfigForChip(config, chip,
                                 {aType.getElementType(), bElement, mx},
                                 [&]() { return op.emitOpError(); })))
    return failure();
  if (ScaleEncodingAttr out = op.getOutEncodingAttr()) {
    int64_t blockN = out.getBlockExtent(p.m, p.n).second;
    if (!config.keepsOutputBlocksInWaves(p.n, blockN))
      return fail("the FP8 output's blocks of ")
             << blockN << " columns must lie within one wave's sub-tile ("
             << config.getWaveTileN()
             << " columns), starting at a multiple of the block; use "
                "waves = [W, 1] or a tile N that is a multiple of the block";
  }
  if (config.getStages() > 2)
    return fail("stages = ") << config.getStages()
                             << " is not implemented; use 1 (one LDS "
                                "buffer) or 2 (double buffering)";
  int64_t aBlockK = aEncoding.getBlockExtent(p.m, p.k).second;
  int64_t bBlockK = bEncoding.getBlockExtent(p.n, p.k).second;
  p.scaleBlockK = std::min(aBlockK, bBlockK);
  // A block covering all of K (per tensor, per row, or a block at least K
  // deep) puts no boundary inside K, so it nests with any other.
  if (std::max(aBlockK, bBlockK) < p.k &&
      std::max(aBlockK, bBlockK) % p.scaleBlockK != 0)
    return fail("scale blocks along K (") << aBlockK << " and " << bBlockK
                                          << ") must nest";
  // The scaled MFMA applies MX scales itself, whatever the tile K.
  if (config.getMfmaKind() == MFMAKind::ScaledF8F6F4)
    p.scaleBlockK = p.k;
  if (p.scaleBlockK < p.k && p.scaleBlockK % config.getTileK() != 0)
    return fail("tile K = ") << config.getTileK()
                             << " must divide the scale block along K ("
                             << p.scaleBlockK << ")";
  p.numTiles = llvm::divideCeil(p.k, config.getTileK());
  if (failed(verifySplitK(config, p.k, p.scaleBlockK,
                          !std::is_same_v<OpTy, MatmulOp>,
                          [&]() { return op.emitOpError(); })))
    return failure();
  p.split = p.numTiles == 0 ? 1 : config.getSplit();
  return p;
}


TilePosition tiling::locateTile(IndexMath &im, gpu::LaunchOp launch,
                                ConfigAttr config, const ChipInfo &chip) {
  TilePosition at;
  Value wave = im.div(launch.getThreadIds().x, chip.waveSize);
  at.waveRow =
      im.mul(im.div(wave, config.getWaves()[1]), config.getWaveTileM());
  at.waveCol =
      im.mul(im.rem(wave, config.getWaves()[1]), config.getWaveTileN());
  at.tileRow = im.mul(launch.getBlockIds().y, config.getTileM());
  at.tileCol = im.mul(launch.getBlockIds().x, config.getTileN());
  return at;
}

/// Records what the performance model (qmm/PerfModel) needs to know about
/// the kernel and cannot read from its code object (the config, the
/// problem, the scale block, the LDS layout's bank-conflict cycles per trip
/// of the K loop) as the metadata of the launch's fused location: the outlined gpu.func keeps the
/// launch's location through outlining and canonicalization. The K loop is
/// marked `qmm.k_loop` (it folds away when K fits one tile).
static void annotateKernel(scf::ForOp loop, const ChipInfo &chip,
                           ConfigAttr config, const MatmulProblem &p,
                           const TileOperands &ops, int64_t tilesPerTrip) {
  MLIRContext *ctx = loop.getContext();
  Builder b(ctx);
  loop->setAttr("qmm.k_loop", b.getUnitAttr());
  auto launch = loop->getParentOfType<gpu::LaunchOp>();
  Type aType = cast<MemRefType>(ops.a.getType()).getElementType();
  Type bType = cast<MemRefType>(ops.b.getType()).getElementType();
  OperandTypes operands{aType, bType, ops.aEncoding.isMX()};
  SmallVector<NamedAttribute> info = {
      b.getNamedAttr("config", config),
      b.getNamedAttr("problem", b.getDenseI64ArrayAttr({p.m, p.n, p.k})),
      b.getNamedAttr("scale_block_k", b.getI64IntegerAttr(p.scaleBlockK)),
      b.getNamedAttr("a_type", TypeAttr::get(aType)),
      b.getNamedAttr("b_type", TypeAttr::get(bType)),
      b.getNamedAttr("lds_conflict_cycles",
                     b.getI64IntegerAttr(
                         tilesPerTrip *
                         getLdsConflictCyclesPerTile(chip, config, operands)))};
  if (p.split > 1)
    info.push_back(b.getNamedAttr("split_k", b.getI64IntegerAttr(p.split)));
  if (ops.validRows || ops.rowGroups)
    info.push_back(b.getNamedAttr(
        "grouped", b.getStringAttr(ops.validRows ? "masked" : "contiguous")));
  launch->setLoc(FusedLoc::get(ctx, {launch.getLoc()},
                               b.getDictionaryAttr(info)));
}


SmallVector<Value> tiling::buildTileProduct(OpBuilder &b, Location loc,
                                            const ChipInfo &chip,
                                            ConfigAttr config,
                                            const MatmulProblem &p,
                                            const TileOperands &ops,
                                            const TilePosition &at,
                                            KTileRange range) {
  IndexMath im{b, loc};
  int64_t tileK = config.getTileK();
  Value tileRow = at.tileRow, tileCol = at.tileCol;
  Value waveRow = at.waveRow, waveCol = at.waveCol;
  Value subTileRow = im.add(tileRow, waveRow);
  Value subTileCol = im.add(tileCol, waveCol);
  // [group,] row, k of an operand tile.
  auto origin = [](ArrayRef<Value> group, Value row, Value k) {
    SmallVector<Value, 3> indices(group.begin(), group.end());
    indices.append({row, k});
    return indices;
  };
  // The K tile a loop's induction variable stands for.
  auto tileAt = [&](OpBuilder &at, Value iv) {
    return range.first ? IndexMath{at, loc}.add(range.first, iv) : iv;
  };

  auto accType = VectorType::get(
      {config.getIntrinsic().getAccumulatorItems()},
      b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  int64_t count = config.getNumAccumulators();
  int64_t numTiles = range.count;
  // K = 0: an empty sum. The epilogue still runs on zero accumulators
  // (D = C with `accumulate`, plus bias and activation), as BLAS does.
  if (numTiles == 0)
    return SmallVector<Value>(count, zero);
  if (config.getMfmaKind() == MFMAKind::ScaledF8F6F4) {
    // The instruction applies the E8M0 scales: the accumulators go straight
    // through the MFMAs, with the scales of the tile's first K block.
    auto tiles = scf::ForOp::create(b, loc, im.cst(0), im.cst(numTiles),
                                    im.cst(1), SmallVector<Value>(count, zero));
    {
      OpBuilder::InsertionGuard loopGuard(b);
      b.setInsertionPointToStart(tiles.getBody());
      Value k = im.mul(tileAt(b, tiles.getInductionVar()), tileK);
      Value kBlock = im.div(k, kMXBlockSize);
      auto mma = WaveMmaOp::create(
          b, loc, ops.a, origin(ops.aGroup, tileRow, k), ops.b,
          origin(ops.bGroup, tileCol, k), waveRow, waveCol,
          tiles.getRegionIterArgs(),
          ops.aScales, ValueRange{tileRow, kBlock}, ops.bScales,
          ValueRange{tileCol, kBlock}, config);
      scf::YieldOp::create(b, loc, mma.getResults());
    }
    annotateKernel(tiles, chip, config, p, ops, /*tilesPerTrip=*/1);
    return tiles.getResults();
  }
  int64_t tilesPerBlock =
      p.scaleBlockK >= p.k ? p.numTiles : p.scaleBlockK / tileK;
  auto scaleBlock = [&](OpBuilder &at, ValueRange partials, ValueRange acc,
                        Value kBlockStart) {
    return WaveScaleAccumulateOp::create(
               at, loc, partials, acc, subTileRow, subTileCol, kBlockStart,
               ops.aScales, ops.bScales, ops.aEncoding, ops.bEncoding,
               at.getDenseI64ArrayAttr({p.m, p.n, p.k}), config)
        .getResults();
  };
  auto multiplyTile = [&](OpBuilder &at, Value tile, ValueRange partials) {
    IndexMath tim{at, loc};
    Value k = tim.mul(tile, tileK);
    return WaveMmaOp::create(at, loc, ops.a, origin(ops.aGroup, tileRow, k),
                             ops.b, origin(ops.bGroup, tileCol, k), waveRow,
                             waveCol, partials, config)
        .getResults();
  };
  if (tilesPerBlock >= p.numTiles) {
    // One block spans K (per-tensor or per-row scales): the loop only
    // multiplies, and the scales are applied once, after it.
    auto tiles = scf::ForOp::create(b, loc, im.cst(0), im.cst(numTiles),
                                    im.cst(1),
                                    SmallVector<Value>(count, zero));
    annotateKernel(tiles, chip, config, p, ops, /*tilesPerTrip=*/1);
    {
      OpBuilder::InsertionGuard loopGuard(b);
      b.setInsertionPointToStart(tiles.getBody());
      scf::YieldOp::create(b, loc,
                           multiplyTile(b, tileAt(b, tiles.getInductionVar()),
                                        tiles.getRegionIterArgs()));
    }
    return scaleBlock(b, tiles.getResults(), SmallVector<Value>(count, zero),
                      im.cst(0));
  }
  if (numTiles % tilesPerBlock == 0) {
    // One trip per scale block: its K tiles' MFMAs chain from zero and the
    // block's scales are applied at the end of the trip. No branch, no
    // partial sums carried across trips.
    auto blocks = scf::ForOp::create(b, loc, im.cst(0), im.cst(numTiles),
                                     im.cst(tilesPerBlock),
                                     SmallVector<Value>(count, zero));
    annotateKernel(blocks, chip, config, p, ops, tilesPerBlock);
    {
      OpBuilder::InsertionGuard loopGuard(b);
      b.setInsertionPointToStart(blocks.getBody());
      IndexMath bim{b, loc};
      Value firstTile = tileAt(b, blocks.getInductionVar());
      SmallVector<Value> partials(count, zero);
      for (int64_t j = 0; j < tilesPerBlock; ++j) {
        ValueRange results = multiplyTile(b, bim.add(firstTile, j), partials);
        partials.assign(results.begin(), results.end());
      }
      scf::YieldOp::create(b, loc,
                           scaleBlock(b, partials, blocks.getRegionIterArgs(),
                                      bim.mul(firstTile, tileK)));
    }
    return blocks.getResults();
  }
  // A shorter last block (K not a multiple of the block): the loop runs
  // over K tiles, carrying the current block's partial sums.
  SmallVector<Value> init(2 * count, zero);
  auto tiles = scf::ForOp::create(b, loc, im.cst(0), im.cst(numTiles),
                                  im.cst(1), init);
  annotateKernel(tiles, chip, config, p, ops, /*tilesPerTrip=*/1);
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(tiles.getBody());
    Value t = tileAt(b, tiles.getInductionVar());
    ValueRange acc = tiles.getRegionIterArgs().take_front(count);
    ValueRange partials = tiles.getRegionIterArgs().drop_front(count);
    ValueRange mma = multiplyTile(b, t, partials);
    // A block ends after every tilesPerBlock tiles and after the last tile.
    Value next = im.add(t, 1);
    Value blockEnds = arith::OrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              im.rem(next, tilesPerBlock), im.cst(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next,
                              im.cst(p.numTiles)));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange(init), blockEnds,
                                  /*withElseRegion=*/true);
    OpBuilder thenB = ifOp.getThenBodyBuilder();
    IndexMath tim{thenB, loc};
    SmallVector<Value> scaled(scaleBlock(
        thenB, mma, acc,
        tim.mul(tim.div(t, tilesPerBlock), p.scaleBlockK)));
    scaled.append(count, zero);
    scf::YieldOp::create(thenB, loc, scaled);
    OpBuilder elseB = ifOp.getElseBodyBuilder();
    SmallVector<Value> unchanged(acc);
    unchanged.append(mma.begin(), mma.end());
    scf::YieldOp::create(elseB, loc, unchanged);
    scf::YieldOp::create(b, loc, ifOp.getResults());
  }
  return SmallVector<Value>(tiles.getResults().take_front(count));
}

/// The K loop of one workgroup tile over all of K, and its store.
static void buildTile(OpBuilder &b, Location loc, const ChipInfo &chip,
                      ConfigAttr config, const MatmulProblem &p,
                      const TileOperands &ops, const TilePosition &at) {
  IndexMath im{b, loc};
  SmallVector<Value> acc = buildTileProduct(b, loc, chip, config, p, ops, at,
                                            {Value(), p.numTiles});
  ops.createStore(b, loc, acc, im.add(at.tileRow, at.waveRow),
                  im.add(at.tileCol, at.waveCol), config);
}


/// An FP8 output's scales (`outScales`: the op's, or a group's view of
/// them) and its scale rule.
template <typename OpTy>
static void setQuantizedOutput(TileOperands &operands, OpTy op,
                               Value outScales) {
  if (!outScales)
    return;
  operands.outScales = outScales;
  operands.outEncoding = op.getOutEncodingAttr();
  operands.outRounding = op.getEffectiveOutRounding();
  operands.outMinAmax = op.getEffectiveOutMinAmax();
}

/// Builds the tiled kernel of `op` in front of it.
static void tileMatmul(OpBuilder &b, MatmulOp op, const ChipInfo &chip,
                       const MatmulProblem &p) {
  Location loc = op.getLoc();
  ConfigAttr config = op.getConfigAttr();
  IndexMath im{b, loc};
  TileOperands operands{op.getA(), op.getAScales(), op.getB(),
                        op.getBScales(), op.getInit(), op.getAEncoding(),
                        op.getBEncoding(), op.getAccumulate(), op.getBias(),
                        op.getAux(), op.getActivation()};
  setQuantizedOutput(operands, op, op.getOutScales());
  // A static M with a dynamic operand that follows it: the same checks
  // (split-K needs a static M).
  OpBuilder::InsertionGuard hostGuard(b);
  Value gridRows =
      RowOperands(op).buildGridRows(b, loc, p.m, config.getTileM(), p.maxM);
  if (p.split > 1)
    return buildSplitK(b, loc, chip, config, p, operands, gridRows);
  auto launch = gpu::LaunchOp::create(
      b, loc, im.cst(llvm::divideCeil(p.n, config.getTileN())), gridRows,
      im.cst(1), im.cst(chip.waveSize * config.getNumWaves()), im.cst(1),
      im.cst(1));
  b.setInsertionPointToStart(&launch.getBody().front());
  buildTile(b, loc, chip, config, p, operands,
            locateTile(im, launch, config, chip));
  gpu::TerminatorOp::create(b, loc);
}

/// The [rows, cols] matrix `index` of a [G, rows, cols] memref.
static Value selectGroup(OpBuilder &b, Location loc, Value memref,
                         Value index) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  // A dynamic M (masked: rows after G) is read with memref.dim.
  SmallVector<OpFoldResult> sizes =
      memref::getMixedSizes(b, loc, memref);
  sizes[0] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(resultType),
                                   memref, offsets, sizes, strides);
}

/// Builds the tiled kernel of a grouped matmul: contiguous, each workgroup
/// tile of A looks up its group from its first row (segments are aligned
/// to whole tiles) and skips the tile when it is padding; masked, grid z
/// runs over the groups and tiles past a group's count are skipped.
static void tileGroupedMatmul(OpBuilder &b, GroupedMatmulOp op,
                              const ChipInfo &chip, const MatmulProblem &p) {
  Location loc = op.getLoc();
  ConfigAttr config = op.getConfigAttr();
  IndexMath im{b, loc};
  bool masked = op.getLayout() == GroupedLayout::Masked;
  OpBuilder::InsertionGuard guard(b);
  // M may be dynamic (the tokens of a serving step; masked: each group's
  // Mmax).
  Value gridRows =
      RowOperands(op).buildGridRows(b, loc, p.m, config.getTileM());
  auto launch = gpu::LaunchOp::create(
      b, loc, im.cst(llvm::divideCeil(p.n, config.getTileN())), gridRows,
      im.cst(masked ? op.getNumGroups() : 1),
      im.cst(chip.waveSize * config.getNumWaves()), im.cst(1), im.cst(1));
  b.setInsertionPointToStart(&launch.getBody().front());
  TilePosition at = locateTile(im, launch, config, chip);
  auto loadIndex = [&](Value position) -> Value {
    Value value = memref::LoadOp::create(b, loc, op.getGroups(), position);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
  };
  Value group, runs;
  if (masked) {
    group = launch.getBlockIds().z;
    Value count = loadIndex(group);
    runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                 at.tileRow, count);
  } else {
    Value first = memref::LoadOp::create(b, loc, op.getGroups(), at.tileRow);
    runs = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, first,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    group = arith::IndexCastOp::create(b, loc, b.getIndexType(), first);
  }
  // The condition is the same for the whole workgroup: its barriers stay
  // uniform.
  auto ifOp = scf::IfOp::create(b, loc, runs, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard bodyGuard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  TileOperands operands;
  operands.aEncoding = op.getAEncoding();
  operands.bEncoding = op.getBEncoding();
  operands.accumulate = op.getAccumulate();
  operands.activation = op.getActivation();
  if (Value bias = op.getBias()) {
    // The group's row of the [G, N] bias.
    auto type = cast<MemRefType>(bias.getType());
    SmallVector<OpFoldResult> offsets = {group, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                       b.getIndexAttr(type.getDimSize(1))};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        {type.getDimSize(1)}, type, offsets, sizes, strides);
    operands.bias = memref::SubViewOp::create(
        b, loc, cast<MemRefType>(viewType), bias, offsets, sizes, strides);
  }
  // The data stay whole [G, rows, K] operands indexed by group (packed
  // FP4/FP6 rows are addressed from the operand's start); scales and the
  // output are the group's views.
  operands.b = op.getB();
  operands.bGroup = {group};
  // With K = 0 no scale is read (and an empty view would not verify).
  bool readsScales = p.k != 0;
  if (readsScales)
    operands.bScales = selectGroup(b, loc, op.getBScales(), group);
  if (masked) {
    operands.a = op.getA();
    operands.aGroup = {group};
    if (readsScales)
      operands.aScales = selectGroup(b, loc, op.getAScales(), group);
    operands.init = selectGroup(b, loc, op.getInit(), group);
    if (Value aux = op.getAux())
      operands.aux = selectGroup(b, loc, aux, group);
    if (Value outScales = op.getOutScales())
      setQuantizedOutput(operands, op, selectGroup(b, loc, outScales, group));
    operands.validRows = loadIndex(group);
  } else {
    operands.a = op.getA();
    operands.aScales = op.getAScales();
    operands.init = op.getInit();
    operands.aux = op.getAux();
    setQuantizedOutput(operands, op, op.getOutScales());
    operands.rowGroups = op.getGroups();
  }
  buildTile(b, loc, chip, config, p, operands, at);
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
}

namespace {
struct QMMTileMatmulPass
    : public qmm::impl::QMMTileMatmulBase<QMMTileMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = getTargetChip(getOperation(), chip, "qmm-tile-matmul");
    if (!target)
      return signalPassFailure();
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<MatmulOp, GroupedMatmulOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      if (auto matmul = dyn_cast<MatmulOp>(op)) {
        FailureOr<MatmulProblem> problem = analyzeMatmul(matmul, *target);
        if (failed(problem))
          return signalPassFailure();
        // An empty output (M = 0 or N = 0) has nothing to compute or
        // write: no kernel.
        if (problem->m != 0 && problem->n != 0)
          tileMatmul(b, matmul, *target, *problem);
      } else {
        auto grouped = cast<GroupedMatmulOp>(op);
        FailureOr<MatmulProblem> problem = analyzeMatmul(grouped, *target);
        if (failed(problem))
          return signalPassFailure();
        bool noGroups = grouped.getLayout() == GroupedLayout::Masked &&
                        grouped.getNumGroups() == 0;
        if (problem->m != 0 && problem->n != 0 && !noGroups)
          tileGroupedMatmul(b, grouped, *target, *problem);
      }
      op->erase();
    }
    getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                            UnitAttr::get(&getContext()));
  }
};
} // namespace
