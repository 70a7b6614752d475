//===- Quantization.cpp - qmm.quantize's scale rule and element cast ------===//
//
// The arithmetic of qmm.quantize, built once for every lowering that
// quantizes: the reference lowering of qmm.quantize and of FP8 matmul
// outputs, and the AMD epilogue that quantizes in registers.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Utils.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

#include <limits>

using namespace mlir;
using namespace mlir::qmm;

/// An f32 constant shaped like `like` (f32 or a vector of f32).
static Value createF32Like(OpBuilder &b, Location loc, Value like,
                           double value) {
  Attribute attr = b.getF32FloatAttr(value);
  if (auto vector = dyn_cast<VectorType>(like.getType()))
    attr = DenseElementsAttr::get(vector, attr);
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
}

std::pair<Value, Value> qmm::createBlockScale(OpBuilder &b, Location loc,
                                              Value amax,
                                              const ScaleRule &rule) {
  double fmax = getFormatMax(rule.elementType);
  Value fmaxValue = createF32(b, loc, fmax);
  Value minAmax = createF32(b, loc, rule.minAmax);
  Value clamped = arith::MaximumFOp::create(b, loc, amax, minAmax);

  Value scale, reciprocal;
  if (rule.rounding == ScaleRounding::None) {
    scale = arith::DivFOp::create(b, loc, clamped, fmaxValue);
    reciprocal = arith::DivFOp::create(b, loc, fmaxValue, clamped);
  } else {
    Value exponent;
    if (rule.rounding == ScaleRounding::Pow2Floor) {
      Value floorLog2 = createFloorLog2(b, loc, clamped);
      Value emax = createI32(b, loc, getFormatMaxExponent(rule.elementType));
      exponent = arith::SubIOp::create(b, loc, floorLog2, emax);
    } else {
      Value ratio = arith::DivFOp::create(b, loc, clamped, fmaxValue);
      exponent = createCeilLog2(b, loc, ratio);
    }
    // The E8M0 range, whatever the scale's storage type.
    exponent = arith::MaxSIOp::create(b, loc, exponent, createI32(b, loc, -127));
    exponent = arith::MinSIOp::create(b, loc, exponent, createI32(b, loc, 127));
    scale = createExp2(b, loc, exponent);
    Value zero = createI32(b, loc, 0);
    reciprocal =
        createExp2(b, loc, arith::SubIOp::create(b, loc, zero, exponent));
  }

  // NaN or Inf amax: NaN scale and reciprocal. `clamped` is NaN or at
  // least min_amax >= 0 (a -Inf amax became min_amax), so no |x| is
  // needed (which the NVVM lowering would make a libdevice call).
  Value infinity = createF32(b, loc, std::numeric_limits<double>::infinity());
  Value isFinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                         clamped, infinity);
  Value nan = createF32(b, loc, std::numeric_limits<double>::quiet_NaN());
  scale = arith::SelectOp::create(b, loc, isFinite, scale, nan);
  reciprocal = arith::SelectOp::create(b, loc, isFinite, reciprocal, nan);
  if (!rule.scaleType.isF32())
    scale = arith::TruncFOp::create(b, loc, rule.scaleType, scale);
  return {scale, reciprocal};
}

Value qmm::createQuantizedElement(OpBuilder &b, Location loc, Value x,
                                  Value reciprocal, Type elementType) {
  double fmax = getFormatMax(elementType);
  auto vectorType = dyn_cast<VectorType>(x.getType());
  if (!getElementTypeOrSelf(x.getType()).isF32())
    x = arith::ExtFOp::create(
        b, loc,
        vectorType ? Type(vectorType.clone(b.getF32Type())) : b.getF32Type(),
        x);
  if (vectorType)
    vectorType = vectorType.clone(b.getF32Type());
  if (vectorType && !isa<VectorType>(reciprocal.getType()))
    reciprocal = vector::BroadcastOp::create(b, loc, vectorType, reciprocal);
  Value scaled = arith::MulFOp::create(b, loc, x, reciprocal);
  Value saturated = arith::MinimumFOp::create(
      b, loc,
      arith::MaximumFOp::create(b, loc, scaled, createF32Like(b, loc, x, -fmax)),
      createF32Like(b, loc, x, fmax));
  const llvm::fltSemantics &sem =
      cast<FloatType>(elementType).getFloatSemantics();
  if (!llvm::APFloat::semanticsHasNaN(sem)) {
    // NaN becomes 0 in formats without a NaN.
    Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                        saturated, saturated);
    saturated = arith::SelectOp::create(
        b, loc, isNaN, createF32Like(b, loc, x, 0.0), saturated);
  }
  Type resultType = vectorType ? Type(vectorType.clone(elementType))
                               : elementType;
  return arith::TruncFOp::create(b, loc, resultType, saturated);
}
