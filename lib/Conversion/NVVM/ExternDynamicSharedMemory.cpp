//===- ExternDynamicSharedMemory.cpp - extern dynamic .shared in NVVM -----===//
//
// After convert-gpu-to-nvvm: the dynamic shared memory global must be an
// `.extern .shared` array, or NVPTX gives it one byte of static shared
// memory that the following variables overlap (Passes.td says how).
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMEXTERNDYNAMICSHAREDMEMORY
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
struct QMMExternDynamicSharedMemoryPass
    : public qmm::impl::QMMExternDynamicSharedMemoryBase<
          QMMExternDynamicSharedMemoryPass> {
  using Base::Base;
  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError("qmm-extern-dynamic-shared-memory: alignment "
                               "must be a power of two, got ")
          << int64_t(alignment);
      return signalPassFailure();
    }
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      // What gpu.dynamic_shared_memory becomes: a zero-sized array in
      // shared memory without an initializer.
      if (global.getAddrSpace() != unsigned(NVVM::NVVMMemorySpace::Shared) ||
          !array || array.getNumElements() != 0 || global.getValueOrNull() ||
          !global.getInitializerRegion().empty())
        continue;
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(uint64_t(alignment));
      // External globals carry no dso_local / visibility of their own.
      global.setVisibility_(LLVM::Visibility::Default);
    }
  }
};
} // namespace
