//===- ExpandKernelMath.cpp - math kernels cannot call, as arithmetic -----===//
//
// Stage 8 of the AMD pipeline (on each gpu.module): GELU's tanh and erf
// become f32 polynomials and conversions to FP8/FP6/FP4/E8M0 become integer
// arithmetic on the f32 bits (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMEXPANDKERNELMATH
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
/// |x| as the float's bits with the sign cleared: exact, and an integer op
/// on every chip, where NVVM lowering would call libdevice's __nv_fabsf.
struct AbsFAsSignClear : public OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(op.getType()));
    if (!element)
      return failure();
    unsigned width = element.getWidth();
    Type bitsType = rewriter.getIntegerType(width);
    TypedAttr mask = rewriter.getIntegerAttr(
        bitsType, APInt::getSignedMaxValue(width));
    if (auto vector = dyn_cast<VectorType>(op.getType())) {
      bitsType = vector.clone(bitsType);
      mask = DenseElementsAttr::get(cast<ShapedType>(bitsType),
                                    APInt::getSignedMaxValue(width));
    }
    Location loc = op.getLoc();
    Value bits =
        arith::BitcastOp::create(rewriter, loc, bitsType, op.getOperand());
    Value magnitude = arith::AndIOp::create(
        rewriter, loc, bits, arith::ConstantOp::create(rewriter, loc, mask));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(),
                                                  magnitude);
    return success();
  }
};

struct QMMExpandKernelMathPass
    : public qmm::impl::QMMExpandKernelMathBase<QMMExpandKernelMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // Only the tanh and erf ops (and what their expansion creates) are
    // rewritten; other math stays for the backend.
    SmallVector<Operation *> special;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::TanhOp, math::ErfOp>(op))
        special.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateTanhPattern(patterns);
    populatePolynomialApproximateErfPattern(patterns);
    // The polynomials' own |x| (only ops the patterns create are visited).
    patterns.add<AbsFAsSignClear>(&getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(special, std::move(patterns), config)))
      return signalPassFailure();
    if (failed(expandSmallFloatTruncations(getOperation())) ||
        failed(expandSmallFloatExtensions(getOperation())))
      signalPassFailure();
  }
};
} // namespace
