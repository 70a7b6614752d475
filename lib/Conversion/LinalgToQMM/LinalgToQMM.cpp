//===- LinalgToQMM.cpp - dequantize-then-matmul linalg IR to qmm.matmul ---===//
//
// The frontend entry: contractions of two dequantized operands (as
// torch-mlir or StableHLO lowered to linalg spell them) become qmm.matmul
// on the quantized data, with the scale encodings read off the
// dequantizations' broadcasting maps. What does not match exactly is left
// alone.
//
//===----------------------------------------------------------------------===//

#include "LoopGroups.h"
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

namespace {
/// A dequantized operand: the quantized data, its scale (a tensor, or a
/// scalar for a per-tensor scale) and the encoding.
struct Dequantized {
  Value data;
  Value scale;
  /// Where the scale is stored in another type than the encoding's: the
  /// dequantization's conversion of it (isScaleConversion).
  Operation *conversion = nullptr;
  ScaleEncodingAttr encoding;
  /// Batched contractions: the scale tensor has a leading batch extent.
  bool scaleBatched = false;
  /// The data tensor holds the dequantized operand transposed (its last
  /// two dimensions swapped): read through a transposing map, or
  /// dequantized before a linalg.transpose.
  bool dataTransposed = false;
};

} // namespace

namespace {
/// The dequantization of one operand written in a linalg body: extf(q) * s
/// (either order), scaling_extf(q, s) with E8M0 scales, or extf(q) alone (a
/// unit scale), q an input's block argument of a quantized type. s is an
/// input's block argument or a scalar from outside (per tensor), possibly
/// converted in the body (isScaleConversion).
struct DequantizedValue {
  BlockArgument data;
  /// Null for a unit scale.
  Value scale;
  /// The body's conversion of the scale, if any.
  Operation *conversion = nullptr;
  bool e8m0 = false;
  /// The body operations it takes.
  unsigned numOps = 0;
};
} // namespace

/// Matches `value`, computed in `body`, as a DequantizedValue.
static std::optional<DequantizedValue> matchDequantizedValue(Value value,
                                                             Block &body) {
  auto quantizedArg = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body &&
                   isQuantizedElementType(arg.getType())
               ? arg
               : BlockArgument();
  };
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != &body || !value.getType().isF32())
    return std::nullopt;
  DequantizedValue result;
  // MX dequantization by arith.scaling_extf (OCP MX: extf(q) * 2^scale).
  if (auto scaling = dyn_cast<arith::ScalingExtFOp>(def)) {
    result.data = quantizedArg(scaling.getIn());
    if (!result.data ||
        !isa<Float8E8M0FNUType>(scaling.getScale().getType()))
      return std::nullopt;
    result.scale = scaling.getScale();
    result.e8m0 = true;
    result.numOps = 1;
    return result;
  }
  if (auto ext = dyn_cast<arith::ExtFOp>(def)) {
    result.data = quantizedArg(ext.getIn());
    if (!result.data)
      return std::nullopt;
    result.numOps = 1;
    return result;
  }
  auto mul = dyn_cast<arith::MulFOp>(def);
  if (!mul)
    return std::nullopt;
  for (auto [x, s] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    auto ext = x.getDefiningOp<arith::ExtFOp>();
    if (ext && ext->getBlock() == &body && quantizedArg(ext.getIn())) {
      result.data = quantizedArg(ext.getIn());
      result.scale = s;
      break;
    }
  }
  if (!result.data)
    return std::nullopt;
  result.numOps = 2;
  // A scale converted in the body: E8M0 / bf16 / f16 widened (exactly),
  // f64 rounded to the f32 the body multiplies by (in the body's rounding
  // mode: the raising converts the scale tensor with a clone of the op).
  // The fast-math flags of the multiplications that the raising drops
  // only allow results to be less exact than qmm.matmul's exact products
  // (or undefined where they are not finite): qmm.matmul's result is one of
  // those the flagged program may give.
  Operation *converted = result.scale.getDefiningOp();
  if (converted && converted->getBlock() == &body) {
    if (!isScaleConversion(converted))
      return std::nullopt; // something else computed in the body
    result.e8m0 = isa<Float8E8M0FNUType>(converted->getOperand(0).getType());
    result.conversion = converted;
    result.scale = converted->getOperand(0);
    ++result.numOps;
  }
  return result;
}

/// The operand `value` dequantizes, in `op`, whose body computes it: the
/// data and scale tensors (inputs of `op`) and the encoding read off the
/// scale's indexing map, the operand's rows and K being loop dimensions
/// `rowDim` and `kDim` (after `batchDims` batch loops).
static std::optional<Dequantized>
classifyDequantized(RewriterBase &rewriter, linalg::LinalgOp op,
                    const DequantizedValue &value, unsigned rowDim,
                    unsigned kDim, unsigned batchDims) {
  MLIRContext *ctx = op->getContext();
  if (value.data.getArgNumber() >= op.getNumDpsInputs())
    return std::nullopt;
  Dequantized result;
  result.data = op.getDpsInputOperand(value.data.getArgNumber())->get();
  auto perTensor = ScaleEncodingAttr::get(ctx, ScaleKind::PerTensor, {},
                                          Float32Type::get(ctx),
                                          ScaleMajorness::KMajor);
  if (!value.scale) { // a unit scale: materialized as a constant 1
    result.encoding = perTensor;
    return result;
  }
  result.conversion = value.conversion;
  auto scaleArg = dyn_cast<BlockArgument>(value.scale);
  if (!scaleArg || scaleArg.getOwner() != op.getBlock()) {
    // A scalar from outside the op: one scale for the whole tensor (an
    // E8M0 one is no MX encoding). Canonicalization may have hoisted its
    // conversion out of the body too.
    if (value.e8m0)
      return std::nullopt;
    result.scale = value.scale;
    Operation *def = value.scale.getDefiningOp();
    if (!result.conversion && isScaleConversion(def) &&
        !isa<Float8E8M0FNUType>(def->getOperand(0).getType())) {
      result.conversion = def;
      result.scale = def->getOperand(0);
    }
    if (!result.conversion && !result.scale.getType().isF32())
      return std::nullopt;
    result.encoding = perTensor;
    return result;
  }
  if (scaleArg.getArgNumber() >= op.getNumDpsInputs() ||
      scaleArg == value.data)
    return std::nullopt;
  OpOperand *scaleOperand = op.getDpsInputOperand(scaleArg.getArgNumber());
  AffineMap scaleMap = op.getMatchingIndexingMap(scaleOperand);
  // Batched scales either lead with the batch dimension or have none.
  unsigned batchResults = 0;
  if (batchDims && scaleMap.getNumResults() > 0)
    if (auto d = dyn_cast<AffineDimExpr>(scaleMap.getResult(0));
        d && d.getPosition() == 0)
      batchResults = 1;
  for (AffineExpr expr : scaleMap.getResults().drop_front(batchResults))
    if (expr.isFunctionOfDim(0) && batchDims)
      return std::nullopt;
  // Scales with more than two dimensions (torch's [R, K/128, 1] view of
  // blockwise scales broadcast along a reshaped K): the size-1 dimensions
  // read at a constant 0 go (collapsed into a neighbour).
  Value scale = scaleOperand->get();
  SmallVector<ReassociationIndices> unitDimsDropped;
  auto scaleType = dyn_cast<RankedTensorType>(scale.getType());
  if (scaleType && scaleMap.getNumResults() > batchResults + 2) {
    SmallVector<AffineExpr> kept;
    ReassociationIndices leading; // dropped before the first kept one
    for (auto [i, expr] : llvm::enumerate(scaleMap.getResults())) {
      auto c = dyn_cast<AffineConstantExpr>(expr);
      if (i >= batchResults && c && c.getValue() == 0 &&
          scaleType.getDimSize(i) == 1) {
        (unitDimsDropped.empty() ? leading : unitDimsDropped.back())
            .push_back(i);
        continue;
      }
      ReassociationIndices group = std::move(leading);
      leading.clear();
      group.push_back(i);
      unitDimsDropped.push_back(group);
      kept.push_back(expr);
    }
    if (!leading.empty()) // nothing kept: not a broadcast of fewer dims
      return std::nullopt;
    scaleMap = AffineMap::get(scaleMap.getNumDims(), 0, kept, ctx);
  }
  result.encoding = classifyScaleMap(ctx, scaleMap, rowDim, kDim, value.e8m0,
                                     batchResults);
  if (!result.encoding)
    return std::nullopt;
  if (!unitDimsDropped.empty())
    scale = tensor::CollapseShapeOp::create(rewriter, op.getLoc(), scale,
                                            unitDimsDropped);
  result.scale = scale;
  result.scaleBatched = batchResults == 1;
  return result;
}

/// The most element-wise generics a dequantization is read from (extf,
/// a scale conversion, the multiplication).
static constexpr unsigned kMaxDequantizationSteps = 3;

/// `generic` with the element-wise generic producing one of its inputs
/// fused into it (upstream's elementwise fusion), placed at the rewriter's
/// insertion point; `generic` and the producer stay as they are. Null when
/// no input's producer fuses.
static linalg::GenericOp fuseInputProducer(RewriterBase &rewriter,
                                           linalg::GenericOp generic) {
  OpBuilder::InsertionGuard guard(rewriter);
  Block *block = rewriter.getInsertionBlock();
  Block::iterator point = rewriter.getInsertionPoint();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (!input->get().getDefiningOp<linalg::GenericOp>() ||
        !linalg::areElementwiseOpsFusable(input))
      continue;
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, input);
    if (failed(fused))
      continue;
    // Where the raising builds (erased again if it fails).
    fused->fusedOp->moveBefore(block, point);
    return cast<linalg::GenericOp>(fused->fusedOp);
  }
  return {};
}

/// Matches `value` as the result of a dequantizing linalg.generic whose
/// body is a DequantizedValue alone, the data read through the identity
/// map or with its last two dimensions swapped. `rowDim` and `kDim` are
/// the loop dimensions holding the operand's rows and K (`batchDims`
/// leading ones are a batch). A dequantization on reshaped views (the
/// data a tensor.expand_shape, the result collapsed back the same way by
/// tensor.collapse_shape: blockwise scales on [R, K/128, 128]) is read as
/// the generic on the unsplit loops, and one in element-wise steps as the
/// steps fused; what that builds goes at the rewriter's insertion point and
/// into `created`.
static std::optional<Dequantized>
matchDequantize(RewriterBase &rewriter, Value value, unsigned rowDim,
                unsigned kDim, unsigned batchDims,
                SmallVectorImpl<Operation *> &created) {
  if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>()) {
    // Collapsed back in steps (fusion leaves B's [K/C, C, N/R, R] view
    // collapsed to [K/C, C, N] before the contraction, which collapses
    // the rest): the steps composed.
    SmallVector<ReassociationIndices> reassociation =
        collapse.getReassociationIndices();
    Value source = collapse.getSrc();
    while (auto inner = source.getDefiningOp<tensor::CollapseShapeOp>()) {
      std::optional<SmallVector<ReassociationIndices>> composed =
          composeReassociationIndices(inner.getReassociationIndices(),
                                      reassociation, collapse.getContext());
      if (!composed)
        return std::nullopt;
      reassociation = std::move(*composed);
      source = inner.getSrc();
    }
    auto split = source.getDefiningOp<linalg::GenericOp>();
    std::optional<SmallVector<ReassociationIndices>> groups =
        split ? getExpandedLoopGroups(split) : std::nullopt;
    if (!groups || *groups != reassociation)
      return std::nullopt;
    FailureOr<CollapsedOp> unsplit =
        collapseLoopGroups(rewriter, split, *groups);
    if (failed(unsplit) ||
        unsplit->op.getResult(0).getType() != collapse.getType())
      return std::nullopt;
    created.push_back(unsplit->op);
    value = unsplit->op.getResult(0);
  }
  // The result is written through the identity map (the loops are its
  // dimensions, which the data and scale maps are read against).
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      generic.getNumLoops() != 2 + batchDims ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return std::nullopt;
  // A dequantization in element-wise steps (extf, then the scale's
  // multiplication, each a generic of its own, as frontends lowering one
  // op at a time write it) is read with its producers fused into it, as
  // linalg-fuse-elementwise-ops makes of it.
  std::optional<DequantizedValue> dequantized;
  for (unsigned fusions = 0;; ++fusions) {
    Block &body = generic.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    dequantized = matchDequantizedValue(yield.getValues().front(), body);
    if (dequantized && body.getOperations().size() == dequantized->numOps + 1)
      break;
    if (fusions == kMaxDequantizationSteps - 1)
      return std::nullopt;
    generic = fuseInputProducer(rewriter, generic);
    if (!generic)
      return std::nullopt;
    created.push_back(generic);
  }
  std::optional<Dequantized> result =
      classifyDequantized(rewriter, generic, *dequantized, rowDim, kDim,
                          batchDims);
  if (!result)
    return std::nullopt;
  AffineMap dataMap = generic.getMatchingIndexingMap(
      generic.getDpsInputOperand(dequantized->data.getArgNumber()));
  if (!dataMap.isIdentity()) {
    // The last two dimensions swapped: the data is stored transposed.
    SmallVector<unsigned> swapped = llvm::to_vector(
        llvm::seq<unsigned>(0, generic.getNumLoops()));
    std::swap(swapped[batchDims], swapped[batchDims + 1]);
    if (dataMap != AffineMap::getPermutationMap(swapped, generic.getContext()))
      return std::nullopt;
    result->dataTransposed = true;
  }
  return result;
}

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

/// Batch `index` of a tensor with a leading batch extent, without it.
static Value sliceBatch(OpBuilder &b, Location loc, Value tensor,
                        int64_t index) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[0] = b.getIndexAttr(index);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tensor);
  sizes[0] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, tensor, offsets,
                                        sizes, strides);
}

/// Builds the qmm.matmul of one (unbatched) product and returns its result,
/// or null when the verifier rejects it (nothing is left behind then).
static Value buildMatmul(OpBuilder &b, Location loc, const Dequantized &a,
                         const Dequantized &bOperand, OperandLayout bLayout,
                         Value init, bool accumulate, int64_t m, int64_t n,
                         int64_t k) {
  Value aScale =
      materializeScale(b, loc, a.scale, a.conversion, a.encoding, m, k);
  Value bScale = materializeScale(b, loc, bOperand.scale, bOperand.conversion,
                                  bOperand.encoding, n, k);
  if (!aScale || !bScale)
    return {};
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
  // multiple of 32 for MX, ...): then the IR stays as it was.
  {
    ScopedDiagnosticHandler silence(b.getContext(),
                                    [](Diagnostic &) { return success(); });
    if (failed(matmul.verify())) {
      matmul.erase();
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
matchContractionBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getValues().front().getDefiningOp<arith::AddFOp>();
  if (!add || !add.getType().isF32())
    return std::nullopt;
  Value out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (add.getLhs() != out && add.getRhs() != out)
    return std::nullopt;
  auto mul = (add.getLhs() == out ? add.getRhs() : add.getLhs())
                 .getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != body)
    return std::nullopt;
  size_t ops = 3; // addf, mulf, yield
  auto matchFactor = [&](Value v) -> std::optional<ContractionFactor> {
    ContractionFactor factor;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body || arg.getArgNumber() >= op.getNumDpsInputs()
          || !arg.getType().isF32())
        return std::nullopt;
      OpOperand *input = op.getDpsInputOperand(arg.getArgNumber());
      factor.input = input->get();
      factor.readMap = op.getMatchingIndexingMap(input);
      return factor;
    }
    factor.inBody = matchDequantizedValue(v, *body);
    if (!factor.inBody ||
        factor.inBody->data.getArgNumber() >= op.getNumDpsInputs())
      return std::nullopt;
    ops += factor.inBody->numOps;
    factor.readMap = op.getMatchingIndexingMap(
        op.getDpsInputOperand(factor.inBody->data.getArgNumber()));
    return factor;
  };
  std::optional<ContractionFactor> x = matchFactor(mul.getLhs());
  std::optional<ContractionFactor> y = matchFactor(mul.getRhs());
  if (!x || !y || body->getOperations().size() != ops)
    return std::nullopt;
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
                                    SmallVectorImpl<Operation *> &feeding) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return {};
  unsigned loops = op.getNumLoops();
  if (loops != 3 && loops != 4)
    return {};
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
      return {};
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != map({dm, dn}))
    return {};
  auto factors = matchContractionBody(op);
  if (!factors)
    return {};
  // A is the factor read as [M, K]; B the one read as [N, K] or [K, N].
  ContractionFactor aFactor = factors->first, bFactor = factors->second;
  if (aFactor.readMap != map({dm, dk}))
    std::swap(aFactor, bFactor);
  if (aFactor.readMap != map({dm, dk}))
    return {};
  bool readKN = bFactor.readMap == map({dk, dn});
  if (!readKN && bFactor.readMap != map({dn, dk}))
    return {};

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
  if (!resultType || !resultType.getElementType().isF32() ||
      !staticButM(resultType))
    return {};

  // A: [(B,) M, K], dequantized with its rows along m.
  std::optional<Dequantized> a =
      aFactor.inBody ? classifyDequantized(rewriter, op, *aFactor.inBody, batch,
                                           batch + 2, batch)
                     : matchDequantize(rewriter, aFactor.input, batch,
                                       batch + 1, batch, feeding);
  // B: dequantized in the body, or by a generic that may reach the
  // contraction through a linalg.transpose of its last two dimensions (its
  // rows and K are then the other way round).
  std::optional<Dequantized> bOperand;
  bool kn = readKN;
  if (bFactor.inBody) {
    bOperand = classifyDequantized(rewriter, op, *bFactor.inBody, batch + 1, batch + 2,
                                   batch);
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
                               kn ? batch : batch + 1, batch, feeding);
  }
  // qmm.matmul reads A as [M, K] only.
  if (!a || !bOperand || a->dataTransposed)
    return {};
  // B's data as stored: transposed once more where its dequantization read
  // it through a transposing map.
  OperandLayout bLayout = (kn != bOperand->dataTransposed) ? OperandLayout::KN
                                                           : OperandLayout::NK;
  if (!staticButM(a->data.getType()) ||
      !cast<ShapedType>(bOperand->data.getType()).hasStaticShape())
    return {};

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
                       accumulate, m, n, k);

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
                                initSlice, accumulate, m, n, k);
    if (!product)
      return {};
    SmallVector<OpFoldResult> offsets(3, rewriter.getIndexAttr(0));
    offsets[0] = rewriter.getIndexAttr(i);
    // [1, M, N], M as the product has it (a dynamic M: its tensor.dim).
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, product);
    sizes.insert(sizes.begin(), rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(rewriter, loc, product, result,
                                           offsets, sizes, strides);
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

/// Rewrites `op` into qmm.matmul when it is a contraction of two
/// dequantized operands (buildRaisedContraction), also on reshaped views:
/// an op whose split loops (inputs' tensor.expand_shape views, as
/// elementwise fusion leaves blockwise dequantization on [R, K/128, 128])
/// are read as one loop each. On failure the IR is as it was.
static LogicalResult raiseContraction(RewriterBase &rewriter,
                                      linalg::LinalgOp op,
                                      SmallVectorImpl<Operation *> &feeding) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  // Everything built goes right before `op`: on failure it is removed
  // again, newest first.
  Operation *before = op->getPrevNode();
  SmallVector<Operation *> dead;
  Value result;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  std::optional<SmallVector<ReassociationIndices>> groups =
      generic ? getExpandedLoopGroups(generic) : std::nullopt;
  if (!groups) {
    result = buildRaisedContraction(rewriter, op, dead);
  } else if (FailureOr<CollapsedOp> unsplit =
                 collapseLoopGroups(rewriter, generic, *groups);
             succeeded(unsplit)) {
    dead.push_back(unsplit->op);
    result = buildRaisedContraction(rewriter, unsplit->op, dead);
    if (result && result.getType() != op->getResult(0).getType())
      result = tensor::ExpandShapeOp::create(rewriter, op.getLoc(),
                                             op->getResult(0).getType(),
                                             result,
                                             unsplit->resultReassociation);
  }
  if (!result) {
    while (op->getPrevNode() != before)
      rewriter.eraseOp(op->getPrevNode());
    return failure();
  }
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

namespace {
struct QMMLinalgToQMMPass
    : public qmm::impl::QMMLinalgToQMMBase<QMMLinalgToQMMPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::GenericOp>(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> feeding;
    for (linalg::LinalgOp op : candidates) {
      SmallVector<Operation *> inputs;
      if (succeeded(raiseContraction(rewriter, op, inputs))) {
        feeding.append(inputs);
        continue;
      }
      // Scales applied after a (unit-scale) product raised above.
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
        SmallVector<Operation *> replaced, read;
        queueDefiningOps(generic, read);
        if (succeeded(foldScalesIntoMatmul(rewriter, generic, replaced))) {
          // (Not the replaced matmul, erased below.)
          for (Operation *def : read)
            if (!llvm::is_contained(replaced, def))
              feeding.push_back(def);
          for (Operation *matmul : replaced) {
            SmallVector<Value> operands(matmul->getOperands());
            rewriter.eraseOp(matmul);
            for (Value operand : operands)
              if (Operation *def = operand.getDefiningOp())
                feeding.push_back(def);
          }
        }
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
