//===- WgmmaTicketDrawer.cpp - the wgmma kernel's dynamic schedule --------===//
//
// Part of qmm-lower-matmul-to-wgmma: a dynamic schedule's shared state
// and its ticket drawer. Block i takes item i first; a thread of the
// producer warpgroup's second warp draws the block's next items from a
// global counter (item gridDim + ticket) and hands each to the producer
// thread through a one-slot queue guarded by two mbarriers, one item
// ahead. The producer writes each stage's item into the stage's slot
// before arming its `full` barrier, so the consumers learn their next
// item at its first stage, and marks the end past the last item.
//
// The atomic is not the producer's own: an mbarrier arrival releases the
// arriving thread's earlier memory operations, so each `full` arrival
// after a ticket drawn by the producer thread would wait for the atomic's
// round trip.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

Value TicketQueue::getBarrierAddress(ImplicitLocOpBuilder &b,
                                     int64_t which) const {
  return shared.getAddress(b, spec.plan.shared.queueBarriers + 8 * which);
}

Value TicketQueue::getItemSlotAddress(ImplicitLocOpBuilder &b,
                                      Value stage) const {
  return shared.getAddress(
      b, arith::AddIOp::create(b, constant(b, spec.plan.shared.itemSlots),
                               arith::MulIOp::create(b, stage,
                                                     constant(b, 4))));
}

Value TicketQueue::getSlotAddress(ImplicitLocOpBuilder &b) const {
  return shared.getAddress(b, spec.plan.shared.queueSlot);
}

/// The global address of the dynamic schedule's counter `index`: 0 the
/// tickets drawn, 1 the blocks done.
static Value getCounterAddress(ImplicitLocOpBuilder &b, Value counters,
                               int64_t index) {
  return arith::AddIOp::create(
      b, counters,
      arith::ConstantIntOp::create(b, b.getI64Type(), 4 * index));
}

/// Whether the `count`-th use (index, from 0) of a one-slot queue waits for
/// parity 1 (the `full` side waits for phase `count`; the `empty` side, one
/// phase behind, finds a fresh barrier's phase -1 complete).
static Value getQueueParity(ImplicitLocOpBuilder &b, Value count,
                            bool emptySide) {
  Value odd = arith::AndIOp::create(b, count,
                                    arith::ConstantIndexOp::create(b, 1));
  return arith::CmpIOp::create(
      b, emptySide ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ne,
      odd, arith::ConstantIndexOp::create(b, 0));
}

void TicketQueue::initialize(ImplicitLocOpBuilder &b) const {
  // The queue's `full` and `empty`: one arrival each (the ticket
  // drawer's, the producer's).
  for (int64_t which : {0, 1}) {
    Value address = getBarrierAddress(b, which);
    ptx::initMBarrier(b, address,
                      arith::ConstantIntOp::create(b, b.getI32Type(), 1));
  }
}

void TicketQueue::buildDrawer(ImplicitLocOpBuilder &b) const {
  Value itemCount = constant(b, spec.plan.schedule.items());
  Value blocks = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value tickets = getCounterAddress(b, arguments.countersAddress, 0);
  // Draw j (from 0): a ticket, the queue's j-th slot once the producer
  // took the one before, then the arrival on `full` (which releases the
  // slot's store). Past the items, the last draw tells the producer the
  // end.
  scf::WhileOp::create(
      b, TypeRange{b.getIndexType()}, ValueRange{constant(b, 0)},
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        ImplicitLocOpBuilder before(loc, builder);
        Value draw = arguments[0];
        Value ticket =
            ptx::atomicIncrement(before, tickets, ptx::Semantics::Relaxed);
        Value item = arith::AddIOp::create(
            before, blocks,
            arith::IndexCastUIOp::create(before, before.getIndexType(),
                                         ticket));
        ptx::waitMBarrierParity(
            before, getBarrierAddress(before, 1),
            getQueueParity(before, draw, /*emptySide=*/true));
        // (The slot holds the ticket; the producer adds gridDim.)
        ptx::storeShared(before, getSlotAddress(before), ticket);
        ptx::arriveMBarrier(before, getBarrierAddress(before, 0));
        Value more = arith::CmpIOp::create(before, arith::CmpIPredicate::ult,
                                           item, itemCount);
        scf::ConditionOp::create(before, more, arguments);
      },
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        ImplicitLocOpBuilder after(loc, builder);
        scf::YieldOp::create(
            after, ValueRange{arith::AddIOp::create(after, arguments[0],
                                                    constant(after, 1))});
      });
  // The last block done resets the counters for the next launch:
  // acquire-release on the blocks' count orders every block's draws
  // before the reset.
  Type i32 = b.getI32Type();
  Value finished = ptx::atomicIncrement(
      b, getCounterAddress(b, arguments.countersAddress, 1),
      ptx::Semantics::AcquireRelease);
  Value isLast = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::AddIOp::create(b, finished,
                            arith::ConstantIntOp::create(b, i32, 1)),
      arith::IndexCastUIOp::create(b, i32, blocks));
  auto reset = scf::IfOp::create(b, isLast, false);
  ImplicitLocOpBuilder inner(b.getLoc(), reset.getThenBodyBuilder());
  for (int64_t index : {0, 1})
    ptx::storeRelaxedZero(
        inner, getCounterAddress(inner, arguments.countersAddress, index));
}

Value TicketQueue::takeNextItem(ImplicitLocOpBuilder &b, Value taken) const {
  ptx::waitMBarrierParity(b, getBarrierAddress(b, 0),
                          getQueueParity(b, taken, /*emptySide=*/false));
  Value ticket = ptx::loadShared(b, getSlotAddress(b));
  ptx::arriveMBarrier(b, getBarrierAddress(b, 1));
  return arith::AddIOp::create(
      b, gpu::GridDimOp::create(b, gpu::Dimension::x),
      arith::IndexCastUIOp::create(b, b.getIndexType(), ticket));
}

void TicketQueue::publishItem(ImplicitLocOpBuilder &b, Value stage,
                              Value item) const {
  Value address = getItemSlotAddress(b, stage);
  ptx::storeShared(b, address,
                   arith::IndexCastUIOp::create(b, b.getI32Type(), item));
}

Value TicketQueue::readItem(ImplicitLocOpBuilder &b, Value stage) const {
  return arith::IndexCastUIOp::create(
      b, b.getIndexType(), ptx::loadShared(b, getItemSlotAddress(b, stage)));
}
