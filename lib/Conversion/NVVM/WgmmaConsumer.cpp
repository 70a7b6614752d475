//===- WgmmaConsumer.cpp - a consumer warpgroup's tile loop ---------------===//
//
// Part of qmm-lower-matmul-to-wgmma: a consumer warpgroup's persistent
// loop over its block's work items. With block scales one K tile's wgmma
// group is in flight at a time (Mainloop): ptxas serializes every wgmma of
// the kernel (C7514) once registers of a group that `wait_group 1` leaves
// in flight are read; while one warpgroup promotes, the other's steps keep
// the tensor cores busy. A tile's first K tile is issued before the
// previous tile's epilogue (before the tile loop for the first tile), so
// that the tensor cores work while the epilogue stores: its group is the
// one in flight across the epilogue and the loop's back edge. The wgmma
// steps need no tile coordinates (the producer put the tile into the next
// stage), only the ring iteration, which runs on by K tiles across tiles.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

namespace {
/// One consumer warpgroup's loop, built once: the parts it drives and what
/// its tile loop carries from one item to the next (the fragment of the
/// next item's K tile 0 in flight, that K tile's block scales where the
/// consumers load them, and the scale check's verdict where there is one).
class TileLoop {
public:
  TileLoop(ImplicitLocOpBuilder &b, const Consumer::Parts &parts,
           Value consumer)
      : parts(parts), spec(parts.spec),
        thread(ConsumerThread::create(b, spec, consumer)),
        epilogue(b, spec, parts.arguments, parts.shared, thread),
        mainloop(spec, parts.arguments, parts.shared, parts.ring, thread),
        fragmentType(spec.getFragmentType()),
        poison(LLVM::PoisonOp::create(b, fragmentType)) {
    // Block scales the consumers load from global memory: a tile's K tile
    // 0 scales are loaded after its K tile 0 is issued, so before the
    // previous tile's epilogue, whose stores hide their latency; carried
    // after the fragment. A masked matmul's tile is found by a search of
    // the item table, cheap enough to run a second time for these loads (a
    // walk over the groups' counts, twice per tile, had measured 7-12%
    // slower on decode shapes on an H200).
    aheadCount =
        mainloop.loadsGlobalScales() ? mainloop.getGlobalScaleCount() : 0;
    issuedTypes = {fragmentType};
    issuedTypes.append(aheadCount, b.getF32Type());
  }

  void build(ImplicitLocOpBuilder &b) const;

private:
  /// The values an issued K tile 0 carries: its fragment, then its tile's
  /// block scales (where the consumers load them).
  SmallVector<Value> loadAhead(ImplicitLocOpBuilder &b, Value fragment,
                               llvm::function_ref<WorkTile()> getTile) const;
  /// The same values where no K tile was issued.
  SmallVector<Value> nothingAhead(ImplicitLocOpBuilder &b,
                                  Value fragment) const;
  /// The block's first item's K tile 0 (ring iteration 0), issued before
  /// the loop where the block has an item.
  SmallVector<Value> issueFirst(ImplicitLocOpBuilder &b, Value itemCount,
                                Value firstItem) const;
  /// One work item: its K loop, the next item's K tile 0, its epilogue.
  /// Returns what the loop carries to the next item.
  SmallVector<Value> buildItem(ImplicitLocOpBuilder &b, const WorkTile &tile,
                               ValueRange carried) const;
  /// Checked scales: the verdict (carried last) is asked for at each of
  /// the block's items after its first until the checks are all done.
  /// Returns whether the item is promoted without the test (every scale in
  /// range) and the verdict to carry.
  std::pair<Value, Value> pollVerdict(ImplicitLocOpBuilder &b,
                                      const WorkTile &tile,
                                      Value carriedVerdict) const;
  /// The tile's outputs from `accumulator`, a wave at a time: its rows as a
  /// tile's of wgmma M rows per consumer, wave x wgmma M rows further down.
  void storeTile(ImplicitLocOpBuilder &b, const WorkTile &tile,
                 ArrayRef<Value> rows, Value laneColumn,
                 Value accumulator) const;

  const Consumer::Parts &parts;
  const KernelSpec &spec;
  ConsumerThread thread;
  Epilogue epilogue;
  Mainloop mainloop;
  Type fragmentType;
  Value poison;
  int64_t aheadCount;
  SmallVector<Type> issuedTypes;
};
} // namespace

SmallVector<Value>
TileLoop::loadAhead(ImplicitLocOpBuilder &b, Value fragment,
                    llvm::function_ref<WorkTile()> getTile) const {
  SmallVector<Value> values = {fragment};
  if (aheadCount) {
    WorkTile tile = getTile();
    auto [rows, laneColumn] = thread.getPosition(b, spec, tile);
    llvm::append_range(
        values,
        mainloop.loadGlobalScales(b, tile, rows, constant(b, 0)).flatten());
  }
  return values;
}

SmallVector<Value> TileLoop::nothingAhead(ImplicitLocOpBuilder &b,
                                          Value fragment) const {
  SmallVector<Value> values = {fragment};
  for (int64_t i = 0; i < aheadCount; ++i)
    values.push_back(LLVM::PoisonOp::create(b, b.getF32Type()));
  return values;
}

SmallVector<Value> TileLoop::issueFirst(ImplicitLocOpBuilder &b,
                                        Value itemCount,
                                        Value firstItem) const {
  auto issue = [&](ImplicitLocOpBuilder &b) {
    Value fragment = mainloop
                         .issue(b, parts.ring.getState(b, constant(b, 0)),
                                poison)
                         .fragment;
    return loadAhead(b, fragment, [&] {
      return parts.scheduler.getFirstTile(b, firstItem);
    });
  };
  // Every block has a tile (the grid is at most the units of tiles), so
  // the first one's K tile 0 is issued unconditionally; but where the
  // tiles are counted at run time (a masked matmul, a run-time M) or
  // tiles of padding are skipped.
  if (!spec.plan.countsItemsAtRunTime() && !firstItem)
    return issue(b);
  Value hasTile = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ult,
      firstItem ? firstItem
                : gpu::BlockIdOp::create(b, gpu::Dimension::x).getResult(),
      itemCount);
  auto ifOp = scf::IfOp::create(b, issuedTypes, hasTile,
                                /*withElseRegion=*/true);
  ImplicitLocOpBuilder then(b.getLoc(), ifOp.getThenBodyBuilder());
  scf::YieldOp::create(then, issue(then));
  ImplicitLocOpBuilder otherwise(b.getLoc(), ifOp.getElseBodyBuilder());
  scf::YieldOp::create(otherwise, nothingAhead(otherwise, poison));
  return SmallVector<Value>(ifOp.getResults());
}

std::pair<Value, Value> TileLoop::pollVerdict(ImplicitLocOpBuilder &b,
                                              const WorkTile &tile,
                                              Value carriedVerdict) const {
  Type i32 = b.getI32Type();
  auto is = [&](Value state, ScaleCheck::Verdict value) -> Value {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, state,
                                 arith::ConstantIntOp::create(b, i32, value));
  };
  Value later = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                      tile.taken, constant(b, 0));
  Value ask =
      arith::AndIOp::create(b, later, is(carriedVerdict, ScaleCheck::Unknown));
  auto polled = scf::IfOp::create(b, TypeRange{i32}, ask, /*withElse=*/true);
  ImplicitLocOpBuilder then(b.getLoc(), polled.getThenBodyBuilder());
  scf::YieldOp::create(
      then, parts.scaleCheck->poll(
                then, ptx::getConsumerBarrierId(then, thread.consumer)));
  ImplicitLocOpBuilder otherwise(b.getLoc(), polled.getElseBodyBuilder());
  scf::YieldOp::create(otherwise, carriedVerdict);
  Value verdict = polled.getResult(0);
  Value productsChecked =
      arith::AndIOp::create(b, later, is(verdict, ScaleCheck::InRange));
  return {productsChecked, verdict};
}

void TileLoop::storeTile(ImplicitLocOpBuilder &b, const WorkTile &tile,
                         ArrayRef<Value> rows, Value laneColumn,
                         Value accumulator) const {
  int64_t wgmmaM = spec.chip.getWgmma().m;
  for (int64_t wave = 0; wave < spec.tiling().waves; ++wave) {
    WorkTile waveTile = tile;
    if (wave != 0)
      waveTile.blockRow = arith::AddIOp::create(b, tile.blockRow,
                                                constant(b, wave * wgmmaM));
    epilogue.build(b, waveTile, spec.getWave(b, accumulator, wave),
                   rows.slice(2 * wave, 2), laneColumn);
  }
}

SmallVector<Value> TileLoop::buildItem(ImplicitLocOpBuilder &b,
                                       const WorkTile &tile,
                                       ValueRange carried) const {
  const WgmmaPlan &plan = spec.plan;
  auto [rows, laneColumn] = thread.getPosition(b, spec, tile);
  Value productsChecked, verdict;
  if (parts.scaleCheck)
    std::tie(productsChecked, verdict) =
        pollVerdict(b, tile, carried.back());
  auto withVerdict = [&](SmallVector<Value> values) {
    if (verdict)
      values.push_back(verdict);
    return values;
  };
  std::optional<Mainloop::KTileScales> firstScales;
  if (aheadCount)
    firstScales = mainloop.unflattenGlobalScales(carried.slice(1, aheadCount));
  auto [accumulator, spare] =
      mainloop.build(b, tile, rows, carried[0], productsChecked,
                     firstScales ? &*firstScales : nullptr);
  // The next tile's K tile 0, then this tile's epilogue. A dynamic
  // schedule's next item is in the slot of the stage after this item's,
  // which the producer fills (or marks as the end) in any case.
  Value nextIteration =
      arith::AddIOp::create(b, tile.firstIteration, tile.kTiles);
  Value nextStage, nextItem, hasNext = tile.hasNext;
  if (plan.schedule.dynamic) {
    RingState next = parts.ring.getState(b, nextIteration);
    parts.ring.waitFull(b, next);
    nextStage = next.stage;
    nextItem = parts.queue->readItem(b, nextStage);
    hasNext = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, nextItem,
                                    constant(b, plan.schedule.items()));
  }
  auto nextTile = scf::IfOp::create(b, issuedTypes, hasNext, /*withElse=*/true);
  {
    ImplicitLocOpBuilder then(b.getLoc(), nextTile.getThenBodyBuilder());
    Mainloop::IssuedKTile issued =
        nextStage
            ? mainloop.issueOnStage(then, nextStage, spare)
            : mainloop.issue(then, parts.ring.getState(then, nextIteration),
                             spare);
    scf::YieldOp::create(then, loadAhead(then, issued.fragment, [&] {
                           return parts.scheduler.getNextTile(then, tile,
                                                              nextItem);
                         }));
    ImplicitLocOpBuilder otherwise(b.getLoc(), nextTile.getElseBodyBuilder());
    scf::YieldOp::create(otherwise, nothingAhead(otherwise, spare));
  }
  SmallVector<Value> issued(nextTile.getResults());
  if (!plan.schedule.isSplit()) {
    storeTile(b, tile, rows, laneColumn, accumulator);
    if (nextItem)
      issued.insert(issued.begin(), nextItem);
    return withVerdict(issued);
  }
  // A Stream-K part: the epilogue where it completes the tile.
  Type i1 = b.getI1Type();
  auto ending = scf::IfOp::create(b, TypeRange{i1, spec.getAccumulatorType()},
                                  tile.isPart, /*withElse=*/true);
  {
    ImplicitLocOpBuilder then(b.getLoc(), ending.getThenBodyBuilder());
    auto [completes, sums] =
        plan.reducesInCluster
            ? reduceStreamKPartInCluster(then, spec, parts.shared, thread, tile,
                                         accumulator)
            : reduceStreamKPart(then, spec, parts.arguments, thread, tile,
                                accumulator);
    scf::YieldOp::create(then, ValueRange{completes, sums});
    ImplicitLocOpBuilder otherwise(b.getLoc(), ending.getElseBodyBuilder());
    Value always = arith::ConstantIntOp::create(otherwise, i1, 1);
    scf::YieldOp::create(otherwise, ValueRange{always, accumulator});
  }
  auto complete = scf::IfOp::create(b, ending.getResult(0), false);
  ImplicitLocOpBuilder inner(b.getLoc(), complete.getThenBodyBuilder());
  storeTile(inner, tile, rows, laneColumn, ending.getResult(1));
  return withVerdict(issued);
}

void TileLoop::build(ImplicitLocOpBuilder &b) const {
  Value itemCount = parts.scheduler.getItemCount(b);
  // (Found once where tiles of padding are skipped: a walk that reads the
  // group layout.)
  Value firstItem;
  if (parts.scheduler.skipsPadding())
    firstItem = parts.scheduler.getFirstItem(b, itemCount);
  SmallVector<Value> initial = issueFirst(b, itemCount, firstItem);
  if (parts.scaleCheck)
    initial.push_back(arith::ConstantIntOp::create(b, b.getI32Type(),
                                                   ScaleCheck::Unknown));
  auto body = [&](ImplicitLocOpBuilder &b, const WorkTile &tile,
                  ValueRange carried) { return buildItem(b, tile, carried); };
  if (spec.plan.schedule.dynamic)
    parts.scheduler.buildDynamicLoop(b, initial, body);
  else
    parts.scheduler.buildLoop(b, initial, body, itemCount, firstItem);
  // No path leaves with a group in flight (ptxas would wait on it itself,
  // and serialize every wgmma of the kernel for that).
  NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  epilogue.finish(b);
}

void Consumer::build(ImplicitLocOpBuilder &b, Value consumer) const {
  TileLoop(b, parts, consumer).build(b);
}
