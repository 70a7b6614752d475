//===- TensorMapArguments.h - parameters that hold tensor maps -*- C++ -*-===//
//
// qmm-lower-matmul-to-wgmma records which of a kernel's parameters are TMA
// tensor maps; qmm-tensor-maps-by-value, after convert-gpu-to-nvvm, makes
// them 128-byte grid constants.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_NVVM_TENSORMAPARGUMENTS_H
#define QMM_CONVERSION_NVVM_TENSORMAPARGUMENTS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
namespace qmm {

/// A kernel's attribute (a DenseI32ArrayAttr): the indices of the
/// parameters that hold tensor maps. gpu.func's lowering keeps function
/// attributes, not the argument attributes byval needs.
constexpr llvm::StringLiteral kTensorMapArgumentsAttrName =
    "qmm.tensor_map_arguments";

/// A CUtensorMap (CUDA driver API): 128 bytes, 64-byte aligned.
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlignment = 64;

} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_NVVM_TENSORMAPARGUMENTS_H
