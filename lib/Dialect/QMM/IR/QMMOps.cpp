//===- QMMOps.cpp - qmm operations ----------------------------------------===//

#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::qmm;

//===----------------------------------------------------------------------===//
// Custom assembly: enum attributes as bare keywords
//===----------------------------------------------------------------------===//

// `layout kn` and `rounding pow2_ceil` read better than the generic
// `#qmm<layout kn>`; these directives print and parse the bare keyword.
template <typename EnumAttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *,
                             EnumAttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

template <typename EnumAttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, EnumAttrT &attr) {
  using EnumT = decltype(std::declval<EnumAttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value) {
    // The enums are small and dense from 0: list their spellings.
    SmallVector<StringRef> spellings;
    for (uint32_t i = 0; i < 32; ++i)
      if (StringRef name = stringifyEnum(static_cast<EnumT>(i)); !name.empty())
        spellings.push_back(name);
    InFlightDiagnostic diag = parser.emitError(loc);
    diag << "unknown keyword '" << keyword << "', expected one of: ";
    llvm::interleaveComma(spellings, diag);
    return diag;
  }
  attr = EnumAttrT::get(parser.getContext(), *value);
  return success();
}

//===----------------------------------------------------------------------===//
// Shared verification of quantized operands
//===----------------------------------------------------------------------===//

/// A shape as "[a, b]", with '?' for dynamic extents.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return text;
}

static bool extentsDisagree(int64_t lhs, int64_t rhs) {
  return !ShapedType::isDynamic(lhs) && !ShapedType::isDynamic(rhs) &&
         lhs != rhs;
}

/// The first static extent among `extents` (dynamic when none is): the
/// extent every operand holding this dimension must have. Operands are
/// checked against it, so two static extents that disagree are caught
/// whatever else is dynamic.
static int64_t getKnownExtent(std::initializer_list<int64_t> extents) {
  for (int64_t extent : extents)
    if (!ShapedType::isDynamic(extent))
      return extent;
  return ShapedType::kDynamic;
}

/// Extent `dim` of a shaped value, dynamic when the value is absent or has
/// too few dimensions (those are diagnosed elsewhere).
static int64_t getExtentOrDynamic(Value value, int64_t dim) {
  if (!value)
    return ShapedType::kDynamic;
  auto type = cast<ShapedType>(value.getType());
  if (dim < 0)
    dim += type.getRank();
  if (dim < 0 || dim >= type.getRank())
    return ShapedType::kDynamic;
  return type.getDimSize(dim);
}

/// Two shapes of different ranks, or that disagree on some static extent.
static bool shapesDisagree(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  if (lhs.size() != rhs.size())
    return true;
  return llvm::any_of(llvm::zip_equal(lhs, rhs), [](auto dims) {
    return extentsDisagree(std::get<0>(dims), std::get<1>(dims));
  });
}

static LogicalResult verifyRank2(Operation *op, StringRef name, Value value) {
  auto type = cast<ShapedType>(value.getType());
  if (type.getRank() != 2)
    return op->emitOpError() << name << " must be rank 2, got rank "
                             << type.getRank();
  return success();
}

/// (rows, K) of a rank-2 operand stored in `layout`.
static std::pair<int64_t, int64_t> getRowsAndK(Value data,
                                               OperandLayout layout) {
  ArrayRef<int64_t> shape = cast<ShapedType>(data.getType()).getShape();
  if (layout == OperandLayout::NK)
    return {shape[0], shape[1]};
  return {shape[1], shape[0]};
}

/// (rows, K) of two rank-2 shapes that hold the same matrix in `layout`,
/// each extent static when either shape knows it.
static std::pair<int64_t, int64_t>
getKnownRowsAndK(ArrayRef<int64_t> shape, ArrayRef<int64_t> other,
                 OperandLayout layout) {
  int64_t d0 = getKnownExtent({shape[0], other[0]});
  int64_t d1 = getKnownExtent({shape[1], other[1]});
  return layout == OperandLayout::NK ? std::pair(d0, d1) : std::pair(d1, d0);
}

/// Checks one (data, scales, encoding) triple: ranks, element types, the MX
/// element-type and K-divisibility rules, and the scale tensor's shape for
/// the op's `rows` and `k` (what all its operands say of them; the data's
/// own extents when absent).
static LogicalResult
verifyQuantizedOperand(Operation *op, StringRef name, Value data, Value scales,
                       ScaleEncodingAttr encoding, OperandLayout layout,
                       std::optional<std::pair<int64_t, int64_t>> extents = {}) {
  if (failed(verifyRank2(op, name, data)) ||
      failed(verifyRank2(op, Twine(name + " scales").str(), scales)))
    return failure();

  Type elementType = getElementTypeOrSelf(data.getType());
  if (!isQuantizedElementType(elementType))
    return op->emitOpError() << name << " element type must be "
                             << getQuantizedElementTypeList() << ", got "
                             << elementType;

  Type scaleElementType = getElementTypeOrSelf(scales.getType());
  if (scaleElementType != encoding.getScaleType())
    return op->emitOpError()
           << name << " scales have element type " << scaleElementType
           << " but " << encoding << " needs " << encoding.getScaleType();

  if (encoding.isMX() && !isMXElementType(elementType))
    return op->emitOpError()
           << "'mx' encoding of " << name
           << " requires an OCP MX element type (f8E4M3FN, f8E5M2, "
              "f6E2M3FN, f6E3M2FN, f4E2M1FN), got "
           << elementType;

  auto [rows, k] = extents ? *extents : getRowsAndK(data, layout);
  int64_t kMultiple = encoding.getRequiredKMultiple();
  if (!ShapedType::isDynamic(k) && k % kMultiple != 0)
    return op->emitOpError() << "K (" << k << ") of " << name
                             << " must be a multiple of " << kMultiple
                             << " for " << encoding;

  SmallVector<int64_t, 2> expected = encoding.getScaleShape(rows, k);
  ArrayRef<int64_t> actual = cast<ShapedType>(scales.getType()).getShape();
  if (shapesDisagree(expected, actual)) {
    InFlightDiagnostic diag = op->emitOpError();
    diag << name << " scales must have shape " << formatShape(expected)
         << " for " << encoding << " with rows = " << formatShape({rows})
         << " and K = " << formatShape({k}) << ", got " << formatShape(actual);
    return diag;
  }
  return success();
}

/// Tensor operands everywhere (value semantics) or memrefs everywhere
/// (bufferized form); never a mixture.
static LogicalResult verifyUniformSemantics(Operation *op) {
  bool anyTensor = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<TensorType>);
  bool anyMemRef = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<MemRefType>);
  if (anyTensor && anyMemRef)
    return op->emitOpError(
        "operands must be all tensors or all memrefs, not a mixture");
  return success();
}

/// Memref operands: `reads` are read, `written` is written (and read when
/// `writtenIsRead`). Tensor operands have no memory effects.
template <typename ReadRange, typename WriteRange>
static void getBufferEffects(
    ReadRange &&reads, WriteRange &&written, bool writtenIsRead,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  auto *resource = SideEffects::DefaultResource::get();
  for (OpOperand &operand : reads)
    if (isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true, resource);
  for (OpOperand &operand : written) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (writtenIsRead)
      effects.emplace_back(MemoryEffects::Read::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true, resource);
    effects.emplace_back(MemoryEffects::Write::get(), &operand, /*stage=*/1,
                         /*effectOnFullRegion=*/true, resource);
  }
}

//===----------------------------------------------------------------------===//
// Scale rules (qmm.quantize, and qmm.matmul's FP8 output)
//===----------------------------------------------------------------------===//

/// FP8 types an output may be quantized to (FP4/FP6 outputs, which would
/// be packed, are not supported).
static bool isFP8OutputType(Type type) {
  return isQuantizedElementType(type) && type.getIntOrFloatBitWidth() == 8;
}

ScaleRounding qmm::getDefaultScaleRounding(ScaleEncodingAttr encoding) {
  return isa<Float8E8M0FNUType>(encoding.getScaleType())
             ? ScaleRounding::Pow2Floor
             : ScaleRounding::None;
}

float qmm::getDefaultMinAmax(ScaleRounding rounding) {
  return rounding == ScaleRounding::Pow2Floor ? 0.0f : 1e-4f;
}

static ScaleRounding
getEffectiveScaleRounding(std::optional<ScaleRounding> rounding,
                          ScaleEncodingAttr encoding) {
  return rounding ? *rounding : getDefaultScaleRounding(encoding);
}

static float getEffectiveScaleMinAmax(std::optional<APFloat> minAmax,
                                      ScaleRounding rounding) {
  return minAmax ? minAmax->convertToFloat() : getDefaultMinAmax(rounding);
}

/// The rounding rule must suit the scale type and `min_amax` the rule.
static LogicalResult verifyScaleRule(Operation *op, ScaleEncodingAttr encoding,
                                     ScaleRounding rounding,
                                     std::optional<APFloat> minAmax) {
  if (isa<Float8E8M0FNUType>(encoding.getScaleType()) &&
      rounding == ScaleRounding::None)
    return op->emitOpError("f8E8M0FNU scales are powers of two: rounding "
                           "must be pow2_floor or pow2_ceil");
  if (minAmax) {
    float value = minAmax->convertToFloat();
    if (!std::isfinite(value) || value < 0.0f)
      return op->emitOpError()
             << "min_amax must be finite and non-negative, got " << value;
    if (value == 0.0f && rounding != ScaleRounding::Pow2Floor)
      return op->emitOpError()
             << "min_amax must be positive with rounding '"
             << stringifyScaleRounding(rounding)
             << "': an all-zero block would get a zero scale";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

int64_t MatmulOp::getM() {
  return cast<ShapedType>(getA().getType()).getDimSize(0);
}

int64_t MatmulOp::getK() {
  return cast<ShapedType>(getA().getType()).getDimSize(1);
}

int64_t MatmulOp::getN() {
  return getRowsAndK(getB(), getBLayout()).first;
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyUniformSemantics(*this)) ||
      failed(verifyRank2(*this, "A", getA())) ||
      failed(verifyRank2(*this, "B", getB())) ||
      failed(verifyRank2(*this, "init", getInit())))
    return failure();
  // M, N and K as every operand holding them says (A, then B first).
  int64_t m = getKnownExtent({getM(), getExtentOrDynamic(getInit(), 0),
                              getExtentOrDynamic(getAux(), 0)});
  int64_t n = getKnownExtent(
      {getN(), getExtentOrDynamic(getInit(), 1),
       getExtentOrDynamic(getBias(), 0), getExtentOrDynamic(getAux(), 1)});
  int64_t kA = getK();
  int64_t kB = getRowsAndK(getB(), getBLayout()).second;
  if (extentsDisagree(kA, kB))
    return emitOpError() << "K of A (" << kA << ") and K of B (" << kB
                         << ") differ"
                         << (getBLayout() == OperandLayout::NK
                                 ? "; B is [N, K] (layout nk)"
                                 : "; B is [K, N] (layout kn)");
  int64_t k = getKnownExtent({kA, kB});
  if (failed(verifyQuantizedOperand(*this, "A", getA(), getAScales(),
                                    getAEncoding(), OperandLayout::NK,
                                    std::pair(m, k))) ||
      failed(verifyQuantizedOperand(*this, "B", getB(), getBScales(),
                                    getBEncoding(), getBLayout(),
                                    std::pair(n, k))))
    return failure();

  Type aType = getElementTypeOrSelf(getA().getType());
  Type bType = getElementTypeOrSelf(getB().getType());
  // The FP8 families assign different values to the same bits; FP4/FP6
  // (OCP MX elements) have one meaning and may meet either.
  if (aType.getIntOrFloatBitWidth() == 8 && bType.getIntOrFloatBitWidth() == 8 &&
      getFormatFamily(aType) != getFormatFamily(bType))
    return emitOpError() << "A (" << aType << ") and B (" << bType
                         << ") mix FNUZ and OCP formats; both must be FNUZ "
                            "(gfx942) or both OCP";

  Type outType = getElementTypeOrSelf(getInit().getType());
  if (!isHighPrecisionType(outType) && !isFP8OutputType(outType))
    return emitOpError() << "output element type must be f32, bf16, f16 or "
                            "an FP8 type (with scales), got "
                         << outType;
  ArrayRef<int64_t> outShape = cast<ShapedType>(getInit().getType()).getShape();
  if (extentsDisagree(outShape[0], m) || extentsDisagree(outShape[1], n)) {
    InFlightDiagnostic diag = emitOpError();
    diag << "init must have shape [M, N] = " << formatShape({m, n}) << ", got "
         << formatShape(outShape);
    return diag;
  }
  if (failed(verifyQuantizedOutput(m, n)))
    return failure();
  return verifyEpilogue(m, n);
}

/// The checks of an FP8 output common to qmm.matmul and qmm.grouped_matmul;
/// `verifyShape` checks the scales' shape against the output.
template <typename OpTy>
static LogicalResult
verifyQuantizedOutputOf(OpTy op,
                        function_ref<LogicalResult(ScaleEncodingAttr)>
                            verifyShape) {
  Type outType = getElementTypeOrSelf(op.getInit().getType());
  ScaleEncodingAttr encoding = op.getOutEncodingAttr();
  if (!isFP8OutputType(outType)) {
    if (op.getOutScales() || encoding || op.getOutRounding() ||
        op.getOutMinAmax())
      return op.emitOpError() << "output scales, their encoding and rule go "
                                 "with an FP8 output only, not "
                              << outType;
    return success();
  }
  if (!op.getOutScales() || !encoding)
    return op.emitOpError() << "an " << outType
                            << " output needs scales: out_scales(%s : type) "
                               "#qmm.scale<block 1xC> or #qmm.scale<mx>";
  if (op.getAccumulate())
    return op.emitOpError("an FP8 output cannot be accumulated into");
  bool perToken = encoding.getKind() == ScaleKind::Block &&
                  encoding.getBlockShape()[0] == 1;
  if (!(perToken || encoding.isMX()) || encoding.isMNMajor())
    return op.emitOpError() << "output scales must be per token along N "
                               "(#qmm.scale<block 1xC>) or #qmm.scale<mx>, "
                               "K-major; got "
                            << encoding;
  if (failed(verifyShape(encoding)))
    return failure();
  return verifyScaleRule(op, encoding, op.getEffectiveOutRounding(),
                         op.getOutMinAmax());
}

/// An MX output's N must hold whole blocks.
static LogicalResult verifyOutputBlocks(Operation *op,
                                        ScaleEncodingAttr encoding, int64_t n) {
  if (encoding.isMX() && !ShapedType::isDynamic(n) &&
      n % encoding.getRequiredKMultiple() != 0)
    return op->emitOpError() << "N (" << n << ") must be a multiple of "
                             << encoding.getRequiredKMultiple() << " for an "
                             << encoding << " output";
  return success();
}

LogicalResult MatmulOp::verifyQuantizedOutput(int64_t m, int64_t n) {
  return verifyQuantizedOutputOf(*this, [&](ScaleEncodingAttr encoding) {
    if (failed(verifyOutputBlocks(*this, encoding, n)))
      return failure();
    return verifyQuantizedOperand(*this, "output", getInit(), getOutScales(),
                                  encoding, OperandLayout::NK,
                                  std::pair(m, n));
  });
}

ScaleRounding MatmulOp::getEffectiveOutRounding() {
  return getEffectiveScaleRounding(getOutRounding(), getOutEncodingAttr());
}

float MatmulOp::getEffectiveOutMinAmax() {
  return getEffectiveScaleMinAmax(getOutMinAmax(), getEffectiveOutRounding());
}

LogicalResult MatmulOp::verifyEpilogue(int64_t m, int64_t n) {
  if (Value bias = getBias()) {
    auto type = cast<ShapedType>(bias.getType());
    if (type.getRank() != 1 || extentsDisagree(type.getDimSize(0), n))
      return emitOpError() << "bias must have shape [N] = "
                           << formatShape({n}) << ", got "
                           << formatShape(type.getShape());
    if (!type.getElementType().isF32() && !type.getElementType().isBF16())
      return emitOpError() << "bias element type must be f32 or bf16, got "
                           << type.getElementType();
  }
  if (Value aux = getAux()) {
    if (getActivation() == Activation::None)
      return emitOpError("aux (the pre-activation output) needs an "
                         "activation");
    if (failed(verifyRank2(*this, "aux", aux)))
      return failure();
    auto type = cast<ShapedType>(aux.getType());
    if (!isHighPrecisionType(type.getElementType()))
      return emitOpError() << "aux element type must be f32, bf16 or f16, "
                              "got "
                           << type.getElementType();
    if (extentsDisagree(type.getDimSize(0), m) ||
        extentsDisagree(type.getDimSize(1), n))
      return emitOpError() << "aux must have shape [M, N] = "
                           << formatShape({m, n}) << ", got "
                           << formatShape(type.getShape());
  }
  return success();
}

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  MutableArrayRef<OpOperand> operands = getOperation()->getOpOperands();
  unsigned inits = getNumDpsInits();
  getBufferEffects(operands.drop_back(inits),
                   operands.slice(operands.size() - inits, 1),
                   getAccumulate(), effects);
  // The pre-activation destination and the output scales are only written.
  getBufferEffects(MutableArrayRef<OpOperand>(),
                   operands.drop_front(operands.size() - inits + 1),
                   /*writtenIsRead=*/false, effects);
}

//===----------------------------------------------------------------------===//
// GroupedMatmulOp
//===----------------------------------------------------------------------===//

int64_t qmm::getGroupedMatmulMAlignment() { return 128; }

int64_t GroupedMatmulOp::getNumGroups() {
  return cast<ShapedType>(getB().getType()).getDimSize(0);
}

ScaleRounding GroupedMatmulOp::getEffectiveOutRounding() {
  return getEffectiveScaleRounding(getOutRounding(), getOutEncodingAttr());
}

float GroupedMatmulOp::getEffectiveOutMinAmax() {
  return getEffectiveScaleMinAmax(getOutMinAmax(), getEffectiveOutRounding());
}

int64_t GroupedMatmulOp::getM() {
  auto type = cast<ShapedType>(getA().getType());
  return type.getDimSize(type.getRank() - 2);
}

int64_t GroupedMatmulOp::getN() {
  return cast<ShapedType>(getB().getType()).getDimSize(1);
}

int64_t GroupedMatmulOp::getK() {
  return cast<ShapedType>(getB().getType()).getDimSize(2);
}

/// Checks one grouped operand: `data` is [lead..., rows, K] (`lead` the
/// expected leading extents), its element type a quantized format, its
/// scales of the encoding's type and of shape [lead..., encoding's shape].
static LogicalResult verifyGroupedOperand(Operation *op, StringRef name,
                                          Value data, Value scales,
                                          ScaleEncodingAttr encoding,
                                          ArrayRef<int64_t> lead,
                                          int64_t knownRows, int64_t knownK) {
  auto type = cast<ShapedType>(data.getType());
  int64_t rank = lead.size() + 2;
  if (type.getRank() != rank)
    return op->emitOpError() << name << " must be rank " << rank
                             << ", got rank " << type.getRank();
  if (shapesDisagree(type.getShape().take_front(lead.size()), lead))
    return op->emitOpError() << name << " must have leading extents "
                             << formatShape(lead) << ", got "
                             << formatShape(type.getShape());
  Type element = type.getElementType();
  if (!isQuantizedElementType(element))
    return op->emitOpError() << name << " element type must be "
                             << getQuantizedElementTypeList() << ", got "
                             << element;
  if (getElementTypeOrSelf(scales.getType()) != encoding.getScaleType())
    return op->emitOpError() << name << " scales have element type "
                             << getElementTypeOrSelf(scales.getType())
                             << " but " << encoding << " needs "
                             << encoding.getScaleType();
  if (encoding.isMX() && !isMXElementType(element))
    return op->emitOpError() << "'mx' encoding of " << name
                             << " requires an OCP MX element type, got "
                             << element;
  // The callers' extents already agree with the data's own.
  int64_t rows = getKnownExtent({type.getDimSize(rank - 2), knownRows});
  int64_t k = getKnownExtent({type.getDimSize(rank - 1), knownK});
  if (!ShapedType::isDynamic(k) && k % encoding.getRequiredKMultiple() != 0)
    return op->emitOpError() << "K (" << k << ") of " << name
                             << " must be a multiple of "
                             << encoding.getRequiredKMultiple() << " for "
                             << encoding;
  SmallVector<int64_t> expected(lead.begin(), lead.end());
  llvm::append_range(expected, encoding.getScaleShape(rows, k));
  ArrayRef<int64_t> actual = cast<ShapedType>(scales.getType()).getShape();
  if (shapesDisagree(expected, actual))
    return op->emitOpError() << name << " scales must have shape "
                             << formatShape(expected) << " for " << encoding
                             << ", got " << formatShape(actual);
  return success();
}

LogicalResult GroupedMatmulOp::verify() {
  if (failed(verifyUniformSemantics(*this)))
    return failure();
  bool masked = getLayout() == GroupedLayout::Masked;
  auto bType = cast<ShapedType>(getB().getType());
  if (bType.getRank() != 3)
    return emitOpError() << "B must be [G, N, K], got rank "
                         << bType.getRank();
  auto aType = cast<ShapedType>(getA().getType());
  if (aType.getRank() != (masked ? 3 : 2))
    return emitOpError() << "A must be rank " << (masked ? 3 : 2)
                         << ", got rank " << aType.getRank();
  int64_t aK = aType.getDimSize(aType.getRank() - 1);
  if (extentsDisagree(aK, bType.getDimSize(2)))
    return emitOpError() << "K of A (" << aK << ") and K of B ("
                         << bType.getDimSize(2) << ") differ";
  // G, M, N and K as every operand holding them says (B, then A first).
  int64_t g = getKnownExtent(
      {bType.getDimSize(0), masked ? aType.getDimSize(0) : ShapedType::kDynamic,
       masked ? getExtentOrDynamic(getGroups(), 0) : ShapedType::kDynamic,
       getExtentOrDynamic(getBias(), 0),
       masked ? getExtentOrDynamic(getInit(), 0) : ShapedType::kDynamic,
       masked ? getExtentOrDynamic(getAux(), 0) : ShapedType::kDynamic});
  int64_t n = getKnownExtent({bType.getDimSize(1),
                              getExtentOrDynamic(getInit(), -1),
                              getExtentOrDynamic(getBias(), 1),
                              getExtentOrDynamic(getAux(), -1)});
  int64_t k = getKnownExtent({bType.getDimSize(2), aK});
  int64_t m = getKnownExtent(
      {aType.getDimSize(aType.getRank() - 2), getExtentOrDynamic(getInit(), -2),
       getExtentOrDynamic(getAux(), -2),
       masked ? ShapedType::kDynamic : getExtentOrDynamic(getGroups(), 0)});
  SmallVector<int64_t, 1> lead;
  if (masked)
    lead.push_back(g);
  if (failed(verifyGroupedOperand(*this, "A", getA(), getAScales(),
                                  getAEncoding(), lead, m, k)) ||
      failed(verifyGroupedOperand(*this, "B", getB(), getBScales(),
                                  getBEncoding(), {g}, n, k)))
    return failure();
  Type aElement = aType.getElementType(), bElement = bType.getElementType();
  if (aElement.getIntOrFloatBitWidth() == 8 &&
      bElement.getIntOrFloatBitWidth() == 8 &&
      getFormatFamily(aElement) != getFormatFamily(bElement))
    return emitOpError() << "A (" << aElement << ") and B (" << bElement
                         << ") mix FNUZ and OCP formats";

  auto groupsType = cast<ShapedType>(getGroups().getType());
  int64_t expectedGroups = masked ? g : m;
  if (groupsType.getRank() != 1 || !groupsType.getElementType().isInteger(32) ||
      extentsDisagree(groupsType.getDimSize(0), expectedGroups))
    return emitOpError() << "groups must be an i32 vector of "
                         << (masked ? "G = " : "M = ")
                         << formatShape({expectedGroups})
                         << (masked ? " valid-row counts" : " group indices")
                         << ", got " << groupsType;

  if (Value bias = getBias()) {
    auto biasType = cast<ShapedType>(bias.getType());
    if (biasType.getRank() != 2 || shapesDisagree(biasType.getShape(), {g, n}))
      return emitOpError() << "bias must have shape [G, N] = "
                           << formatShape({g, n}) << ", got "
                           << formatShape(biasType.getShape());
    if (!biasType.getElementType().isF32() &&
        !biasType.getElementType().isBF16())
      return emitOpError() << "bias element type must be f32 or bf16, got "
                           << biasType.getElementType();
  }
  auto initType = cast<ShapedType>(getInit().getType());
  if (!isHighPrecisionType(initType.getElementType()) &&
      !isFP8OutputType(initType.getElementType()))
    return emitOpError() << "output element type must be f32, bf16, f16 or "
                            "an FP8 type (with scales), got "
                         << initType.getElementType();
  SmallVector<int64_t> expectedOut(lead.begin(), lead.end());
  expectedOut.append({m, n});
  if (initType.getRank() != (int64_t)expectedOut.size() ||
      shapesDisagree(initType.getShape(), expectedOut))
    return emitOpError() << "init must have shape " << formatShape(expectedOut)
                         << ", got " << formatShape(initType.getShape());
  if (failed(verifyQuantizedOutput(lead, m, n)))
    return failure();
  if (Value aux = getAux()) {
    auto auxType = cast<ShapedType>(aux.getType());
    if (getActivation() == Activation::None)
      return emitOpError("aux (the pre-activation output) needs an "
                         "activation");
    if (!isHighPrecisionType(auxType.getElementType()))
      return emitOpError() << "aux element type must be f32, bf16 or f16, "
                              "got "
                           << auxType.getElementType();
    if (auxType.getRank() != initType.getRank() ||
        shapesDisagree(auxType.getShape(), initType.getShape()))
      return emitOpError() << "aux must have init's shape "
                           << formatShape(initType.getShape()) << ", got "
                           << formatShape(auxType.getShape());
  }
  return success();
}

LogicalResult GroupedMatmulOp::verifyQuantizedOutput(ArrayRef<int64_t> lead,
                                                     int64_t m, int64_t n) {
  return verifyQuantizedOutputOf(*this, [&](ScaleEncodingAttr encoding) {
    if (failed(verifyOutputBlocks(*this, encoding, n)))
      return failure();
    return verifyGroupedOperand(*this, "output", getInit(), getOutScales(),
                                encoding, lead, m, n);
  });
}

void GroupedMatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  MutableArrayRef<OpOperand> operands = getOperation()->getOpOperands();
  unsigned inits = getNumDpsInits();
  // Rows that are not written keep their values: both destinations are
  // read as well as written.
  getBufferEffects(operands.drop_back(inits),
                   operands.drop_front(operands.size() - inits),
                   /*writtenIsRead=*/true, effects);
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

ScaleRounding QuantizeOp::getEffectiveRounding() {
  return getEffectiveScaleRounding(getRounding(), getEncoding());
}

float QuantizeOp::getEffectiveMinAmax() {
  return getEffectiveScaleMinAmax(getMinAmax(), getEffectiveRounding());
}

LogicalResult QuantizeOp::verify() {
  if (failed(verifyUniformSemantics(*this)) ||
      failed(verifyRank2(*this, "input", getInput())))
    return failure();
  Type inType = getElementTypeOrSelf(getInput().getType());
  if (!isHighPrecisionType(inType))
    return emitOpError() << "input element type must be f32, bf16 or f16, "
                            "got "
                         << inType;
  if (failed(verifyRank2(*this, "quantized", getQuantized())))
    return failure();
  ArrayRef<int64_t> inShape = cast<ShapedType>(getInput().getType()).getShape();
  ArrayRef<int64_t> qShape =
      cast<ShapedType>(getQuantized().getType()).getShape();
  if (shapesDisagree(inShape, qShape)) {
    InFlightDiagnostic diag = emitOpError();
    diag << "quantized data must have the input's shape "
         << formatShape(inShape) << ", got " << formatShape(qShape);
    return diag;
  }
  if (failed(verifyQuantizedOperand(
          *this, "quantized", getQuantized(), getScales(), getEncoding(),
          getLayout(), getKnownRowsAndK(qShape, inShape, getLayout()))))
    return failure();

  return verifyScaleRule(*this, getEncoding(), getEffectiveRounding(),
                         getMinAmax());
}

void QuantizeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getBufferEffects(MutableOperandRange(getInputMutable()), getDpsInitsMutable(),
                   /*writtenIsRead=*/false, effects);
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  if (failed(verifyUniformSemantics(*this)) ||
      failed(verifyRank2(*this, "quantized", getQuantized())) ||
      failed(verifyRank2(*this, "init", getInit())))
    return failure();
  Type outType = getElementTypeOrSelf(getInit().getType());
  if (!isHighPrecisionType(outType))
    return emitOpError() << "output element type must be f32, bf16 or f16, "
                            "got "
                         << outType;
  ArrayRef<int64_t> qShape =
      cast<ShapedType>(getQuantized().getType()).getShape();
  ArrayRef<int64_t> outShape = cast<ShapedType>(getInit().getType()).getShape();
  if (shapesDisagree(qShape, outShape)) {
    InFlightDiagnostic diag = emitOpError();
    diag << "init must have the quantized data's shape " << formatShape(qShape)
         << ", got " << formatShape(outShape);
    return diag;
  }
  return verifyQuantizedOperand(
      *this, "quantized", getQuantized(), getScales(), getEncoding(),
      getLayout(), getKnownRowsAndK(qShape, outShape, getLayout()));
}

void DequantizeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getBufferEffects(getOperation()->getOpOperands().take_front(2),
                   getDpsInitsMutable(), /*writtenIsRead=*/false, effects);
}

//===----------------------------------------------------------------------===//
// Custom assembly: one type list for two operand groups
//===----------------------------------------------------------------------===//

// Partial sums and accumulators of qmm.wave_scale_accumulate have the same
// types; the assembly lists them once.
static ParseResult parseSameTypes(OpAsmParser &, SmallVectorImpl<Type> &types,
                                  ArrayRef<Type> reference) {
  types.assign(reference.begin(), reference.end());
  return success();
}
static void printSameTypes(OpAsmPrinter &, Operation *, TypeRange, TypeRange) {}

#define GET_OP_CLASSES
#include "qmm/Dialect/QMM/IR/QMMOps.cpp.inc"
