//===- LowerWaveScales.cpp - qmm.wave_scale_accumulate to loads and FMAs --===//
//
// Stage 6 of the AMD pipeline: one K block's scales applied to a wave's f32
// partial sums, acc = fma(partial * f1, f2, acc) where (f1, f2) is
// (scale_a(row) * scale_b(col), 1), or (scale_a, scale_b) where that product
// would overflow or underflow f32, with every scale a lane needs loaded once
// per block.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Target/TargetAttr.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/AMDGPU/WaveLowerings.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERWAVESCALES
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// Loads the scale of `row` (clamped into the matrix) for the K block that
/// starts at `kBlockStart`.
static Value loadScale(IndexMath &im, Value scales, ScaleEncodingAttr encoding,
                       int64_t rows, int64_t k, Value row, Value kBlockStart) {
  auto [blockRows, blockK] = encoding.getBlockExtent(rows, k);
  Value r;
  if (ShapedType::isDynamic(rows) &&
      encoding.getKind() == ScaleKind::PerTensor)
    r = im.cst(0);
  else if (ShapedType::isDynamic(rows))
    // A dynamic M: the scale's row (or block) clamped to the scales' own
    // extent, which the host code checked against M.
    r = im.min(im.div(row, blockRows),
               im.last(im.dim(scales, encoding.isMNMajor() ? 1 : 0)));
  else
    r = im.div(im.min(row, rows - 1), blockRows);
  Value c = im.div(kBlockStart, blockK);
  if (encoding.isMNMajor())
    std::swap(r, c);
  return memref::LoadOp::create(im.b, im.loc, scales, ValueRange{r, c});
}

/// Whether every row of a wave's sub-tile of `waveRows` rows, starting at a
/// multiple of `waveRows` (as qmm.wave_scale_accumulate's row and col do),
/// lies in one scale block: then the wave needs a single scale per K block.
static bool waveSharesScale(ScaleEncodingAttr encoding, int64_t rows, int64_t k,
                            int64_t waveRows) {
  // Per tensor, one scale for all rows whatever M is.
  if (encoding.getKind() == ScaleKind::PerTensor && ShapedType::isDynamic(rows))
    return true;
  return encoding.getBlockExtent(rows, k).first % waveRows == 0;
}

static SmallVector<Value> lowerScaleAccumulate(OpBuilder &b,
                                               WaveScaleAccumulateOp op,
                                               const ChipInfo &chip) {
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  ConfigAttr config = op.getConfig();
  AccumulatorLayout layout(config);
  ArrayRef<int64_t> size = op.getProblemSize();
  int64_t m = size[0], n = size[1], k = size[2];
  Value lane = im.lane(chip.waveSize);
  int64_t repeatsM = config.getMfmaRepeatsM();
  int64_t repeatsN = config.getMfmaRepeatsN();
  auto accType = cast<VectorType>(op.getAcc().front().getType());

  // A lane's items of one MFMA tile row share the row's A scale; a block
  // spanning the wave's rows (or columns) gives one scale for all of them,
  // loaded once (the wave's first row stands for its rows inside the
  // matrix, the only ones stored).
  bool oneAScale =
      waveSharesScale(op.getAEncoding(), m, k, config.getWaveTileM());
  bool oneBScale =
      waveSharesScale(op.getBEncoding(), n, k, config.getWaveTileN());
  SmallVector<Value> aScales;
  for (int64_t rm = 0; rm < repeatsM; ++rm) {
    if (oneAScale && rm > 0) {
      aScales.push_back(aScales.front());
      continue;
    }
    Value row = oneAScale ? op.getRow()
                          : im.add(op.getRow(), layout.row(im, lane, rm));
    aScales.push_back(loadScale(im, op.getAScales(), op.getAEncoding(), m, k,
                                row, op.getK()));
  }
  // Each item's scales as two factors, (partial * first) * second (see
  // createScaleFactors: sa * sb may leave f32's range where the scaled
  // partial does not).
  using Factors = std::pair<Value, Value>;
  auto broadcast = [&](Factors factors) -> Factors {
    return {vector::BroadcastOp::create(b, loc, accType, factors.first),
            vector::BroadcastOp::create(b, loc, accType, factors.second)};
  };
  Value sharedBScale;
  SmallVector<Factors> rowFactors; // with one B scale: sa(row), sb broadcast
  if (oneBScale) {
    sharedBScale = loadScale(im, op.getBScales(), op.getBEncoding(), n, k,
                             op.getCol(), op.getK());
    for (int64_t rm = 0; rm < repeatsM; ++rm)
      rowFactors.push_back(oneAScale && rm > 0
                               ? rowFactors.front()
                               : broadcast(createScaleFactors(
                                     b, loc, aScales[rm], sharedBScale)));
  }
  SmallVector<Value> result(op.getAcc().size());
  for (int64_t rn = 0; rn < repeatsN; ++rn) {
    SmallVector<Value> bScales;
    for (int64_t i = 0; !oneBScale && i < layout.items(); ++i)
      bScales.push_back(
          loadScale(im, op.getBScales(), op.getBEncoding(), n, k,
                    im.add(op.getCol(), layout.col(im, lane, rn, i)),
                    op.getK()));
    for (int64_t rm = 0; rm < repeatsM; ++rm) {
      Factors factors;
      if (oneBScale) {
        factors = rowFactors[rm];
      } else {
        SmallVector<Value> firsts, seconds;
        for (Value bScale : bScales) {
          auto [first, second] =
              createScaleFactors(b, loc, aScales[rm], bScale);
          firsts.push_back(first);
          seconds.push_back(second);
        }
        factors = {vector::FromElementsOp::create(b, loc, accType, firsts),
                   vector::FromElementsOp::create(b, loc, accType, seconds)};
      }
      int64_t index = layout.index(rm, rn);
      Value scaled =
          arith::MulFOp::create(b, loc, op.getPartials()[index], factors.first);
      result[index] = vector::FMAOp::create(b, loc, scaled, factors.second,
                                            op.getAcc()[index]);
    }
  }
  return result;
}

namespace {
struct LowerWaveScaleAccumulate
    : public OpRewritePattern<WaveScaleAccumulateOp> {
  LowerWaveScaleAccumulate(MLIRContext *context, const ChipInfo &chip)
      : OpRewritePattern(context), chip(chip) {}

  LogicalResult matchAndRewrite(WaveScaleAccumulateOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getAEncoding().isMX() || op.getBEncoding().isMX())
      return rewriter.notifyMatchFailure(op, "MX scales");
    rewriter.setInsertionPoint(op);
    rewriter.replaceOp(op, lowerScaleAccumulate(rewriter, op, chip));
    return success();
  }

  const ChipInfo &chip;
};

struct QMMLowerWaveScalesPass
    : public qmm::impl::QMMLowerWaveScalesBase<QMMLowerWaveScalesPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target =
        getTargetChip(getOperation(), chip, "qmm-lower-wave-scales");
    if (!target)
      return signalPassFailure();
    WalkResult result = getOperation()->walk([&](WaveScaleAccumulateOp op) {
      if (op.getAEncoding().isMX() || op.getBEncoding().isMX()) {
        op.emitOpError("qmm-lower-wave-scales: MX (E8M0) scales are applied "
                       "by the scaled MFMA (the MX kernel carries them into "
                       "qmm.wave_mma), never by this op");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateWaveScalesPatterns(patterns, *target);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void qmm::populateWaveScalesPatterns(RewritePatternSet &patterns,
                                     const ChipInfo &chip) {
  patterns.add<LowerWaveScaleAccumulate>(patterns.getContext(), chip);
}
