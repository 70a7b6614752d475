//===- ScaleEncoding.h - C API for #qmm.scale attributes ----------*- C -*-===//
//
// Builders, predicates and accessors of the scale encodings a qmm.matmul
// names for its operands (QMMAttrs.td, ScaleEncodingAttr):
//
//   #qmm.scale<per_tensor>            qmmScaleEncodingAttrGetPerTensor
//   #qmm.scale<per_row>               qmmScaleEncodingAttrGetPerRow
//   #qmm.scale<block RxC>             qmmScaleEncodingAttrGetBlock
//   #qmm.scale<mx>                    qmmScaleEncodingAttrGetMX
//
// each with the kind's default scale element type (f32; f8E8M0FNU for mx)
// and, where `mnMajor` is true, `mn_major` scales. The qmm dialect must be
// loaded in the context (mlirDialectHandleLoadDialect with
// mlirGetDialectHandle__qmm__(), or a registry from
// qmmRegisterRequiredDialects and mlirContextLoadAllAvailableDialects).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_C_SCALEENCODING_H
#define QMM_C_SCALEENCODING_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The granularity of a scale encoding (the values of qmm::ScaleKind).
typedef enum QmmScaleKind {
  QmmScaleKindPerTensor = 0,
  QmmScaleKindPerRow = 1,
  QmmScaleKindBlock = 2,
  QmmScaleKindMX = 3,
} QmmScaleKind;

/// Whether `attr` is a #qmm.scale<...> attribute.
MLIR_CAPI_EXPORTED bool qmmAttributeIsAScaleEncoding(MlirAttribute attr);

MLIR_CAPI_EXPORTED MlirAttribute
qmmScaleEncodingAttrGetPerTensor(MlirContext ctx);
MLIR_CAPI_EXPORTED MlirAttribute qmmScaleEncodingAttrGetPerRow(MlirContext ctx,
                                                               bool mnMajor);
/// Blocks of `rows` x `k` elements. Returns a null attribute, after
/// emitting a diagnostic on the context, when the shape is invalid
/// (an extent below 1).
MLIR_CAPI_EXPORTED MlirAttribute qmmScaleEncodingAttrGetBlock(MlirContext ctx,
                                                              int64_t rows,
                                                              int64_t k,
                                                              bool mnMajor);
/// MX: 1 x 32 blocks of E8M0 scales.
MLIR_CAPI_EXPORTED MlirAttribute qmmScaleEncodingAttrGetMX(MlirContext ctx,
                                                           bool mnMajor);

/// The accessors below take a #qmm.scale attribute
/// (qmmAttributeIsAScaleEncoding).
MLIR_CAPI_EXPORTED QmmScaleKind qmmScaleEncodingAttrGetKind(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qmmScaleEncodingAttrIsPerTensor(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qmmScaleEncodingAttrIsPerRow(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qmmScaleEncodingAttrIsBlock(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qmmScaleEncodingAttrIsMX(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qmmScaleEncodingAttrIsMNMajor(MlirAttribute attr);
/// The block's extents along (rows, K) for block and mx encodings (1 and 32
/// for mx); 0 for per_tensor and per_row, whose blocks depend on the
/// operand's shape.
MLIR_CAPI_EXPORTED int64_t qmmScaleEncodingAttrGetBlockRows(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t qmmScaleEncodingAttrGetBlockK(MlirAttribute attr);
/// The scale tensor's element type.
MLIR_CAPI_EXPORTED MlirType qmmScaleEncodingAttrGetScaleType(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif // QMM_C_SCALEENCODING_H
