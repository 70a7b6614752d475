//===- QMMAttrs.cpp - qmm attributes --------------------------------------===//

#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::qmm;

#include "qmm/Dialect/QMM/IR/QMMEnums.cpp.inc"

/// The optional trailing parameters of #qmm.config, each written only when
/// it is not its default: `, split = N` and `, lds_copy = direct`, in any
/// order.
static ParseResult parseConfigOptions(AsmParser &parser, int64_t &split,
                                      LdsCopy &ldsCopy) {
  split = 1;
  ldsCopy = LdsCopy::Registers;
  bool seenSplit = false, seenCopy = false;
  while (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "split" && !seenSplit) {
      seenSplit = true;
      if (parser.parseInteger(split))
        return failure();
    } else if (key == "lds_copy" && !seenCopy) {
      seenCopy = true;
      StringRef name;
      llvm::SMLoc nameLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&name))
        return failure();
      std::optional<LdsCopy> copy = symbolizeLdsCopy(name);
      if (!copy)
        return parser.emitError(nameLoc, "expected lds_copy = registers or "
                                         "direct, got '")
               << name << "'";
      ldsCopy = *copy;
    } else {
      return parser.emitError(loc, "expected split or lds_copy (each at "
                                   "most once), got '")
             << key << "'";
    }
  }
  return success();
}

static void printConfigOptions(AsmPrinter &printer, int64_t split,
                               LdsCopy ldsCopy) {
  if (split != 1)
    printer << ", split = " << split;
  if (ldsCopy != LdsCopy::Registers)
    printer << ", lds_copy = " << stringifyLdsCopy(ldsCopy);
}

#define GET_ATTRDEF_CLASSES
#include "qmm/Dialect/QMM/IR/QMMAttrs.cpp.inc"

void QMMDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "qmm/Dialect/QMM/IR/QMMAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ScaleEncodingAttr
//===----------------------------------------------------------------------===//

Type ScaleEncodingAttr::getDefaultScaleType(MLIRContext *ctx, ScaleKind kind) {
  if (kind == ScaleKind::MX)
    return Float8E8M0FNUType::get(ctx);
  return Float32Type::get(ctx);
}

ScaleEncodingAttr ScaleEncodingAttr::getPerTensor(MLIRContext *ctx) {
  return get(ctx, ScaleKind::PerTensor, {},
             getDefaultScaleType(ctx, ScaleKind::PerTensor),
             ScaleMajorness::KMajor);
}

ScaleEncodingAttr ScaleEncodingAttr::getPerRow(MLIRContext *ctx,
                                               ScaleMajorness majorness) {
  return get(ctx, ScaleKind::PerRow, {},
             getDefaultScaleType(ctx, ScaleKind::PerRow), majorness);
}

ScaleEncodingAttr ScaleEncodingAttr::getBlock(MLIRContext *ctx, int64_t rows,
                                              int64_t k,
                                              ScaleMajorness majorness) {
  return get(ctx, ScaleKind::Block, {rows, k},
             getDefaultScaleType(ctx, ScaleKind::Block), majorness);
}

ScaleEncodingAttr ScaleEncodingAttr::getMX(MLIRContext *ctx,
                                           ScaleMajorness majorness) {
  return get(ctx, ScaleKind::MX, {1, 32},
             getDefaultScaleType(ctx, ScaleKind::MX), majorness);
}

LogicalResult
ScaleEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ScaleKind kind, ArrayRef<int64_t> blockShape,
                          Type scaleType, ScaleMajorness majorness) {
  switch (kind) {
  case ScaleKind::PerTensor:
  case ScaleKind::PerRow:
    if (!blockShape.empty())
      return emitError() << "'" << stringifyScaleKind(kind)
                         << "' scale encoding takes no block shape";
    break;
  case ScaleKind::Block:
    if (blockShape.size() != 2)
      return emitError() << "block scale encoding needs a 2-D block shape "
                            "(rows x K), got "
                         << blockShape.size() << " dimension(s)";
    if (blockShape[0] <= 0 || blockShape[1] <= 0)
      return emitError() << "block dimensions must be positive, got "
                         << blockShape[0] << "x" << blockShape[1];
    break;
  case ScaleKind::MX:
    if (blockShape.size() != 2 || blockShape[0] != 1 ||
        blockShape[1] != kMXBlockSize)
      return emitError() << "mx scale blocks are 1x" << kMXBlockSize
                         << " (OCP MX v1.0)";
    break;
  }
  if (!isScaleElementType(scaleType))
    return emitError() << "scale element type must be f32 or f8E8M0FNU, got "
                       << scaleType;
  bool isE8M0 = isa<Float8E8M0FNUType>(scaleType);
  if (isE8M0 && kind != ScaleKind::MX)
    return emitError() << "f8E8M0FNU scales require the 'mx' encoding, got '"
                       << stringifyScaleKind(kind) << "'";
  if (!isE8M0 && kind == ScaleKind::MX)
    return emitError() << "'mx' encoding requires f8E8M0FNU scales, got "
                       << scaleType;
  return success();
}

Attribute ScaleEncodingAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<ScaleKind> kind = symbolizeScaleKind(kindName);
  if (!kind) {
    parser.emitError(loc) << "unknown scale kind '" << kindName
                          << "', expected per_tensor, per_row, block or mx";
    return {};
  }

  SmallVector<int64_t, 2> blockShape;
  if (*kind == ScaleKind::Block) {
    SMLoc dimsLoc = parser.getCurrentLocation();
    if (parser.parseDimensionList(blockShape, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false) ||
        blockShape.empty()) {
      parser.emitError(dimsLoc, "expected a block shape such as 1x128");
      return {};
    }
  } else if (*kind == ScaleKind::MX) {
    blockShape = {1, kMXBlockSize};
  }

  Type scaleType;
  std::optional<ScaleMajorness> majorness;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc optLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (succeeded(parser.parseOptionalKeyword(&keyword,
                                              {"k_major", "mn_major"}))) {
      if (majorness) {
        parser.emitError(optLoc, "majorness given twice");
        return {};
      }
      majorness = *symbolizeScaleMajorness(keyword);
      continue;
    }
    Type type;
    if (parser.parseType(type))
      return {};
    if (scaleType) {
      parser.emitError(optLoc, "scale element type given twice");
      return {};
    }
    scaleType = type;
  }
  if (parser.parseGreater())
    return {};

  if (!scaleType)
    scaleType = getDefaultScaleType(ctx, *kind);
  return parser.getChecked<ScaleEncodingAttr>(
      loc, ctx, *kind, blockShape, scaleType,
      majorness.value_or(ScaleMajorness::KMajor));
}

void ScaleEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyScaleKind(getKind());
  if (getKind() == ScaleKind::Block)
    printer << " " << getBlockShape()[0] << "x" << getBlockShape()[1];
  if (getScaleType() != getDefaultScaleType(getContext(), getKind()))
    printer << ", " << getScaleType();
  if (isMNMajor())
    printer << ", " << stringifyScaleMajorness(getMajorness());
  printer << ">";
}

std::pair<int64_t, int64_t>
ScaleEncodingAttr::getBlockExtent(int64_t rows, int64_t k) const {
  switch (getKind()) {
  case ScaleKind::PerTensor:
    return {rows, k};
  case ScaleKind::PerRow:
    return {1, k};
  case ScaleKind::Block:
  case ScaleKind::MX:
    return {getBlockShape()[0], getBlockShape()[1]};
  }
  llvm_unreachable("unknown scale kind");
}

/// ceil(extent / block), dynamic when the extent is.
static int64_t ceilDivOrDynamic(int64_t extent, int64_t block) {
  if (ShapedType::isDynamic(extent))
    return ShapedType::kDynamic;
  return llvm::divideCeil(extent, block);
}

SmallVector<int64_t, 2> ScaleEncodingAttr::getScaleShape(int64_t rows,
                                                         int64_t k) const {
  SmallVector<int64_t, 2> shape;
  switch (getKind()) {
  case ScaleKind::PerTensor:
    shape = {1, 1};
    break;
  case ScaleKind::PerRow:
    shape = {rows, 1};
    break;
  case ScaleKind::Block:
  case ScaleKind::MX:
    shape = {ceilDivOrDynamic(rows, getBlockShape()[0]),
             ceilDivOrDynamic(k, getBlockShape()[1])};
    break;
  }
  if (isMNMajor())
    std::swap(shape[0], shape[1]);
  return shape;
}

int64_t ScaleEncodingAttr::getRequiredKMultiple() const {
  return isMX() ? kMXBlockSize : 1;
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

const MMAIntrinsicInfo &ConfigAttr::getIntrinsic() const {
  ArrayRef<int64_t> shape = getMfmaShape();
  return *lookupMMAIntrinsic(getMfmaKind(), shape[0], shape[1], shape[2]);
}


LogicalResult
ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   ArrayRef<int64_t> tile, ArrayRef<int64_t> waves,
                   MFMAKind mfmaKind, ArrayRef<int64_t> mfmaShape,
                   int64_t stages, int64_t split, LdsCopy ldsCopy) {
  if (tile.size() != 3 || waves.size() != 2 || mfmaShape.size() != 3)
    return emitError() << "config needs tile = [M, N, K], waves = [M, N] and "
                          "an MFMA shape [m, n, k]";
  if (llvm::any_of(tile, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(waves, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(mfmaShape, [](int64_t v) { return v <= 0; }))
    return emitError() << "config extents must be positive";
  if (stages < 1 || stages > 4)
    return emitError() << "config stages must be 1 to 4, got " << stages;
  if (split < 1)
    return emitError() << "config split must be at least 1, got " << split;
  if (!lookupMMAIntrinsic(mfmaKind, mfmaShape[0], mfmaShape[1], mfmaShape[2])) {
    InFlightDiagnostic diag = emitError()
                              << "config: no " << stringifyEnum(mfmaKind)
                              << " instruction of shape " << mfmaShape[0]
                              << "x" << mfmaShape[1] << "x" << mfmaShape[2]
                              << " (the " << stringifyEnum(mfmaKind)
                              << " forms:";
    for (const MMAIntrinsicInfo &info : getMMAIntrinsics())
      if (info.kind == mfmaKind)
        diag << " " << info.m << "x" << info.n << "x" << info.k;
    return diag << ")";
  }
  // Checked before the products below, which it keeps from overflowing
  // (a wrapped product of zero would divide by zero).
  if (waves[0] > 16 || waves[1] > 16 || waves[0] * waves[1] > 16)
    return emitError() << "at most 16 waves (1024 threads) per workgroup, got "
                       << waves[0] << " x " << waves[1];
  for (int d = 0; d < 2; ++d)
    if (tile[d] % (waves[d] * mfmaShape[d]) != 0)
      return emitError() << "tile " << (d ? "N" : "M") << " (" << tile[d]
                         << ") must be a multiple of waves x MFMA "
                         << (d ? "n" : "m") << " (" << waves[d] << " x "
                         << mfmaShape[d] << ")";
  if (tile[2] % mfmaShape[2] != 0)
    return emitError() << "tile K (" << tile[2]
                       << ") must be a multiple of MFMA k (" << mfmaShape[2]
                       << ")";
  if (ldsCopy == LdsCopy::Direct && stages > 2)
    return emitError() << "lds_copy = direct needs 1 or 2 stages, got "
                       << stages;
  return success();
}
