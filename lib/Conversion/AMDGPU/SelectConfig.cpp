//===- SelectConfig.cpp - choose and check #qmm.config ---------------------===//

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"
#include "qmm/Target/TargetAttr.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Support/NestingLimit.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/AsmParser/AsmParser.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMSELECTCONFIG
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
struct QMMSelectConfigPass
    : public qmm::impl::QMMSelectConfigBase<QMMSelectConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = getTargetChip(getOperation(), chip, "qmm-select-config");
    if (!target)
      return signalPassFailure();
    ConfigAttr forced;
    if (!override.empty()) {
      forced = llvm::dyn_cast_or_null<ConfigAttr>(
          parseAttributeWithinLimits(override, &getContext()));
      if (!forced) {
        getOperation()->emitError("qmm-select-config: override '")
            << override << "' is not a #qmm.config<...>";
        return signalPassFailure();
      }
    }
    std::optional<TuningTable> table;
    if (!tuningTable.empty()) {
      llvm::Expected<TuningTable> loaded = TuningTable::load(tuningTable);
      if (!loaded) {
        getOperation()->emitError("qmm-select-config: ")
            << llvm::toString(loaded.takeError());
        return signalPassFailure();
      }
      table = std::move(*loaded);
    }
    // A dynamic M without a config of the user's: a small-M version (decode
    // and small batches: split-K, its workspace bounded) and the bucket's.
    if (!forced) {
      SmallVector<MatmulOp> dynamic;
      getOperation()->walk([&](MatmulOp op) {
        if (ShapedType::isDynamic(op.getM()) && !op.getConfigAttr() &&
            !op->hasAttr(kMaxMAttrName))
          dynamic.push_back(op);
      });
      for (MatmulOp op : dynamic)
        versionByM(op);
    }
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (!isa<MatmulOp, GroupedMatmulOp>(op))
        return WalkResult::advance();
      return succeeded(configure(op, *target, forced,
                                 table ? &*table : nullptr))
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  /// Replaces `op` (dynamic M) by `scf.if M <= kSmallDynamicMBound` of a
  /// copy bounded by `qmm.max_m` (configured for that M, split-K allowed)
  /// and a copy for the `dynamic-m` bucket.
  void versionByM(MatmulOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value m = isa<RankedTensorType>(op.getA().getType())
                  ? tensor::DimOp::create(b, loc, op.getA(), 0).getResult()
                  : memref::DimOp::create(b, loc, op.getA(), 0).getResult();
    Value small = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule, m,
        arith::ConstantIndexOp::create(b, loc, kSmallDynamicMBound));
    auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), small,
                                  /*withElseRegion=*/true);
    for (bool bounded : {true, false}) {
      Block *block = bounded ? ifOp.thenBlock() : ifOp.elseBlock();
      OpBuilder branch = OpBuilder::atBlockBegin(block);
      Operation *copy = branch.clone(*op);
      if (bounded)
        copy->setAttr(kMaxMAttrName,
                      branch.getI64IntegerAttr(kSmallDynamicMBound));
      if (block->empty() || !block->back().hasTrait<OpTrait::IsTerminator>())
        scf::YieldOp::create(branch, loc, copy->getResults());
      else if (copy->getNumResults())
        block->back().setOperands(copy->getResults());
    }
    op->replaceAllUsesWith(ifOp.getResults());
    op->erase();
  }

  /// Configures a qmm.matmul or qmm.grouped_matmul (one group's product):
  /// the forced config, else the op's own, else the tuning table's entry
  /// for its key, else the nearest entry that fits, else the rule's
  /// choice; then checks it.
  LogicalResult configure(Operation *op, const ChipInfo &target,
                          ConfigAttr forced, const TuningTable *table) {
    if (dynamicM <= 0) {
      getOperation()->emitError("qmm-select-config: dynamic-m must be "
                                "positive, got ")
          << int64_t(dynamicM);
      return failure();
    }
    FailureOr<ConfigQuery> query = getConfigQuery(op, dynamicM);
    if (failed(query))
      return failure();
    auto current = [&]() {
      return op->getAttrOfType<ConfigAttr>("config");
    };
    if (forced)
      op->setAttr("config", forced);
    const TuningTable *builtin =
        builtinTuning ? &TuningTable::getBuiltin() : nullptr;
    for (const TuningTable *source : {table, builtin}) {
      if (current() || !source)
        continue;
      if (const TuningTable::Entry *entry = source->lookup(target, *query)) {
        // The parser's own diagnostic (at a location in the entry's text)
        // becomes part of the op's.
        std::string parseError;
        ConfigAttr tuned;
        {
          ScopedDiagnosticHandler capture(&getContext(), [&](Diagnostic &d) {
            parseError = d.str();
            return success();
          });
          tuned = llvm::dyn_cast_or_null<ConfigAttr>(
              parseAttributeWithinLimits(entry->config, &getContext()));
        }
        // A built-in entry covers a bucket of shapes: where it does not fit
        // this one (an FP8 output's blocks, say), the heuristic decides. A
        // user's table is the user's choice: its entries are checked like a
        // user's config, and the error names the table.
        if (source == builtin) {
          if (ConfigAttr fitted = fitTableEntry(tuned, target, *query))
            op->setAttr("config", fitted);
          continue;
        }
        if (!tuned)
          return op->emitOpError("qmm-select-config: the tuning table's "
                                 "entry '")
                 << entry->config << "' is not a #qmm.config<...>"
                 << (parseError.empty() ? "" : ": ") << parseError;
        if (failed(verifyConfigForMatmul(tuned, target, *query, [&]() {
              return op->emitOpError("(config from tuning table '")
                     << tuningTable << "') ";
            })))
          return failure();
        op->setAttr("config", tuned);
      }
    }
    // No entry for the matmul's buckets: the nearest entry of a table (the
    // user's, then the built-in one) that fits the matmul, as a tuning run
    // for a nearby shape chose it.
    for (const TuningTable *source : {table, builtin}) {
      if (current() || !source)
        continue;
      for (const TuningTable::Entry *entry : source->findNear(target, *query)) {
        ScopedDiagnosticHandler silence(&getContext(),
                                        [](Diagnostic &) { return success(); });
        auto near = llvm::dyn_cast_or_null<ConfigAttr>(
            parseAttributeWithinLimits(entry->config, &getContext()));
        if (ConfigAttr fitted = fitTableEntry(near, target, *query)) {
          op->setAttr("config", fitted);
          break;
        }
      }
    }
    if (!current()) {
      ConfigAttr chosen = selectConfig(&getContext(), target, *query);
      // K tiles must not straddle scale blocks, and are whole copy chunks
      // (16-byte rows of FP8, 32 values of FP4/FP6) and whole MFMA steps.
      int64_t multiple = getTileKMultiple(query->operands);
      if (!chosen && query->scaleBlockK < query->k &&
          query->scaleBlockK % multiple != 0)
        return op->emitOpError("qmm-select-config: scale blocks of ")
               << query->scaleBlockK << " along K are not a multiple of "
               << multiple << ": no K tile of the AMD pipeline fits inside one";
      if (!chosen)
        return op->emitOpError("qmm-select-config: no configuration on ")
               << target.name << " reads " << query->operands.a << " x "
               << query->operands.b
               << (query->operands.mxScales ? " with MX scales" : "")
               << " (run qmm-legalize-for-chip first)";
      op->setAttr("config", chosen);
    }
    return verifyConfigForMatmul(current(), target, *query,
                                 [&]() { return op->emitOpError(); });
  }
};
} // namespace
