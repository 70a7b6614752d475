//===- GemmProgram.cpp - the GEMM a runner executes -----------------------===//

#include "qmm/Runtime/GemmProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qmm;

std::string qmm::getTypeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type;
  return name;
}

llvm::Expected<ScaleEncodingAttr>
qmm::parseScaleSpec(MLIRContext *ctx, llvm::StringRef text, bool mnMajor) {
  ScaleMajorness majorness =
      mnMajor ? ScaleMajorness::MNMajor : ScaleMajorness::KMajor;
  if (text == "tensor")
    return ScaleEncodingAttr::get(ctx, ScaleKind::PerTensor, {},
                                  Float32Type::get(ctx), majorness);
  if (text == "row")
    return ScaleEncodingAttr::getPerRow(ctx, majorness);
  if (text == "mx32")
    return ScaleEncodingAttr::getMX(ctx, majorness);
  auto [rowsText, kText] = text.split('x');
  int64_t rows, k;
  if (rowsText.getAsInteger(10, rows) || kText.getAsInteger(10, k) ||
      rows <= 0 || k <= 0)
    return llvm::createStringError(
        "expected tensor, row, 1x128, 128x128, mx32 or RxC, got '%s'",
        text.str().c_str());
  return ScaleEncodingAttr::getBlock(ctx, rows, k, majorness);
}

std::vector<int64_t> OperandSpec::getDataShape(int64_t rows, int64_t k) const {
  if (layout == OperandLayout::NK)
    return {rows, k};
  return {k, rows};
}

std::vector<int64_t> OperandSpec::getScaleShape(int64_t rows, int64_t k) const {
  SmallVector<int64_t, 2> shape = encoding.getScaleShape(rows, k);
  return {shape.begin(), shape.end()};
}

std::vector<GemmSpec::Argument> GemmSpec::getArguments() const {
  std::vector<Argument> arguments = {
      {"a", toElementType(a.elementType), a.getDataShape(m, k)},
      {"a_scales", toElementType(a.encoding.getScaleType()),
       a.getScaleShape(m, k)},
      {"b", toElementType(b.elementType), b.getDataShape(n, k)},
      {"b_scales", toElementType(b.encoding.getScaleType()),
       b.getScaleShape(n, k)}};
  if (biasType)
    arguments.push_back({"bias", toElementType(biasType), {n}});
  arguments.push_back({"init", toElementType(outputType), {m, n}});
  if (auxType)
    arguments.push_back({"aux", toElementType(auxType), {m, n}});
  if (outEncoding)
    arguments.push_back({"out_scales",
                         toElementType(outEncoding.getScaleType()),
                         getOutputOperand().getScaleShape(m, n)});
  return arguments;
}

std::string GemmSpec::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (ShapedType::isDynamic(m))
    os << "?";
  else
    os << m;
  os << "x" << n << "x" << k << "  A " << a.elementType << " "
     << a.encoding << "  B " << b.elementType << " " << b.encoding << " "
     << stringifyOperandLayout(b.layout) << "  out " << outputType
     << (accumulate ? " (D = C + A*B)" : "");
  if (biasType)
    os << "  bias " << biasType;
  if (activation != Activation::None)
    os << "  " << stringifyActivation(activation);
  if (auxType)
    os << "  aux " << auxType;
  if (outEncoding)
    os << " " << outEncoding << " " << stringifyScaleRounding(outRounding);
  return text;
}

OwningOpRef<ModuleOp> qmm::buildGemmModule(MLIRContext *ctx,
                                           const GemmSpec &spec) {
  OpBuilder b(ctx);
  // Named, so that diagnostics about the generated program (and the
  // emulator's reports on its kernels) say where they come from.
  std::string m =
      ShapedType::isDynamic(spec.m) ? "?" : std::to_string(spec.m);
  Location loc = NameLoc::get(b.getStringAttr("fp8-run --gemm " + m + "x" +
                                              std::to_string(spec.n) + "x" +
                                              std::to_string(spec.k)));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());

  SmallVector<Type> argTypes;
  llvm::StringMap<unsigned> position;
  for (const GemmSpec::Argument &arg : spec.getArguments()) {
    position[arg.name] = argTypes.size();
    argTypes.push_back(RankedTensorType::get(
        arg.shape, getMLIRType(arg.elementType, ctx)));
  }
  SmallVector<Type> resultTypes = {argTypes[position["init"]]};
  if (spec.auxType)
    resultTypes.push_back(argTypes[position["aux"]]);
  if (spec.outEncoding)
    resultTypes.push_back(argTypes[position["out_scales"]]);
  auto func = func::FuncOp::create(
      b, loc, spec.functionName, b.getFunctionType(argTypes, resultTypes));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  auto argument = [&](StringRef name) -> Value {
    auto it = position.find(name);
    return it == position.end() ? Value() : body->getArgument(it->second);
  };
  auto matmul = MatmulOp::create(
      b, loc, resultTypes, argument("a"), argument("a_scales"), argument("b"),
      argument("b_scales"), argument("bias"), argument("init"),
      argument("aux"), argument("out_scales"), spec.a.encoding,
      spec.b.encoding, OperandLayoutAttr::get(ctx, spec.b.layout),
      spec.accumulate ? b.getUnitAttr() : nullptr,
      ActivationAttr::get(ctx, spec.activation), /*config=*/nullptr,
      spec.outEncoding,
      spec.outEncoding ? ScaleRoundingAttr::get(ctx, spec.outRounding)
                       : nullptr,
      spec.outEncoding ? b.getF32FloatAttr(spec.outMinAmax) : nullptr);
  func::ReturnOp::create(b, loc, matmul.getResults());
  return module;
}

OwningOpRef<ModuleOp> qmm::buildGroupedGemmModule(MLIRContext *ctx,
                                                  const GemmSpec &spec,
                                                  int64_t numGroups,
                                                  GroupedLayout layout) {
  OpBuilder b(ctx);
  std::string m =
      ShapedType::isDynamic(spec.m) ? "?" : std::to_string(spec.m);
  Location loc = NameLoc::get(b.getStringAttr(
      "fp8-run --gemm " + m + "x" +
      std::to_string(spec.n) + "x" + std::to_string(spec.k) + " --groups " +
      std::to_string(numGroups)));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  bool masked = layout == GroupedLayout::Masked;
  auto withGroups = [&](ArrayRef<int64_t> shape, bool grouped) {
    SmallVector<int64_t> result;
    if (grouped)
      result.push_back(numGroups);
    result.append(shape.begin(), shape.end());
    return result;
  };
  SmallVector<Type> argTypes = {
      RankedTensorType::get(withGroups({spec.m, spec.k}, masked),
                            spec.a.elementType),
      RankedTensorType::get(
          withGroups(spec.a.getScaleShape(spec.m, spec.k), masked),
          spec.a.encoding.getScaleType()),
      RankedTensorType::get(withGroups({spec.n, spec.k}, true),
                            spec.b.elementType),
      RankedTensorType::get(
          withGroups(spec.b.getScaleShape(spec.n, spec.k), true),
          spec.b.encoding.getScaleType())};
  if (spec.biasType)
    argTypes.push_back(RankedTensorType::get({numGroups, spec.n}, spec.biasType));
  SmallVector<int64_t> outShape = withGroups({spec.m, spec.n}, masked);
  argTypes.append(
      {RankedTensorType::get({masked ? numGroups : spec.m}, b.getI32Type()),
       RankedTensorType::get(outShape, spec.outputType)});
  SmallVector<Type> resultTypes = {argTypes.back()};
  if (spec.auxType) {
    argTypes.push_back(RankedTensorType::get(outShape, spec.auxType));
    resultTypes.push_back(argTypes.back());
  }
  if (spec.outEncoding) {
    // An FP8 output's scales: [M, ceil(N / C)], per group when masked.
    argTypes.push_back(RankedTensorType::get(
        withGroups(spec.getOutputOperand().getScaleShape(spec.m, spec.n),
                   masked),
        spec.outEncoding.getScaleType()));
    resultTypes.push_back(argTypes.back());
  }
  auto func = func::FuncOp::create(
      b, loc, spec.functionName, b.getFunctionType(argTypes, resultTypes));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value bias = spec.biasType ? body->getArgument(4) : Value();
  unsigned next = spec.biasType ? 5 : 4;
  Value aux = spec.auxType ? body->getArgument(next + 2) : Value();
  Value outScales =
      spec.outEncoding ? body->getArguments().back() : Value();
  auto grouped = GroupedMatmulOp::create(
      b, loc, resultTypes, body->getArgument(0), body->getArgument(1),
      body->getArgument(2), body->getArgument(3), bias,
      body->getArgument(next), body->getArgument(next + 1), aux, outScales,
      GroupedLayoutAttr::get(ctx, layout), spec.a.encoding, spec.b.encoding,
      spec.accumulate ? b.getUnitAttr() : nullptr,
      ActivationAttr::get(ctx, spec.activation), /*config=*/nullptr,
      spec.outEncoding,
      spec.outEncoding ? ScaleRoundingAttr::get(ctx, spec.outRounding)
                       : nullptr,
      spec.outEncoding ? b.getF32FloatAttr(spec.outMinAmax) : nullptr);
  func::ReturnOp::create(b, loc, grouped.getResults());
  return module;
}

void qmm::addQuantizeFunction(ModuleOp module, llvm::StringRef name,
                              const OperandSpec &operand, int64_t rows,
                              int64_t k, ScaleRounding rounding,
                              float minAmax) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  Location loc = NameLoc::get(b.getStringAttr(name));
  b.setInsertionPointToEnd(module.getBody());
  auto inputType =
      RankedTensorType::get(operand.getDataShape(rows, k), b.getF32Type());
  auto dataType = RankedTensorType::get(operand.getDataShape(rows, k),
                                        operand.elementType);
  auto scaleType = RankedTensorType::get(operand.getScaleShape(rows, k),
                                         operand.encoding.getScaleType());
  auto func = func::FuncOp::create(
      b, loc, name, b.getFunctionType({inputType}, {dataType, scaleType}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value dataInit = tensor::EmptyOp::create(b, loc, dataType.getShape(),
                                           dataType.getElementType());
  Value scaleInit = tensor::EmptyOp::create(b, loc, scaleType.getShape(),
                                            scaleType.getElementType());
  auto quantize = QuantizeOp::create(
      b, loc, TypeRange{dataType, scaleType}, body->getArgument(0), dataInit,
      scaleInit, operand.encoding,
      OperandLayoutAttr::get(ctx, operand.layout),
      ScaleRoundingAttr::get(ctx, rounding), b.getF32FloatAttr(minAmax));
  func::ReturnOp::create(b, loc, quantize.getResults());
}

llvm::Expected<GemmSpec> qmm::extractGemmSpec(ModuleOp module) {
  SmallVector<MatmulOp> matmuls;
  module.walk([&](MatmulOp op) { matmuls.push_back(op); });
  if (matmuls.size() != 1)
    return llvm::createStringError(
        "the module must contain exactly one qmm.matmul, found %zu",
        matmuls.size());
  MatmulOp op = matmuls.front();
  auto func = op->getParentOfType<func::FuncOp>();
  const char *expected = "fp8-run expects func.func @f(%a, %a_scales, %b, "
                         "%b_scales[, %bias], %init[, %aux][, "
                         "%out_scales]) -> D[, aux][, scales] around one "
                         "qmm.matmul on tensors";
  unsigned numResults = op.getNumDpsInits();
  if (!func || func.isExternal() ||
      func.getNumArguments() != op->getNumOperands() ||
      op.getResults().size() != numResults ||
      func.getFunctionType().getNumResults() != numResults)
    return llvm::createStringError(expected);
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (op->getOperand(i) != func.getArgument(i))
      return llvm::createStringError(
          "%s (operand %u of the qmm.matmul is not argument %u)", expected, i,
          i);
  for (unsigned i = 0; i < numResults; ++i)
    if (func.getFunctionType().getResult(i) != op.getResults()[i].getType())
      return llvm::createStringError(
          "%s (the function must return %s)", expected,
          getTypeName(op.getResults()[i].getType()).c_str());
  for (Type type : func.getArgumentTypes())
    if (!cast<ShapedType>(type).hasStaticShape())
      return llvm::createStringError("dynamic shapes are not supported by "
                                     "fp8-run");

  GemmSpec spec;
  spec.functionName = func.getName().str();
  spec.m = op.getM();
  spec.n = op.getN();
  spec.k = op.getK();
  spec.a = {getElementTypeOrSelf(op.getA().getType()), op.getAEncoding(),
            OperandLayout::NK};
  spec.b = {getElementTypeOrSelf(op.getB().getType()), op.getBEncoding(),
            op.getBLayout()};
  spec.outputType = getElementTypeOrSelf(op.getInit().getType());
  spec.accumulate = op.getAccumulate();
  if (Value bias = op.getBias())
    spec.biasType = getElementTypeOrSelf(bias.getType());
  if (Value aux = op.getAux())
    spec.auxType = getElementTypeOrSelf(aux.getType());
  spec.activation = op.getActivation();
  if (ScaleEncodingAttr encoding = op.getOutEncodingAttr()) {
    spec.outEncoding = encoding;
    spec.outRounding = op.getEffectiveOutRounding();
    spec.outMinAmax = op.getEffectiveOutMinAmax();
  }
  return spec;
}
