//===- LowerToReference.cpp - qmm ops to linalg/arith ---------------------===//
//
// The reference lowering: each qmm op becomes linalg.generic ops whose bodies
// read as the op's description. It is the executable definition of the
// dialect's semantics, used by the CPU device and by the runner's checks.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERTOREFERENCE
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {

using BodyBuilder = function_ref<void(OpBuilder &, Location, ValueRange)>;

/// Builds the linalg ops of one qmm op, on tensors or on memrefs alike.
/// Temporaries are tensor.empty on tensors, and memref.alloc on memrefs,
/// freed by `freeTemporaries` once the op's last generic is built.
class ReferenceBuilder {
public:
  ReferenceBuilder(OpBuilder &b, Location loc, bool onTensors)
      : b(b), loc(loc), onTensors(onTensors) {}

  Value createTemporary(ArrayRef<int64_t> shape, Type elementType) {
    if (onTensors)
      return tensor::EmptyOp::create(b, loc, shape, elementType);
    Value buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(shape, elementType));
    temporaries.push_back(buffer);
    return buffer;
  }

  Value fill(Value dest, double value) {
    Type elementType = getElementTypeOrSelf(dest.getType());
    Value scalar = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(elementType, value));
    auto fillOp = linalg::FillOp::create(b, loc, ValueRange{scalar},
                                         ValueRange{dest});
    return onTensors ? fillOp.getResult(0) : dest;
  }

  /// A linalg.generic; returns the values holding the outputs afterwards
  /// (the results on tensors, the output buffers on memrefs).
  SmallVector<Value> generic(ValueRange inputs, ValueRange outputs,
                             ArrayRef<AffineMap> maps,
                             ArrayRef<utils::IteratorType> iterators,
                             BodyBuilder body) {
    TypeRange resultTypes =
        onTensors ? TypeRange(outputs.getTypes()) : TypeRange();
    auto op = linalg::GenericOp::create(b, loc, resultTypes, inputs, outputs,
                                        maps, iterators, body);
    if (onTensors)
      return SmallVector<Value>(op.getResults());
    return SmallVector<Value>(outputs);
  }

  void freeTemporaries() {
    for (Value buffer : temporaries)
      memref::DeallocOp::create(b, loc, buffer);
    temporaries.clear();
  }

private:
  OpBuilder &b;
  Location loc;
  bool onTensors;
  SmallVector<Value> temporaries;
};

} // namespace

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

/// Map from the iteration space to a scale tensor: the block of (row, k),
/// transposed when the scales are MN-major.
static AffineMap getScaleMap(ScaleEncodingAttr encoding, unsigned numDims,
                             unsigned rowDim, unsigned kDim) {
  MLIRContext *ctx = encoding.getContext();
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  AffineExpr row = getAffineDimExpr(rowDim, ctx);
  AffineExpr k = getAffineDimExpr(kDim, ctx);
  AffineExpr rowBlock, kBlock;
  switch (encoding.getKind()) {
  case ScaleKind::PerTensor:
    rowBlock = zero;
    kBlock = zero;
    break;
  case ScaleKind::PerRow:
    rowBlock = row;
    kBlock = zero;
    break;
  case ScaleKind::Block:
  case ScaleKind::MX:
    rowBlock = row.floorDiv(encoding.getBlockShape()[0]);
    kBlock = k.floorDiv(encoding.getBlockShape()[1]);
    break;
  }
  if (encoding.isMNMajor())
    return AffineMap::get(numDims, 0, {kBlock, rowBlock}, ctx);
  return AffineMap::get(numDims, 0, {rowBlock, kBlock}, ctx);
}

/// Map from the iteration space to a data operand stored in `layout`.
static AffineMap getDataMap(OperandLayout layout, unsigned numDims,
                            unsigned rowDim, unsigned kDim, MLIRContext *ctx) {
  AffineExpr row = getAffineDimExpr(rowDim, ctx);
  AffineExpr k = getAffineDimExpr(kDim, ctx);
  if (layout == OperandLayout::NK)
    return AffineMap::get(numDims, 0, {row, k}, ctx);
  return AffineMap::get(numDims, 0, {k, row}, ctx);
}

//===----------------------------------------------------------------------===//
// Scalar semantics
//===----------------------------------------------------------------------===//

static Value toF32(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isF32())
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

/// dequant(q) = fl32(value(q) * s).
static Value dequantizeElement(OpBuilder &b, Location loc, Value q,
                               Value scale) {
  Value value = toF32(b, loc, q);
  Value scaleF32 = toF32(b, loc, scale);
  return arith::MulFOp::create(b, loc, value, scaleF32);
}

/// Rounds an f32 to `type` (f32, bf16, f16), to nearest even.
static Value roundF32To(OpBuilder &b, Location loc, Value value, Type type) {
  if (type.isF32())
    return value;
  return arith::TruncFOp::create(b, loc, type, value);
}

//===----------------------------------------------------------------------===//
// Op lowerings
//===----------------------------------------------------------------------===//

static LogicalResult requireStaticShapes(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (!cast<ShapedType>(type).hasStaticShape())
      return op->emitOpError("qmm-lower-to-reference needs static shapes, "
                             "got ")
             << type;
  return success();
}

static void replaceWithResults(RewriterBase &rewriter, Operation *op,
                               ValueRange results, bool onTensors) {
  if (onTensors)
    rewriter.replaceOp(op, results);
  else
    rewriter.eraseOp(op);
}

/// The f32 accumulator of a matmul writing `init`: C (accumulate) or 0.
static Value createAccumulator(ReferenceBuilder &rb, Value init,
                               bool accumulate) {
  auto type = cast<ShapedType>(init.getType());
  MLIRContext *ctx = type.getContext();
  Value acc = rb.createTemporary(type.getShape(), Float32Type::get(ctx));
  if (!accumulate)
    return rb.fill(acc, 0.0);
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  return rb.generic({init}, {acc}, {identity, identity},
                    SmallVector<utils::IteratorType>(
                        type.getRank(), utils::IteratorType::parallel),
                    [](OpBuilder &b, Location loc, ValueRange args) {
                      linalg::YieldOp::create(b, loc, toF32(b, loc, args[0]));
                    })[0];
}

/// `map` with the iteration dimension `dim` prepended to its results (the
/// group index of a per-group operand).
static AffineMap prependDim(AffineMap map, unsigned dim) {
  SmallVector<AffineExpr> results = {getAffineDimExpr(dim, map.getContext())};
  llvm::append_range(results, map.getResults());
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

/// Quantizes `input` (rows x K in `layout`) into `quantized` and `scales`
/// blockwise by `encoding` and `rule`: qmm.quantize's semantics. `batched`:
/// every operand has a leading batch dimension (a masked grouped matmul's
/// groups), quantized matrix by matrix. Returns the new quantized data and
/// scales.
static std::pair<Value, Value>
quantizeBlocks(ReferenceBuilder &rb, Value input, Value quantized,
               Value scales, ScaleEncodingAttr encoding, OperandLayout layout,
               const ScaleRule &rule, bool batched = false) {
  MLIRContext *ctx = encoding.getContext();
  Type f32 = Float32Type::get(ctx);
  ArrayRef<int64_t> scaleShape = cast<ShapedType>(scales.getType()).getShape();
  auto parallel = utils::IteratorType::parallel;
  auto reduction = utils::IteratorType::reduction;
  unsigned lead = batched ? 1 : 0, numDims = lead + 2;
  AffineMap dataMap = getDataMap(layout, numDims, lead, lead + 1, ctx);
  AffineMap scaleMap = getScaleMap(encoding, numDims, lead, lead + 1);
  if (batched) {
    dataMap = prependDim(dataMap, 0);
    scaleMap = prependDim(scaleMap, 0);
  }
  AffineMap identity = AffineMap::getMultiDimIdentityMap(numDims, ctx);
  SmallVector<utils::IteratorType> batch(lead, parallel);
  auto iterators = [&](utils::IteratorType kind) {
    SmallVector<utils::IteratorType> all = batch;
    all.append({kind, kind});
    return all;
  };

  // amax of each block; arith.maximumf propagates NaN.
  Value amax = rb.fill(rb.createTemporary(scaleShape, f32), 0.0);
  amax = rb.generic({input}, {amax}, {dataMap, scaleMap},
                    iterators(reduction),
                    [](OpBuilder &b, Location loc, ValueRange args) {
                      Value magnitude =
                          math::AbsFOp::create(b, loc, toF32(b, loc, args[0]));
                      linalg::YieldOp::create(
                          b, loc,
                          ValueRange{arith::MaximumFOp::create(
                              b, loc, args[1], magnitude)});
                    })[0];

  // Scales and their reciprocals.
  Value reciprocals = rb.createTemporary(scaleShape, f32);
  SmallVector<Value> scaleResults = rb.generic(
      {amax}, {scales, reciprocals}, {identity, identity, identity},
      iterators(parallel), [&](OpBuilder &b, Location loc, ValueRange args) {
        auto [scale, reciprocal] = createBlockScale(b, loc, args[0], rule);
        linalg::YieldOp::create(b, loc, ValueRange{scale, reciprocal});
      });

  // The elements.
  Value data = rb.generic(
      {input, scaleResults[1]}, {quantized}, {dataMap, scaleMap, dataMap},
      iterators(parallel), [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(
            b, loc,
            createQuantizedElement(b, loc, args[0], args[1],
                                   rule.elementType));
      })[0];
  return {data, scaleResults[0]};
}

static LogicalResult lowerMatmul(RewriterBase &rewriter, MatmulOp op) {
  if (failed(requireStaticShapes(op)))
    return failure();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  bool onTensors = isa<TensorType>(op.getInit().getType());
  ReferenceBuilder rb(rewriter, loc, onTensors);
  Type outType = getElementTypeOrSelf(op.getInit().getType());

  auto parallel = utils::IteratorType::parallel;
  auto reduction = utils::IteratorType::reduction;
  AffineMap identity2 = AffineMap::getMultiDimIdentityMap(2, ctx);

  Value acc = createAccumulator(rb, op.getInit(), op.getAccumulate());

  // acc[m, n] += dequant(A)[m, k] * dequant(B)[k, n], iterating (m, n, k).
  SmallVector<AffineMap> maps = {
      getDataMap(OperandLayout::NK, 3, 0, 2, ctx),
      getScaleMap(op.getAEncoding(), 3, 0, 2),
      getDataMap(op.getBLayout(), 3, 1, 2, ctx),
      getScaleMap(op.getBEncoding(), 3, 1, 2),
      AffineMap::getMultiDimIdentityMap(3, ctx).getMajorSubMap(2)};
  acc = rb.generic(
      {op.getA(), op.getAScales(), op.getB(), op.getBScales()}, {acc}, maps,
      {parallel, parallel, reduction},
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value a = dequantizeElement(b, loc, args[0], args[1]);
        Value bv = dequantizeElement(b, loc, args[2], args[3]);
        Value product = arith::MulFOp::create(b, loc, a, bv);
        linalg::YieldOp::create(
            b, loc, ValueRange{arith::AddFOp::create(b, loc, args[4], product)});
      })[0];

  // Epilogue: pre = acc + bias[n], D = activation(pre), aux = pre, each
  // rounded once to its type. An FP8 output takes D in f32 first and is
  // quantized below.
  SmallVector<Value> inputs = {acc};
  SmallVector<AffineMap> epilogueMaps = {identity2};
  if (Value bias = op.getBias()) {
    inputs.push_back(bias);
    epilogueMaps.push_back(AffineMap::get(2, 0, getAffineDimExpr(1, ctx)));
  }
  ScaleEncodingAttr outEncoding = op.getOutEncodingAttr();
  Value epilogueOut = op.getInit();
  if (outEncoding) {
    epilogueOut = rb.createTemporary(
        cast<ShapedType>(op.getInit().getType()).getShape(),
        rewriter.getF32Type());
    outType = rewriter.getF32Type();
  }
  SmallVector<Value> outputs = {epilogueOut};
  if (Value aux = op.getAux())
    outputs.push_back(aux);
  epilogueMaps.append(outputs.size(), identity2);
  Activation activation = op.getActivation();
  SmallVector<Value> results = rb.generic(
      inputs, outputs, epilogueMaps, {parallel, parallel},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value pre = args[0];
        if (op.getBias())
          pre = arith::AddFOp::create(b, loc, pre, toF32(b, loc, args[1]));
        SmallVector<Value> yielded = {roundF32To(
            b, loc, createActivation(b, loc, pre, activation), outType)};
        if (Value aux = op.getAux())
          yielded.push_back(
              roundF32To(b, loc, pre, getElementTypeOrSelf(aux.getType())));
        linalg::YieldOp::create(b, loc, yielded);
      });
  if (outEncoding) {
    ScaleRule rule{getElementTypeOrSelf(op.getInit().getType()),
                   outEncoding.getScaleType(), op.getEffectiveOutRounding(),
                   op.getEffectiveOutMinAmax()};
    auto [quantized, scales] =
        quantizeBlocks(rb, results[0], op.getInit(), op.getOutScales(),
                       outEncoding, OperandLayout::NK, rule);
    results[0] = quantized;
    results.push_back(scales);
  }
  rb.freeTemporaries();
  replaceWithResults(rewriter, op, results, onTensors);
  return success();
}

static LogicalResult lowerQuantize(RewriterBase &rewriter, QuantizeOp op) {
  if (failed(requireStaticShapes(op)))
    return failure();
  bool onTensors = isa<TensorType>(op.getInput().getType());
  ReferenceBuilder rb(rewriter, op.getLoc(), onTensors);
  ScaleRule rule{getElementTypeOrSelf(op.getQuantized().getType()),
                 op.getEncoding().getScaleType(), op.getEffectiveRounding(),
                 op.getEffectiveMinAmax()};
  auto [quantized, scales] =
      quantizeBlocks(rb, op.getInput(), op.getQuantized(), op.getScales(),
                     op.getEncoding(), op.getLayout(), rule);
  rb.freeTemporaries();
  replaceWithResults(rewriter, op, {quantized, scales}, onTensors);
  return success();
}

static LogicalResult lowerDequantize(RewriterBase &rewriter, DequantizeOp op) {
  if (failed(requireStaticShapes(op)))
    return failure();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  bool onTensors = isa<TensorType>(op.getInit().getType());
  ReferenceBuilder rb(rewriter, loc, onTensors);
  Type outType = getElementTypeOrSelf(op.getInit().getType());
  AffineMap dataMap = getDataMap(op.getLayout(), 2, 0, 1, ctx);
  AffineMap scaleMap = getScaleMap(op.getEncoding(), 2, 0, 1);
  auto parallel = utils::IteratorType::parallel;

  Value result = rb.generic(
      {op.getQuantized(), op.getScales()}, {op.getInit()},
      {dataMap, scaleMap, dataMap}, {parallel, parallel},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value value = dequantizeElement(b, loc, args[0], args[1]);
        linalg::YieldOp::create(b, loc, roundF32To(b, loc, value, outType));
      })[0];
  replaceWithResults(rewriter, op, result, onTensors);
  return success();
}

static LogicalResult lowerGroupedMatmul(RewriterBase &rewriter,
                                        GroupedMatmulOp op) {
  if (failed(requireStaticShapes(op)))
    return failure();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  bool onTensors = isa<TensorType>(op.getInit().getType());
  ReferenceBuilder rb(rewriter, loc, onTensors);
  auto initType = cast<ShapedType>(op.getInit().getType());
  Type outType = initType.getElementType();
  bool masked = op.getLayout() == GroupedLayout::Masked;
  auto parallel = utils::IteratorType::parallel;
  auto reduction = utils::IteratorType::reduction;
  auto dim = [&](unsigned d) { return getAffineDimExpr(d, ctx); };

  // Iteration space (g, m, n, k); the output is [m, n] (contiguous) or
  // [g, m, n] (masked). Contiguous: every group is tried for every row and
  // only the row's own group adds (a reference, not a kernel).
  unsigned rank = initType.getRank();
  AffineMap outMap = AffineMap::get(
      4, 0,
      masked ? ArrayRef<AffineExpr>{dim(0), dim(1), dim(2)}
             : ArrayRef<AffineExpr>{dim(1), dim(2)},
      ctx);
  AffineMap identityOut = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap aMap = getDataMap(OperandLayout::NK, 4, 1, 3, ctx);
  AffineMap aScaleMap = getScaleMap(op.getAEncoding(), 4, 1, 3);
  if (masked) {
    aMap = prependDim(aMap, 0);
    aScaleMap = prependDim(aScaleMap, 0);
  }
  AffineMap bMap = prependDim(getDataMap(OperandLayout::NK, 4, 2, 3, ctx), 0);
  AffineMap bScaleMap = prependDim(getScaleMap(op.getBEncoding(), 4, 2, 3), 0);
  AffineMap groupsMap = AffineMap::get(4, 0, {masked ? dim(0) : dim(1)}, ctx);

  // Whether row m belongs to group g: its group index is g (contiguous), or
  // m is below group g's count (masked).
  auto rowIsInGroup = [&](OpBuilder &b, Location loc, Value info, Value g,
                          Value m) -> Value {
    Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), info);
    if (masked)
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m, index);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, g);
  };

  Value acc = createAccumulator(rb, op.getInit(), op.getAccumulate());
  acc = rb.generic(
      {op.getA(), op.getAScales(), op.getB(), op.getBScales(), op.getGroups()},
      {acc}, {aMap, aScaleMap, bMap, bScaleMap, groupsMap, outMap},
      {masked ? parallel : reduction, parallel, parallel, reduction},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value g = linalg::IndexOp::create(b, loc, 0);
        Value m = linalg::IndexOp::create(b, loc, 1);
        Value a = dequantizeElement(b, loc, args[0], args[1]);
        Value bv = dequantizeElement(b, loc, args[2], args[3]);
        Value sum = arith::AddFOp::create(
            b, loc, args[5], arith::MulFOp::create(b, loc, a, bv));
        linalg::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(
                b, loc, rowIsInGroup(b, loc, args[4], g, m), sum, args[5])});
      })[0];

  // Rows of a group round their sum once; the others keep init.
  unsigned rowDim = masked ? 1 : 0;
  AffineMap groupsOfOut = AffineMap::get(
      rank, 0, {getAffineDimExpr(0, ctx)}, ctx);
  // Whether the output row at the generic's indices is written, from its
  // `groups` entry: below its group's count (masked), not padding
  // (contiguous).
  auto rowIsWritten = [&](OpBuilder &b, Location loc, Value info) -> Value {
    Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), info);
    if (masked)
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                   linalg::IndexOp::create(b, loc, rowDim),
                                   index);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                                 arith::ConstantIndexOp::create(b, loc, 0));
  };
  // An FP8 output: the epilogue's f32 values (0 in rows not written) are
  // quantized into temporaries, then copied into the rows that are written.
  ScaleEncodingAttr outEncoding = op.getOutEncodingAttr();
  Value epilogueOut = op.getInit();
  if (outEncoding) {
    epilogueOut = rb.createTemporary(initType.getShape(),
                                     rewriter.getF32Type());
    outType = rewriter.getF32Type();
  }
  SmallVector<Value> outputs = {epilogueOut};
  SmallVector<AffineMap> maps = {identityOut, groupsOfOut, identityOut};
  if (Value aux = op.getAux()) {
    outputs.push_back(aux);
    maps.push_back(identityOut);
  }
  SmallVector<Value> results = rb.generic(
      {acc, op.getGroups()}, outputs, maps,
      SmallVector<utils::IteratorType>(rank, parallel),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                 args[1]);
        Value valid = rowIsWritten(b, loc, args[1]);
        // The epilogue: the row's group's bias (gathered: a padding row
        // reads group 0's, unused), then the activation.
        Value value = args[0];
        if (Value bias = op.getBias()) {
          Value group = masked ? linalg::IndexOp::create(b, loc, 0).getResult()
                               : arith::MaxSIOp::create(
                                     b, loc, index,
                                     arith::ConstantIndexOp::create(b, loc, 0))
                                     .getResult();
          Value column = linalg::IndexOp::create(b, loc, rank - 1);
          Value element =
              onTensors
                  ? tensor::ExtractOp::create(b, loc, bias,
                                              ValueRange{group, column})
                        .getResult()
                  : memref::LoadOp::create(b, loc, bias,
                                           ValueRange{group, column})
                        .getResult();
          value = arith::AddFOp::create(b, loc, value, toF32(b, loc, element));
        }
        Value kept = outEncoding ? createF32(b, loc, 0.0) : args[2];
        SmallVector<Value> yielded = {arith::SelectOp::create(
            b, loc, valid,
            roundF32To(b, loc,
                       createActivation(b, loc, value, op.getActivation()),
                       outType),
            kept)};
        if (Value aux = op.getAux())
          yielded.push_back(arith::SelectOp::create(
              b, loc, valid,
              roundF32To(b, loc, value, getElementTypeOrSelf(aux.getType())),
              args[3]));
        linalg::YieldOp::create(b, loc, yielded);
      });
  if (outEncoding) {
    ScaleRule rule{getElementTypeOrSelf(op.getInit().getType()),
                   outEncoding.getScaleType(), op.getEffectiveOutRounding(),
                   op.getEffectiveOutMinAmax()};
    auto scalesType = cast<ShapedType>(op.getOutScales().getType());
    Value codes = rb.createTemporary(initType.getShape(),
                                     initType.getElementType());
    Value scales = rb.createTemporary(scalesType.getShape(),
                                      scalesType.getElementType());
    std::tie(codes, scales) =
        quantizeBlocks(rb, results[0], codes, scales, outEncoding,
                       OperandLayout::NK, rule, /*batched=*/masked);
    // Written rows take the new codes and scales, the others keep theirs.
    auto keepUnwritten = [&](Value fresh, Value dest) {
      unsigned destRank = cast<ShapedType>(dest.getType()).getRank();
      AffineMap identity = AffineMap::getMultiDimIdentityMap(destRank, ctx);
      AffineMap groupsOf =
          AffineMap::get(destRank, 0, {getAffineDimExpr(0, ctx)}, ctx);
      return rb.generic(
          {fresh, op.getGroups()}, {dest}, {identity, groupsOf, identity},
          SmallVector<utils::IteratorType>(destRank, parallel),
          [&](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(
                b, loc,
                ValueRange{arith::SelectOp::create(
                    b, loc, rowIsWritten(b, loc, args[1]), args[0],
                    args[2])});
          })[0];
    };
    results[0] = keepUnwritten(codes, op.getInit());
    results.push_back(keepUnwritten(scales, op.getOutScales()));
  }
  rb.freeTemporaries();
  replaceWithResults(rewriter, op, results, onTensors);
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct QMMLowerToReferencePass
    : public qmm::impl::QMMLowerToReferenceBase<QMMLowerToReferencePass> {
  void runOnOperation() override {
    SmallVector<Operation *> qmmOps;
    getOperation()->walk([&](Operation *op) {
      if (isa<MatmulOp, GroupedMatmulOp, QuantizeOp, DequantizeOp>(op))
        qmmOps.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : qmmOps) {
      rewriter.setInsertionPoint(op);
      LogicalResult result =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](MatmulOp matmul) { return lowerMatmul(rewriter, matmul); })
              .Case([&](GroupedMatmulOp grouped) {
                return lowerGroupedMatmul(rewriter, grouped);
              })
              .Case([&](QuantizeOp quantize) {
                return lowerQuantize(rewriter, quantize);
              })
              .Case([&](DequantizeOp dequantize) {
                return lowerDequantize(rewriter, dequantize);
              });
      if (failed(result))
        return signalPassFailure();
    }
  }
};
} // namespace
