//===- Scales.cpp - scale tensors of raised qmm.matmuls -------------------===//

#include "Scales.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::qmm;

bool linalg_to_qmm::isScaleConversion(Operation *op) {
  if (!op || op->getNumOperands() != 1 || op->getNumResults() != 1 ||
      !op->getResult(0).getType().isF32())
    return false;
  Type from = op->getOperand(0).getType();
  if (isa<arith::ExtFOp>(op))
    return isa<Float8E8M0FNUType>(from) || from.isBF16() || from.isF16();
  return isa<arith::TruncFOp>(op) && from.isF64();
}

/// `expr` is `d<dim>` or `d<dim> floordiv c` (c > 0); returns c (1 for the
/// bare dimension).
static std::optional<int64_t> matchFloorDivOfDim(AffineExpr expr,
                                                 unsigned dim) {
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return d.getPosition() == dim ? std::optional<int64_t>(1) : std::nullopt;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary || binary.getKind() != AffineExprKind::FloorDiv)
    return std::nullopt;
  auto d = dyn_cast<AffineDimExpr>(binary.getLHS());
  auto c = dyn_cast<AffineConstantExpr>(binary.getRHS());
  if (!d || !c || d.getPosition() != dim || c.getValue() <= 0)
    return std::nullopt;
  return c.getValue();
}

ScaleEncodingAttr linalg_to_qmm::classifyScaleMap(MLIRContext *ctx,
                                                 AffineMap map, unsigned rowDim,
                                                 unsigned kDim, bool e8m0,
                                                 unsigned batchResults) {
  ArrayRef<AffineExpr> results = map.getResults().drop_front(batchResults);
  if (e8m0) {
    // MX: (rows, K floordiv 32), K-major.
    if (results.size() == 2 && matchFloorDivOfDim(results[0], rowDim) == 1 &&
        matchFloorDivOfDim(results[1], kDim) == 32)
      return ScaleEncodingAttr::getMX(ctx, ScaleMajorness::KMajor);
    return {};
  }
  // Constant-0 results read a size-1 dimension of the scale tensor (a
  // broadcast; buildMatmul's verifier rejects a wider one): all of them, a
  // per-tensor scale (`()`, `(0)`, `(0, 0)`); with the rows, a per-row
  // scale stored [rows, 1] (`(d_row, 0)`) or [1, rows] (`(0, d_row)`).
  auto isZero = [](AffineExpr e) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    return c && c.getValue() == 0;
  };
  if (llvm::all_of(results, isZero))
    return ScaleEncodingAttr::get(ctx, ScaleKind::PerTensor, {},
                                  Float32Type::get(ctx),
                                  ScaleMajorness::KMajor);
  if (results.size() == 2 && isZero(results[1]) &&
      matchFloorDivOfDim(results[0], rowDim) == 1)
    return ScaleEncodingAttr::getPerRow(ctx, ScaleMajorness::KMajor);
  if (results.size() == 2 && isZero(results[0]) &&
      matchFloorDivOfDim(results[1], rowDim) == 1)
    return ScaleEncodingAttr::getPerRow(ctx, ScaleMajorness::MNMajor);
  if (results.size() == 1) {
    if (matchFloorDivOfDim(results[0], rowDim) == 1)
      return ScaleEncodingAttr::getPerRow(ctx, ScaleMajorness::KMajor);
    return {};
  }
  if (results.size() != 2)
    return {};
  std::optional<int64_t> rows = matchFloorDivOfDim(results[0], rowDim);
  std::optional<int64_t> k = matchFloorDivOfDim(results[1], kDim);
  ScaleMajorness majorness = ScaleMajorness::KMajor;
  if (!rows || !k) {
    rows = matchFloorDivOfDim(results[1], rowDim);
    k = matchFloorDivOfDim(results[0], kDim);
    majorness = ScaleMajorness::MNMajor;
  }
  if (!rows || !k)
    return {};
  return ScaleEncodingAttr::getBlock(ctx, *rows, *k, majorness);
}

/// A tensor of one element as a [1, 1] tensor, by reshapes only.
static Value reshapeToUnitMatrix(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto unit = RankedTensorType::get({1, 1}, type.getElementType());
  switch (type.getRank()) {
  case 0:
    return tensor::ExpandShapeOp::create(b, loc, unit, tensor,
                                         ArrayRef<ReassociationIndices>{});
  case 1:
    return tensor::ExpandShapeOp::create(
        b, loc, unit, tensor, ArrayRef<ReassociationIndices>{{0, 1}});
  case 2:
    return tensor;
  default: {
    ReassociationIndices leading =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank() - 1));
    return tensor::CollapseShapeOp::create(
        b, loc, tensor,
        ArrayRef<ReassociationIndices>{leading, {type.getRank() - 1}});
  }
  }
}

/// The scalar per-tensor scale `value` as a [1, 1] tensor of its own type,
/// where the host code can place it without computing anything (the host
/// code of the emu and hip devices runs no arithmetic on values of the
/// program's buffers: no memref.load or memref.store): a constant becomes
/// a dense constant, an element of a one-element tensor (tensor.extract,
/// what a 0-d scale becomes once read outside the body) that tensor
/// reshaped. An argument of the function is placed by
/// tensor.from_elements (the caller passes the scalar). Null for any other
/// value (computed outside the dequantization: not raised).
static Value materializeScalarScale(OpBuilder &b, Location loc, Value value) {
  auto unit = RankedTensorType::get({1, 1}, value.getType());
  FloatAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(unit, ArrayRef<Attribute>{constant}));
  if (auto extract = value.getDefiningOp<tensor::ExtractOp>()) {
    auto source = cast<RankedTensorType>(extract.getTensor().getType());
    if (!source.hasStaticShape() || source.getNumElements() != 1)
      return {};
    return reshapeToUnitMatrix(b, loc, extract.getTensor());
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (arg && arg.getOwner()->isEntryBlock() &&
      isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return tensor::FromElementsOp::create(b, loc, unit, ValueRange{value});
  return {};
}

/// `tensor` with each element mapped by `body` (given the builder and the
/// element) to an element of `elementType`, in an element-wise
/// linalg.generic.
static Value mapElements(
    OpBuilder &b, Location loc, Value tensor, Type elementType,
    function_ref<Value(OpBuilder &, Value)> body) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value empty = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, tensor), elementType);
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  return linalg::GenericOp::create(
             b, loc, TypeRange{empty.getType()}, ValueRange{tensor},
             ValueRange{empty}, ArrayRef<AffineMap>{identity, identity},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, body(nb, args[0]));
             })
      .getResult(0);
}

/// `tensor` with each element converted to f32 by a clone of `conversion`
/// (the dequantization's own extf or truncf: its rounding mode and
/// fast-math flags go with it).
static Value convertScalesToF32(OpBuilder &b, Location loc, Value tensor,
                                Operation *conversion) {
  return mapElements(b, loc, tensor, b.getF32Type(),
                     [&](OpBuilder &nb, Value element) {
                       IRMapping mapping;
                       mapping.map(conversion->getOperand(0), element);
                       return nb.clone(*conversion, mapping)->getResult(0);
                     });
}

/// The reciprocal of each element of an f32 `tensor`, by a clone of the
/// dequantization's `division` (x / s) dividing 1 instead: its fast-math
/// flags go with it.
static Value reciprocalScales(OpBuilder &b, Location loc, Value tensor,
                              Operation *division) {
  return mapElements(b, loc, tensor, b.getF32Type(),
                     [&](OpBuilder &nb, Value element) {
                       Value one = arith::ConstantOp::create(
                           nb, loc, nb.getF32FloatAttr(1.0f));
                       IRMapping mapping;
                       mapping.map(division->getOperand(0), one);
                       mapping.map(division->getOperand(1), element);
                       return nb.clone(*division, mapping)->getResult(0);
                     });
}

Value linalg_to_qmm::materializeScale(OpBuilder &b, Location loc, Value scale,
                                      const ScaleSteps &steps,
                                      ScaleEncodingAttr encoding, int64_t rows,
                                      int64_t k) {
  SmallVector<int64_t, 2> shape = encoding.getScaleShape(rows, k);
  auto type = RankedTensorType::get(shape, encoding.getScaleType());
  if (!scale) // the unit scale of an operand read as it is
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(1.0f)));
  // A scalar or 0-d scale becomes [1, 1] first, so that its conversion is
  // a loop nest (a kernel), not scalar arithmetic in the host code.
  if (!isa<ShapedType>(scale.getType()))
    scale = materializeScalarScale(b, loc, scale);
  else if (cast<RankedTensorType>(scale.getType()).getRank() == 0)
    scale = reshapeToUnitMatrix(b, loc, scale);
  if (!scale)
    return {};
  Type stored = getElementTypeOrSelf(scale.getType());
  if (steps.e8m0Bits) {
    // E8M0 exponents as integers of its width: the same bits.
    if (!isa<Float8E8M0FNUType>(encoding.getScaleType()) ||
        !stored.isInteger(8))
      return {};
    scale = mapElements(b, loc, scale, encoding.getScaleType(),
                        [&](OpBuilder &nb, Value element) -> Value {
                          return arith::BitcastOp::create(
                              nb, loc, encoding.getScaleType(), element);
                        });
  } else if (stored != encoding.getScaleType()) {
    Operation *conversion = steps.conversion;
    if (!encoding.getScaleType().isF32() || !isScaleConversion(conversion) ||
        conversion->getOperand(0).getType() != stored)
      return {};
    scale = convertScalesToF32(b, loc, scale, conversion);
  }
  if (steps.division) {
    if (!encoding.getScaleType().isF32())
      return {};
    scale = reciprocalScales(b, loc, scale, steps.division);
  }
  auto scaleType = cast<RankedTensorType>(scale.getType());
  // The scale keeps its own extents (a static scale for a dynamic M stays
  // static: the host program checks it against M), which must fit the
  // encoding's.
  auto fits = [&](ArrayRef<int64_t> extents) {
    for (auto [have, want] : llvm::zip(extents, shape))
      if (!ShapedType::isDynamic(have) && !ShapedType::isDynamic(want) &&
          have != want)
        return false;
    return extents.size() == shape.size();
  };
  if (scaleType.getRank() == 2)
    return fits(scaleType.getShape()) ? scale : Value();
  if (scaleType.getRank() != 1)
    return {};
  // A vector runs along the encoding's non-unit extent.
  SmallVector<int64_t, 2> extents = {1, 1};
  unsigned along = shape[0] == 1 && shape[1] != 1 ? 1 : 0;
  extents[along] = scaleType.getDimSize(0);
  if (!fits(extents))
    return {};
  auto expanded = RankedTensorType::get(extents, scaleType.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, expanded, scale,
                                       ArrayRef<ReassociationIndices>{{0, 1}});
}
