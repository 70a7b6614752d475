//===- ScalesAfterProduct.cpp - torch._scaled_mm's scales into qmm.matmul -===//
//
// torch._scaled_mm computes (A_q @ B_q) * sa * sb: the product of the
// quantized data (raised to a qmm.matmul with unit scales), scaled
// afterwards. The scales move into the qmm.matmul.
//
//===----------------------------------------------------------------------===//

#include "Building.h"
#include "Dequantization.h"
#include "MissedRaise.h"
#include "Scales.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
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
                                          Operation *replaced,
                                          SmallVectorImpl<Operation *> &dead,
                                          MissedRaise &why) {
  using Stage = MissedRaise::Stage;
  auto miss = [&](const Twine &reason) {
    why.fail(Stage::Operands, reason);
    return failure();
  };
  if (!generic.hasPureTensorSemantics() || generic.getNumLoops() != 2 ||
      generic.getNumReductionLoops() != 0 || generic.getNumDpsInits() != 1 ||
      generic.getNumResults() != 1)
    return miss("not an element-wise op on [M, N]");
  if (!generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return miss("the result is written through a map other than the "
                "identity (transposed)");
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
      return miss("a factor of type " + describeType(v.getType()));
    leaves.push_back(v);
  }
  // Nothing but the products in the body.
  if (body.getOperations().size() != products + 1)
    return miss("the body computes more than products");
  if (leaves.size() < 2 || leaves.size() > 3)
    return miss(Twine(leaves.size()) +
                " factors (the product and one or two scales expected)");
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
      return miss("a factor is the destination's value");
    OpOperand *operand = generic.getDpsInputOperand(arg.getArgNumber());
    AffineMap map = generic.getMatchingIndexingMap(operand);
    if (auto product = operand->get().getDefiningOp<MatmulOp>()) {
      if (matmul || map != identity)
        return miss("the product read twice, or not element by element");
      matmul = product;
      continue;
    }
    // A scale: per tensor (constant zeros), per row of A ((m), (m, 0)),
    // per column, i.e. per row of B ((n), (n, 0), (0, n): MN-major).
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      return miss("a scale that is not a ranked tensor");
    auto isZero = [](AffineExpr e) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      return c && c.getValue() == 0;
    };
    auto isDim = [](AffineExpr e, unsigned d) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      return dim && dim.getPosition() == d;
    };
    ArrayRef<AffineExpr> r = map.getResults();
    if (llvm::all_of(r, isZero) && type.hasStaticShape() &&
        type.getNumElements() == 1) {
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
    if (!found) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << map;
      return miss("a scale read through " + text +
                  " is none of per tensor, per row of A, per column of B");
    }
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
    return miss(matmul ? "the product is read by more, accumulates, or has "
                         "scales, a bias or an activation already"
                       : "no factor is a qmm.matmul's product");
  // At most one scale per side; per-tensor scales take a free side.
  Scale *a = nullptr, *b = nullptr;
  for (Scale &scale : scales) {
    if (scale.encoding.getKind() != ScaleKind::PerRow)
      continue;
    Scale *&slot = scale.onA ? a : b;
    if (slot)
      return miss("two per-row scales on one side");
    slot = &scale;
  }
  for (Scale &scale : scales) {
    if (scale.encoding.getKind() != ScaleKind::PerTensor)
      continue;
    Scale *&slot = !a ? a : b;
    if (slot)
      return miss("more scales than sides");
    slot = &scale;
  }

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(generic);
  // What is built goes right before `generic`: on failure it is removed
  // again, newest first.
  Operation *before = generic->getPrevNode();
  auto fail = [&] {
    eraseBuiltBefore(rewriter, generic, before);
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
  if (!aScales || !bScales) {
    why.fail(Stage::Operands, "a scale that does not fit its encoding, or a "
                              "scalar computed outside");
    return fail();
  }
  auto scaled = MatmulOp::create(
      rewriter, loc, TypeRange{generic.getResult(0).getType()}, matmul.getA(),
      aScales, matmul.getB(), bScales, /*bias=*/Value(),
      generic.getDpsInits().front(), /*aux=*/Value(), /*out_scales=*/Value(),
      aEncoding, bEncoding, matmul.getBLayoutAttr(), /*accumulate=*/nullptr,
      matmul.getActivationAttr(), /*config=*/nullptr, /*out_encoding=*/nullptr,
      /*out_rounding=*/nullptr, /*out_min_amax=*/nullptr);
  {
    std::string rule;
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
      if (rule.empty())
        rule = diag.str();
      return success();
    });
    if (failed(scaled.verify())) {
      why.fail(Stage::Rules, "qmm.matmul does not take it: " + rule);
      return fail();
    }
  }
  dead.push_back(matmul);
  return scaled.getResult(0);
}

/// A batched product as the raising of a batch_matmul leaves it: one
/// qmm.matmul per batch, each inserted into the destination at [b, 0, 0]
/// (a chain of tensor.insert_slice, each read by the next only). The
/// qmm.matmuls by batch and the chain's inserts, last first; none unless
/// every one of `batches` batches is inserted once.
struct BatchedProduct {
  SmallVector<MatmulOp> matmuls;
  SmallVector<tensor::InsertSliceOp> inserts;
};
static std::optional<BatchedProduct> matchBatchedProduct(Value product,
                                                        int64_t batches) {
  BatchedProduct result;
  result.matmuls.resize(batches);
  Value value = product;
  while (auto insert = value.getDefiningOp<tensor::InsertSliceOp>()) {
    auto matmul = insert.getSource().getDefiningOp<MatmulOp>();
    std::optional<int64_t> batch =
        getConstantIntValue(insert.getMixedOffsets().front());
    if (!matmul || !matmul->hasOneUse() || !insert->hasOneUse() || !batch ||
        *batch < 0 || *batch >= batches || result.matmuls[*batch] ||
        !insert.hasUnitStride())
      return std::nullopt;
    result.matmuls[*batch] = matmul;
    result.inserts.push_back(insert);
    value = insert.getDest();
  }
  if (llvm::any_of(result.matmuls, [](MatmulOp m) { return !m; }))
    return std::nullopt;
  return result;
}

/// Scales after a batched product ((A_q @ B_q) * sa * sb on [B, M, N],
/// per-batch scales leading with the batch): per batch, the scaling on that
/// batch's slices becomes that batch's qmm.matmul with scales
/// (buildScaledMatmul), inserted into the scaling's destination.
static LogicalResult foldBatchedScales(RewriterBase &rewriter,
                                       linalg::GenericOp generic,
                                       SmallVectorImpl<Operation *> &dead,
                                       MissedRaise &why) {
  if (!generic.hasPureTensorSemantics() || generic.getNumLoops() != 3 ||
      generic.getNumReductionLoops() != 0 || generic.getNumDpsInits() != 1 ||
      !generic.getBlock()->getOps<linalg::IndexOp>().empty())
    return failure();
  MLIRContext *ctx = generic.getContext();
  auto resultType = cast<RankedTensorType>(generic.getResult(0).getType());
  if (resultType.isDynamicDim(0) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return failure();
  int64_t batches = resultType.getDimSize(0);
  std::optional<BatchedProduct> product;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (generic.getMatchingIndexingMap(input).isIdentity() &&
        (product = matchBatchedProduct(input->get(), batches)))
      break;
  if (!product)
    return failure();

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(generic);
  Operation *before = generic->getPrevNode();
  auto fail = [&] {
    eraseBuiltBefore(rewriter, generic, before);
    return failure();
  };
  Location loc = generic.getLoc();
  // The loops without the batch: d1, d2 -> d0, d1.
  SmallVector<AffineExpr> unbatched = {getAffineConstantExpr(0, ctx),
                                       getAffineDimExpr(0, ctx),
                                       getAffineDimExpr(1, ctx)};
  SmallVector<Operation *> views;
  SmallVector<Operation *> replacedMatmuls;
  Value result = generic.getDpsInits().front();
  for (int64_t batch = 0; batch < batches; ++batch) {
    MatmulOp matmul = product->matmuls[batch];
    Operation *insert = *matmul->user_begin(); // its only reader so far
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(input);
      Value value = input->get();
      if (input->get() == product->inserts.front().getResult()) {
        inputs.push_back(matmul.getResult(0));
        maps.push_back(AffineMap::getMultiDimIdentityMap(2, ctx));
        continue;
      }
      // Read per batch (the batch its first index) or alike for all.
      bool perBatch = map.getNumResults() > 0 &&
                      map.getResult(0) == getAffineDimExpr(0, ctx);
      if (perBatch) {
        value = sliceBatch(rewriter, loc, value, batch);
        map = map.dropResult(0);
      }
      if (map.isFunctionOfDim(0)) {
        why.fail(MissedRaise::Stage::Operands,
                 "a scale reads the batch other than first");
        return fail();
      }
      inputs.push_back(value);
      maps.push_back(map.replaceDimsAndSymbols(unbatched, {}, 2, 0));
    }
    Value init = sliceBatch(rewriter, loc, generic.getDpsInits().front(),
                            batch);
    maps.push_back(AffineMap::getMultiDimIdentityMap(2, ctx));
    auto view = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps, SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    IRMapping mapping;
    generic.getRegion().cloneInto(&view.getRegion(), mapping);
    views.push_back(view);
    SmallVector<Operation *> replaced;
    FailureOr<Value> scaled =
        buildScaledMatmul(rewriter, view, insert, replaced, why);
    if (failed(scaled))
      return fail();
    replacedMatmuls.append(replaced);
    result = insertBatch(rewriter, loc, *scaled, result, batch);
  }
  rewriter.replaceOp(generic, result);
  for (Operation *view : llvm::reverse(views))
    rewriter.eraseOp(view);
  // The old chain (last insert first), then the unit-scale qmm.matmuls it
  // inserted, read by nothing now: the caller erases them in that order.
  for (tensor::InsertSliceOp insert : product->inserts)
    dead.push_back(insert);
  dead.append(replacedMatmuls);
  return success();
}

LogicalResult
linalg_to_qmm::foldScalesIntoMatmul(RewriterBase &rewriter,
                                    linalg::GenericOp generic,
                                    SmallVectorImpl<Operation *> &dead,
                                    MissedRaise &why) {
  if (generic.getNumLoops() == 3)
    return foldBatchedScales(rewriter, generic, dead, why);
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
    MissedRaise attempt;
    FailureOr<Value> scaled =
        buildScaledMatmul(rewriter, scaling, generic, dead, attempt);
    why.keepFurthest(attempt);
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
  eraseBuiltBefore(rewriter, generic, before);
  return failure();
}
