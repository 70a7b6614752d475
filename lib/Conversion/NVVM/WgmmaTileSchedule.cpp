//===- WgmmaTileSchedule.cpp - the wgmma kernel's persistent loop ---------===//
//
// Part of qmm-lower-matmul-to-wgmma: the loop in which the persistent
// blocks walk their work items (the plan's TileSchedule: units of tiles in
// raster order, clusters, the Stream-K parts of a small last round), or a
// dynamic schedule's loop over the items its blocks draw. Each item is
// handed to the loop's body as a WorkTile.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

void TileScheduler::buildLoop(ImplicitLocOpBuilder &b, ValueRange initial,
                              Body body) const {
  const WgmmaPlan &plan = spec.plan;
  const TileSchedule &schedule = plan.schedule;
  // The loop walks units of `clusterRows` tiles of one column, one unit
  // per cluster at a time; a block takes its rank's tile of the unit.
  Value cluster = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value clusters = gpu::GridDimOp::create(b, gpu::Dimension::x);
  if (plan.clustered()) {
    Value rows = constant(b, plan.tiling.clusterRows);
    cluster = arith::DivUIOp::create(b, cluster, rows);
    clusters = arith::DivUIOp::create(b, clusters, rows);
  }
  Value itemCount = constant(b, schedule.items());
  Value kTiles = constant(b, plan.kTiles);
  auto loop = scf::ForOp::create(b, cluster, itemCount, clusters, initial);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  WorkTile tile;
  tile.item = loop.getInductionVar();
  tile.hasNext = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ult,
      arith::AddIOp::create(b, tile.item, clusters), itemCount);
  // Only a block's last item can be a part: the ones before are whole.
  tile.taken = arith::DivUIOp::create(
      b, arith::SubIOp::create(b, tile.item, cluster), clusters);
  tile.firstIteration = arith::MulIOp::create(b, tile.taken, kTiles);
  Value unit = tile.item;
  tile.kBegin = constant(b, 0);
  tile.kTiles = kTiles;
  if (schedule.isSplit()) {
    // Part p (item wholeUnits + p): K tiles [p' K / s, (p' + 1) K / s) of
    // tile wholeUnits + p / s, with p' = p mod s.
    Value wholeUnits = constant(b, schedule.wholeUnits);
    Value parts = constant(b, schedule.parts);
    tile.isPart = arith::CmpIOp::create(b, arith::CmpIPredicate::uge,
                                        tile.item, wholeUnits);
    tile.partItem = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, tile.item, wholeUnits), wholeUnits);
    Value part = arith::RemUIOp::create(b, tile.partItem, parts);
    auto kBoundary = [&](Value index) -> Value {
      return arith::DivUIOp::create(b, arith::MulIOp::create(b, index, kTiles),
                                    parts);
    };
    Value begin = kBoundary(part);
    Value end = kBoundary(arith::AddIOp::create(b, part, constant(b, 1)));
    unit = arith::SelectOp::create(
        b, tile.isPart,
        arith::AddIOp::create(b, wholeUnits,
                              arith::DivUIOp::create(b, tile.partItem, parts)),
        tile.item);
    tile.kBegin = arith::SelectOp::create(b, tile.isPart, begin, tile.kBegin);
    tile.kTiles = arith::SelectOp::create(
        b, tile.isPart, arith::SubIOp::create(b, end, begin), kTiles);
  }
  setCoordinates(b, unit, tile);
  SmallVector<Value> next = body(b, tile, loop.getRegionIterArgs());
  // Without loop-carried values, scf.for's builder made the yield.
  if (!initial.empty())
    scf::YieldOp::create(b, next);
}

SmallVector<Value> TileScheduler::buildDynamicLoop(ImplicitLocOpBuilder &b,
                                                   ValueRange initial,
                                                   Body body) const {
  Value itemCount = constant(b, spec.plan.schedule.items());
  Value kTiles = constant(b, spec.plan.kTiles);
  SmallVector<Value> inits = {gpu::BlockIdOp::create(b, gpu::Dimension::x),
                              constant(b, 0)};
  llvm::append_range(inits, initial);
  auto loop = scf::WhileOp::create(
      b, ValueRange(inits).getTypes(), inits,
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        ImplicitLocOpBuilder before(loc, builder);
        Value more = arith::CmpIOp::create(before, arith::CmpIPredicate::ult,
                                           arguments[0], itemCount);
        scf::ConditionOp::create(before, more, arguments);
      },
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        ImplicitLocOpBuilder after(loc, builder);
        WorkTile tile;
        tile.item = arguments[0];
        tile.taken = arguments[1];
        // Unsplit: every item is a whole unit of K tiles.
        tile.firstIteration = arith::MulIOp::create(after, tile.taken, kTiles);
        tile.kBegin = constant(after, 0);
        tile.kTiles = kTiles;
        setCoordinates(after, tile.item, tile);
        SmallVector<Value> next = body(after, tile, arguments.drop_front(2));
        SmallVector<Value> yielded = {
            next.front(),
            arith::AddIOp::create(after, tile.taken, constant(after, 1))};
        llvm::append_range(yielded, ArrayRef(next).drop_front());
        scf::YieldOp::create(after, yielded);
      });
  return SmallVector<Value>(loop.getResults());
}

void TileScheduler::setCoordinates(ImplicitLocOpBuilder &b, Value unit,
                                   WorkTile &tile) const {
  const WgmmaPlan &plan = spec.plan;
  // Grouped order: `rasterRows` rows of tiles, column by column, so that
  // the blocks running at once share A's and B's tiles in L2.
  Value perGroup = constant(b, plan.rasterUnits * plan.tileColumns);
  Value group = arith::DivUIOp::create(b, unit, perGroup);
  Value groupFirstRow =
      arith::MulIOp::create(b, group, constant(b, plan.rasterUnits));
  Value groupRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, constant(b, plan.unitRows), groupFirstRow),
      constant(b, plan.rasterUnits));
  Value inGroup = arith::RemUIOp::create(b, unit, perGroup);
  Value unitRow = arith::AddIOp::create(
      b, groupFirstRow, arith::RemUIOp::create(b, inGroup, groupRows));
  Value tileColumn = arith::DivUIOp::create(b, inGroup, groupRows);
  Value tileRow = unitRow;
  if (plan.clustered())
    tileRow = arith::AddIOp::create(
        b,
        arith::MulIOp::create(b, unitRow, constant(b, plan.tiling.clusterRows)),
        clusterRank);
  tile.blockRow =
      arith::MulIOp::create(b, tileRow, constant(b, plan.tiling.tileM));
  tile.blockColumn =
      arith::MulIOp::create(b, tileColumn, constant(b, plan.tiling.tileN));
  if (!rowGroups)
    return;
  // A grouped matmul's segments are 128-row aligned, so the tile's rows
  // are its first row's group's or padding (-1). A tile of padding computes
  // with group 0's B and stores nothing; a group index past B's (which the
  // op's contract excludes) reads the last group's rather than outside B.
  Value first = memref::LoadOp::create(b, rowGroups, tile.blockRow);
  Type i32 = first.getType();
  Value clamped = arith::MinSIOp::create(
      b,
      arith::MaxSIOp::create(b, first, arith::ConstantIntOp::create(b, i32, 0)),
      arith::ConstantIntOp::create(
          b, i32,
          cast<MemRefType>(spec.op.b.getType()).getDimSize(0) - 1));
  tile.group = arith::IndexCastOp::create(b, b.getIndexType(), clamped);
}
