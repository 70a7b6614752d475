//===- WgmmaProducer.cpp - the wgmma kernel's TMA producer ----------------===//
//
// Part of qmm-lower-matmul-to-wgmma: the producer warpgroup's thread,
// which copies each K tile of A and B into the ring with TMA. With a
// dynamic schedule it takes the block's work items from the ticket queue
// (WgmmaTicketDrawer.cpp) and tells the consumers each stage's item.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

void Producer::build(ImplicitLocOpBuilder &b) const {
  if (!queue) {
    scheduler.buildLoop(
        b, ValueRange(),
        [&](ImplicitLocOpBuilder &b, const WorkTile &tile, ValueRange) {
          buildItem(b, tile);
          return SmallVector<Value>();
        });
    return;
  }
  // The next item is taken after the item's last copy is issued (the
  // ticket drawer has drawn it long before).
  SmallVector<Value> results = scheduler.buildDynamicLoop(
      b, ValueRange(),
      [&](ImplicitLocOpBuilder &b, const WorkTile &tile, ValueRange) {
        buildItem(b, tile);
        return SmallVector<Value>{queue->takeNextItem(b, tile.taken)};
      });
  finishDynamic(b, results[0], results[1]);
}

void Producer::buildItem(ImplicitLocOpBuilder &b,
                         const WorkTile &tile) const {
  const WgmmaTiling &tiling = spec.tiling();
  Value c0 = constant(b, 0), c1 = constant(b, 1);
  auto loop = scf::ForOp::create(b, c0, tile.kTiles, c1);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  RingState state = ring.getKTileState(b, tile, kt);
  ring.waitEmpty(b, state);
  Value stage = state.stage;
  // The stage's item, for the consumers that wait for it (they read it at
  // an item's first stage; before the arrival, which releases it).
  if (queue)
    queue->publishItem(b, stage, tile.item);
  // The stage's bytes: all of A's tile and B's, whose parts the cluster's
  // blocks multicast where shared, and this block's boxes of block scales.
  ring.arriveFull(b, stage,
                  constant(b, tiling.stageBytes() +
                                  tiling.aScaleBox.bytes() +
                                  tiling.bScaleBox.bytes()));
  // TMA coordinates are innermost first: (k, row).
  Value kOffset = arith::MulIOp::create(
      b, arith::AddIOp::create(b, tile.kBegin, kt), constant(b, tiling.tileK));
  loadScaleBoxes(b, tile, stage, kOffset);
  // This block's part of each operand's tile (all of it where the cluster
  // does not share the operand), written into every block of the cluster
  // where shared, completing on each one's `full`. A grouped matmul's
  // group g starts at row g N of B's [G N, K] map.
  Value bRow = tile.blockColumn;
  if (tile.group)
    bRow = arith::AddIOp::create(
        b, arith::MulIOp::create(b, tile.group, constant(b, spec.n)), bRow);
  loadTilePart(b, shared.getATile(b, stage, clusterRank), arguments.tensorMapA,
               kOffset, tile.blockRow, spec.getAPartRows(),
               tiling.clusterColumns, stage);
  loadTilePart(b, shared.getBTile(b, stage, clusterRank), arguments.tensorMapB,
               kOffset, bRow, spec.getBPartRows(), tiling.clusterRows, stage);
}

void Producer::loadTilePart(ImplicitLocOpBuilder &b, Value part,
                            Value tensorMap, Value kOffset, Value firstRow,
                            int64_t partRows, int64_t sharers,
                            Value stage) const {
  Value multicastMask;
  if (sharers > 1) {
    firstRow = arith::AddIOp::create(
        b, firstRow,
        arith::MulIOp::create(b, clusterRank, constant(b, partRows)));
    multicastMask = arith::ConstantIntOp::create(b, b.getI16Type(),
                                                 (int64_t(1) << sharers) - 1);
  }
  nvgpu::TmaAsyncLoadOp::create(b, part, ring.getFullBarriers(), tensorMap,
                                ValueRange{kOffset, firstRow}, stage,
                                multicastMask, Value());
}

void Producer::loadScaleBoxes(ImplicitLocOpBuilder &b, const WorkTile &tile,
                              Value stage, Value kOffset) const {
  const WgmmaTiling &tiling = spec.tiling();
  for (auto [map, box, isA] :
       {std::tuple{arguments.tensorMapAScales, &tiling.aScaleBox, true},
        {arguments.tensorMapBScales, &tiling.bScaleBox, false}}) {
    if (!box->present())
      continue;
    ScaleBoxPlace place =
        getScaleBoxPlace(b, spec, tile, *box, isA, kOffset);
    nvgpu::TmaAsyncLoadOp::create(b, shared.getScaleBox(b, stage, *box),
                                  ring.getFullBarriers(), map,
                                  place.coordinates, stage, Value(),
                                  Value());
  }
}

void Producer::finishDynamic(ImplicitLocOpBuilder &b, Value endItem,
                             Value takenItems) const {
  // The stage after the last item's K tiles, once free: its slot holds
  // the end, and its `full` phase completes by the producer's arrival
  // alone (no bytes expected).
  RingState state = ring.getState(
      b, arith::MulIOp::create(b, takenItems, constant(b, spec.plan.kTiles)));
  ring.waitEmpty(b, state);
  queue->publishItem(b, state.stage, endItem);
  ring.arriveFull(b, state.stage, constant(b, 0));
}
