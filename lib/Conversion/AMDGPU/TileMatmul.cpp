//===- TileMatmul.cpp - qmm.matmul to a grid of workgroups and waves ------===//
//
// Stage 3 of the AMD pipeline: a configured, bufferized qmm.matmul becomes a
// gpu.launch whose waves loop over the K tiles with qmm.wave_mma, scale
// each K block's partial sums with qmm.wave_scale_accumulate and store with
// qmm.wave_store. Later stages lower those ops one at a time.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMTILEMATMUL
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// K extent of one OCP MX scale block.
constexpr int64_t kMXBlock = 32;

namespace {
/// The extents and the scale block of one qmm.matmul.
struct MatmulProblem {
  int64_t m, n, k;
  /// Extent along K over which one product of scales holds; the partial
  /// sums of one such block are scaled once.
  int64_t scaleBlockK;
};
} // namespace

/// Checks everything the tiled kernel assumes; the diagnostic names the
/// first thing that does not hold.
static FailureOr<MatmulProblem> analyzeMatmul(MatmulOp op,
                                              const ChipInfo &chip) {
  auto fail = [&](const Twine &message) {
    return op.emitOpError("qmm-tile-matmul: ") << message;
  };
  auto outType = dyn_cast<MemRefType>(op.getInit().getType());
  if (!outType)
    return fail("runs on the memref form (after bufferization)");
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return fail("has no #qmm.config; run qmm-select-config first");
  if (op.getBLayout() != OperandLayout::NK)
    return fail("B must be [N, K]; run qmm-legalize-for-chip first");
  auto aType = cast<MemRefType>(op.getA().getType());
  Type bElement = cast<MemRefType>(op.getB().getType()).getElementType();
  MatmulProblem p{outType.getDimSize(0), outType.getDimSize(1),
                  aType.getDimSize(1), 0};
  if (ShapedType::isDynamic(p.m) || ShapedType::isDynamic(p.n) ||
      ShapedType::isDynamic(p.k))
    return fail("needs static shapes");
  ScaleEncodingAttr aEncoding = op.getAEncoding(), bEncoding = op.getBEncoding();
  if (aEncoding.isMX() != bEncoding.isMX())
    return fail("MX scales on one operand only are not implemented");
  bool mx = aEncoding.isMX();
  if (mx && (aEncoding.isMNMajor() || bEncoding.isMNMajor()))
    return fail("MX scales must be K-major ([rows, K / 32])");
  bool convertsToBF16 = config.getMfmaKind() == MFMAKindAttrValue::BF16;
  for (Type t : {aType.getElementType(), bElement}) {
    // FP4/FP6 (packed, see the dialect) are read by gfx950's f8f6f4 forms
    // and converted in registers on gfx942.
    if (t.getIntOrFloatBitWidth() < 8) {
      if (p.k % kMXBlock != 0)
        return fail("packed ")
               << t << " operands need K to be a multiple of " << kMXBlock;
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
  if (config.getStages() > 2)
    return fail("stages = ") << config.getStages()
                             << " is not implemented; use 1 (one LDS "
                                "buffer) or 2 (double buffering)";
  int64_t aBlockK = aEncoding.getBlockExtent(p.m, p.k).second;
  int64_t bBlockK = bEncoding.getBlockExtent(p.n, p.k).second;
  p.scaleBlockK = std::min(aBlockK, bBlockK);
  if (std::max(aBlockK, bBlockK) % p.scaleBlockK != 0)
    return fail("scale blocks along K (") << aBlockK << " and " << bBlockK
                                          << ") must nest";
  // The scaled MFMA applies MX scales itself, whatever the tile K.
  if (config.getMfmaKind() == MFMAKindAttrValue::ScaledF8F6F4)
    p.scaleBlockK = p.k;
  if (p.scaleBlockK < p.k && p.scaleBlockK % config.getTileK() != 0)
    return fail("tile K = ") << config.getTileK()
                             << " must divide the scale block along K ("
                             << p.scaleBlockK << ")";
  return p;
}

/// Builds the tiled kernel of `op` in front of it.
static void tileMatmul(OpBuilder &b, MatmulOp op, const ChipInfo &chip,
                       const MatmulProblem &p) {
  Location loc = op.getLoc();
  ConfigAttr config = op.getConfigAttr();
  IndexMath im{b, loc};
  int64_t tileK = config.getTileK();
  auto launch = gpu::LaunchOp::create(
      b, loc, im.cst(llvm::divideCeil(p.n, config.getTileN())),
      im.cst(llvm::divideCeil(p.m, config.getTileM())), im.cst(1),
      im.cst(chip.waveSize * config.getNumWaves()), im.cst(1), im.cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());

  Value wave = im.div(launch.getThreadIds().x, chip.waveSize);
  Value waveRow = im.mul(im.div(wave, config.getWaves()[1]),
                         config.getWaveTileM());
  Value waveCol = im.mul(im.rem(wave, config.getWaves()[1]),
                         config.getWaveTileN());
  Value tileRow = im.mul(launch.getBlockIds().y, config.getTileM());
  Value tileCol = im.mul(launch.getBlockIds().x, config.getTileN());
  Value subTileRow = im.add(tileRow, waveRow);
  Value subTileCol = im.add(tileCol, waveCol);

  auto accType = VectorType::get(
      {config.getMfmaShape()[0] * config.getMfmaShape()[1] / chip.waveSize},
      b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  int64_t count = config.getNumAccumulators();
  int64_t numTiles = llvm::divideCeil(p.k, tileK);
  if (config.getMfmaKind() == MFMAKindAttrValue::ScaledF8F6F4) {
    // The instruction applies the E8M0 scales: the accumulators go straight
    // through the MFMAs, with the scales of the tile's first K block.
    auto tiles = scf::ForOp::create(b, loc, im.cst(0), im.cst(numTiles),
                                    im.cst(1), SmallVector<Value>(count, zero));
    {
      OpBuilder::InsertionGuard loopGuard(b);
      b.setInsertionPointToStart(tiles.getBody());
      Value k = im.mul(tiles.getInductionVar(), tileK);
      Value kBlock = im.div(k, kMXBlock);
      auto mma = WaveMmaOp::create(
          b, loc, op.getA(), ValueRange{tileRow, k}, op.getB(),
          ValueRange{tileCol, k}, waveRow, waveCol, tiles.getRegionIterArgs(),
          op.getAScales(), ValueRange{tileRow, kBlock}, op.getBScales(),
          ValueRange{tileCol, kBlock}, config);
      scf::YieldOp::create(b, loc, mma.getResults());
    }
    WaveStoreOp::create(b, loc, tiles.getResults(), op.getInit(), subTileRow,
                        subTileCol, op.getBias(), op.getAux(),
                        op.getAccumulate(), op.getActivation(), config);
    gpu::TerminatorOp::create(b, loc);
    return;
  }
  int64_t tilesPerBlock =
      p.scaleBlockK >= p.k ? numTiles : p.scaleBlockK / tileK;
  // Loop-carried: the accumulators, then (when a block spans several tiles)
  // the current block's partial sums.
  bool carriesPartials = tilesPerBlock > 1;
  SmallVector<Value> init(carriesPartials ? 2 * count : count, zero);
  auto tiles = scf::ForOp::create(b, loc, im.cst(0), im.cst(numTiles),
                                  im.cst(1), init);
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(tiles.getBody());
    Value t = tiles.getInductionVar();
    ValueRange acc = tiles.getRegionIterArgs().take_front(count);
    SmallVector<Value> partials(count, zero);
    if (carriesPartials)
      partials.assign(tiles.getRegionIterArgs().begin() + count,
                      tiles.getRegionIterArgs().end());
    Value k = im.mul(t, tileK);
    auto mma = WaveMmaOp::create(b, loc, op.getA(), ValueRange{tileRow, k},
                                 op.getB(), ValueRange{tileCol, k}, waveRow,
                                 waveCol, partials, config);
    auto scale = [&](OpBuilder &nested) {
      IndexMath nim{nested, loc};
      Value kBlockStart =
          tilesPerBlock == numTiles
              ? nim.cst(0)
              : nim.mul(nim.div(t, tilesPerBlock), p.scaleBlockK);
      auto scaled = WaveScaleAccumulateOp::create(
          nested, loc, mma.getResults(), acc, subTileRow, subTileCol,
          kBlockStart, op.getAScales(), op.getBScales(), op.getAEncoding(),
          op.getBEncoding(),
          nested.getDenseI64ArrayAttr({p.m, p.n, p.k}), config);
      SmallVector<Value> results(scaled.getResults());
      if (carriesPartials)
        results.append(count, zero);
      return results;
    };
    if (!carriesPartials) {
      // Every tile ends a block: scale unconditionally.
      scf::YieldOp::create(b, loc, scale(b));
    } else {
      // A block ends after every tilesPerBlock tiles and after the last
      // tile (a shorter last block when K has a tail).
      Value next = im.add(t, 1);
      auto isZero = [&](Value v) {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v,
                                     im.cst(0));
      };
      Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         next, im.cst(numTiles));
      Value blockEnds = last;
      if (tilesPerBlock < numTiles) {
        blockEnds = isZero(im.rem(next, tilesPerBlock));
        if (numTiles % tilesPerBlock != 0)
          blockEnds = arith::OrIOp::create(b, loc, blockEnds, last);
      }
      auto ifOp = scf::IfOp::create(b, loc, TypeRange(init), blockEnds,
                                    /*withElseRegion=*/true);
      OpBuilder thenB = ifOp.getThenBodyBuilder();
      scf::YieldOp::create(thenB, loc, scale(thenB));
      OpBuilder elseB = ifOp.getElseBodyBuilder();
      SmallVector<Value> unchanged(acc);
      unchanged.append(mma.getResults().begin(), mma.getResults().end());
      scf::YieldOp::create(elseB, loc, unchanged);
      scf::YieldOp::create(b, loc, ifOp.getResults());
    }
  }
  WaveStoreOp::create(b, loc, tiles.getResults().take_front(count),
                      op.getInit(), subTileRow, subTileCol, op.getBias(),
                      op.getAux(), op.getAccumulate(), op.getActivation(),
                      config);
  gpu::TerminatorOp::create(b, loc);
}

namespace {
struct QMMTileMatmulPass
    : public qmm::impl::QMMTileMatmulBase<QMMTileMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = lookupChip(chip);
    if (!target) {
      getOperation()->emitError("qmm-tile-matmul: unknown chip '")
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
      tileMatmul(b, op, *target, *problem);
      op.erase();
    }
    getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                            UnitAttr::get(&getContext()));
  }
};
} // namespace
