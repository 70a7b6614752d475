//===- ScaleEncoding.cpp - C API for #qmm.scale attributes ----------------===//

#include "qmm-c/ScaleEncoding.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::qmm;

static ScaleMajorness majorness(bool mnMajor) {
  return mnMajor ? ScaleMajorness::MNMajor : ScaleMajorness::KMajor;
}

static ScaleEncodingAttr scaleEncoding(MlirAttribute attr) {
  return llvm::cast<ScaleEncodingAttr>(unwrap(attr));
}

bool qmmAttributeIsAScaleEncoding(MlirAttribute attr) {
  return llvm::isa<ScaleEncodingAttr>(unwrap(attr));
}

MlirAttribute qmmScaleEncodingAttrGetPerTensor(MlirContext ctx) {
  return wrap(ScaleEncodingAttr::getPerTensor(unwrap(ctx)));
}

MlirAttribute qmmScaleEncodingAttrGetPerRow(MlirContext ctx, bool mnMajor) {
  return wrap(ScaleEncodingAttr::getPerRow(unwrap(ctx), majorness(mnMajor)));
}

MlirAttribute qmmScaleEncodingAttrGetBlock(MlirContext ctx, int64_t rows,
                                           int64_t k, bool mnMajor) {
  MLIRContext *context = unwrap(ctx);
  // The attribute's verifier reports a bad shape as a diagnostic on the
  // context (getChecked); the caller gets a null attribute.
  return wrap(ScaleEncodingAttr::getChecked(
      mlir::detail::getDefaultDiagnosticEmitFn(context), context, ScaleKind::Block,
      ArrayRef<int64_t>{rows, k},
      ScaleEncodingAttr::getDefaultScaleType(context, ScaleKind::Block),
      majorness(mnMajor)));
}

MlirAttribute qmmScaleEncodingAttrGetMX(MlirContext ctx, bool mnMajor) {
  return wrap(ScaleEncodingAttr::getMX(unwrap(ctx), majorness(mnMajor)));
}

QmmScaleKind qmmScaleEncodingAttrGetKind(MlirAttribute attr) {
  return static_cast<QmmScaleKind>(scaleEncoding(attr).getKind());
}

bool qmmScaleEncodingAttrIsPerTensor(MlirAttribute attr) {
  return scaleEncoding(attr).getKind() == ScaleKind::PerTensor;
}

bool qmmScaleEncodingAttrIsPerRow(MlirAttribute attr) {
  return scaleEncoding(attr).getKind() == ScaleKind::PerRow;
}

bool qmmScaleEncodingAttrIsBlock(MlirAttribute attr) {
  return scaleEncoding(attr).getKind() == ScaleKind::Block;
}

bool qmmScaleEncodingAttrIsMX(MlirAttribute attr) {
  return scaleEncoding(attr).getKind() == ScaleKind::MX;
}

bool qmmScaleEncodingAttrIsMNMajor(MlirAttribute attr) {
  return scaleEncoding(attr).isMNMajor();
}

int64_t qmmScaleEncodingAttrGetBlockRows(MlirAttribute attr) {
  ArrayRef<int64_t> block = scaleEncoding(attr).getBlockShape();
  return block.empty() ? 0 : block[0];
}

int64_t qmmScaleEncodingAttrGetBlockK(MlirAttribute attr) {
  ArrayRef<int64_t> block = scaleEncoding(attr).getBlockShape();
  return block.empty() ? 0 : block[1];
}

MlirType qmmScaleEncodingAttrGetScaleType(MlirAttribute attr) {
  return wrap(scaleEncoding(attr).getScaleType());
}
