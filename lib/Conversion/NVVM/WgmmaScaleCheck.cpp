//===- WgmmaScaleCheck.cpp - block scales checked once per launch ---------===//
//
// Part of qmm-lower-matmul-to-wgmma: the producer warpgroup's idle warps
// check both operands' block scales once per launch, so that the consumers
// can promote without testing each K tile's products. The promotion takes
// a product sa x sb where it is a normal f32 or a scale is zero
// (createScaleProductIsExact); every product is so where every scale is
// zero or of magnitude 2^-62 .. 2^63, which is what the warps check, each
// scale on its own. A masked matmul's A scales are checked for its groups'
// valid rows only: the rows past a group's count are computed from
// whatever its buffer holds but never stored, and each row's promotion is
// its own. A launch whose scales pass promotes every block's tiles after
// its first with one fused multiply-add per element and no test; one whose
// scales do not (scales near f32's limits, or a contiguous matmul's
// padding rows holding anything) keeps the test, which is exact for every
// product.
//
// The scales are split over the grid's checking threads in memory order
// (neighbouring lanes on neighbouring words, 8 loads in flight per lane):
// 4096 x 56 A scales are two trips on 132 blocks, done long before a
// block's first tile. A masked matmul's groups go to teams of blocks, each
// group's valid rows split over its team's threads. Counters in global
// memory (zero at the launch) gather the result, one atomic each per
// block after the warps met at their named barrier: the blocks that found
// a scale out of range, then (acquire-release) the blocks done. The consumers read them (acquire) at
// each of their block's tiles after the first until all are done, agreeing
// at their named barrier: never waiting, since a tile without the verdict
// keeps the test. The last block to finish zeroes the counters for the
// next launch, as the dynamic schedule's ticket drawer does.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

/// Scales a lane loads before it tests them. A masked matmul's producer
/// checks in the 40 registers the consumers leave it, beside the index
/// arithmetic of its groups' rows: 8 loads in flight spilled there.
constexpr int64_t kScalesInFlight = 8;
constexpr int64_t kMaskedScalesInFlight = 4;

/// Whether scale `s` (f32) is zero or of magnitude 2^-62 .. below 2^63:
/// two such scales have a zero or normal f32 product (2^-124 .. 2^126).
static Value isScaleInRange(ImplicitLocOpBuilder &b, Value s) {
  Location loc = b.getLoc();
  Value magnitude =
      arith::AndIOp::create(b, arith::BitcastOp::create(b, b.getI32Type(), s),
                            createI32(b, loc, 0x7FFFFFFF));
  Value inRange = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ult,
      arith::SubIOp::create(b, magnitude, createI32(b, loc, (127 - 62) << 23)),
      createI32(b, loc, (62 + 62 + 1) << 23));
  Value zero = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, magnitude,
                                     createI32(b, loc, 0));
  return arith::OrIOp::create(b, inRange, zero);
}

Value ScaleCheck::getCounterAddress(ImplicitLocOpBuilder &b,
                                    int64_t index) const {
  return arith::AddIOp::create(
      b, arguments.countersAddress,
      arith::ConstantIntOp::create(b, b.getI64Type(), 4 * index));
}

Value ScaleCheck::checkElements(ImplicitLocOpBuilder &b, Value scales,
                                Value elements, Value thread, Value threads,
                                Value inRange, int64_t inFlight,
                                ElementIndices indicesOf) const {
  Value c0 = constant(b, 0), c1 = constant(b, 1);
  Value lastElement = arith::SubIOp::create(b, elements, c1);
  Value perTrip = arith::MulIOp::create(b, threads, constant(b, inFlight));
  Value trips = arith::CeilDivUIOp::create(b, elements, perTrip);
  auto loop = scf::ForOp::create(b, c0, trips, c1, ValueRange{inRange});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value first = arith::AddIOp::create(
      b, thread, arith::MulIOp::create(b, loop.getInductionVar(), perTrip));
  SmallVector<Value, kScalesInFlight> loaded;
  for (int64_t j = 0; j < inFlight; ++j) {
    // (Past the end: the last element again.)
    Value element = arith::MinUIOp::create(
        b,
        arith::AddIOp::create(b, first,
                              arith::MulIOp::create(b, threads,
                                                    constant(b, j))),
        lastElement);
    Value scale = memref::LoadOp::create(b, scales, indicesOf(b, element));
    if (scale.getType() != b.getF32Type())
      scale = arith::ExtFOp::create(b, b.getF32Type(), scale);
    loaded.push_back(scale);
  }
  Value all = loop.getRegionIterArgs()[0];
  for (Value scale : loaded)
    all = arith::AndIOp::create(b, all, isScaleInRange(b, scale));
  scf::YieldOp::create(b, all);
  return loop.getResult(0);
}

Value ScaleCheck::checkShare(ImplicitLocOpBuilder &b, Value scales,
                             Value thread, Value threads,
                             Value inRange) const {
  // The memref's elements in memory order (its layout is the identity, or
  // a view whose order is the same): element e's indices from its extents.
  auto type = cast<MemRefType>(scales.getType());
  SmallVector<Value, 3> extents;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    extents.push_back(type.isDynamicDim(dim)
                          ? memref::DimOp::create(b, scales, dim).getResult()
                          : constant(b, type.getDimSize(dim)));
  Value elements = extents.front();
  for (Value extent : ArrayRef<Value>(extents).drop_front())
    elements = arith::MulIOp::create(b, elements, extent);
  return checkElements(
      b, scales, elements, thread, threads, inRange, kScalesInFlight,
      [&](ImplicitLocOpBuilder &b, Value element) {
        SmallVector<Value, 3> indices(extents.size());
        for (int64_t dim = extents.size() - 1; dim > 0; --dim) {
          indices[dim] = arith::RemUIOp::create(b, element, extents[dim]);
          element = arith::DivUIOp::create(b, element, extents[dim]);
        }
        indices[0] = element;
        return indices;
      });
}

Value ScaleCheck::checkValidRowShare(ImplicitLocOpBuilder &b, Value block,
                                     Value blockThread, Value perBlock,
                                     Value inRange) const {
  // The blocks form min(G, grid) teams, block i in team i mod teams; a
  // team checks its groups (team, team + teams, ...) one at a time, each
  // group's valid scale rows split over the team's threads. (Over the
  // whole grid, 32 groups of 192 rows would be a trip of loads each.)
  int64_t groups = spec.plan.maskedGroups;
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value c1 = constant(b, 1);
  Value teams = arith::MinUIOp::create(b, grid, constant(b, groups));
  Value team = arith::RemUIOp::create(b, block, teams);
  Value teamBlocks = arith::AddIOp::create(
      b,
      arith::DivUIOp::create(
          b, arith::SubIOp::create(b, arith::SubIOp::create(b, grid, c1), team),
          teams),
      c1);
  Value teamThreads = arith::MulIOp::create(b, teamBlocks, perBlock);
  Value teamThread = arith::AddIOp::create(
      b, arith::MulIOp::create(b, arith::DivUIOp::create(b, block, teams),
                               perBlock),
      blockThread);
  // The collapsed view (collapseMaskedOperands): K-major [G S, K blocks],
  // MN-major [G K blocks, S], S = Mmax / block rows scale rows a group; a
  // group's valid ones, ceil(count / block rows), in memory order.
  ScaleEncodingAttr encoding = spec.op.aEncoding;
  auto [blockRows, blockK] = encoding.getBlockExtent(spec.m, spec.k);
  int64_t kBlockCount = llvm::divideCeil(spec.k, blockK);
  int64_t groupScaleRowCount = spec.op.groupRows / blockRows;
  Value kBlocks = constant(b, kBlockCount);
  Value groupScaleRows = constant(b, groupScaleRowCount);
  auto loop = scf::ForOp::create(b, team, constant(b, groups), teams,
                                 ValueRange{inRange});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value group = loop.getInductionVar();
  Value scaleRows = arith::CeilDivUIOp::create(
      b, loadMaskedGroupRows(b, spec, arguments.groupLayout, group),
      constant(b, blockRows));
  Value elements = arith::MulIOp::create(b, scaleRows, kBlocks);
  // An element's row and column in the group's scales: a division by a
  // run-time divisor (MN-major: the valid scale rows), in 32 bits where
  // a group's scales fit (a 64-bit one is a long call-like sequence).
  bool narrow = groupScaleRowCount * kBlockCount <=
                std::numeric_limits<int32_t>::max();
  Value divisor = encoding.isMNMajor() ? scaleRows : kBlocks;
  Value narrowDivisor;
  if (narrow)
    narrowDivisor =
        encoding.isMNMajor()
            ? arith::IndexCastUIOp::create(b, b.getI32Type(), divisor)
                  .getResult()
            : createI32(b, b.getLoc(), kBlockCount);
  auto divRem = [&](ImplicitLocOpBuilder &b,
                    Value element) -> std::pair<Value, Value> {
    if (!narrow)
      return {arith::DivUIOp::create(b, element, divisor),
              arith::RemUIOp::create(b, element, divisor)};
    Value e = arith::IndexCastUIOp::create(b, b.getI32Type(), element);
    auto widen = [&](Value v) {
      return arith::IndexCastUIOp::create(b, b.getIndexType(), v);
    };
    return {widen(arith::DivUIOp::create(b, e, narrowDivisor)),
            widen(arith::RemUIOp::create(b, e, narrowDivisor))};
  };
  Value all = checkElements(
      b, arguments.aScales, elements, teamThread, teamThreads,
      loop.getRegionIterArgs()[0], kMaskedScalesInFlight,
      [&](ImplicitLocOpBuilder &b, Value element) -> SmallVector<Value, 3> {
        auto [quotient, remainder] = divRem(b, element);
        Value first = encoding.isMNMajor()
                          ? arith::MulIOp::create(b, group, kBlocks)
                          : arith::MulIOp::create(b, group, groupScaleRows);
        return {arith::AddIOp::create(b, first, quotient), remainder};
      });
  scf::YieldOp::create(b, all);
  return loop.getResult(0);
}

void ScaleCheck::buildChecker(ImplicitLocOpBuilder &b, Value checker,
                              Value lane) const {
  int64_t warpSize = spec.chip.getWgmma().threads / 4;
  // Global checking thread: block x kWarps x 32 + warp x 32 + lane.
  Value perBlock = constant(b, kWarps * warpSize);
  Value threads = arith::MulIOp::create(
      b, gpu::GridDimOp::create(b, gpu::Dimension::x), perBlock);
  Value block = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value blockThread = arith::AddIOp::create(
      b, arith::MulIOp::create(b, checker, constant(b, warpSize)), lane);
  Value thread = arith::AddIOp::create(
      b, arith::MulIOp::create(b, block, perBlock), blockThread);
  // Every scale of A and of B (a grouped matmul's with a leading G); a
  // masked matmul's A scales of its groups' valid rows only.
  Value inRange = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
  inRange = spec.op.masked
                ? checkValidRowShare(b, block, blockThread, perBlock, inRange)
                : checkShare(b, arguments.aScales, thread, threads, inRange);
  inRange = checkShare(b, arguments.bScales, thread, threads, inRange);
  // The block's finding (the three warps meet at their named barrier),
  // then one thread counts it and (releasing it) the block's arrival: one
  // atomic per block on the shared word, not one per warp.
  Value outOfRange = arith::ExtUIOp::create(
      b, b.getI32Type(),
      arith::XOrIOp::create(
          b, inRange, arith::ConstantIntOp::create(b, b.getI1Type(), 1)));
  Value blockFound = ptx::barrierReduceOr(
      b, outOfRange,
      arith::ConstantIntOp::create(
          b, b.getI32Type(),
          static_cast<int64_t>(ptx::NamedBarrier::ScaleCheckers)),
      kWarps * warpSize);
  Value isCounting = arith::AndIOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, checker,
                            constant(b, 0)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                            constant(b, 0)));
  auto counting = scf::IfOp::create(b, isCounting, false);
  ImplicitLocOpBuilder inner(b.getLoc(), counting.getThenBodyBuilder());
  auto found = scf::IfOp::create(
      inner,
      arith::CmpIOp::create(inner, arith::CmpIPredicate::ne, blockFound,
                            arith::ConstantIntOp::create(
                                inner, inner.getI32Type(), 0)),
      false);
  {
    ImplicitLocOpBuilder then(b.getLoc(), found.getThenBodyBuilder());
    ptx::atomicIncrement(then, getCounterAddress(then, 0),
                         ptx::Semantics::Relaxed);
  }
  ptx::atomicIncrement(inner, getCounterAddress(inner, 1),
                       ptx::Semantics::AcquireRelease);
}

Value ScaleCheck::poll(ImplicitLocOpBuilder &b, Value barrierId) const {
  int64_t warpgroup = spec.chip.getWgmma().threads;
  Type i32 = b.getI32Type();
  // The blocks done (acquire: their findings are seen), then the findings.
  Value done = ptx::loadAcquire(b, getCounterAddress(b, 1));
  Value found = ptx::loadAcquire(b, getCounterAddress(b, 0));
  Value expected = arith::IndexCastUIOp::create(
      b, i32, gpu::GridDimOp::create(b, gpu::Dimension::x));
  Value notDone = arith::ExtUIOp::create(
      b, i32, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, done,
                                    expected));
  Value anyNotDone = ptx::barrierReduceOr(b, notDone, barrierId, warpgroup);
  Value anyFound = ptx::barrierReduceOr(b, found, barrierId, warpgroup);
  auto i32Constant = [&](int32_t value) -> Value {
    return arith::ConstantIntOp::create(b, i32, value);
  };
  Value zero = i32Constant(0);
  Value verdict = arith::SelectOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, anyFound, zero),
      i32Constant(OutOfRange), i32Constant(InRange));
  return arith::SelectOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, anyNotDone, zero),
      i32Constant(Unknown), verdict);
}

void ScaleCheck::buildReset(ImplicitLocOpBuilder &b) const {
  Type i32 = b.getI32Type();
  Value finished = ptx::atomicIncrement(b, getCounterAddress(b, 2),
                                        ptx::Semantics::AcquireRelease);
  Value isLast = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::AddIOp::create(b, finished,
                            arith::ConstantIntOp::create(b, i32, 1)),
      arith::IndexCastUIOp::create(
          b, i32, gpu::GridDimOp::create(b, gpu::Dimension::x)));
  auto reset = scf::IfOp::create(b, isLast, false);
  ImplicitLocOpBuilder inner(b.getLoc(), reset.getThenBodyBuilder());
  for (int64_t index : {0, 1, 2})
    ptx::storeRelaxedZero(inner, getCounterAddress(inner, index));
}
