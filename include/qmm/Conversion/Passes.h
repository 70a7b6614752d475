//===- Passes.h - qmm conversion passes -------------------------*- C++ -*-===//

#ifndef QMM_CONVERSION_PASSES_H
#define QMM_CONVERSION_PASSES_H

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"
#include "qmm/Conversion/NVVM/WgmmaDefaults.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace qmm {

#define GEN_PASS_DECL
#include "qmm/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "qmm/Conversion/Passes.h.inc"

} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_PASSES_H
