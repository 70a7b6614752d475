//===- ExpandFloatConversions.cpp - bit-exact small-float conversions -----===//
//
// LLVM knows no FP8/FP6/FP4/E8M0 types: the LLVM type converter stores them
// as integers of their width. This pass turns the conversions from and to
// them into table lookups and integer arithmetic, so the CPU computes them
// bit-exactly with no runtime library. Every constant comes from the type's
// APFloat semantics.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMEXPANDFLOATCONVERSIONS
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;
using llvm::APFloat;
using llvm::APInt;

//===----------------------------------------------------------------------===//
// extf: table lookup
//===----------------------------------------------------------------------===//

/// The module-level constant table of the 2^w f32 values of `type`.
static memref::GlobalOp getOrCreateDecodeTable(ModuleOp module,
                                               FloatType type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "__qmm_decode_" << type;
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing;

  const llvm::fltSemantics &sem = type.getFloatSemantics();
  unsigned width = type.getWidth();
  SmallVector<float> values;
  for (uint64_t code = 0; code < (uint64_t(1) << width); ++code) {
    APFloat value(sem, APInt(width, code));
    // (APFloat's conversion of E8M0's NaN is not reliable: spell NaN out.)
    if (value.isNaN()) {
      values.push_back(std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    bool losesInfo = false;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    values.push_back(value.convertToFloat());
  }

  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto tableType =
      MemRefType::get({int64_t(values.size())}, b.getF32Type());
  auto tensorType =
      RankedTensorType::get({int64_t(values.size())}, b.getF32Type());
  return memref::GlobalOp::create(
      b, module.getLoc(), name, b.getStringAttr("private"), tableType,
      DenseElementsAttr::get(tensorType, ArrayRef<float>(values)),
      /*constant=*/true, /*alignment=*/nullptr);
}

static Value decodeToF32(OpBuilder &b, Location loc, ModuleOp module,
                         Value value) {
  auto type = cast<FloatType>(value.getType());
  memref::GlobalOp table = getOrCreateDecodeTable(module, type);
  Value bits = arith::BitcastOp::create(
      b, loc, b.getIntegerType(type.getWidth()), value);
  Value index = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), bits);
  Value tableRef = memref::GetGlobalOp::create(b, loc, table.getType(),
                                               table.getSymName());
  return memref::LoadOp::create(b, loc, tableRef, ValueRange{index});
}

//===----------------------------------------------------------------------===//
// truncf: integer rounding
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct QMMExpandFloatConversionsPass
    : public qmm::impl::QMMExpandFloatConversionsBase<
          QMMExpandFloatConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // arith.scaling_extf / scaling_truncf (OCP MX) first become the extf,
    // truncf and mulf they stand for (upstream patterns), which the
    // expansions below then take.
    {
      RewritePatternSet patterns(&getContext());
      arith::populateExpandScalingExtTruncPatterns(patterns);
      walkAndApplyPatterns(module, std::move(patterns));
    }
    SmallVector<arith::ExtFOp> extensions;
    module.walk([&](arith::ExtFOp ext) {
      if (isSmallFloatType(ext.getIn().getType()))
        extensions.push_back(ext);
    });
    IRRewriter rewriter(&getContext());
    for (arith::ExtFOp ext : extensions) {
      rewriter.setInsertionPoint(ext);
      Value value = decodeToF32(rewriter, ext.getLoc(), module, ext.getIn());
      // To f64 widened further; to bf16 or f16 narrowed, exactly: every
      // small float value is one of theirs.
      unsigned width = ext.getType().getIntOrFloatBitWidth();
      if (width > 32)
        value =
            arith::ExtFOp::create(rewriter, ext.getLoc(), ext.getType(), value);
      else if (width < 32)
        value = arith::TruncFOp::create(rewriter, ext.getLoc(), ext.getType(),
                                        value);
      rewriter.replaceOp(ext, value);
    }
    if (failed(expandSmallFloatTruncations(module)))
      signalPassFailure();
  }
};
} // namespace
