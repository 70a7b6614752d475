//===- TensorMapsByValue.cpp - pass a kernel's tensor maps by value -------===//
//
// After convert-gpu-to-nvvm: the kernel parameters that hold TMA tensor
// maps become 128-byte grid constants, as CUDA's `const __grid_constant__
// CUtensorMap` (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/NVVM/TensorMapArguments.h"
#include "qmm/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMTENSORMAPSBYVALUE
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
struct QMMTensorMapsByValuePass
    : public qmm::impl::QMMTensorMapsByValueBase<QMMTensorMapsByValuePass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    StringRef name = kTensorMapArgumentsAttrName;
    auto mapType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
    auto result = getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto maps = func->getAttrOfType<DenseI32ArrayAttr>(name);
      if (!maps)
        return WalkResult::advance();
      func->removeAttr(name);
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName())) {
        func.emitError() << name << " on a function that is not a kernel";
        return WalkResult::interrupt();
      }
      for (int32_t index : maps.asArrayRef()) {
        if (index < 0 || unsigned(index) >= func.getNumArguments() ||
            !isa<LLVM::LLVMPointerType>(
                func.getArgument(index).getType())) {
          func.emitError() << name << ": argument " << index
                           << " is not a pointer parameter";
          return WalkResult::interrupt();
        }
        func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(mapType));
        func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(IntegerType::get(ctx, 64),
                                         kTensorMapAlignment));
        func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
