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

Value wgmma::loadMaskedGroupRows(ImplicitLocOpBuilder &b,
                                 const KernelSpec &spec, Value groupLayout,
                                 Value group) {
  Value count = memref::LoadOp::create(b, groupLayout, group);
  Type i32 = count.getType();
  // A count outside [0, Mmax] (which the op's contract excludes) reads as
  // the nearest bound.
  Value clamped = arith::MinSIOp::create(
      b,
      arith::MaxSIOp::create(b, count, arith::ConstantIntOp::create(b, i32, 0)),
      arith::ConstantIntOp::create(b, i32, spec.op.groupRows));
  return arith::IndexCastOp::create(b, b.getIndexType(), clamped);
}

Value TileScheduler::getMaskedGroupTileRows(ImplicitLocOpBuilder &b,
                                            Value group) const {
  Value rows = loadMaskedGroupRows(b, spec, groupLayout, group);
  Value tileM = constant(b, spec.tiling().tileM);
  return arith::DivUIOp::create(
      b, arith::AddIOp::create(b, rows, constant(b, spec.tiling().tileM - 1)),
      tileM);
}

Value TileScheduler::getUnitRows(ImplicitLocOpBuilder &b) const {
  const WgmmaPlan &plan = spec.plan;
  if (!plan.runtimeRows || plan.oneTileRow)
    return constant(b, plan.unitRows);
  return arith::CeilDivUIOp::create(b, rows, constant(b, plan.tiling.tileM));
}

Value TileScheduler::getItemCount(ImplicitLocOpBuilder &b) const {
  const WgmmaPlan &plan = spec.plan;
  if (plan.runtimeRows && !plan.oneTileRow)
    return arith::MulIOp::create(b, getUnitRows(b),
                                 constant(b, plan.tileColumns));
  if (!plan.maskedGroups)
    return constant(b, plan.schedule.items());
  return loadGroupTable(b, constant(b, plan.maskedGroups));
}

Value TileScheduler::loadGroupTable(ImplicitLocOpBuilder &b,
                                    Value index) const {
  return arith::IndexCastUIOp::create(
      b, b.getIndexType(), memref::LoadOp::create(b, groupTable, index));
}

void TileScheduler::fillGroupTable(ImplicitLocOpBuilder &b, Value threadId,
                                   int64_t threads) const {
  // Thread t sums the items of groups 0 .. e - 1 for entries e = t,
  // t + threads, ...: a loop over the counts once per launch, where the
  // blocks used to walk them per tile.
  int64_t entries = spec.plan.maskedGroups + 1;
  Value tileColumns = constant(b, spec.plan.tileColumns);
  auto entryLoop = scf::ForOp::create(b, threadId, constant(b, entries),
                                      constant(b, threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entryLoop.getBody());
  Value entry = entryLoop.getInductionVar();
  auto sumLoop = scf::ForOp::create(b, constant(b, 0), entry, constant(b, 1),
                                    ValueRange{constant(b, 0)});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(sumLoop.getBody());
    Value tileRows = getMaskedGroupTileRows(b, sumLoop.getInductionVar());
    scf::YieldOp::create(
        b, ValueRange{arith::AddIOp::create(
               b, sumLoop.getRegionIterArgs()[0],
               arith::MulIOp::create(b, tileRows, tileColumns))});
  }
  Value items = arith::IndexCastUIOp::create(b, b.getI32Type(),
                                             sumLoop.getResult(0));
  memref::StoreOp::create(b, items, groupTable, entry);
}

Value TileScheduler::inClusters(ImplicitLocOpBuilder &b, Value blocks) const {
  if (!spec.plan.clustered())
    return blocks;
  return arith::DivUIOp::create(b, blocks,
                                constant(b, spec.plan.tiling.clusterBlocks()));
}

WorkTile TileScheduler::getTile(ImplicitLocOpBuilder &b, Value item,
                                Value taken) const {
  const WgmmaPlan &plan = spec.plan;
  const TileSchedule &schedule = plan.schedule;
  Value kTiles = constant(b, plan.kTiles);
  WorkTile tile;
  tile.item = item;
  tile.taken = taken;
  // Only a block's last item can be a part: the ones before are whole.
  tile.firstIteration = arith::MulIOp::create(b, taken, kTiles);
  Value unit = item;
  tile.kBegin = constant(b, 0);
  tile.kTiles = kTiles;
  if (schedule.isSplit()) {
    // Part p (item wholeUnits + p): K tiles [p' K / s, (p' + 1) K / s) of
    // tile wholeUnits + p / s, with p' = p mod s.
    Value wholeUnits = constant(b, schedule.wholeUnits);
    Value parts = constant(b, schedule.parts);
    tile.isPart =
        arith::CmpIOp::create(b, arith::CmpIPredicate::uge, item, wholeUnits);
    tile.partItem = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, item, wholeUnits), wholeUnits);
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
        item);
    tile.kBegin = arith::SelectOp::create(b, tile.isPart, begin, tile.kBegin);
    tile.kTiles = arith::SelectOp::create(
        b, tile.isPart, arith::SubIOp::create(b, end, begin), kTiles);
  }
  if (plan.maskedGroups)
    setMaskedCoordinates(b, unit, tile);
  else
    setCoordinates(b, unit, tile);
  return tile;
}

bool TileScheduler::skipsPadding() const {
  return groupLayout && !spec.op.masked && !spec.plan.schedule.dynamic;
}

Value TileScheduler::skipPaddingTiles(ImplicitLocOpBuilder &b, Value item,
                                      Value stride, Value itemCount) const {
  if (!skipsPadding())
    return item;
  Type index = b.getIndexType();
  auto loop = scf::WhileOp::create(
      b, TypeRange{index}, ValueRange{item},
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        ImplicitLocOpBuilder before(loc, builder);
        Value candidate = arguments[0];
        Value inRange = arith::CmpIOp::create(before, arith::CmpIPredicate::ult,
                                              candidate, itemCount);
        // The layout is read only for an item in range.
        auto padding = scf::IfOp::create(before, TypeRange{before.getI1Type()},
                                         inRange, /*withElse=*/true);
        {
          ImplicitLocOpBuilder then(loc, padding.getThenBodyBuilder());
          scf::YieldOp::create(
              then, ValueRange{
                        getTile(then, candidate, constant(then, 0)).isPadding});
          ImplicitLocOpBuilder otherwise(loc, padding.getElseBodyBuilder());
          scf::YieldOp::create(otherwise,
                               ValueRange{arith::ConstantIntOp::create(
                                   otherwise, otherwise.getI1Type(), 0)});
        }
        scf::ConditionOp::create(before, padding.getResult(0), arguments);
      },
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        ImplicitLocOpBuilder after(loc, builder);
        scf::YieldOp::create(after, ValueRange{arith::AddIOp::create(
                                        after, arguments[0], stride)});
      });
  return loop.getResult(0);
}

Value TileScheduler::getFirstItem(ImplicitLocOpBuilder &b,
                                  Value itemCount) const {
  // (A dynamic schedule's first item is the block's index, as a static
  // one's is its cluster's: dynamic schedules have no clusters.)
  Value item = inClusters(b, gpu::BlockIdOp::create(b, gpu::Dimension::x));
  return skipPaddingTiles(
      b, item, inClusters(b, gpu::GridDimOp::create(b, gpu::Dimension::x)),
      itemCount);
}

WorkTile TileScheduler::getFirstTile(ImplicitLocOpBuilder &b,
                                     Value firstItem) const {
  if (!firstItem)
    firstItem =
        skipsPadding()
            ? getFirstItem(b, getItemCount(b))
            : inClusters(b, gpu::BlockIdOp::create(b, gpu::Dimension::x));
  return getTile(b, firstItem, constant(b, 0));
}

WorkTile TileScheduler::getNextTile(ImplicitLocOpBuilder &b,
                                    const WorkTile &tile,
                                    Value nextItem) const {
  if (!nextItem)
    nextItem = tile.nextItem;
  if (!nextItem)
    nextItem = arith::AddIOp::create(
        b, tile.item,
        inClusters(b, gpu::GridDimOp::create(b, gpu::Dimension::x)));
  return getTile(b, nextItem,
                 arith::AddIOp::create(b, tile.taken, constant(b, 1)));
}

void TileScheduler::buildLoop(ImplicitLocOpBuilder &b, ValueRange initial,
                              Body body, Value itemCount,
                              Value firstItem) const {
  // The loop walks units of a cluster's tiles (`clusterRows` of one
  // column or `clusterColumns` of one row), one unit per cluster at a
  // time; a block takes its rank's tile of the unit.
  Value cluster = inClusters(b, gpu::BlockIdOp::create(b, gpu::Dimension::x));
  Value clusters = inClusters(b, gpu::GridDimOp::create(b, gpu::Dimension::x));
  if (!itemCount)
    itemCount = getItemCount(b);
  if (skipsPadding())
    return buildSkippingLoop(b, initial, body, itemCount, clusters,
                             firstItem ? firstItem
                                       : getFirstItem(b, itemCount));
  auto loop = scf::ForOp::create(b, cluster, itemCount, clusters, initial);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value item = loop.getInductionVar();
  WorkTile tile =
      getTile(b, item,
              arith::DivUIOp::create(b, arith::SubIOp::create(b, item, cluster),
                                     clusters));
  tile.hasNext = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                       arith::AddIOp::create(b, item, clusters),
                                       itemCount);
  SmallVector<Value> next = body(b, tile, loop.getRegionIterArgs());
  // Without loop-carried values, scf.for's builder made the yield.
  if (!initial.empty())
    scf::YieldOp::create(b, next);
}

SmallVector<Value> TileScheduler::buildItemLoop(ImplicitLocOpBuilder &b,
                                                Value firstItem,
                                                Value itemCount,
                                                ValueRange initial,
                                                ItemStep step) const {
  SmallVector<Value> inits = {firstItem, constant(b, 0)};
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
        WorkTile tile = getTile(after, arguments[0], arguments[1]);
        auto [nextItem, next] = step(after, tile, arguments.drop_front(2));
        SmallVector<Value> yielded = {
            nextItem,
            arith::AddIOp::create(after, tile.taken, constant(after, 1))};
        llvm::append_range(yielded, next);
        scf::YieldOp::create(after, yielded);
      });
  return SmallVector<Value>(loop.getResults());
}

void TileScheduler::buildSkippingLoop(ImplicitLocOpBuilder &b,
                                      ValueRange initial, Body body,
                                      Value itemCount, Value clusters,
                                      Value firstItem) const {
  // (Tiles of padding are not taken: the ring's iterations skip them.)
  buildItemLoop(b, firstItem, itemCount, initial,
                [&](ImplicitLocOpBuilder &b, WorkTile &tile,
                    ValueRange carried) -> ItemStepResult {
                  tile.nextItem = skipPaddingTiles(
                      b, arith::AddIOp::create(b, tile.item, clusters),
                      clusters, itemCount);
                  tile.hasNext = arith::CmpIOp::create(
                      b, arith::CmpIPredicate::ult, tile.nextItem, itemCount);
                  return {tile.nextItem, body(b, tile, carried)};
                });
}

SmallVector<Value> TileScheduler::buildDynamicLoop(ImplicitLocOpBuilder &b,
                                                   ValueRange initial,
                                                   Body body) const {
  // Unsplit: every item is a whole unit of K tiles. The body returns the
  // item it drew first.
  return buildItemLoop(
      b, gpu::BlockIdOp::create(b, gpu::Dimension::x),
      constant(b, spec.plan.schedule.items()), initial,
      [&](ImplicitLocOpBuilder &b, WorkTile &tile,
          ValueRange carried) -> ItemStepResult {
        SmallVector<Value> next = body(b, tile, carried);
        return {next.front(), SmallVector<Value>(ArrayRef(next).drop_front())};
      });
}

void TileScheduler::setCoordinates(ImplicitLocOpBuilder &b, Value unit,
                                   WorkTile &tile) const {
  const WgmmaPlan &plan = spec.plan;
  // Grouped order: `rasterRows` rows of tiles, column by column, so that
  // the blocks running at once share A's and B's tiles in L2.
  Value perGroup = constant(b, plan.rasterUnits * plan.unitColumns);
  Value group = arith::DivUIOp::create(b, unit, perGroup);
  Value groupFirstRow =
      arith::MulIOp::create(b, group, constant(b, plan.rasterUnits));
  Value groupRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, getUnitRows(b), groupFirstRow),
      constant(b, plan.rasterUnits));
  Value inGroup = arith::RemUIOp::create(b, unit, perGroup);
  Value unitRow = arith::AddIOp::create(
      b, groupFirstRow, arith::RemUIOp::create(b, inGroup, groupRows));
  Value unitColumn = arith::DivUIOp::create(b, inGroup, groupRows);
  // A block takes its rank's tile of the unit: of its column's tiles
  // where the cluster shares B, of its row's where it shares A.
  auto rankTile = [&](Value unitIndex, int64_t unitTiles) -> Value {
    if (unitTiles == 1)
      return unitIndex;
    return arith::AddIOp::create(
        b, arith::MulIOp::create(b, unitIndex, constant(b, unitTiles)),
        clusterRank);
  };
  Value tileRow = rankTile(unitRow, plan.tiling.clusterRows);
  Value tileColumn = rankTile(unitColumn, plan.tiling.clusterColumns);
  tile.blockRow =
      arith::MulIOp::create(b, tileRow, constant(b, plan.tiling.tileM));
  tile.blockColumn =
      arith::MulIOp::create(b, tileColumn, constant(b, plan.tiling.tileN));
  if (!groupLayout || spec.op.masked)
    return;
  // A grouped matmul's segments are 128-row aligned, so the tile's rows
  // are its first row's group's or padding (-1). A tile of padding computes
  // with group 0's B and stores nothing; a group index past B's (which the
  // op's contract excludes) reads the last group's rather than outside B.
  Value first = memref::LoadOp::create(b, groupLayout, tile.blockRow);
  Type i32 = first.getType();
  tile.isPadding =
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, first,
                            arith::ConstantIntOp::create(b, i32, 0));
  Value clamped = arith::MinSIOp::create(
      b,
      arith::MaxSIOp::create(b, first, arith::ConstantIntOp::create(b, i32, 0)),
      arith::ConstantIntOp::create(
          b, i32,
          cast<MemRefType>(spec.op.b.getType()).getDimSize(0) - 1));
  tile.group = arith::IndexCastOp::create(b, b.getIndexType(), clamped);
}

void TileScheduler::setMaskedCoordinates(ImplicitLocOpBuilder &b, Value item,
                                         WorkTile &tile) const {
  const WgmmaPlan &plan = spec.plan;
  int64_t groups = plan.maskedGroups;
  // The item's group: the last whose first item is at most the item (the
  // table does not decrease; a group without tiles shares its first item
  // with the next), by halving steps over groups 0 .. G - 1 (an item past
  // the last takes the last group).
  Value group = constant(b, 0);
  for (int64_t step = llvm::PowerOf2Ceil(groups) / 2; step > 0; step /= 2) {
    Value candidate = arith::MinUIOp::create(
        b, arith::AddIOp::create(b, group, constant(b, step)),
        constant(b, groups - 1));
    Value reached = arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                                          loadGroupTable(b, candidate), item);
    group = arith::SelectOp::create(b, reached, candidate, group);
  }
  Value first = loadGroupTable(b, group);
  Value end =
      loadGroupTable(b, arith::AddIOp::create(b, group, constant(b, 1)));
  // Past the last item (a next tile that does not exist): the group's
  // first tile; a group without tiles counts one tile row.
  Value inGroup =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, item, end);
  Value index = arith::SelectOp::create(
      b, inGroup, arith::SubIOp::create(b, item, first), constant(b, 0));
  Value tileRows = arith::MaxUIOp::create(
      b,
      arith::DivUIOp::create(b, arith::SubIOp::create(b, end, first),
                             constant(b, plan.tileColumns)),
      constant(b, 1));
  // Within the group, its tile rows first (column by column).
  Value tileRow = arith::RemUIOp::create(b, index, tileRows);
  Value tileColumn = arith::DivUIOp::create(b, index, tileRows);
  tile.group = group;
  tile.blockRow = arith::AddIOp::create(
      b, arith::MulIOp::create(b, group, constant(b, spec.op.groupRows)),
      arith::MulIOp::create(b, tileRow, constant(b, plan.tiling.tileM)));
  tile.blockColumn =
      arith::MulIOp::create(b, tileColumn, constant(b, plan.tiling.tileN));
}
