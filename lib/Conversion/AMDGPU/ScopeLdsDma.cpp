//===- ScopeLdsDma.cpp - alias scopes for direct-to-LDS loads -------------===//
//
// Stage 10 of the AMD pipeline (after the ROCDL conversion): the direct
// loads to LDS and the LDS reads of a function get disjoint alias scopes, so
// that LLVM does not make each LDS read wait for the loads in flight (see
// the pass description for why that is sound for this pipeline's kernels).
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMSCOPELDSDMA
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;

namespace {
/// LLVM's address space of LDS.
constexpr unsigned kLdsAddressSpace = 3;

bool isDirectLdsLoad(Operation *op) {
  return isa<ROCDL::LoadToLDSOp, ROCDL::GlobalLoadLDSOp>(op);
}

struct QMMScopeLdsDmaPass
    : public qmm::impl::QMMScopeLdsDmaBase<QMMScopeLdsDmaPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](LLVM::LLVMFuncOp func) { scope(func); });
  }

  void scope(LLVM::LLVMFuncOp func) {
    SmallVector<LLVM::AliasAnalysisOpInterface> dmaLoads, ldsReads;
    func.walk([&](Operation *op) {
      if (isDirectLdsLoad(op)) {
        dmaLoads.push_back(cast<LLVM::AliasAnalysisOpInterface>(op));
      } else if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        auto pointer = cast<LLVM::LLVMPointerType>(load.getAddr().getType());
        if (pointer.getAddressSpace() == kLdsAddressSpace)
          ldsReads.push_back(load);
      }
    });
    if (dmaLoads.empty())
      return;
    MLIRContext *ctx = func.getContext();
    auto domain = LLVM::AliasScopeDomainAttr::get(
        ctx, StringAttr::get(ctx, (func.getName() + " LDS").str()));
    auto dma = LLVM::AliasScopeAttr::get(
        domain, StringAttr::get(ctx, "direct loads to LDS"));
    auto reads =
        LLVM::AliasScopeAttr::get(domain, StringAttr::get(ctx, "LDS reads"));
    auto dmaScopes = ArrayAttr::get(ctx, {dma});
    auto readScopes = ArrayAttr::get(ctx, {reads});
    for (LLVM::AliasAnalysisOpInterface load : dmaLoads)
      load.setAliasScopes(dmaScopes);
    for (LLVM::AliasAnalysisOpInterface read : ldsReads) {
      read.setAliasScopes(readScopes);
      read.setNoAliasScopes(dmaScopes);
    }
  }
};
} // namespace
