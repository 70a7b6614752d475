//===- Dequantization.cpp - dequantized operands of a contraction ---------===//

#include "Dequantization.h"
#include "LoopGroups.h"

#include "qmm/Dialect/QMM/IR/QMMFormats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::linalg_to_qmm;
using Stage = MissedRaise::Stage;

namespace {
/// The body operations a match takes (each once).
using TakenOps = llvm::SmallSetVector<Operation *, 8>;
} // namespace

/// `v`'s defining op where it is an OpTy in `body`.
template <typename OpTy>
static OpTy definedIn(Value v, Block &body) {
  auto op = v.getDefiningOp<OpTy>();
  return op && op->getBlock() == &body ? op : OpTy();
}

/// `v` as a block argument of `body`, or null.
static BlockArgument argOf(Value v, Block &body) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &body ? arg : BlockArgument();
}

/// A constant `v` defined in `body` is taken with the op reading it (one
/// from outside takes nothing).
static void takeConstant(Value v, Block &body, TakenOps &ops) {
  if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &body)
    ops.insert(def);
}

static std::string str(Type type) { return describeType(type); }

/// Whether quantized data widened to `type` on its way to f32 keeps every
/// value: bf16, f16 (every value of a qmm element type is one of theirs)
/// and f32. (An extf to another small float rounds: f6E2M3FN -> f8E5M2
/// drops a mantissa bit.)
static bool keepsQuantizedValues(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

/// Quantized data widened exactly: `q`, a block argument of a quantized
/// type, through one or more arith.extf to bf16, f16 or f32
/// (keepsQuantizedValues).
/// What the arith.extf chain ending in `v` widens (`v` itself without
/// one), its ops added to `taken`; null where a step rounds
/// (keepsQuantizedValues).
static Value peelWidening(Value v, Block &body, TakenOps &taken) {
  while (auto ext = definedIn<arith::ExtFOp>(v, body)) {
    if (!keepsQuantizedValues(ext.getType()))
      return {};
    taken.insert(ext);
    v = ext.getIn();
  }
  return v;
}

static BlockArgument matchWidenedData(Value v, Block &body, TakenOps &ops) {
  TakenOps taken;
  v = peelWidening(v, body, taken);
  BlockArgument arg = v ? argOf(v, body) : BlockArgument();
  if (taken.empty() || !arg || !isQuantizedElementType(arg.getType()))
    return {};
  ops.insert_range(taken);
  return arg;
}

/// Whether `v` is +0 wherever the body reads it: a +0 constant, or an
/// input that is a splat +0 constant (ONNX's zero point, which FP8
/// dequantization requires to be 0), possibly widened in the body.
static bool isPositiveZero(Value v, Block &body, TakenOps &ops) {
  TakenOps taken;
  // (Any widening of +0 is +0.)
  while (auto ext = definedIn<arith::ExtFOp>(v, body)) {
    taken.insert(ext);
    v = ext.getIn();
  }
  Value constant = v;
  if (BlockArgument arg = argOf(v, body)) {
    auto op = dyn_cast<linalg::LinalgOp>(body.getParentOp());
    if (!op || arg.getArgNumber() >= op.getNumDpsInputs())
      return false;
    constant = op.getDpsInputOperand(arg.getArgNumber())->get();
  }
  Attribute value;
  if (!matchPattern(constant, m_Constant(&value)))
    return false;
  auto isPosZero = [](Attribute attr) {
    auto f = dyn_cast<FloatAttr>(attr);
    return f && f.getValue().isPosZero();
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (!dense.isSplat() || !isPosZero(dense.getSplatValue<Attribute>()))
      return false;
  } else if (!isPosZero(value)) {
    return false;
  }
  if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &body)
    taken.insert(def);
  ops.insert_range(taken);
  return true;
}

/// Quantized data widened, less a zero point of +0 (`x - 0` is `x`,
/// bit for bit, -0 and NaN included), as ONNX's DequantizeLinear writes
/// `(x - zero_point) * scale`.
static BlockArgument matchWidenedDataLessZero(Value v, Block &body,
                                              TakenOps &ops) {
  auto sub = definedIn<arith::SubFOp>(v, body);
  if (!sub)
    return matchWidenedData(v, body, ops);
  TakenOps taken;
  BlockArgument data = matchWidenedData(sub.getLhs(), body, taken);
  if (!data || !isPositiveZero(sub.getRhs(), body, taken))
    return {};
  taken.insert(sub);
  ops.insert_range(taken);
  return data;
}

/// Quantized data computed in the body and widened: `extf(truncf(y))`, the
/// truncf to a quantized type, `y` computed from the inputs alone (not the
/// destination). Takes the truncf's backward slice; returns the truncf's
/// result.
static Value matchImplicitData(Value v, Block &body, TakenOps &ops) {
  TakenOps taken;
  v = peelWidening(v, body, taken);
  auto trunc = v ? definedIn<arith::TruncFOp>(v, body) : arith::TruncFOp();
  if (taken.empty() || !trunc || !isQuantizedElementType(trunc.getType()))
    return {};
  SmallVector<Operation *> pending = {trunc};
  while (!pending.empty()) {
    Operation *op = pending.pop_back_val();
    if (!taken.insert(op))
      continue;
    for (Value operand : op->getOperands()) {
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == &body)
        pending.push_back(def);
      else if (BlockArgument arg = argOf(operand, body);
               arg && arg.getArgNumber() + 1 == body.getNumArguments())
        return {}; // reads the destination
    }
  }
  ops.insert_range(taken);
  return trunc.getResult();
}

/// E8M0 exponent bits: an 8-bit integer block argument, or an f8E8M0FNU
/// one bitcast to i8.
static BlockArgument matchE8M0Bits(Value v, Block &body, TakenOps &ops) {
  if (auto cast = definedIn<arith::BitcastOp>(v, body)) {
    BlockArgument arg = argOf(cast.getIn(), body);
    if (!arg || !isa<Float8E8M0FNUType>(arg.getType()))
      return {};
    ops.insert(cast);
    return arg;
  }
  BlockArgument arg = argOf(v, body);
  return arg && arg.getType().isInteger(8) ? arg : BlockArgument();
}

/// Whether `v` is the integer constant `value` (as its type holds it: an
/// i8 255 is -1).
static bool isIntConstant(Value v, uint64_t value) {
  APInt c;
  return matchPattern(v, m_ConstantInt(&c)) &&
         c == APInt(c.getBitWidth(), value, /*isSigned=*/false,
                    /*implicitTrunc=*/true);
}

/// `2^(e - 127)` in f32 of E8M0 bits `e`: math.exp2 or math.powf(2, x) of
/// `float(extui(e) - 127)` or `float(e) - 127.0`. Returns the bits' block
/// argument.
static BlockArgument matchPowerOfTwo(Value v, Block &body, TakenOps &ops) {
  TakenOps taken;
  Value exponent;
  if (auto exp2 = definedIn<math::Exp2Op>(v, body)) {
    taken.insert(exp2);
    exponent = exp2.getOperand();
  } else if (auto pow = definedIn<math::PowFOp>(v, body)) {
    FloatAttr base;
    if (!matchPattern(pow.getLhs(), m_Constant(&base)) ||
        !base.getValue().isExactlyValue(2.0))
      return {};
    takeConstant(pow.getLhs(), body, taken);
    taken.insert(pow);
    exponent = pow.getRhs();
  } else {
    return {};
  }
  if (!v.getType().isF32())
    return {};
  auto toFloat = [&](Value x) -> Value {
    if (auto s = definedIn<arith::SIToFPOp>(x, body)) {
      taken.insert(s);
      return s.getIn();
    }
    if (auto u = definedIn<arith::UIToFPOp>(x, body)) {
      taken.insert(u);
      return u.getIn();
    }
    return {};
  };
  // The bits zero-extended (to at least 9 bits: e - 127 is signed).
  auto zeroExtended = [&](Value x) -> Value {
    auto ext = definedIn<arith::ExtUIOp>(x, body);
    if (!ext || !ext.getIn().getType().isInteger(8))
      return {};
    taken.insert(ext);
    return ext.getIn();
  };
  Value bits;
  if (auto subf = definedIn<arith::SubFOp>(exponent, body)) {
    FloatAttr bias;
    if (!matchPattern(subf.getRhs(), m_Constant(&bias)) ||
        !bias.getValue().isExactlyValue(127.0))
      return {};
    takeConstant(subf.getRhs(), body, taken);
    taken.insert(subf);
    bool unsignedConversion = definedIn<arith::UIToFPOp>(subf.getLhs(), body);
    if (Value integer = toFloat(subf.getLhs())) {
      // uitofp of the bits themselves, or of the bits zero-extended.
      if (integer.getType().isInteger(8))
        bits = unsignedConversion ? integer : Value();
      else
        bits = zeroExtended(integer);
    }
  } else if (auto sitofp = definedIn<arith::SIToFPOp>(exponent, body)) {
    // (The difference is signed: uitofp would make e < 127 huge.)
    Value integer = toFloat(sitofp);
    auto subi = definedIn<arith::SubIOp>(integer, body);
    if (!subi || !isIntConstant(subi.getRhs(), 127))
      return {};
    takeConstant(subi.getRhs(), body, taken);
    taken.insert(subi);
    bits = zeroExtended(subi.getLhs());
  }
  if (!bits)
    return {};
  BlockArgument arg = matchE8M0Bits(bits, body, taken);
  if (arg)
    ops.insert_range(taken);
  return arg;
}

/// E8M0 scale bits decoded arithmetically, as torchao writes it:
/// `select(e != 255, 2^(e - 127), NaN)` (or `select(e == 255, NaN, ..)`),
/// exactly E8M0's value (2^-127 .. 2^127, NaN). Returns the bits' block
/// argument.
static BlockArgument matchE8M0Decode(Value v, Block &body, TakenOps &ops) {
  auto select = definedIn<arith::SelectOp>(v, body);
  if (!select)
    return {};
  auto cmp = definedIn<arith::CmpIOp>(select.getCondition(), body);
  if (!cmp || (cmp.getPredicate() != arith::CmpIPredicate::eq &&
               cmp.getPredicate() != arith::CmpIPredicate::ne))
    return {};
  Value compared = cmp.getLhs(), limit = cmp.getRhs();
  if (!isIntConstant(limit, 255))
    std::swap(compared, limit);
  if (!isIntConstant(limit, 255))
    return {};
  // NaN where the bits are 255, the power of two elsewhere.
  bool nanWhenTrue = cmp.getPredicate() == arith::CmpIPredicate::eq;
  Value nan = nanWhenTrue ? select.getTrueValue() : select.getFalseValue();
  Value power = nanWhenTrue ? select.getFalseValue() : select.getTrueValue();
  FloatAttr nanValue;
  if (!matchPattern(nan, m_Constant(&nanValue)) || !nanValue.getValue().isNaN())
    return {};
  TakenOps taken;
  BlockArgument arg = matchPowerOfTwo(power, body, taken);
  if (!arg)
    return {};
  // The comparison reads the same bits (or them zero-extended).
  if (auto ext = definedIn<arith::ExtUIOp>(compared, body)) {
    taken.insert(ext);
    compared = ext.getIn();
  }
  if (matchE8M0Bits(compared, body, taken) != arg)
    return {};
  takeConstant(limit, body, taken);
  takeConstant(nan, body, taken);
  taken.insert(cmp);
  taken.insert(select);
  ops.insert_range(taken);
  return arg;
}

std::optional<DequantizedValue>
linalg_to_qmm::matchDequantizedValue(Value value, Block &body,
                                     MissedRaise &why) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != &body) {
    if (argOf(value, body))
      return why.fail(Stage::Operands,
                      "an operand of type " + str(value.getType()) +
                          ", not dequantized from quantized data");
    return why.fail(Stage::Operands,
                    "a value from outside the body, not dequantized data");
  }
  DequantizedValue result;
  TakenOps ops;
  // Quantized data only widened: a unit scale (also in bf16 or f16).
  if (BlockArgument data = matchWidenedData(value, body, ops)) {
    result.data = data;
    result.ops = ops.takeVector();
    return result;
  }
  // A value computed in the body, then widened (fusion's form of a
  // dequantization to bf16 read by an f32 contraction): why that value is
  // no dequantization.
  if (auto ext = dyn_cast<arith::ExtFOp>(def)) {
    Operation *widened = ext.getIn().getDefiningOp();
    if (widened && widened->getBlock() == &body) {
      MissedRaise inner;
      if (!matchDequantizedValue(ext.getIn(), body, inner))
        return why.fail("", inner);
      return why.fail(Stage::Operands,
                      "a dequantized " + str(ext.getIn().getType()) +
                          " value widened again: read in one type only");
    }
  }
  if (isa<arith::TruncFOp>(def))
    return why.fail(Stage::Operands,
                    "the dequantized value is rounded to " +
                        str(value.getType()) +
                        " (`arith.truncf`) before the product, which "
                        "qmm.matmul does not round");
  if (!value.getType().isF32())
    return why.fail(Stage::Operands,
                    "a " + str(value.getType()) + " value computed by " +
                        describeOp(def) +
                        ": scaled dequantization is read in f32 only");
  // MX dequantization by arith.scaling_extf (OCP MX: extf(q) * 2^scale).
  if (auto scaling = dyn_cast<arith::ScalingExtFOp>(def)) {
    result.data = argOf(scaling.getIn(), body);
    if (!result.data || !isQuantizedElementType(result.data.getType()))
      return why.fail(Stage::Operands,
                      "`arith.scaling_extf` of something other than "
                      "quantized data");
    if (!isa<Float8E8M0FNUType>(scaling.getScale().getType()))
      return why.fail(Stage::Operands,
                      "`arith.scaling_extf` with a scale of type " +
                          str(scaling.getScale().getType()) +
                          ", not f8E8M0FNU");
    result.scale = scaling.getScale();
    result.e8m0 = true;
    result.ops = {scaling};
    return result;
  }
  // x * s (either order) or x / s.
  Value scale;
  if (auto mul = dyn_cast<arith::MulFOp>(def)) {
    for (auto [x, s] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      if ((result.data = matchWidenedDataLessZero(x, body, ops)) ||
          (result.implicitData = matchImplicitData(x, body, ops))) {
        scale = s;
        break;
      }
    }
  } else if (auto div = dyn_cast<arith::DivFOp>(def)) {
    result.data = matchWidenedDataLessZero(div.getLhs(), body, ops);
    scale = div.getRhs();
    result.steps.division = div;
  } else {
    return why.fail(Stage::Operands,
                    describeOp(def) +
                        " where a dequantization (extf(q) * s, extf(q) / s "
                        "or scaling_extf(q, s)) was expected");
  }
  if (!result.data && !result.implicitData) {
    auto lhs = describeProducer(def->getOperand(0));
    auto rhs = describeProducer(def->getOperand(1));
    return why.fail(Stage::Operands,
                    "the operands of " + describeOp(def) + " are " + lhs +
                        " and " + rhs +
                        ", neither quantized data widened by `arith.extf`");
  }
  ops.insert(def);
  result.scale = scale;
  // A scale converted in the body: E8M0 / bf16 / f16 widened (exactly),
  // f64 rounded to the f32 the body multiplies by (in the body's rounding
  // mode: the raising converts the scale tensor with a clone of the op);
  // E8M0 bits decoded arithmetically. The fast-math flags of the
  // multiplications that the raising drops only allow results to be less
  // exact than qmm.matmul's exact products (or undefined where they are not
  // finite): qmm.matmul's result is one of those the flagged program may
  // give.
  Operation *converted = scale.getDefiningOp();
  if (converted && converted->getBlock() == &body) {
    if (isScaleConversion(converted)) {
      result.e8m0 =
          isa<Float8E8M0FNUType>(converted->getOperand(0).getType());
      result.steps.conversion = converted;
      result.scale = converted->getOperand(0);
      ops.insert(converted);
    } else if (BlockArgument bits = matchE8M0Decode(scale, body, ops)) {
      result.e8m0 = true;
      result.steps.e8m0Bits = bits.getType().isInteger(8);
      result.scale = bits;
    } else {
      return why.fail(Stage::Operands,
                      "the scale is computed in the body by " +
                          describeOp(converted) +
                          ", not converted from a stored scale (extf, "
                          "truncf of f64, an E8M0 decode)");
    }
  }
  if (result.steps.division && result.e8m0)
    return why.fail(Stage::Operands,
                    "a division by an E8M0 scale (its reciprocal is no "
                    "stored scale)");
  result.ops = ops.takeVector();
  return result;
}

static std::string str(AffineMap map) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << map;
  return text;
}

/// The quantized tensor an element-wise `op` computes implicitly (its
/// body's `quantized`, a truncf to a quantized type): a generic on the same
/// inputs, maps and loops with a clone of the ops `quantized` depends on,
/// built at the rewriter's insertion point. The values are those `op`
/// rounds to, bit for bit.
static Value materializeImplicitData(RewriterBase &rewriter,
                                     linalg::LinalgOp op, Value quantized) {
  Location loc = op.getLoc();
  Value destination = op.getDpsInits().front();
  Value init = tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, destination),
      quantized.getType());
  Block &body = *op.getBlock();
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> pending = {quantized.getDefiningOp()};
  while (!pending.empty()) {
    Operation *next = pending.pop_back_val();
    if (!slice.insert(next))
      continue;
    for (Value operand : next->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == &body)
        pending.push_back(def);
  }
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, op.getDpsInputs(),
      ValueRange{init}, op.getIndexingMapsArray(),
      op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location nested, ValueRange args) {
        IRMapping mapping;
        for (unsigned i = 0; i < op.getNumDpsInputs(); ++i)
          mapping.map(body.getArgument(i), args[i]);
        for (Operation &bodyOp : body.without_terminator())
          if (slice.contains(&bodyOp))
            b.clone(bodyOp, mapping);
        linalg::YieldOp::create(b, nested, mapping.lookup(quantized));
      });
  return generic.getResult(0);
}

std::optional<Dequantized>
linalg_to_qmm::classifyDequantized(RewriterBase &rewriter, linalg::LinalgOp op,
                                   const DequantizedValue &value,
                                   unsigned rowDim, unsigned kDim,
                                   unsigned batchDims, MissedRaise &why) {
  MLIRContext *ctx = op->getContext();
  Dequantized result;
  if (value.implicitData) {
    if (op.getNumReductionLoops() > 0)
      return why.fail(Stage::Operands,
                      "quantized and dequantized inside the contraction's "
                      "body (`arith.truncf` to " +
                          str(value.implicitData.getType()) + ")");
    result.data = materializeImplicitData(rewriter, op, value.implicitData);
  } else if (value.data.getArgNumber() >= op.getNumDpsInputs()) {
    return why.fail(Stage::Operands, "the quantized data is the destination");
  } else {
    result.data = op.getDpsInputOperand(value.data.getArgNumber())->get();
  }
  auto perTensor = ScaleEncodingAttr::get(ctx, ScaleKind::PerTensor, {},
                                          Float32Type::get(ctx),
                                          ScaleMajorness::KMajor);
  if (!value.scale) { // a unit scale: materialized as a constant 1
    result.encoding = perTensor;
    return result;
  }
  result.steps = value.steps;
  auto scaleArg = dyn_cast<BlockArgument>(value.scale);
  if (!scaleArg || scaleArg.getOwner() != op.getBlock()) {
    // A scalar from outside the op: one scale for the whole tensor (an
    // E8M0 one is no MX encoding). Canonicalization may have hoisted its
    // conversion out of the body too.
    if (value.e8m0)
      return why.fail(Stage::Operands,
                      "one E8M0 scale for the whole tensor (MX scales are "
                      "per 32 elements along K)");
    result.scale = value.scale;
    Operation *def = value.scale.getDefiningOp();
    if (!result.steps.conversion && isScaleConversion(def) &&
        !isa<Float8E8M0FNUType>(def->getOperand(0).getType())) {
      result.steps.conversion = def;
      result.scale = def->getOperand(0);
    }
    if (!result.steps.conversion && !result.scale.getType().isF32())
      return why.fail(Stage::Operands, "a per-tensor scale of type " +
                                           str(result.scale.getType()));
    result.encoding = perTensor;
    return result;
  }
  if (scaleArg.getArgNumber() >= op.getNumDpsInputs() ||
      scaleArg == value.data)
    return why.fail(Stage::Operands,
                    "the scale is the destination or the data itself");
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
      return why.fail(Stage::Operands,
                      "the scale's map " + str(scaleMap) +
                          " reads the batch other than first");
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
      return why.fail(Stage::Operands, "the scale's map " + str(scaleMap) +
                                           " keeps none of its dimensions");
    scaleMap = AffineMap::get(scaleMap.getNumDims(), 0, kept, ctx);
  }
  result.encoding = classifyScaleMap(ctx, scaleMap, rowDim, kDim, value.e8m0,
                                     batchResults);
  if (!result.encoding)
    return why.fail(Stage::Operands,
                    "the scale, read through " + str(scaleMap) +
                        ", is no scale encoding (per tensor, per row, "
                        "blocks along rows and K" +
                        (value.e8m0 ? ", MX: 32 along K" : "") +
                        "; rows are d" + Twine(rowDim) + ", K is d" +
                        Twine(kDim) + ")");
  if (!unitDimsDropped.empty())
    scale = tensor::CollapseShapeOp::create(rewriter, op.getLoc(), scale,
                                            unitDimsDropped);
  result.scale = scale;
  result.scaleBatched = batchResults == 1;
  return result;
}

/// The most element-wise generics a dequantization is read from (extf,
/// a scale conversion, the multiplication, a broadcast of the scale).
static constexpr unsigned kMaxDequantizationSteps = 4;

linalg::GenericOp linalg_to_qmm::fuseInputProducer(RewriterBase &rewriter,
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

/// Whether `op` copies its one input to its result, possibly broadcast or
/// permuted (linalg.broadcast, linalg.transpose, a generic yielding its
/// input), written through the identity map.
static bool isCopy(linalg::LinalgOp op) {
  if (!op || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return false;
  Value yielded = op.getBlock()->getTerminator()->getOperand(0);
  return yielded == op.getMatchingBlockArgument(op.getDpsInputOperand(0));
}

/// `generic` reading, for its first input a copy produces, the copy's own
/// input through the composed map (built at the rewriter's insertion
/// point); null where no input is a copy's result.
static linalg::GenericOp readThroughCopy(RewriterBase &rewriter,
                                         linalg::GenericOp generic) {
  for (OpOperand *input : generic.getDpsInputOperands()) {
    auto copy = input->get().getDefiningOp<linalg::LinalgOp>();
    if (!isCopy(copy))
      continue;
    OpOperand *source = copy.getDpsInputOperand(0);
    SmallVector<Value> inputs = generic.getDpsInputs();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    inputs[input->getOperandNumber()] = source->get();
    maps[input->getOperandNumber()] =
        copy.getMatchingIndexingMap(source).compose(
            generic.getMatchingIndexingMap(input));
    auto direct = linalg::GenericOp::create(
        rewriter, generic.getLoc(), generic->getResultTypes(), inputs,
        generic.getDpsInits(), maps, generic.getIteratorTypesArray());
    IRMapping mapping;
    generic.getRegion().cloneInto(&direct.getRegion(), mapping);
    return direct;
  }
  return {};
}

/// The first operation of `body` (but its terminator) not in `taken`,
/// preferring one that computes something over a constant.
static Operation *firstUntaken(Block &body, ArrayRef<Operation *> taken) {
  Operation *constant = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (llvm::is_contained(taken, &op))
      continue;
    if (!op.hasTrait<OpTrait::ConstantLike>())
      return &op;
    constant = constant ? constant : &op;
  }
  return constant;
}

std::optional<Dequantized>
linalg_to_qmm::matchDequantize(RewriterBase &rewriter, Value value,
                               unsigned rowDim, unsigned kDim,
                               unsigned batchDims,
                               SmallVectorImpl<Operation *> &created,
                               MissedRaise &why) {
  // Blocks flattened across rows: the dequantization on [R*K/C, C] (data
  // and a rank-1 scale, as MX frontends pass them), reshaped to [R, K]
  // through one dimension, is read as the dequantization on [R, K/C, C]
  // (its first loop split), collapsed to [R, K].
  if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>()) {
    auto flat = expand.getSrc().getDefiningOp<tensor::CollapseShapeOp>();
    auto blocks =
        flat ? flat.getSrc().getDefiningOp<linalg::GenericOp>() : nullptr;
    auto type = cast<RankedTensorType>(value.getType());
    if (blocks && batchDims == 0 && rowDim == 0 && type.getRank() == 2 &&
        blocks.getNumLoops() == 2 && type.hasStaticShape() &&
        flat.getSrcType().hasStaticShape() &&
        flat.getReassociationIndices().size() == 1) {
      int64_t blockSize = flat.getSrcType().getDimSize(1);
      int64_t rows = type.getDimSize(0), k = type.getDimSize(1);
      if (blockSize <= 0 || k % blockSize != 0 ||
          rows * (k / blockSize) != flat.getSrcType().getDimSize(0))
        return why.fail(Stage::Operands,
                        "a reshape of " + describeType(flat.getSrcType()) +
                            " to " + describeType(type) +
                            " that is not whole blocks of each row");
      FailureOr<linalg::GenericOp> split =
          splitLoop(rewriter, blocks, 0, {rows, k / blockSize});
      if (failed(split))
        return why.fail(Stage::Operands,
                        "blocks flattened across rows whose dequantization "
                        "does not split into rows and blocks");
      created.push_back(*split);
      auto collapse = tensor::CollapseShapeOp::create(
          rewriter, value.getLoc(), split->getResult(0),
          ArrayRef<ReassociationIndices>{{0}, {1, 2}});
      created.push_back(collapse);
      value = collapse;
    }
  }
  if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>()) {
    // A dequantization on a reshaped view, collapsed back (in steps:
    // fusion leaves B's [K/C, C, N/R, R] view collapsed to [K/C, C, N]
    // before the contraction, which collapses the rest): the generic read
    // on the collapsed loops, the collapse's groups.
    SmallVector<ReassociationIndices> reassociation =
        collapse.getReassociationIndices();
    Value source = collapse.getSrc();
    while (auto inner = source.getDefiningOp<tensor::CollapseShapeOp>()) {
      std::optional<SmallVector<ReassociationIndices>> composed =
          composeReassociationIndices(inner.getReassociationIndices(),
                                      reassociation, collapse.getContext());
      if (!composed)
        return why.fail(Stage::Operands,
                        "collapsed in steps that do not compose");
      reassociation = std::move(*composed);
      source = inner.getSrc();
    }
    auto split = source.getDefiningOp<linalg::GenericOp>();
    if (!split || split.getNumDpsInits() != 1 ||
        !split.getMatchingIndexingMap(split.getDpsInitOperand(0))
             .isIdentity())
      return why.fail(Stage::Operands,
                      "a reshaped view of " + describeProducer(source) +
                          ", not of an element-wise dequantization");
    FailureOr<CollapsedOp> unsplit =
        collapseLoopGroups(rewriter, split, reassociation);
    if (failed(unsplit) ||
        unsplit->op.getResult(0).getType() != collapse.getType())
      return why.fail(Stage::Operands,
                      "a dequantization on a reshaped view whose loops do "
                      "not collapse as the view does");
    created.push_back(unsplit->op);
    value = unsplit->op.getResult(0);
  }
  // The result is written through the identity map (the loops are its
  // dimensions, which the data and scale maps are read against).
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic)
    return why.fail(Stage::Operands,
                    "produced by " + describeProducer(value) +
                        ", not by a dequantizing `linalg.generic`");
  if (generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      generic.getNumLoops() != 2 + batchDims ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return why.fail(Stage::Operands,
                    "produced by a `linalg.generic` that is not element-wise "
                    "over the operand's " +
                        Twine(2 + batchDims) + " dimensions");
  // A scale broadcast to the data's shape by an op of its own (a copy:
  // linalg.broadcast, or a generic whose body yields its input) is read
  // through the copy's map instead.
  while (linalg::GenericOp direct = readThroughCopy(rewriter, generic)) {
    created.push_back(direct);
    generic = direct;
  }
  // A dequantization in element-wise steps (extf, then the scale's
  // multiplication, each a generic of its own, as frontends lowering one
  // op at a time write it) is read with its producers fused into it, as
  // linalg-fuse-elementwise-ops makes of it.
  for (unsigned fusions = 0;; ++fusions) {
    MissedRaise attempt;
    Block &body = generic.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    std::optional<DequantizedValue> dequantized =
        matchDequantizedValue(yield.getValues().front(), body, attempt);
    Operation *extra =
        dequantized ? firstUntaken(body, dequantized->ops) : nullptr;
    if (extra)
      attempt.fail(Stage::Operands,
                   "the dequantization also computes " + describeOp(extra));
    std::optional<Dequantized> result;
    if (dequantized && !extra)
      result = classifyDequantized(rewriter, generic, *dequantized, rowDim,
                                   kDim, batchDims, attempt);
    if (result) {
      // Implicit data is made on the generic's own loops.
      if (dequantized->implicitData)
        return result;
      AffineMap dataMap = generic.getMatchingIndexingMap(
          generic.getDpsInputOperand(dequantized->data.getArgNumber()));
      if (dataMap.isIdentity())
        return result;
      // The last two dimensions swapped: the data is stored transposed.
      SmallVector<unsigned> swapped =
          llvm::to_vector(llvm::seq<unsigned>(0, generic.getNumLoops()));
      std::swap(swapped[batchDims], swapped[batchDims + 1]);
      if (dataMap ==
          AffineMap::getPermutationMap(swapped, generic.getContext())) {
        result->dataTransposed = true;
        return result;
      }
      attempt.fail(Stage::Operands, "the quantized data is read through " +
                                        str(dataMap) +
                                        ", neither as it is nor transposed");
    }
    linalg::GenericOp fused;
    if (fusions + 1 < kMaxDequantizationSteps)
      fused = fuseInputProducer(rewriter, generic);
    if (!fused) {
      why.keepFurthest(attempt);
      return std::nullopt;
    }
    created.push_back(fused);
    generic = fused;
  }
}
