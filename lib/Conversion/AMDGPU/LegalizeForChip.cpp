//===- LegalizeForChip.cpp - operands the matrix cores can read -----------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Target/TargetAttr.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLEGALIZEFORCHIP
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// The FNUZ type holding the same bits as an OCP FP8 type at half the value.
static Type getFNUZCounterpart(Type type) {
  MLIRContext *ctx = type.getContext();
  if (isa<Float8E4M3FNType>(type))
    return Float8E4M3FNUZType::get(ctx);
  if (isa<Float8E5M2Type>(type))
    return Float8E5M2FNUZType::get(ctx);
  return {};
}

static Value createI8(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(value));
}

/// One OCP FP8 element as the FNUZ element holding half its value.
static Value reinterpretAsFNUZ(OpBuilder &b, Location loc, Value x,
                               Type fnuzType) {
  bool isE4M3 = isa<Float8E4M3FNType>(x.getType());
  Value bits = arith::BitcastOp::create(b, loc, b.getI8Type(), x);
  Value magnitude =
      arith::AndIOp::create(b, loc, bits, createI8(b, loc, 0x7F));
  // e4m3fn NaN: magnitude 0x7F. e5m2 NaN and Inf: magnitude >= 0x7C.
  Value special =
      isE4M3 ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     magnitude, createI8(b, loc, 0x7F))
             : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                     magnitude, createI8(b, loc, 0x7C));
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       magnitude, createI8(b, loc, 0));
  Value remapped = arith::SelectOp::create(
      b, loc, isZero, createI8(b, loc, 0), bits); // -0 -> +0
  remapped = arith::SelectOp::create(b, loc, special,
                                     createI8(b, loc, 0x80), remapped);
  return arith::BitcastOp::create(b, loc, fnuzType, remapped);
}

static Value elementwise(OpBuilder &b, Location loc, Value input,
                         Type resultElementType,
                         function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(input.getType());
  // Dynamic extents are read off the input.
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, input), resultElementType);
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{input}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, parallel,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                fn(nested, nestedLoc, args[0]));
      });
  return generic.getResult(0);
}

/// An E8M0 scale 2^(e - 127) as the f32 2^(e - 127 + shift), by integer
/// arithmetic: the f32 exponent field is e + shift; a field of 0 (e = 0,
/// shift 0) is the subnormal 2^-127; 0xFF (NaN) stays NaN. With shift 1,
/// 2^127 (e = 254) becomes +Inf: the one scale whose double f32 cannot
/// hold.
static Value convertE8M0ToF32(OpBuilder &b, Location loc, Value scale,
                              int64_t shift) {
  Type i32 = b.getI32Type();
  auto i32Constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value bits = arith::ExtUIOp::create(
      b, loc, i32, arith::BitcastOp::create(b, loc, b.getI8Type(), scale));
  Value field =
      shift == 0 ? bits
                 : arith::AddIOp::create(b, loc, bits, i32Constant(shift))
                       .getResult();
  Value result = arith::ShLIOp::create(b, loc, field, i32Constant(23));
  if (shift == 0) {
    Value isZeroField = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, field, i32Constant(0));
    result = arith::SelectOp::create(b, loc, isZeroField,
                                     i32Constant(0x00400000), result);
  }
  Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                      i32Constant(0xFF));
  result = arith::SelectOp::create(b, loc, isNaN, i32Constant(0x7FC00000),
                                   result);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), result);
}

/// E8M0 scales as f32 scales of the same value (FP4/FP6 data, which
/// gfx942's kernels convert exactly).
static Value e8m0ScalesToF32(OpBuilder &b, Location loc, Value scales) {
  return elementwise(b, loc, scales, b.getF32Type(),
                     [&](OpBuilder &b, Location loc, Value s) {
                       return convertE8M0ToF32(b, loc, s, /*shift=*/0);
                     });
}

/// OCP FP8 data -> FNUZ data (half the value) and f32 scales of twice the
/// value: f32 scales doubled, E8M0 (MX) scales converted to doubled f32.
static std::pair<Value, Value> toFNUZ(OpBuilder &b, Location loc, Value data,
                                      Value scales) {
  Type fnuzType = getFNUZCounterpart(getElementTypeOrSelf(data.getType()));
  Value converted = elementwise(b, loc, data, fnuzType,
                                [&](OpBuilder &b, Location loc, Value x) {
                                  return reinterpretAsFNUZ(b, loc, x, fnuzType);
                                });
  bool e8m0 = isa<Float8E8M0FNUType>(getElementTypeOrSelf(scales.getType()));
  Value doubled = elementwise(
      b, loc, scales, b.getF32Type(), [&](OpBuilder &b, Location loc, Value s) {
        if (e8m0)
          return convertE8M0ToF32(b, loc, s, /*shift=*/1);
        return arith::MulFOp::create(b, loc, s, createF32(b, loc, 2.0))
            .getResult();
      });
  return {converted, doubled};
}

static Value transposeToNK(OpBuilder &b, Location loc, Value data) {
  auto type = cast<RankedTensorType>(data.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, data);
  Value init = tensor::EmptyOp::create(b, loc, {sizes[1], sizes[0]},
                                       type.getElementType());
  return linalg::TransposeOp::create(b, loc, data, init,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

namespace {
struct QMMLegalizeForChipPass
    : public qmm::impl::QMMLegalizeForChipBase<QMMLegalizeForChipPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = getTargetChip(getOperation(), chip, "qmm-legalize-for-chip");
    if (!target)
      return signalPassFailure();
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<MatmulOp, GroupedMatmulOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult result =
          isa<MatmulOp>(op) ? legalize(cast<MatmulOp>(op), *target)
                            : legalize(cast<GroupedMatmulOp>(op), *target);
      if (failed(result))
        return signalPassFailure();
    }
  }

  /// A qmm.matmul or qmm.grouped_matmul (whose B is always [G, N, K]).
  template <typename OpTy>
  LogicalResult legalize(OpTy op, const ChipInfo &target) {
    if (!isa<TensorType>(op.getInit().getType()))
      return op.emitOpError("qmm-legalize-for-chip runs on the tensor form "
                            "(before bufferization)");
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value a = op.getA(), aScales = op.getAScales();
    Value bData = op.getB(), bScales = op.getBScales();
    if (target.nativeFP8 == FormatFamily::FNUZ) {
      // OCP FP8 data becomes FNUZ. gfx942 has no scaled MFMA: MX scales
      // become f32 scales of the same 32-wide blocks (doubled for the
      // reinterpreted FP8 data), applied to each block's partial sums;
      // FP4/FP6 data stays and is converted in the kernel.
      auto isOCPFP8 = [](Value data) {
        return bool(getFNUZCounterpart(getElementTypeOrSelf(data.getType())));
      };
      auto legalizeOperand = [&](Value &data, Value &scales,
                                 ScaleEncodingAttr encoding) {
        bool fp8 = isOCPFP8(data);
        if (fp8)
          std::tie(data, scales) = toFNUZ(b, loc, data, scales);
        if (!encoding.isMX())
          return encoding;
        if (!fp8)
          scales = e8m0ScalesToF32(b, loc, scales);
        return ScaleEncodingAttr::getBlock(b.getContext(), 1, kMXBlockSize,
                                           encoding.getMajorness());
      };
      op.setAEncodingAttr(legalizeOperand(a, aScales, op.getAEncoding()));
      op.setBEncodingAttr(legalizeOperand(bData, bScales, op.getBEncoding()));
    }
    if constexpr (std::is_same_v<OpTy, MatmulOp>) {
      if (op.getBLayout() == OperandLayout::KN) {
        // (Packed FP4/FP6 rows: qmm-lower-packed-transposes moves them.)
        bData = transposeToNK(b, loc, bData);
        op.setBLayout(OperandLayout::NK);
      }
    }
    op.getAMutable().assign(a);
    op.getAScalesMutable().assign(aScales);
    op.getBMutable().assign(bData);
    op.getBScalesMutable().assign(bScales);
    return success();
  }
};
} // namespace
