//===- LinalgToQMM.cpp - dequantize-then-matmul linalg IR to qmm.matmul ---===//
//
// The frontend entry: contractions of two dequantized operands (as
// torch-mlir or StableHLO lowered to linalg spell them) become qmm.matmul
// on the quantized data, with the scale encodings read off the
// dequantizations' broadcasting maps. What does not match exactly is left
// alone.
//
//===----------------------------------------------------------------------===//

#include "Building.h"
#include "Dequantization.h"
#include "LoopGroups.h"
#include "MissedRaise.h"
#include "Scales.h"

#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLINALGTOQMM
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::linalg_to_qmm;
using Stage = MissedRaise::Stage;

/// The destination `init` fills with +0 (a linalg.fill, or the generic
/// linalg-generalize-named-ops makes of one: no inputs, every loop
/// parallel, a constant yielded), so that a matmul into `init` does not
/// accumulate into anything; null otherwise. Through a
/// tensor.collapse_shape of such a fill, the destination collapsed the same
/// way (built at the rewriter's insertion point).
static Value getZeroFilledDestination(RewriterBase &rewriter, Value init) {
  if (auto collapse = init.getDefiningOp<tensor::CollapseShapeOp>()) {
    Value source = getZeroFilledDestination(rewriter, collapse.getSrc());
    return source ? tensor::CollapseShapeOp::create(
                        rewriter, collapse.getLoc(), source,
                        collapse.getReassociationIndices())
                        .getResult()
                  : Value();
  }
  auto isPosZero = [](Value v) {
    FloatAttr value;
    return matchPattern(v, m_Constant(&value)) && value.getValue().isPosZero();
  };
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return isPosZero(fill.getInputs().front()) ? fill.getOutputs().front()
                                               : Value();
  auto generic = init.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 0 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return {};
  // The body: the yield, and the constant where it is defined there.
  Block *body = generic.getBlock();
  Value yielded =
      cast<linalg::YieldOp>(body->getTerminator()).getValues().front();
  Operation *constant = yielded.getDefiningOp();
  size_t ops = constant && constant->getBlock() == body ? 2 : 1;
  if (body->getOperations().size() != ops || !isPosZero(yielded))
    return {};
  return generic.getDpsInits().front();
}

/// Builds the qmm.matmul of one (unbatched) product and returns its result,
/// or null when the verifier rejects it (nothing is left behind then).
static Value buildMatmul(OpBuilder &b, Location loc, const Dequantized &a,
                         const Dequantized &bOperand, OperandLayout bLayout,
                         Value init, bool accumulate, int64_t m, int64_t n,
                         int64_t k, MissedRaise &why) {
  Value aScale = materializeScale(b, loc, a.scale, a.steps, a.encoding, m, k);
  Value bScale = materializeScale(b, loc, bOperand.scale, bOperand.steps,
                                  bOperand.encoding, n, k);
  if (!aScale || !bScale) {
    why.fail(Stage::Operands,
             Twine(aScale ? "B" : "A") +
                 "'s scale does not fit its encoding's shape, or is a "
                 "scalar computed outside the dequantization");
    return {};
  }
  auto matmul = MatmulOp::create(
      b, loc, TypeRange{init.getType()}, a.data, aScale, bOperand.data, bScale,
      /*bias=*/Value(), init, /*aux=*/Value(), /*out_scales=*/Value(),
      a.encoding, bOperand.encoding,
      OperandLayoutAttr::get(b.getContext(), bLayout),
      accumulate ? b.getUnitAttr() : nullptr,
      ActivationAttr::get(b.getContext(), Activation::None),
      /*config=*/nullptr, /*out_encoding=*/nullptr, /*out_rounding=*/nullptr,
      /*out_min_amax=*/nullptr);
  // The frontend's operands may break a qmm rule (FNUZ x OCP, K not a
  // multiple of 32 for MX, ...): then the IR stays as it was, and the
  // verifier's message is the reason.
  {
    std::string rule;
    ScopedDiagnosticHandler capture(b.getContext(), [&](Diagnostic &diag) {
      if (rule.empty())
        rule = diag.str();
      return success();
    });
    if (failed(matmul.verify())) {
      matmul.erase();
      why.fail(Stage::Rules, "qmm.matmul does not take it: " + rule);
      return {};
    }
  }
  return matmul.getResult(0);
}

namespace {
/// One factor of a contraction's product: an f32 input dequantized by an
/// op of its own (`input`), or a dequantization in the contraction's body
/// (what linalg-fuse-elementwise-ops makes of the former; a named matmul
/// on FP8 operands widens them there too).
struct ContractionFactor {
  Value input;
  std::optional<DequantizedValue> inBody;
  /// How the contraction's loops read the dequantized operand.
  AffineMap readMap;
};
} // namespace

/// Matches the factors of a contraction body that computes out + x * y in
/// f32 (either order of each), and nothing else.
static std::optional<std::pair<ContractionFactor, ContractionFactor>>
matchContractionBody(linalg::LinalgOp op, MissedRaise &why) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getValues().front().getDefiningOp<arith::AddFOp>();
  Value out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!out.getType().isF32())
    return why.fail(Stage::Body, "it accumulates in " +
                                     describeType(out.getType()) +
                                     "; qmm.matmul accumulates in f32");
  if (!add || !add.getType().isF32() ||
      (add.getLhs() != out && add.getRhs() != out))
    return why.fail(Stage::Body,
                    "the body does not yield `arith.addf` of the f32 "
                    "destination and a product");
  auto mul = (add.getLhs() == out ? add.getRhs() : add.getLhs())
                 .getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != body)
    return why.fail(Stage::Body,
                    "the body adds something other than an `arith.mulf` "
                    "to the destination");
  SmallVector<Operation *> taken = {add, mul};
  auto matchFactor = [&](Value v) -> std::optional<ContractionFactor> {
    ContractionFactor factor;
    // An input read as it is, or widened to f32 in the body (a named
    // bf16 x bf16 -> f32 matmul's extf).
    Value read = v;
    auto widened = v.getDefiningOp<arith::ExtFOp>();
    // (bf16 or f16 only: they hold quantized data's values exactly, which
    // the input's own dequantization is then checked to be.)
    Type widenedFrom = widened ? widened.getIn().getType() : Type();
    if (widened && widened->getBlock() == body &&
        isa<BlockArgument>(widened.getIn()) &&
        (widenedFrom.isBF16() || widenedFrom.isF16()))
      read = widened.getIn();
    if (auto arg = dyn_cast<BlockArgument>(read)) {
      if (arg.getOwner() != body ||
          arg.getArgNumber() >= op.getNumDpsInputs())
        return why.fail(Stage::Body, "a factor of the product is not read "
                                     "from an input");
      if (!arg.getType().isF32() && read == v)
        return why.fail(Stage::Body, "a factor multiplied in its own type, "
                                     "not f32");
      if (read != v)
        taken.push_back(widened);
      OpOperand *input = op.getDpsInputOperand(arg.getArgNumber());
      factor.input = input->get();
      factor.readMap = op.getMatchingIndexingMap(input);
      return factor;
    }
    factor.inBody = matchDequantizedValue(v, *body, why);
    if (!factor.inBody)
      return std::nullopt;
    if (factor.inBody->implicitData)
      return why.fail(Stage::Operands,
                      "quantized and dequantized inside the contraction's "
                      "body (`arith.truncf` to " +
                          describeType(factor.inBody->implicitData.getType()) +
                          ")");
    if (factor.inBody->data.getArgNumber() >= op.getNumDpsInputs())
      return why.fail(Stage::Operands,
                      "the quantized data is the destination");
    taken.append(factor.inBody->ops);
    factor.readMap = op.getMatchingIndexingMap(
        op.getDpsInputOperand(factor.inBody->data.getArgNumber()));
    return factor;
  };
  std::optional<ContractionFactor> x = matchFactor(mul.getLhs());
  if (!x)
    return std::nullopt;
  std::optional<ContractionFactor> y = matchFactor(mul.getRhs());
  if (!y)
    return std::nullopt;
  for (Operation &other : body->without_terminator())
    if (!llvm::is_contained(taken, &other))
      return why.fail(Stage::Body, "the body also computes " +
                                       describeOp(&other));
  return std::pair(*x, *y);
}

/// The qmm.matmul (per batch: inserted into the destination) computing
/// `op` when it is a contraction of two dequantized operands: dequantized
/// by generics of their own (read directly, B possibly through a
/// linalg.transpose), in the contraction's body, or a mix. Built at the
/// rewriter's insertion point; null on failure (the caller erases what was
/// built). `feeding`: the ops that may be dead once `op` is replaced.
static Value buildRaisedContraction(RewriterBase &rewriter,
                                    linalg::LinalgOp op,
                                    SmallVectorImpl<Operation *> &feeding,
                                    MissedRaise &why) {
  auto fail = [&](Stage stage, const Twine &reason) {
    why.fail(stage, reason);
    return Value();
  };
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return fail(Stage::Loops, "not on tensors with one result");
  unsigned loops = op.getNumLoops();
  if (loops != 3 && loops != 4)
    return fail(Stage::Loops, Twine(loops) + " loops, not (batch,) m, n, k");
  // Loops: an optional batch, then m, n (parallel) and k (reduction).
  unsigned batch = loops - 3;
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](ArrayRef<AffineExpr> exprs) {
    SmallVector<AffineExpr> all;
    if (batch)
      all.push_back(d(0));
    all.append(exprs.begin(), exprs.end());
    return AffineMap::get(loops, 0, all, ctx);
  };
  AffineExpr dm = d(batch), dn = d(batch + 1), dk = d(batch + 2);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < loops; ++i)
    if ((iterators[i] == utils::IteratorType::reduction) != (i == batch + 2))
      return fail(Stage::Loops, "the loops are not (batch,) m, n parallel "
                                "and k reducing");
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != map({dm, dn}))
    return fail(Stage::Loops, "the result is not indexed by (batch,) m, n");
  auto factors = matchContractionBody(op, why);
  if (!factors)
    return {};
  // A is the factor read as [M, K]; B the one read as [N, K] or [K, N].
  ContractionFactor aFactor = factors->first, bFactor = factors->second;
  if (aFactor.readMap != map({dm, dk}))
    std::swap(aFactor, bFactor);
  if (aFactor.readMap != map({dm, dk}))
    return fail(Stage::Loops,
                batch && (factors->first.readMap.getNumResults() == 2 ||
                          factors->second.readMap.getNumResults() == 2)
                    ? "one factor is read without the batch"
                    : "no factor is read as A [(batch,) M, K] (A stored "
                      "transposed is not taken)");
  bool readKN = bFactor.readMap == map({dk, dn});
  if (!readKN && bFactor.readMap != map({dn, dk}))
    return fail(Stage::Loops, "B is read as neither [(batch,) N, K] nor "
                              "[(batch,) K, N]");

  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  // Static shapes, but for M (the output's rows): a dynamic M (tokens)
  // raises to qmm.matmuls with `?` rows (per batch: slices whose offsets
  // are known at run time only). The batch extent is unrolled: static.
  auto staticButM = [&](Type type) {
    auto shaped = cast<ShapedType>(type);
    for (int64_t d = 0; d < shaped.getRank(); ++d)
      if (shaped.isDynamicDim(d) && d != int64_t(batch))
        return false;
    return true;
  };
  if (!resultType || !resultType.getElementType().isF32())
    return fail(Stage::Body, "the result is not f32 (qmm accumulates in f32)");
  if (!staticButM(resultType))
    return fail(Stage::Loops, "a dynamic N (only M may be dynamic)");

  // A: [(B,) M, K], dequantized with its rows along m.
  MissedRaise aWhy, bWhy;
  std::optional<Dequantized> a =
      aFactor.inBody ? classifyDequantized(rewriter, op, *aFactor.inBody, batch,
                                           batch + 2, batch, aWhy)
                     : matchDequantize(rewriter, aFactor.input, batch,
                                       batch + 1, batch, feeding, aWhy);
  if (!a)
    return why.fail("A: ", aWhy), Value();
  // B: dequantized in the body, or by a generic that may reach the
  // contraction through a linalg.transpose of its last two dimensions (its
  // rows and K are then the other way round).
  std::optional<Dequantized> bOperand;
  bool kn = readKN;
  if (bFactor.inBody) {
    bOperand = classifyDequantized(rewriter, op, *bFactor.inBody, batch + 1,
                                   batch + 2, batch, bWhy);
  } else {
    Value bInput = bFactor.input;
    if (auto transpose = bInput.getDefiningOp<linalg::TransposeOp>()) {
      SmallVector<int64_t> swapped =
          llvm::to_vector(llvm::seq<int64_t>(0, batch + 2));
      std::swap(swapped[batch], swapped[batch + 1]);
      if (transpose.getPermutation() == ArrayRef<int64_t>(swapped)) {
        bInput = transpose.getInput();
        kn = !kn;
      }
    }
    bOperand = matchDequantize(rewriter, bInput, kn ? batch + 1 : batch,
                               kn ? batch : batch + 1, batch, feeding, bWhy);
  }
  if (!bOperand)
    return why.fail("B: ", bWhy), Value();
  // qmm.matmul reads A as [M, K] only.
  if (a->dataTransposed)
    return fail(Stage::Operands,
                "A's data is stored transposed ([K, M]); qmm.matmul reads A "
                "as [M, K]");
  // B's data as stored: transposed once more where its dequantization read
  // it through a transposing map.
  OperandLayout bLayout = (kn != bOperand->dataTransposed) ? OperandLayout::KN
                                                           : OperandLayout::NK;
  if (!staticButM(a->data.getType()) ||
      !cast<ShapedType>(bOperand->data.getType()).hasStaticShape())
    return fail(Stage::Operands, "a dynamic K or N in the quantized data");

  Value init = op.getDpsInits().front();
  // qmm.matmul ignores what a destination it does not accumulate into
  // holds: a zero fill's own destination will do.
  Value zeroFilled = getZeroFilledDestination(rewriter, init);
  bool accumulate = !zeroFilled;
  if (!accumulate)
    init = zeroFilled;
  // (B's transpose, when there is one: erasing it queues the
  // dequantization it reads.)
  for (Value v : op->getOperands())
    if (Operation *def = v.getDefiningOp())
      feeding.push_back(def);
  ArrayRef<int64_t> out = resultType.getShape();
  int64_t m = out[batch], n = out[batch + 1];
  int64_t k = cast<ShapedType>(a->data.getType()).getDimSize(batch + 1);

  Location loc = op.getLoc();
  if (!batch)
    return buildMatmul(rewriter, loc, *a, *bOperand, bLayout, init,
                       accumulate, m, n, k, why);

  // One qmm.matmul per batch on tensor slices.
  int64_t batches = out[0];
  Value result = init;
  for (int64_t i = 0; i < batches; ++i) {
    auto slice = [&](const Dequantized &operand) {
      Dequantized sliced = operand;
      sliced.data = sliceBatch(rewriter, loc, operand.data, i);
      if (operand.scaleBatched)
        sliced.scale = sliceBatch(rewriter, loc, operand.scale, i);
      return sliced;
    };
    Dequantized aSlice = slice(*a), bSlice = slice(*bOperand);
    Value initSlice = sliceBatch(rewriter, loc, init, i);
    Value product = buildMatmul(rewriter, loc, aSlice, bSlice, bLayout,
                                initSlice, accumulate, m, n, k, why);
    if (!product)
      return {};
    result = insertBatch(rewriter, loc, product, result, i);
  }
  return result;
}

/// Queues the ops defining what `op` reads: its operands and the values
/// its regions use from outside (a scale constant that fusion and
/// canonicalization left outside a dequantization's body).
static void queueDefiningOps(Operation *op,
                             SmallVectorImpl<Operation *> &queue) {
  llvm::SetVector<Value> used(llvm::from_range, op->getOperands());
  getUsedValuesDefinedAbove(op->getRegions(), used);
  for (Value value : used)
    if (Operation *def = value.getDefiningOp())
      queue.push_back(def);
}

/// The ways to read `op`'s loops as the (batch,) m, n, k of a matmul by
/// grouping consecutive loops of one iterator type: K split into blocks in
/// the operands' types ([R, K/32, 32], as IREE and MX frontends pass data),
/// M over several loops ([batch, seq, K] activations against a 2-D
/// weight). Each grouping has three or four groups and is not the op's own
/// loops; fewer merged loops first.
static SmallVector<SmallVector<ReassociationIndices>>
getMatmulLoopGroupings(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t loops = iterators.size();
  SmallVector<SmallVector<ReassociationIndices>> groupings;
  // At most a few loops of each kind: the search is over 2^(loops - 1)
  // cuts.
  if (loops < 4 || loops > 8)
    return groupings;
  for (unsigned groups : {4u, 3u}) {
    if (groups >= loops)
      continue;
    for (uint32_t cuts = 0; cuts < (1u << (loops - 1)); ++cuts) {
      if (unsigned(llvm::popcount(cuts)) != groups - 1)
        continue;
      SmallVector<ReassociationIndices> grouping(1);
      bool uniform = true;
      for (int64_t loop = 0; loop < loops; ++loop) {
        if (loop > 0 && (cuts >> (loop - 1) & 1))
          grouping.emplace_back();
        else if (loop > 0 && iterators[loop] != iterators[loop - 1])
          uniform = false;
        grouping.back().push_back(loop);
      }
      if (uniform)
        groupings.push_back(std::move(grouping));
    }
  }
  return groupings;
}

/// Rewrites `op` into qmm.matmul when it is a contraction of two
/// dequantized operands (buildRaisedContraction), also read on grouped
/// loops: as its inputs' tensor.expand_shape views split them (elementwise
/// fusion leaves blockwise dequantization on [R, K/128, 128]), or grouped
/// into (batch,) m, n, k (getMatmulLoopGroupings). On failure the IR is as
/// it was and `why` says what stopped the attempt that got furthest.
static LogicalResult raiseContraction(RewriterBase &rewriter,
                                      linalg::LinalgOp op,
                                      SmallVectorImpl<Operation *> &feeding,
                                      MissedRaise &why) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  // Everything built goes right before `op`: on failure it is removed
  // again, newest first.
  Operation *before = op->getPrevNode();
  auto eraseBuilt = [&] { eraseBuiltBefore(rewriter, op, before); };
  // The attempts: the op's loops as they are (or as expand_shape views
  // split them), then grouped.
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  SmallVector<std::optional<SmallVector<ReassociationIndices>>> attempts;
  attempts.push_back(generic ? getExpandedLoopGroups(generic) : std::nullopt);
  if (generic)
    for (SmallVector<ReassociationIndices> &groups :
         getMatmulLoopGroupings(generic))
      if (!attempts.front() || groups != *attempts.front())
        attempts.push_back(std::move(groups));
  SmallVector<Operation *> dead;
  Value result;
  for (const std::optional<SmallVector<ReassociationIndices>> &groups :
       attempts) {
    MissedRaise attempt;
    dead.clear();
    if (!groups) {
      result = buildRaisedContraction(rewriter, op, dead, attempt);
    } else if (FailureOr<CollapsedOp> unsplit =
                   collapseLoopGroups(rewriter, generic, *groups);
               succeeded(unsplit)) {
      dead.push_back(unsplit->op);
      result = buildRaisedContraction(rewriter, unsplit->op, dead, attempt);
      if (result && result.getType() != op->getResult(0).getType())
        result = tensor::ExpandShapeOp::create(rewriter, op.getLoc(),
                                               op->getResult(0).getType(),
                                               result,
                                               unsplit->resultReassociation);
    }
    why.keepFurthest(attempt);
    if (result)
      break;
    eraseBuilt();
  }
  if (!result)
    return failure();
  queueDefiningOps(op, dead);
  rewriter.replaceOp(op, result);
  // The view collapsed back (the frontend's collapse_shape of the result)
  // is the raised product itself.
  if (auto expand = result.getDefiningOp<tensor::ExpandShapeOp>()) {
    for (Operation *user : llvm::make_early_inc_range(expand->getUsers()))
      if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
          collapse && collapse.getType() == expand.getSrcType() &&
          collapse.getReassociationIndices() ==
              expand.getReassociationIndices())
        rewriter.replaceOp(collapse, expand.getSrc());
    if (expand->use_empty())
      rewriter.eraseOp(expand);
  }
  feeding.append(dead);
  return success();
}

/// Whether `generic` reads, element by element, a qmm.matmul's product
/// (per batch: inserted into a batched result).
static bool readsRaisedProduct(linalg::GenericOp generic) {
  if (generic.getNumReductionLoops() != 0)
    return false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Value value = input->get();
    while (auto insert = value.getDefiningOp<tensor::InsertSliceOp>())
      value = insert.getSource();
    if (value.getDefiningOp<MatmulOp>() &&
        generic.getMatchingIndexingMap(input).isIdentity())
      return true;
  }
  return false;
}

namespace {
struct QMMLinalgToQMMPass
    : public qmm::impl::QMMLinalgToQMMBase<QMMLinalgToQMMPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::ContractOp,
              linalg::GenericOp>(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> feeding;
    for (linalg::LinalgOp op : candidates) {
      SmallVector<Operation *> inputs;
      MissedRaise why;
      if (succeeded(raiseContraction(rewriter, op, inputs, why))) {
        feeding.append(inputs);
        continue;
      }
      // Said on request (--remarks-filter-missed=qmm-linalg-to-qmm): each
      // contraction left alone, with what stopped it.
      if (op.getNumReductionLoops() > 0) {
        auto func = op->getParentOfType<FunctionOpInterface>();
        remark::missed(op.getLoc(),
                       remark::RemarkOpts::name("QuantizedMatmul")
                           .category(getArgument())
                           .function(func ? func.getName() : StringRef()))
            << ("not raised to qmm.matmul: " + why.str()).str();
      }
      // Scales applied after a (unit-scale) product raised above.
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic)
        continue;
      SmallVector<Operation *> replaced, read;
      queueDefiningOps(generic, read);
      MissedRaise scalesWhy;
      if (succeeded(
              foldScalesIntoMatmul(rewriter, generic, replaced, scalesWhy))) {
        // (Not the replaced product, erased here in its order.)
        for (Operation *def : read)
          if (!llvm::is_contained(replaced, def))
            feeding.push_back(def);
        for (Operation *product : replaced) {
          SmallVector<Value> operands(product->getOperands());
          rewriter.eraseOp(product);
          for (Value operand : operands)
            if (Operation *def = operand.getDefiningOp();
                def && !llvm::is_contained(replaced, def))
              feeding.push_back(def);
        }
        continue;
      }
      // Said on request too: scales left outside a product raised here.
      if (readsRaisedProduct(generic)) {
        auto func = op->getParentOfType<FunctionOpInterface>();
        remark::missed(op.getLoc(),
                       remark::RemarkOpts::name("ScalesAfterProduct")
                           .category(getArgument())
                           .function(func ? func.getName() : StringRef()))
            << ("scales after the product not folded into qmm.matmul: " +
                scalesWhy.str())
                   .str();
      }
    }
    // The dequantizations, fills, views, scalar scales and their
    // conversions that only the raised matmuls read, and the tensor.empty
    // destinations only they used: what is left unused and free of side
    // effects. (An op may be queued again once a user is gone, never once
    // erased; nothing is created meanwhile, so an erased op's address is
    // not reused.)
    llvm::DenseSet<Operation *> erased;
    while (!feeding.empty()) {
      Operation *op = feeding.pop_back_val();
      if (erased.contains(op) || !isOpTriviallyDead(op))
        continue;
      queueDefiningOps(op, feeding);
      erased.insert(op);
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
