//===- LowerWaveStore.cpp - qmm.wave_store to masked vector stores --------===//
//
// Stage 7 of the AMD pipeline, the epilogue: a wave's f32 accumulators are
// converted to the output type and stored, 4 consecutive columns of a row
// per vector store, masked past the matrix.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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

/// `value` (f32 elements) plus, when accumulating, what `out` holds at
/// [row, col...], converted to the output element type.
static Value finishOutput(OpBuilder &b, Location loc, Value value, Value out,
                          Value row, Value col, bool accumulate) {
  Type f32 = b.getF32Type();
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  auto vecType = dyn_cast<VectorType>(value.getType());
  if (accumulate) {
    Value c;
    if (vecType) {
      c = vector::LoadOp::create(b, loc, vecType.clone(outType), out,
                                 ValueRange{row, col});
      if (outType != f32)
        c = arith::ExtFOp::create(b, loc, vecType, c);
    } else {
      c = memref::LoadOp::create(b, loc, out, ValueRange{row, col});
      if (outType != f32)
        c = arith::ExtFOp::create(b, loc, f32, c);
    }
    value = arith::AddFOp::create(b, loc, value, c);
  }
  if (outType != f32)
    value = arith::TruncFOp::create(
        b, loc, vecType ? Type(vecType.clone(outType)) : outType, value);
  return value;
}

static void lowerWaveStore(OpBuilder &b, WaveStoreOp op, const ChipInfo &chip) {
  // Each group of 4 accumulator items is 4 consecutive columns of one row:
  // one vector store when they are all inside the matrix, element stores
  // at the right edge, nothing below the last row.
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  AccumulatorLayout layout{op.getConfig(), chip.waveSize};
  Value out = op.getOut();
  int64_t m = op.getOut().getType().getDimSize(0);
  int64_t n = op.getOut().getType().getDimSize(1);
  bool accumulate = op.getAccumulate();
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
        auto rowInside = scf::IfOp::create(b, loc, im.lt(row, m), false);
        OpBuilder rowB = rowInside.getThenBodyBuilder();
        IndexMath rim{rowB, loc};
        Value fits = n >= 4 ? rim.lt(col, n - 3) : rim.boolean(false);
        auto whole = scf::IfOp::create(rowB, loc, fits,
                                       /*withElseRegion=*/true);
        OpBuilder vecB = whole.getThenBodyBuilder();
        vector::StoreOp::create(
            vecB, loc, finishOutput(vecB, loc, quad, out, row, col, accumulate),
            out, ValueRange{row, col});
        OpBuilder edgeB = whole.getElseBodyBuilder();
        IndexMath eim{edgeB, loc};
        for (int64_t j = 0; j < 4; ++j) {
          Value c = eim.add(col, j);
          auto inside = scf::IfOp::create(edgeB, loc, eim.lt(c, n), false);
          OpBuilder elemB = inside.getThenBodyBuilder();
          Value v = vector::ExtractOp::create(elemB, loc, quad, j);
          memref::StoreOp::create(
              elemB, loc, finishOutput(elemB, loc, v, out, row, c, accumulate),
              out, ValueRange{row, c});
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
      signalPassFailure();
  }
};
} // namespace
