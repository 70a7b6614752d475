//===- LowerWaveMmaToMFMA.cpp - qmm.wave_mma to amdgpu.mfma ---------------===//
//
// Stage 5 of the AMD pipeline: each lane reads its MFMA fragments from the
// LDS tiles where the ISA guides place its K items and the wave issues one
// amdgpu.mfma per MFMA tile and K step.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Target/TargetAttr.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Conversion/AMDGPU/WaveLowerings.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <cmath>

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERWAVEMMATOMFMA
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

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
  Value mantissa =
      arith::AndIOp::create(b, loc, x, i16((1 << mantissaBits) - 1));
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc,
                            arith::AddIOp::create(b, loc, exponent,
                                                  i16(127 - bias)),
                            i16(7)),
      arith::ShLIOp::create(b, loc, mantissa, i16(7 - mantissaBits)));
  Value subnormalValue = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32s, mantissa),
      splat(f32s,
            b.getF32FloatAttr(std::ldexp(1.0f, 1 - bias - mantissaBits))));
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

/// FP4/FP6 elements to e4m3fnuz, exactly (every FP4/FP6 value is an
/// e4m3fnuz value, and always a normal one), with integer arithmetic: a
/// normal code keeps its sign and mantissa and rebiases its exponent; a
/// subnormal one m * 2^(1 - bias - mantissa bits) takes the exponent and
/// leading mantissa bits of the f32 m (exact); zeros of either sign become
/// +0 (FNUZ's 0x80 is NaN).
static Value convertSubByteToFNUZ(OpBuilder &b, Location loc, Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  auto floatType = cast<FloatType>(type.getElementType());
  int width = floatType.getWidth();
  int mantissaBits = floatType.getFPMantissaWidth() - 1;
  int exponentBits = width - 1 - mantissaBits;
  int bias = (1 << (exponentBits - 1)) - 1;
  constexpr int kFNUZBias = 8, kFNUZMantissaBits = 3;
  int64_t count = type.getNumElements();
  auto i32s = VectorType::get({count}, b.getI32Type());
  auto f32s = VectorType::get({count}, b.getF32Type());
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(v)));
  };
  // The fragment's codes as one integer (8 codes: 32 or 48 bits), spread
  // over i32 lanes by shifts: vectors of i4/i6 would go through scratch.
  int64_t totalBits = count * width;
  Type wordType = b.getIntegerType(totalBits);
  Value word = vector::ExtractOp::create(
      b, loc,
      vector::BitCastOp::create(b, loc, VectorType::get({1}, wordType),
                                fragment),
      ArrayRef<int64_t>{0});
  auto i64s = VectorType::get({count}, b.getI64Type());
  Value wide = vector::BroadcastOp::create(
      b, loc, i64s, arith::ExtUIOp::create(b, loc, b.getI64Type(), word));
  SmallVector<int64_t> shifts;
  for (int64_t j = 0; j < count; ++j)
    shifts.push_back(j * width);
  Value codes = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(
          b, loc, wide,
          arith::ConstantOp::create(b, loc,
                                    DenseElementsAttr::get(
                                        i64s, ArrayRef<int64_t>(shifts)))),
      arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(i64s, b.getI64IntegerAttr((1 << width) - 1))));
  Value x = arith::TruncIOp::create(b, loc, i32s, codes);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, x, i32(width - 1)), i32(7));
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, x, i32(mantissaBits)),
      i32((1 << exponentBits) - 1));
  Value mantissa = arith::AndIOp::create(b, loc, x, i32((1 << mantissaBits) - 1));
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, exponent, i32(kFNUZBias - bias)),
          i32(kFNUZMantissaBits)),
      arith::ShLIOp::create(b, loc, mantissa,
                            i32(kFNUZMantissaBits - mantissaBits)));
  // Subnormal: m as f32 is 2^p * 1.f; the value's exponent is
  // p + 1 - bias - mantissa bits.
  Value asFloat = arith::BitcastOp::create(
      b, loc, i32s, arith::UIToFPOp::create(b, loc, f32s, mantissa));
  Value floatExponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, asFloat, i32(23)), i32(0xFF));
  Value subnormal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, floatExponent,
              i32(-127 + 1 - bias - mantissaBits + kFNUZBias)),
          i32(kFNUZMantissaBits)),
      arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, asFloat, i32(20)), i32(7)));
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            exponent, i32(0));
  Value magnitude =
      arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  Value isZero = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::OrIOp::create(b, loc, exponent, mantissa), i32(0));
  Value code = arith::SelectOp::create(
      b, loc, isZero, i32(0), arith::OrIOp::create(b, loc, sign, magnitude));
  Value bytes = arith::TruncIOp::create(
      b, loc, VectorType::get({count}, b.getI8Type()), code);
  return arith::BitcastOp::create(
      b, loc, VectorType::get({count}, b.getType<Float8E4M3FNUZType>()),
      bytes);
}

namespace {
/// Builds the MFMA loop of one qmm.wave_mma.
struct WaveMmaLowering {
  OpBuilder &b;
  Location loc;
  ConfigAttr config;
  /// The instruction (its row of the intrinsic table) and the placement of
  /// A's and B's values (they differ for FP8 x FP4 on gfx950).
  const MMAIntrinsicInfo &mfma;
  OperandLaneLayout aLayout, bLayout;
  /// Where the LDS tiles' rows put their 16-byte units (identity unless
  /// the tiles were copied directly).
  LdsSwizzle aSwizzle, bSwizzle;
  Value lane;

  /// The fragment of `lane` for the MFMA step at `kStep` of tile row `row`
  /// of an LDS tile addressed by `indices` ([stage,] row origin, column
  /// origin; columns are bytes), converted to what the instruction reads.
  Value readFragment(const OperandLaneLayout &layout,
                     const LdsSwizzle &swizzle, Value lds, ValueRange indices,
                     Value row, int64_t kStep) {
    IndexMath im{b, loc};
    Type elementType = cast<MemRefType>(lds.getType()).getElementType();
    Value group = im.div(lane, layout.rows);
    // A swizzled tile's row moves its units (whole runs) by XOR. The pattern's
    // period divides the fragment rows (getLdsSwizzle), and the wave's
    // rows start at a multiple of them, so the lane's row within its
    // fragment decides.
    Value xorBytes;
    if (!swizzle.isIdentity())
      xorBytes = im.mul(
          buildSwizzleUnits(im, im.rem(lane, layout.rows), swizzle),
          swizzle.unitBytes);
    auto runType = VectorType::get({layout.runLength}, elementType);
    SmallVector<Value, 3> at(indices.drop_back(2));
    Value ldsRow = im.add(indices[indices.size() - 2], row);
    Value columnOrigin = indices.back();
    SmallVector<Value> runs;
    for (int64_t run = 0; run < layout.runs; ++run) {
      Value k = im.add(im.mul(group, layout.runLength),
                       kStep + run * layout.runStrideK);
      // Packed FP4/FP6: the value's byte.
      Value byte = layout.elementBits == 8
                       ? k
                       : im.div(im.mul(k, layout.elementBits), 8);
      if (xorBytes)
        byte = arith::XOrIOp::create(b, loc, byte, xorBytes);
      Value column = im.add(columnOrigin, byte);
      SmallVector<Value, 3> runAt(at);
      runAt.append({ldsRow, column});
      runs.push_back(vector::LoadOp::create(b, loc, runType, lds, runAt));
    }
    Value fragment = runs.front();
    for (size_t run = 1; run < runs.size(); ++run) {
      // Shuffles, not strided inserts: they lower directly to LLVM.
      int64_t width = cast<VectorType>(fragment.getType()).getNumElements();
      SmallVector<int64_t> concat(width + layout.runLength);
      for (int64_t i = 0; i < (int64_t)concat.size(); ++i)
        concat[i] = i;
      fragment =
          vector::ShuffleOp::create(b, loc, fragment, runs[run], concat);
    }
    // What the instruction does not read natively is converted exactly:
    // FNUZ FP8 to bf16, FP4/FP6 to FNUZ FP8.
    unsigned bits = layout.elementBits;
    if (!mfma.readsNatively(bits))
      return mfma.readsNatively(16) ? convertFNUZToBF16(b, loc, fragment)
                                    : convertSubByteToFNUZ(b, loc, fragment);
    return fragment;
  }

  /// The E8M0 scale the instruction takes from `lane` for an operand whose
  /// fragment row is `row` of the tile: lane l supplies the scale of its
  /// fragment row and of the (l / m)-th 32-wide K block of the MFMA step at
  /// `kStep` (CDNA4 ISA guide). Rows past the scale tensor read its last
  /// row, K blocks past it its last block: their data are never stored or
  /// are zeros.
  Value loadScale(Value scales, ValueRange origin, Value row, int64_t kStep) {
    IndexMath im{b, loc};
    auto type = cast<MemRefType>(scales.getType());
    Value r = im.min(im.add(origin[0], row), im.last(im.dim(scales, 0)));
    Value block = im.add(origin[1], im.add(im.div(lane, aLayout.rows),
                                           kStep / mfma.scaleBlockK));
    Value c = im.min(block, type.getDimSize(1) - 1);
    return memref::LoadOp::create(b, loc, scales, ValueRange{r, c});
  }

  SmallVector<Value> lower(WaveMmaOp op) {
    IndexMath im{b, loc};
    int64_t repeatsM = config.getMfmaRepeatsM();
    int64_t repeatsN = config.getMfmaRepeatsN();
    Value fragRow = im.rem(lane, mfma.m);
    Value fragCol = im.rem(lane, mfma.n);
    auto accType = cast<VectorType>(op.getAcc().front().getType());
    SmallVector<Value> acc(op.getAcc());
    for (int64_t kStep = 0; kStep < config.getTileK(); kStep += mfma.k) {
      SmallVector<Value> aFrags, bFrags;
      for (int64_t rm = 0; rm < repeatsM; ++rm)
        aFrags.push_back(readFragment(
            aLayout, aSwizzle, op.getA(), op.getAIndices(),
            im.add(im.add(op.getWaveRow(), rm * mfma.m), fragRow), kStep));
      for (int64_t rn = 0; rn < repeatsN; ++rn)
        bFrags.push_back(readFragment(
            bLayout, bSwizzle, op.getB(), op.getBIndices(),
            im.add(im.add(op.getWaveCol(), rn * mfma.n), fragCol), kStep));
      SmallVector<Value> aScales, bScales;
      if (mfma.hasBlockScales()) {
        for (int64_t rm = 0; rm < repeatsM; ++rm)
          aScales.push_back(loadScale(
              op.getAScales(), op.getAScaleIndices(),
              im.add(im.add(op.getWaveRow(), rm * mfma.m), fragRow), kStep));
        for (int64_t rn = 0; rn < repeatsN; ++rn)
          bScales.push_back(loadScale(
              op.getBScales(), op.getBScaleIndices(),
              im.add(im.add(op.getWaveCol(), rn * mfma.n), fragCol), kStep));
      }
      // B first: the instruction computes the transposed tile, whose
      // accumulator items are runs of 4 columns of one output row.
      for (int64_t rm = 0; rm < repeatsM; ++rm)
        for (int64_t rn = 0; rn < repeatsN; ++rn) {
          Value &tile = acc[rm * repeatsN + rn];
          if (mfma.hasBlockScales())
            tile = amdgpu::ScaledMFMAOp::create(
                b, loc, accType, mfma.n, mfma.m, mfma.k, bFrags[rn],
                aFrags[rm], tile, bScales[rn], aScales[rm],
                /*scalesIdxA=*/0, /*scalesIdxB=*/0);
          else
            tile = amdgpu::MFMAOp::create(b, loc, accType, mfma.n, mfma.m,
                                          mfma.k, mfma.blocks, bFrags[rn],
                                          aFrags[rm], tile);
        }
    }
    return acc;
  }
};

/// Lowers one qmm.wave_mma whose operands are in LDS and whose config the
/// chip runs (the pass checks both first and reports what does not hold).
struct LowerWaveMma : public OpRewritePattern<WaveMmaOp> {
  LowerWaveMma(MLIRContext *context, const ChipInfo &chip)
      : OpRewritePattern(context), chip(chip) {}

  LogicalResult matchAndRewrite(WaveMmaOp op,
                                PatternRewriter &rewriter) const override {
    if (!readsFromLds(op))
      return rewriter.notifyMatchFailure(op, "operands not in LDS");
    ConfigAttr config = op.getConfig();
    if (!chip.findMFMA(config.getMfmaKind(), config.getMfmaShape()[0],
                       config.getMfmaShape()[1], config.getMfmaShape()[2]))
      return rewriter.notifyMatchFailure(op, "instruction not on the chip");
    rewriter.setInsertionPoint(op);
    IndexMath im{rewriter, op.getLoc()};
    WaveMmaLowering lowering{
        rewriter,
        op.getLoc(),
        config,
        config.getIntrinsic(),
        getOperandLayout(config, op.getA().getType().getElementType(),
                         /*forB=*/false),
        getOperandLayout(config, op.getB().getType().getElementType(),
                         /*forB=*/true),
        getLdsSwizzle(chip, config, op.getA().getType().getElementType(),
                      /*forB=*/false),
        getLdsSwizzle(chip, config, op.getB().getType().getElementType(),
                      /*forB=*/true),
        im.lane(chip.waveSize)};
    rewriter.replaceOp(op, lowering.lower(op));
    return success();
  }

  static bool readsFromLds(WaveMmaOp op) {
    return llvm::all_of(ValueRange{op.getA(), op.getB()}, [](Value operand) {
      return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
          cast<MemRefType>(operand.getType()));
    });
  }

  const ChipInfo &chip;
};

struct QMMLowerWaveMmaToMFMAPass
    : public qmm::impl::QMMLowerWaveMmaToMFMABase<QMMLowerWaveMmaToMFMAPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target =
        getTargetChip(getOperation(), chip, "qmm-lower-wave-mma-to-mfma");
    if (!target)
      return signalPassFailure();
    WalkResult result = getOperation()->walk([&](WaveMmaOp op) {
      return succeeded(check(op, *target)) ? WalkResult::advance()
                                           : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateWaveMmaToMFMAPatterns(patterns, *target);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }

  /// What the pattern expects, reported.
  LogicalResult check(WaveMmaOp op, const ChipInfo &chip) {
    if (!LowerWaveMma::readsFromLds(op))
      return op.emitOpError("qmm-lower-wave-mma-to-mfma: reads its operands "
                            "from LDS; run qmm-promote-operands-to-lds first");
    return verifyConfigForChip(
        op.getConfig(), chip,
        {op.getA().getType().getElementType(),
         op.getB().getType().getElementType(), bool(op.getAScales())},
        [&]() { return op.emitOpError(); });
  }
};
} // namespace

void qmm::populateWaveMmaToMFMAPatterns(RewritePatternSet &patterns,
                                        const ChipInfo &chip) {
  patterns.add<LowerWaveMma>(patterns.getContext(), chip);
}
