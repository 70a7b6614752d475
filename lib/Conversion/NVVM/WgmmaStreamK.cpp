//===- WgmmaStreamK.cpp - the wgmma kernel's split last round -------------===//
//
// Stream-K for the last round of tiles (part of qmm-lower-matmul-to-wgmma):
// how a part's sums meet the others' in a workspace. With T tiles on G
// persistent blocks, a last round of L = T mod G tiles (0 < L <= G / 2)
// would keep G - L blocks idle for a whole tile; split along K (the plan's
// TileSchedule), most blocks take one part of it after their whole tiles.
//
// The reduction is deterministic: each part stores its sums into its own
// slot, and the part that arrives last adds the slots in their order, so
// the result does not depend on the order the parts finish in.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

/// `sums` plus the `count` slots from `slot` on, in order. One statement
/// loads a batch of slots: its loads are all issued before the first add
/// waits for one (one L2 round trip per batch, not one per vector).
static Value addSlots(ImplicitLocOpBuilder &b, Value sums, Value address,
                      int64_t count, int64_t vectors, int64_t vectorStride,
                      int64_t slotBytes) {
  SmallVector<int64_t> offsets;
  for (int64_t at = 0; at < count; ++at)
    for (int64_t vector = 0; vector < vectors; ++vector)
      offsets.push_back(at * slotBytes + vector * vectorStride);
  // Relaxed at GPU scope: read from L2, where the other parts' stores
  // are, never from a stale line of this block's L1.
  Value loaded = ptx::loadRelaxedVectors(b, address, offsets);
  int64_t elements = 4 * vectors;
  for (int64_t at = 0; at < count; ++at)
    for (int64_t position = 0; position < elements; ++position) {
      Value sum = arith::AddFOp::create(
          b, LLVM::ExtractValueOp::create(b, sums, position),
          LLVM::ExtractValueOp::create(b, loaded, at * elements + position));
      sums = LLVM::InsertValueOp::create(b, sums, sum, position);
    }
  return sums;
}

std::pair<Value, Value> wgmma::reduceStreamKPart(
    ImplicitLocOpBuilder &b, const KernelSpec &spec,
    const KernelArguments &arguments, const ConsumerThread &thread,
    const WorkTile &tile, Value accumulator) {
  const WgmmaTiling &tiling = spec.tiling();
  const TileSchedule &schedule = spec.plan.schedule;
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  // (Tiles of waves are not split: planWgmmaKernel.)
  assert(spec.tiling().waves == 1 && "a Stream-K part of waves");
  LLVM::LLVMStructType fragmentType = spec.getFragmentType();
  // A thread's fragment as 16-byte vectors; the warpgroup's threads store
  // each vector side by side (coalesced), consumer by consumer, slot by
  // slot (one slot per part: partItem).
  int64_t elements = fragmentType.getBody().size();
  int64_t vectors = elements / 4;
  int64_t threads = spec.chip.getWgmma().threads;
  Value threadIndex = arith::AddIOp::create(
      b, arith::MulIOp::create(b, thread.warp, constant(b, 32)), thread.lane);
  Value parts = constant(b, schedule.parts);
  Value splitTile = arith::DivUIOp::create(b, tile.partItem, parts);
  // Slot `slot`'s first vector of this thread; vector v is v x threads x
  // 16 bytes further (an immediate offset in the PTX).
  int64_t vectorStride = threads * 16;
  auto slotAddress = [&](ImplicitLocOpBuilder &b, Value slot) -> Value {
    Value index = arith::AddIOp::create(
        b,
        arith::MulIOp::create(
            b,
            arith::AddIOp::create(
                b,
                arith::MulIOp::create(b, slot, constant(b, tiling.consumers)),
                thread.consumer),
            constant(b, vectors * threads)),
        threadIndex);
    return arith::AddIOp::create(
        b, arguments.workspaceAddress,
        arith::IndexCastOp::create(
            b, i64, arith::MulIOp::create(b, index, constant(b, 16))));
  };
  // Where M leaves padding rows in the tile (small M: all but a few), the
  // threads whose rows all lie past M neither store nor load sums no
  // epilogue writes: the workspace traffic follows M, not the tile.
  Value hasRows;
  if (spec.plan.partialRows) {
    Value firstRow = thread.getPosition(b, spec, tile).first[0];
    hasRows = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, firstRow,
                                    arguments.rows);
  }
  // The part's sums into its slot.
  Value partSlot = slotAddress(b, tile.partItem);
  SmallVector<Value> values;
  for (int64_t element = 0; element < elements; ++element)
    values.push_back(LLVM::ExtractValueOp::create(b, accumulator, element));
  if (hasRows) {
    auto store = scf::IfOp::create(b, hasRows, /*withElse=*/false);
    ImplicitLocOpBuilder inner(b.getLoc(), store.getThenBodyBuilder());
    ptx::storeVectors(inner, partSlot, values, vectorStride);
  } else {
    ptx::storeVectors(b, partSlot, values, vectorStride);
  }
  // Every thread's stores happen before the first thread's release (the
  // barrier orders them, the release is cumulative); its acquire, when
  // it arrives last, before the loads of every thread after the barrier.
  thread.sync(b, spec);
  Value counter = arith::AddIOp::create(
      b, arguments.countersAddress,
      arith::IndexCastOp::create(
          b, i64,
          arith::MulIOp::create(
              b,
              arith::AddIOp::create(
                  b,
                  arith::MulIOp::create(b, splitTile,
                                        constant(b, tiling.consumers)),
                  thread.consumer),
              constant(b, 4))));
  auto arrival = scf::IfOp::create(b, TypeRange{i32}, thread.isFirst,
                                   /*withElse=*/true);
  {
    ImplicitLocOpBuilder then(b.getLoc(), arrival.getThenBodyBuilder());
    Value before = ptx::atomicIncrement(then, counter,
                                        ptx::Semantics::AcquireRelease);
    Value isLast = arith::CmpIOp::create(
        then, arith::CmpIPredicate::eq, before,
        arith::ConstantIntOp::create(then, i32, schedule.parts - 1));
    scf::YieldOp::create(then,
                         ValueRange{arith::ExtUIOp::create(then, i32, isLast)});
    ImplicitLocOpBuilder otherwise(b.getLoc(), arrival.getElseBodyBuilder());
    scf::YieldOp::create(
        otherwise, ValueRange{arith::ConstantIntOp::create(otherwise, i32, 0)});
  }
  // The warpgroup learns the first thread's answer: an or over its threads
  // at its named barrier.
  Value anyLast = ptx::barrierReduceOr(
      b, arrival.getResult(0), ptx::getConsumerBarrierId(b, thread.consumer),
      threads);
  Value completes = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ne, anyLast,
      arith::ConstantIntOp::create(b, i32, 0));
  auto gather = scf::IfOp::create(b, TypeRange{fragmentType}, completes,
                                  /*withElse=*/true);
  {
    ImplicitLocOpBuilder then(b.getLoc(), gather.getThenBodyBuilder());
    // The tile's sums: slots 0, 1, ..., parts - 1 added in that order
    // (the last part's own sums are read back from its slot too). Two
    // slots per batch where they pair up (a 128-column tile's 128 values
    // still fit beside the sums in the registers; a 192-column tile's 192
    // would not), else one: with 3 parts, one slot at a time measured
    // faster than a pair and a single slot.
    int64_t slotBytes = tiling.consumers * vectors * vectorStride;
    Value firstSlot = arith::MulIOp::create(then, splitTile, parts);
    constexpr int64_t kMaxPairedElements = 64;
    int64_t batch = schedule.parts % 2 || elements > kMaxPairedElements ? 1 : 2;
    int64_t batches = schedule.parts / batch;
    Value loopBatches = constant(then, batches);
    if (hasRows)
      loopBatches = arith::SelectOp::create(then, hasRows, loopBatches,
                                            constant(then, 0));
    auto loop = scf::ForOp::create(
        then, constant(then, 0), loopBatches, constant(then, 1),
        ValueRange{LLVM::ZeroOp::create(then, fragmentType).getResult()});
    {
      OpBuilder::InsertionGuard guard(then);
      then.setInsertionPointToStart(loop.getBody());
      Value slot = arith::AddIOp::create(
          then, firstSlot,
          arith::MulIOp::create(then, loop.getInductionVar(),
                                constant(then, batch)));
      scf::YieldOp::create(
          then, ValueRange{addSlots(then, loop.getRegionIterArgs()[0],
                                    slotAddress(then, slot), batch, vectors,
                                    vectorStride, slotBytes)});
    }
    Value sums = loop.getResult(0);
    // Every part has arrived: the counter is free for the next launch.
    auto reset = scf::IfOp::create(then, thread.isFirst, false);
    {
      ImplicitLocOpBuilder inner(b.getLoc(), reset.getThenBodyBuilder());
      ptx::storeRelaxedZero(inner, counter);
    }
    scf::YieldOp::create(then, ValueRange{sums});
    ImplicitLocOpBuilder otherwise(b.getLoc(), gather.getElseBodyBuilder());
    scf::YieldOp::create(otherwise, ValueRange{accumulator});
  }
  return {completes, gather.getResult(0)};
}
