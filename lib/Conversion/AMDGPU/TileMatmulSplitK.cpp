//===- TileMatmulSplitK.cpp - qmm-tile-matmul's split-K kernels -----------===//
//
// Part of qmm-tile-matmul (TileMatmul.cpp): a matmul with `split = P` in
// its config becomes one kernel whose workgroups multiply P ranges of K and
// whose last-arriving waves add them, in a fixed order, and store.
//
//===----------------------------------------------------------------------===//

#include "TileMatmul.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::tiling;

namespace {
/// Where split-K keeps its partial sums: an f32 workspace [split, L] in
/// the accumulator layout, so that the wave arriving last reads back, in
/// each range's row, exactly what the same wave of that range wrote, with
/// no bounds tests. Within one range's row: workgroup tile, accumulator, run of
/// `width` items, thread, item; each store and load moves one run per
/// lane, consecutive lanes at consecutive addresses.
struct SplitKWorkspace {
  int64_t split, tiles, accumulators, runs, threads, width;

  SplitKWorkspace(ConfigAttr config, const ChipInfo &chip, int64_t split,
                  int64_t tiles)
      : split(split), tiles(tiles),
        accumulators(config.getNumAccumulators()),
        threads(chip.waveSize * config.getNumWaves()) {
    int64_t items = config.getIntrinsic().getAccumulatorItems();
    width = std::gcd(items, int64_t(4));
    runs = items / width;
  }

  MemRefType getType(MLIRContext *ctx) const {
    return MemRefType::get({split, tiles * accumulators * runs * threads *
                                       width},
                           Float32Type::get(ctx));
  }

  /// The offset of run `run` of accumulator `acc` of this thread in tile
  /// `tile`.
  Value offset(IndexMath &im, Value tile, Value thread, int64_t acc,
               int64_t run) const {
    AffineExpr t = im.b.getAffineDimExpr(0), x = im.b.getAffineDimExpr(1);
    return im.apply(
        (((t * accumulators + acc) * runs + run) * threads + x) * width,
        {tile, thread});
  }
};
} // namespace

/// The workgroup's tile index in a grid of gx columns.
static Value getTileIndex(IndexMath &im, gpu::LaunchOp launch, int64_t gx) {
  return im.apply(im.b.getAffineDimExpr(1) * gx + im.b.getAffineDimExpr(0),
                  {launch.getBlockIds().x, launch.getBlockIds().y});
}

/// Split-K in one kernel: workgroup (x, y, s) multiplies K range s of tile
/// (x, y) and stores its accumulators to the workspace; then each wave
/// counts itself in at its sub-tile's arrival counter, and the wave that
/// arrives last (whichever range it had) adds the ranges' partials in the
/// fixed order s = 0, 1, ... and runs the epilogue. The order of addition
/// never depends on which wave is last, so results are deterministic. The
/// workspace and the counters (set to zero by gpu.memset, and left at zero
/// by the kernel) live around the launch.
void tiling::buildSplitK(OpBuilder &b, Location loc, const ChipInfo &chip,
                         ConfigAttr config, const MatmulProblem &p,
                         const TileOperands &ops, Value gridRows) {
  IndexMath im{b, loc};
  MLIRContext *ctx = b.getContext();
  int64_t gx = llvm::divideCeil(p.n, config.getTileN());
  // The workspace holds the most tile rows M can have (a dynamic M's
  // bound); the grid launches those it has.
  int64_t gy = llvm::divideCeil(ShapedType::isDynamic(p.m) ? p.maxM : p.m,
                                config.getTileM());
  int64_t waves = config.getNumWaves();
  SplitKWorkspace workspace(config, chip, p.split, gx * gy);
  Value partials = memref::AllocOp::create(b, loc, workspace.getType(ctx));
  Value arrivals = memref::AllocOp::create(
      b, loc, MemRefType::get({gx * gy * waves}, b.getI32Type()));
  // memref.alloc leaves contents undefined: the counters start at zero.
  gpu::MemsetOp::create(b, loc, /*asyncToken=*/Type(),
                        /*asyncDependencies=*/ValueRange(), arrivals,
                        arith::ConstantOp::create(b, loc,
                                                  b.getI32IntegerAttr(0)));
  int64_t tilesPerRange = p.numTiles / p.split;
  auto runType = VectorType::get({workspace.width}, b.getF32Type());
  auto launch = gpu::LaunchOp::create(
      b, loc, im.cst(gx), gridRows, im.cst(p.split),
      im.cst(workspace.threads), im.cst(1), im.cst(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    TilePosition at = locateTile(im, launch, config, chip);
    Value range = launch.getBlockIds().z;
    SmallVector<Value> acc =
        buildTileProduct(b, loc, chip, config, p, ops, at,
                         {im.mul(range, tilesPerRange), tilesPerRange});
    Value tile = getTileIndex(im, launch, gx);
    Value thread = launch.getThreadIds().x;
    for (auto [a, value] : llvm::enumerate(acc))
      for (int64_t r = 0; r < workspace.runs; ++r) {
        Value run = value;
        if (workspace.runs > 1) {
          SmallVector<int64_t, 4> items;
          for (int64_t i = 0; i < workspace.width; ++i)
            items.push_back(r * workspace.width + i);
          run = vector::ShuffleOp::create(b, loc, value, value, items);
        }
        vector::StoreOp::create(
            b, loc, run, partials,
            ValueRange{range, workspace.offset(im, tile, thread, a, r)});
      }

    // The wave's stores are released before it counts itself in (agent
    // scope: the other ranges may run on other XCDs, behind other L2s);
    // lane 0 counts for the wave and tells the others what it read.
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "agent");
    Value lane = im.rem(thread, chip.waveSize);
    Value counter =
        im.apply(b.getAffineDimExpr(0) * waves +
                     b.getAffineDimExpr(1).floorDiv(chip.waveSize),
                 {tile, thread});
    Type i32 = b.getI32Type();
    auto i32Constant = [&](OpBuilder &at, int64_t v) -> Value {
      return arith::ConstantOp::create(at, loc, at.getI32IntegerAttr(v));
    };
    auto firstLane = scf::IfOp::create(
        b, loc, TypeRange{i32},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                              im.cst(0)),
        /*withElseRegion=*/true);
    {
      OpBuilder thenB = firstLane.getThenBodyBuilder();
      Value before = memref::AtomicRMWOp::create(
          thenB, loc, arith::AtomicRMWKind::addi, i32Constant(thenB, 1),
          arrivals, ValueRange{counter});
      scf::YieldOp::create(thenB, loc, before);
      OpBuilder elseB = firstLane.getElseBodyBuilder();
      scf::YieldOp::create(elseB, loc, i32Constant(elseB, 0));
    }
    Value arrivedBefore =
        gpu::ShuffleOp::create(b, loc, firstLane.getResult(0),
                               i32Constant(b, 0),
                               i32Constant(b, chip.waveSize),
                               gpu::ShuffleMode::IDX)
            .getShuffleResult();
    auto last = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, arrivedBefore,
                              i32Constant(b, p.split - 1)),
        /*withElseRegion=*/false);
    OpBuilder lastB = last.getThenBodyBuilder();
    IndexMath lim{lastB, loc};
    // The other ranges' stores, released before their counts, are
    // visible after this acquire. (The fences run in every lane, the
    // atomic in lane 0 only: AMDGPU lowers fences for the whole wave, whose
    // lanes share one instruction stream.)
    LLVM::FenceOp::create(lastB, loc, LLVM::AtomicOrdering::acquire, "agent");
    // Every range has counted in: the counter goes back to zero, so the
    // kernel can be launched again on the same buffers (a timed loop, a
    // caller reusing its temporaries).
    {
      auto resetter = scf::IfOp::create(
          lastB, loc,
          arith::CmpIOp::create(lastB, loc, arith::CmpIPredicate::eq, lane,
                                lim.cst(0)),
          /*withElseRegion=*/false);
      OpBuilder resetB = resetter.getThenBodyBuilder();
      memref::StoreOp::create(resetB, loc, i32Constant(resetB, 0), arrivals,
                              ValueRange{counter});
    }
    SmallVector<Value> sums;
    for (int64_t a = 0; a < workspace.accumulators; ++a) {
      Value whole;
      for (int64_t r = 0; r < workspace.runs; ++r) {
        Value offset = workspace.offset(lim, tile, thread, a, r);
        // Range 0 first, then each next range added: one fixed order.
        Value sum;
        for (int64_t s = 0; s < p.split; ++s) {
          Value run = vector::LoadOp::create(lastB, loc, runType, partials,
                                             ValueRange{lim.cst(s), offset});
          sum = sum ? arith::AddFOp::create(lastB, loc, sum, run).getResult()
                    : run;
        }
        if (!whole) {
          whole = sum;
          continue;
        }
        // Concatenated run by run into the accumulator vector.
        int64_t length = cast<VectorType>(whole.getType()).getNumElements();
        SmallVector<int64_t, 16> items;
        for (int64_t i = 0; i < length + workspace.width; ++i)
          items.push_back(i);
        whole = vector::ShuffleOp::create(lastB, loc, whole, sum, items);
      }
      sums.push_back(whole);
    }
    ops.createStore(lastB, loc, sums, lim.add(at.tileRow, at.waveRow),
                    lim.add(at.tileCol, at.waveCol), config);
    gpu::TerminatorOp::create(b, loc);
  }
  memref::DeallocOp::create(b, loc, arrivals);
  memref::DeallocOp::create(b, loc, partials);
}
