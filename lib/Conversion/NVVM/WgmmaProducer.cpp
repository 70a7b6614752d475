//===- WgmmaProducer.cpp - the wgmma kernel's TMA producer ----------------===//
//
// Part of qmm-lower-matmul-to-wgmma: the producer warpgroup's thread,
// which copies each K tile of A and B into the ring with TMA, and the
// ring's `empty` mbarriers it waits on (driven by PTX of the kernel's own,
// so that a cluster's consumers can release the stages of every block).
// With a dynamic schedule it takes the block's work items from the
// ticket drawer (WgmmaTicketDrawer.cpp) and tells the consumers each
// stage's item.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

Value WgmmaKernelBuilder::getRingTailAddress(ImplicitLocOpBuilder &b,
                                             Value offset) {
  Value address = arith::AddIOp::create(
      b, ringAddress,
      arith::IndexCastOp::create(
          b, b.getI64Type(),
          arith::AddIOp::create(
              b, constant(b, tiling.stages * tiling.stageBytes()), offset)));
  return arith::TruncIOp::create(b, b.getI32Type(), address);
}

Value WgmmaKernelBuilder::getEmptyBarrierAddress(ImplicitLocOpBuilder &b,
                                                 Value stage) {
  return getRingTailAddress(b, arith::MulIOp::create(b, stage, constant(b, 8)));
}

void WgmmaKernelBuilder::waitParity(ImplicitLocOpBuilder &b, Value address,
                                    Value parity) {
  // The braces scope the label to this copy of the loop.
  emitPtx(b,
          "{ .reg .pred done; wait_phase: mbarrier.try_wait.parity."
          "shared::cta.b64 done, [$0], $1; @!done bra wait_phase; }",
          "r,r", {address, arith::ExtUIOp::create(b, b.getI32Type(), parity)});
}

Value WgmmaKernelBuilder::waitEmpty(ImplicitLocOpBuilder &b,
                                    Value iteration) {
  auto [stage, roundParity] = getRingPosition(b, iteration);
  // A stage is free once the consumers released its previous round; the
  // first round finds every stage free (waiting for the parity of the phase
  // before a fresh barrier's first one returns at once).
  Value parity = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                       roundParity, constant(b, 0));
  waitParity(b, getEmptyBarrierAddress(b, stage), parity);
  return stage;
}

void WgmmaKernelBuilder::releaseEmpty(ImplicitLocOpBuilder &b, Value stage) {
  Value address = getEmptyBarrierAddress(b, stage);
  if (!clustered()) {
    emitPtx(b, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r", {address});
    return;
  }
  // The same barrier of each block of the cluster (mapa: its address in
  // that block's shared memory). The arrival keeps the default semantics
  // (release at CTA scope), as CUTLASS's cluster pipelines do: what it
  // orders is this warp's wgmma reads, complete after the wait, before
  // TMA's writes; release at cluster scope would also wait for the
  // previous tile's global stores, on every K tile.
  for (int64_t rank = 0; rank < tiling.clusterRows; ++rank)
    emitPtx(b,
            "{ .reg .b32 remote; mapa.shared::cluster.u32 remote, $0, $1; "
            "mbarrier.arrive.shared::cluster.b64 _, [remote]; }",
            "r,r",
            {address,
             arith::ConstantIntOp::create(b, b.getI32Type(), rank)});
}

void WgmmaKernelBuilder::buildProducerLoop(ImplicitLocOpBuilder &b) {
  if (!schedule.dynamic) {
    buildTileLoop(b, ValueRange(), [&](ImplicitLocOpBuilder &b, ValueRange) {
      buildProducer(b);
      return SmallVector<Value>();
    });
    return;
  }
  // The next item is taken after the item's last copy is issued (the
  // ticket drawer has drawn it long before).
  SmallVector<Value> results = buildDynamicTileLoop(
      b, ValueRange(), [&](ImplicitLocOpBuilder &b, ValueRange) {
        buildProducer(b);
        return SmallVector<Value>{takeNextItem(b, takenItems)};
      });
  finishDynamicProducer(b, results[0], results[1]);
}

void WgmmaKernelBuilder::buildProducer(ImplicitLocOpBuilder &b) {
  Value c0 = constant(b, 0), c1 = constant(b, 1);
  auto loop = scf::ForOp::create(b, c0, itemKTiles, c1);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value iteration = arith::AddIOp::create(b, firstIteration, kt);
  Value stage = waitEmpty(b, iteration);
  // The stage's item, for the consumers that wait for it (they read it at
  // an item's first stage; before the arrival, which releases it).
  if (schedule.dynamic)
    emitPtx(b, "st.shared.u32 [$0], $1;", "r,r",
            {getItemSlotAddress(b, stage),
             arith::IndexCastUIOp::create(b, b.getI32Type(), tileItem)});
  // The stage's bytes: A's tile and all of B's, whose parts the cluster's
  // blocks multicast.
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, fullBarriers, constant(b, tiling.stageBytes()), stage, Value());
  // TMA coordinates are innermost first: (k, row).
  Value kOffset = arith::MulIOp::create(
      b, arith::AddIOp::create(b, itemKBegin, kt), constant(b, tiling.tileK));
  nvgpu::TmaAsyncLoadOp::create(b, aTileAt(b, stage), fullBarriers,
                                tensorMapA, ValueRange{kOffset, blockRow},
                                stage, Value(), Value());
  // This block's part of B's tile (all of it without a cluster), written
  // into every block of the cluster, completing on each one's `full`.
  Value bRow = blockColumn;
  Value multicastMask;
  if (clustered()) {
    bRow = arith::AddIOp::create(
        b, blockColumn,
        arith::MulIOp::create(b, clusterRank,
                              constant(b, tiling.tileN / tiling.clusterRows)));
    multicastMask = arith::ConstantIntOp::create(
        b, b.getI16Type(), (int64_t(1) << tiling.clusterRows) - 1);
  }
  nvgpu::TmaAsyncLoadOp::create(b, bTileAt(b, stage), fullBarriers,
                                tensorMapB, ValueRange{kOffset, bRow}, stage,
                                multicastMask, Value());
  b.setInsertionPointAfter(loop);
}

