//===- Activation.cpp - the matmul epilogue's activations in f32 ----------===//

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmm;

Value qmm::createActivation(OpBuilder &b, Location loc, Value x,
                            Activation activation) {
  if (activation == Activation::None)
    return x;
  // Constants of x's type (f32 or a vector of f32).
  auto constant = [&](double value) -> Value {
    Attribute attr = b.getF32FloatAttr(value);
    if (auto vector = dyn_cast<VectorType>(x.getType()))
      attr = DenseElementsAttr::get(vector, attr);
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
  };
  Value inner;
  Value special;
  if (activation == Activation::GeluTanh) {
    // sqrt(2 / pi) * (x + 0.044715 x^3)
    Value cube = arith::MulFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, x, x));
    inner = arith::MulFOp::create(
        b, loc, constant(std::sqrt(2.0 / M_PI)),
        arith::AddFOp::create(
            b, loc, x, arith::MulFOp::create(b, loc, constant(0.044715), cube)));
    special = math::TanhOp::create(b, loc, inner);
  } else {
    inner = arith::MulFOp::create(b, loc, x, constant(M_SQRT1_2));
    special = math::ErfOp::create(b, loc, inner);
  }
  // 0.5 x (1 + f(...))
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, constant(0.5), x),
      arith::AddFOp::create(b, loc, constant(1.0), special));
}
