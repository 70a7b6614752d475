//===- LowerWaveStore.cpp - qmm.wave_store to masked vector stores --------===//
//
// Stage 7 of the AMD pipeline, the epilogue: a wave's f32 accumulators are
// converted to the output type and stored, 4 consecutive columns of a row
// per vector store, masked past the matrix.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERWAVESTORE
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {
/// The epilogue of one qmm.wave_store at one position: f32 values (one, or
/// 4 consecutive columns of a row) become the output and, with `aux`, the
/// pre-activation.
struct Epilogue {
  WaveStoreOp op;
  Location loc;

  /// `value` at [row, col...] of the output: plus C (accumulate) and
  /// bias[col...], written to aux, then the activation, converted and
  /// stored.
  void store(OpBuilder &b, Value value, Value row, Value col) {
    Type f32 = b.getF32Type();
    auto vecType = dyn_cast<VectorType>(value.getType());
    // Loads `count` values of `memref` at `indices` as f32.
    auto loadF32 = [&](Value memref, ValueRange indices) -> Value {
      Type element = cast<MemRefType>(memref.getType()).getElementType();
      Value loaded;
      if (vecType)
        loaded = vector::LoadOp::create(b, loc, vecType.clone(element), memref,
                                        indices);
      else
        loaded = memref::LoadOp::create(b, loc, memref, indices);
      if (element == f32)
        return loaded;
      return arith::ExtFOp::create(b, loc, vecType ? Type(vecType) : f32,
                                   loaded);
    };
    // Converts f32 `v` to `memref`'s element type and stores it.
    auto storeAs = [&](Value v, Value memref) {
      Type element = cast<MemRefType>(memref.getType()).getElementType();
      if (element != f32)
        v = arith::TruncFOp::create(
            b, loc, vecType ? Type(vecType.clone(element)) : element, v);
      if (vecType)
        vector::StoreOp::create(b, loc, v, memref, ValueRange{row, col});
      else
        memref::StoreOp::create(b, loc, v, memref, ValueRange{row, col});
    };
    if (op.getAccumulate())
      value = arith::AddFOp::create(b, loc, value,
                                    loadF32(op.getOut(), ValueRange{row, col}));
    if (Value bias = op.getBias())
      value = arith::AddFOp::create(b, loc, value, loadF32(bias, col));
    if (Value aux = op.getAux())
      storeAs(value, aux);
    storeAs(createActivation(b, loc, value, op.getActivation()), op.getOut());
  }
};
} // namespace

static void lowerWaveStore(OpBuilder &b, WaveStoreOp op, const ChipInfo &chip) {
  // Each group of 4 accumulator items is 4 consecutive columns of one row:
  // one vector store when they are all inside the matrix, element stores
  // at the right edge, nothing below the last row.
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  AccumulatorLayout layout{op.getConfig(), chip.waveSize};
  Epilogue epilogue{op, loc};
  int64_t m = op.getOut().getType().getDimSize(0);
  int64_t n = op.getOut().getType().getDimSize(1);
  Value lane = im.lane(chip.waveSize);
  for (int64_t rm = 0; rm < op.getConfig().getMfmaRepeatsM(); ++rm) {
    Value row = im.add(op.getRow(), layout.row(im, lane, rm));
    for (int64_t rn = 0; rn < op.getConfig().getMfmaRepeatsN(); ++rn) {
      Value tile = op.getAcc()[layout.index(rm, rn)];
      for (int64_t first = 0; first < layout.items(); first += 4) {
        Value col = im.add(op.getCol(), layout.col(im, lane, rn, first));
        // A shuffle, not extract_strided_slice: it lowers directly to LLVM.
        Value quad = vector::ShuffleOp::create(
            b, loc, tile, tile,
            ArrayRef<int64_t>{first, first + 1, first + 2, first + 3});
        Value rowOk = im.lt(row, m);
        if (Value valid = op.getValidRows())
          rowOk = arith::AndIOp::create(
              b, loc, rowOk,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                    valid));
        auto rowInside = scf::IfOp::create(b, loc, rowOk, false);
        OpBuilder rowB = rowInside.getThenBodyBuilder();
        if (Value groups = op.getRowGroups()) {
          // Padding rows of a contiguous grouped matmul keep their values.
          Value group = memref::LoadOp::create(rowB, loc, groups, row);
          auto notPadding = scf::IfOp::create(
              rowB, loc,
              arith::CmpIOp::create(
                  rowB, loc, arith::CmpIPredicate::sge, group,
                  arith::ConstantOp::create(rowB, loc,
                                            rowB.getI32IntegerAttr(0))),
              false);
          rowB = notPadding.getThenBodyBuilder();
        }
        IndexMath rim{rowB, loc};
        Value fits = n >= 4 ? rim.lt(col, n - 3) : rim.boolean(false);
        auto whole = scf::IfOp::create(rowB, loc, fits,
                                       /*withElseRegion=*/true);
        OpBuilder vecB = whole.getThenBodyBuilder();
        epilogue.store(vecB, quad, row, col);
        OpBuilder edgeB = whole.getElseBodyBuilder();
        IndexMath eim{edgeB, loc};
        for (int64_t j = 0; j < 4; ++j) {
          Value c = eim.add(col, j);
          auto inside = scf::IfOp::create(edgeB, loc, eim.lt(c, n), false);
          OpBuilder elemB = inside.getThenBodyBuilder();
          epilogue.store(elemB, vector::ExtractOp::create(elemB, loc, quad, j),
                         row, c);
        }
      }
    }
  }
}

namespace {
struct QMMLowerWaveStorePass
    : public qmm::impl::QMMLowerWaveStoreBase<QMMLowerWaveStorePass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = lookupChip(chip);
    if (!target) {
      getOperation()->emitError("qmm-lower-wave-store: unknown chip '")
          << chip << "' (expected " << getSupportedChipNames() << ")";
      return signalPassFailure();
    }
    WalkResult result = getOperation()->walk([&](WaveStoreOp op) {
      if (!op.getOut().getType().hasStaticShape()) {
        op.emitOpError("qmm-lower-wave-store: needs an output of static "
                       "shape");
        return WalkResult::interrupt();
      }
      OpBuilder b(op);
      lowerWaveStore(b, op, *target);
      op.erase();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The activations' tanh and erf become polynomials in f32: the kernels
    // call no device math library, and the emulator runs what the chip
    // runs.
    SmallVector<Operation *> special;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::TanhOp, math::ErfOp>(op))
        special.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateTanhPattern(patterns);
    populatePolynomialApproximateErfPattern(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(special, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
