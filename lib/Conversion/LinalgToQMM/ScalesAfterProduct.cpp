//===- ScalesAfterProduct.cpp - torch._scaled_mm's scales into qmm.matmul -===//
//
// torch._scaled_mm computes (A_q @ B_q) * sa * sb: the product of the
// quantized data (raised to a qmm.matmul with unit scales), scaled
// afterwards. The scales move into the qmm.matmul.
//
//===----------------------------------------------------------------------===//

#include "Dequantization.h"
#include "Scales.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::linalg_to_qmm;

/// Whether `scales` is the constant 1 a unit-scale raise gave a qmm.matmul.
static bool isUnitScale(Value scales) {
  DenseElementsAttr value;
  return matchPattern(scales, m_Constant(&value)) && value.isSplat() &&
         value.getElementType().isF32() &&
         value.getSplatValue<APFloat>().isExactlyValue(1.0);
}

/// The qmm.matmul computing `generic` (a unit-scale qmm.matmul's result
/// times scales), built right before it; the replaced qmm.matmul, read by
/// nothing but `generic` and `replaced` (which `generic` stands for), goes
/// into `dead`. On failure nothing is built.
static FailureOr<Value> buildScaledMatmul(RewriterBase &rewriter,
                                          linalg::GenericOp generic,
                                          linalg::GenericOp replaced,
                                          SmallVectorImpl<Operation *> &dead) {
  if (!generic.hasPureTensorSemantics() || generic.getNumLoops() != 2 ||
      generic.getNumReductionLoops() != 0 || generic.getNumDpsInits() != 1 ||
      generic.getNumResults() != 1)
    return failure();
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  // The yielded value is a product of leaves (block arguments or f32
  // values from outside), through mulf alone.
  SmallVector<Value> leaves;
  SmallVector<Value> pending = {yield.getValues().front()};
  size_t products = 0;
  while (!pending.empty()) {
    Value v = pending.pop_back_val();
    if (auto mul = v.getDefiningOp<arith::MulFOp>();
        mul && mul->getBlock() == &body) {
      ++products;
      pending.append({mul.getLhs(), mul.getRhs()});
      continue;
    }
    if (!v.getType().isF32())
      return failure();
    leaves.push_back(v);
  }
  // Nothing but the products in the body.
  if (body.getOperations().size() != products + 1 || leaves.size() < 2 ||
      leaves.size() > 3)
    return failure();
  MatmulOp matmul;
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(2, generic.getContext());
  struct Scale {
    Value value;
    ScaleEncodingAttr encoding;
    bool onA;
  };
  SmallVector<Scale> scales;
  MLIRContext *ctx = generic.getContext();
  auto perTensor =
      ScaleEncodingAttr::get(ctx, ScaleKind::PerTensor, {},
                             Float32Type::get(ctx), ScaleMajorness::KMajor);
  for (Value leaf : leaves) {
    auto arg = dyn_cast<BlockArgument>(leaf);
    if (!arg || arg.getOwner() != &body) {
      scales.push_back({leaf, perTensor, true}); // a scalar from outside
      continue;
    }
    if (arg.getArgNumber() >= generic.getNumDpsInputs())
      return failure(); // the destination's value
    OpOperand *operand = generic.getDpsInputOperand(arg.getArgNumber());
    AffineMap map = generic.getMatchingIndexingMap(operand);
    if (auto product = operand->get().getDefiningOp<MatmulOp>()) {
      if (matmul || map != identity)
        return failure();
      matmul = product;
      continue;
    }
    // A scale: per tensor (constant zeros), per row of A ((m), (m, 0)),
    // per column, i.e. per row of B ((n), (n, 0), (0, n): MN-major).
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      return failure();
    auto isZero = [](AffineExpr e) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      return c && c.getValue() == 0;
    };
    auto isDim = [](AffineExpr e, unsigned d) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      return dim && dim.getPosition() == d;
    };
    ArrayRef<AffineExpr> r = map.getResults();
    if (llvm::all_of(r, isZero) && type.getNumElements() == 1) {
      scales.push_back({operand->get(), perTensor, true});
      continue;
    }
    bool found = false;
    for (unsigned d : {0u, 1u}) {
      auto perRow = [&](ScaleMajorness majorness) {
        scales.push_back({operand->get(),
                          ScaleEncodingAttr::getPerRow(ctx, majorness),
                          d == 0});
        found = true;
      };
      if (r.size() == 1 && isDim(r[0], d))
        perRow(ScaleMajorness::KMajor);
      else if (r.size() == 2 && isDim(r[0], d) && isZero(r[1]) &&
               type.getDimSize(1) == 1)
        perRow(ScaleMajorness::KMajor);
      else if (r.size() == 2 && isZero(r[0]) && isDim(r[1], d) &&
               type.getDimSize(0) == 1)
        perRow(ScaleMajorness::MNMajor);
      if (found)
        break;
    }
    if (!found)
      return failure();
  }
  if (!matmul ||
      !llvm::all_of(matmul->getUsers(),
                    [&](Operation *user) {
                      return user == generic || user == replaced;
                    }) ||
      matmul.getAccumulate() ||
      matmul.getBias() || matmul.getAux() || matmul.getOutScales() ||
      matmul.getActivation() != Activation::None ||
      !isUnitScale(matmul.getAScales()) || !isUnitScale(matmul.getBScales()) ||
      matmul.getResult(0).getType() != generic.getResult(0).getType())
    return failure();
  // At most one scale per side; per-tensor scales take a free side.
  Scale *a = nullptr, *b = nullptr;
  for (Scale &scale : scales) {
    if (scale.encoding.getKind() != ScaleKind::PerRow)
      continue;
    Scale *&slot = scale.onA ? a : b;
    if (slot)
      return failure(); // two per-row scales on one side
    slot = &scale;
  }
  for (Scale &scale : scales) {
    if (scale.encoding.getKind() != ScaleKind::PerTensor)
      continue;
    Scale *&slot = !a ? a : b;
    if (slot)
      return failure();
    slot = &scale;
  }

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(generic);
  // What is built goes right before `generic`: on failure it is removed
  // again, newest first.
  Operation *before = generic->getPrevNode();
  auto fail = [&] {
    while (generic->getPrevNode() != before)
      rewriter.eraseOp(generic->getPrevNode());
    return failure();
  };
  Location loc = generic.getLoc();
  int64_t m = matmul.getM(), n = matmul.getN(), k = matmul.getK();
  auto scaleFor = [&](Scale *scale, Value unit, int64_t rows,
                      ScaleEncodingAttr &encoding) -> Value {
    if (!scale) {
      encoding = perTensor;
      return unit;
    }
    encoding = scale->encoding;
    return materializeScale(rewriter, loc, scale->value,
                            ScaleSteps(), scale->encoding, rows, k);
  };
  ScaleEncodingAttr aEncoding, bEncoding;
  Value aScales = scaleFor(a, matmul.getAScales(), m, aEncoding);
  Value bScales = scaleFor(b, matmul.getBScales(), n, bEncoding);
  if (!aScales || !bScales)
    return fail();
  auto scaled = MatmulOp::create(
      rewriter, loc, TypeRange{generic.getResult(0).getType()}, matmul.getA(),
      aScales, matmul.getB(), bScales, /*bias=*/Value(),
      generic.getDpsInits().front(), /*aux=*/Value(), /*out_scales=*/Value(),
      aEncoding, bEncoding, matmul.getBLayoutAttr(), /*accumulate=*/nullptr,
      matmul.getActivationAttr(), /*config=*/nullptr, /*out_encoding=*/nullptr,
      /*out_rounding=*/nullptr, /*out_min_amax=*/nullptr);
  {
    ScopedDiagnosticHandler silence(ctx,
                                    [](Diagnostic &) { return success(); });
    if (failed(scaled.verify()))
      return fail();
  }
  dead.push_back(matmul);
  return scaled.getResult(0);
}

LogicalResult
linalg_to_qmm::foldScalesIntoMatmul(RewriterBase &rewriter,
                                    linalg::GenericOp generic,
                                    SmallVectorImpl<Operation *> &dead) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(generic);
  Operation *before = generic->getPrevNode();
  // Scales combined or broadcast by element-wise generics of their own
  // first (sa * sb as an M x N outer product, a scale copied to M x N) are
  // read fused into the scaling, as linalg-fuse-elementwise-ops makes of
  // them.
  linalg::GenericOp scaling = generic;
  SmallVector<Operation *> fusedOps; // none of them used
  for (unsigned fusions = 0;; ++fusions) {
    FailureOr<Value> scaled =
        buildScaledMatmul(rewriter, scaling, generic, dead);
    if (succeeded(scaled)) {
      rewriter.replaceOp(generic, *scaled);
      for (Operation *op : llvm::reverse(fusedOps))
        rewriter.eraseOp(op);
      return success();
    }
    linalg::GenericOp fused;
    if (fusions < 2)
      fused = fuseInputProducer(rewriter, scaling);
    if (!fused)
      break;
    fusedOps.push_back(fused);
    scaling = fused;
  }
  while (generic->getPrevNode() != before)
    rewriter.eraseOp(generic->getPrevNode());
  return failure();
}
