//===- WgmmaTileSchedule.cpp - the wgmma kernel's persistent schedule -----===//
//
// Part of qmm-lower-matmul-to-wgmma: which work items the persistent
// blocks take (units of tiles in raster order, clusters, the Stream-K
// parts of a small last round) and the loop that walks them, or a
// dynamic schedule's loop over the items its blocks draw.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

TileSchedule wgmma::getTileSchedule(int64_t units, int64_t clusterRows,
                                    int64_t rasterUnits, int64_t kTiles,
                                    const NvidiaChipInfo &chip, bool streamK,
                                    int64_t maxBlocks, bool dynamic) {
  int64_t limit = maxBlocks > 0 ? std::min(maxBlocks, chip.multiprocessors)
                                : chip.multiprocessors;
  // The units that run at once: one per cluster of blocks.
  int64_t slots = std::max<int64_t>(1, limit / clusterRows);
  TileSchedule schedule;
  // Dynamic: every slot takes units as it frees up, so the blocks that
  // run faster take more and all multiprocessors work (no balancing).
  // Clustered blocks would have to draw their tickets together, and a
  // split last round is static by construction; one round has nothing
  // to hand out.
  if (dynamic && clusterRows == 1 && units > slots &&
      !getTileSchedule(units, clusterRows, rasterUnits, kTiles, chip,
                       streamK, maxBlocks, /*dynamic=*/false)
           .isSplit()) {
    schedule.blocks = slots;
    schedule.wholeUnits = units;
    schedule.dynamic = true;
    return schedule;
  }
  // Unsplit, the fewest blocks that take the units in as many rounds as
  // `slots` would, rounded up to whole columns of a raster group (at most
  // `slots`): 4096 tiles run 32 rounds on 128 blocks rather than 132, and
  // each round covers whole columns of 8 tile rows. On an H100 this
  // measured from 0.4% slower (8192^3 per-tensor) to 4% faster; 131
  // blocks (7168 tiles, unrounded) measured 2% slower than 132 (README).
  int64_t balancedSlots = std::min(
      slots, static_cast<int64_t>(llvm::alignTo(
                 llvm::divideCeil(units, llvm::divideCeil(units, slots)),
                 rasterUnits)));
  schedule.blocks = std::min(units, balancedSlots) * clusterRows;
  schedule.wholeUnits = units;
  // Clustered blocks take units together (they share B's tiles), so they
  // are not split.
  if (!streamK || clusterRows > 1)
    return schedule;
  int64_t rounds = units / slots, lastRound = units % slots;
  if (lastRound == 0 || 2 * lastRound > slots ||
      rounds > kMaxStreamKRounds || kTiles < kMinStreamKTileKTiles)
    return schedule;
  int64_t parts =
      std::min(slots / lastRound, kTiles / kMinStreamKPartKTiles);
  if (parts < 2)
    return schedule;
  schedule.wholeUnits = rounds * slots;
  schedule.splitTiles = lastRound;
  schedule.parts = parts;
  // Without whole rounds, one block per part.
  schedule.blocks = rounds ? slots : lastRound * parts;
  return schedule;
}

void WgmmaKernelBuilder::buildTileLoop(
    ImplicitLocOpBuilder &b, ValueRange initial,
    llvm::function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, ValueRange)>
        body) {
  // The loop walks units of `clusterRows` tiles of one column, one unit
  // per cluster at a time; a block takes its rank's tile of the unit.
  Value cluster = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value clusters = gpu::GridDimOp::create(b, gpu::Dimension::x);
  if (clustered()) {
    Value rows = constant(b, tiling.clusterRows);
    cluster = arith::DivUIOp::create(b, cluster, rows);
    clusters = arith::DivUIOp::create(b, clusters, rows);
  }
  Value itemCount = constant(b, schedule.items());
  auto loop = scf::ForOp::create(b, cluster, itemCount, clusters, initial);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value item = loop.getInductionVar();
  hasNextTile = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ult,
      arith::AddIOp::create(b, item, clusters), itemCount);
  // Only a block's last item can be a part: the ones before are whole.
  Value local = arith::DivUIOp::create(
      b, arith::SubIOp::create(b, item, cluster), clusters);
  firstIteration = arith::MulIOp::create(b, local, kTiles);
  Value unit = item;
  itemKBegin = constant(b, 0);
  itemKTiles = kTiles;
  if (schedule.isSplit()) {
    // Part p (item wholeUnits + p): K tiles [p' K / s, (p' + 1) K / s) of
    // tile wholeUnits + p / s, with p' = p mod s.
    Value wholeUnits = constant(b, schedule.wholeUnits);
    Value parts = constant(b, schedule.parts);
    isPart = arith::CmpIOp::create(b, arith::CmpIPredicate::uge, item,
                                   wholeUnits);
    partItem = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, item, wholeUnits), wholeUnits);
    Value part = arith::RemUIOp::create(b, partItem, parts);
    auto kBoundary = [&](Value index) -> Value {
      return arith::DivUIOp::create(b, arith::MulIOp::create(b, index, kTiles),
                                    parts);
    };
    Value begin = kBoundary(part);
    Value end = kBoundary(arith::AddIOp::create(b, part, constant(b, 1)));
    unit = arith::SelectOp::create(
        b, isPart,
        arith::AddIOp::create(b, wholeUnits,
                              arith::DivUIOp::create(b, partItem, parts)),
        item);
    itemKBegin = arith::SelectOp::create(b, isPart, begin, itemKBegin);
    itemKTiles = arith::SelectOp::create(
        b, isPart, arith::SubIOp::create(b, end, begin), kTiles);
  }
  setTileCoordinates(b, unit);
  SmallVector<Value> next = body(b, loop.getRegionIterArgs());
  // Without loop-carried values, scf.for's builder made the yield.
  if (!initial.empty())
    scf::YieldOp::create(b, next);
}

SmallVector<Value> WgmmaKernelBuilder::buildDynamicTileLoop(
    ImplicitLocOpBuilder &b, ValueRange initial,
    llvm::function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, ValueRange)>
        body) {
  Value itemCount = constant(b, schedule.items());
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
        tileItem = arguments[0];
        takenItems = arguments[1];
        Value taken = takenItems;
        // Unsplit: every item is a whole unit of K tiles.
        firstIteration = arith::MulIOp::create(after, taken, kTiles);
        itemKBegin = constant(after, 0);
        itemKTiles = kTiles;
        setTileCoordinates(after, tileItem);
        SmallVector<Value> next = body(after, arguments.drop_front(2));
        SmallVector<Value> yielded = {
            next.front(),
            arith::AddIOp::create(after, taken, constant(after, 1))};
        llvm::append_range(yielded, ArrayRef(next).drop_front());
        scf::YieldOp::create(after, yielded);
      });
  return SmallVector<Value>(loop.getResults());
}

void WgmmaKernelBuilder::setTileCoordinates(ImplicitLocOpBuilder &b,
                                            Value unit) {
  // Grouped order: `rasterRows` rows of tiles, column by column, so that
  // the blocks running at once share A's and B's tiles in L2.
  int64_t unitRows = llvm::divideCeil(m, tiling.tileM) / tiling.clusterRows;
  int64_t tileColumns = llvm::divideCeil(n, tiling.tileN);
  int64_t rasterUnits = getRasterUnits();
  Value perGroup = constant(b, rasterUnits * tileColumns);
  Value group = arith::DivUIOp::create(b, unit, perGroup);
  Value groupFirstRow =
      arith::MulIOp::create(b, group, constant(b, rasterUnits));
  Value groupRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, constant(b, unitRows), groupFirstRow),
      constant(b, rasterUnits));
  Value inGroup = arith::RemUIOp::create(b, unit, perGroup);
  Value unitRow = arith::AddIOp::create(
      b, groupFirstRow, arith::RemUIOp::create(b, inGroup, groupRows));
  Value tileColumn = arith::DivUIOp::create(b, inGroup, groupRows);
  Value tileRow = unitRow;
  if (clustered())
    tileRow = arith::AddIOp::create(
        b, arith::MulIOp::create(b, unitRow, constant(b, tiling.clusterRows)),
        clusterRank);
  blockRow = arith::MulIOp::create(b, tileRow, constant(b, tiling.tileM));
  blockColumn =
      arith::MulIOp::create(b, tileColumn, constant(b, tiling.tileN));
}

