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
// after a ticket drawn by the producer thread waited for the atomic's
// round trip, which measured 3-9% slower on an H200 than a schedule
// without the atomic (README).
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

// The ring's tail with a dynamic schedule: the stages' `empty` mbarriers,
// the queue's `full` and `empty` mbarriers, the stages' item slots, the
// queue's slot (WgmmaTiling::ringTailBytes).

Value WgmmaKernelBuilder::getQueueBarrierAddress(ImplicitLocOpBuilder &b,
                                                 int64_t which) {
  return getRingTailAddress(b, constant(b, tiling.stages * 8 + which * 8));
}

Value WgmmaKernelBuilder::getItemSlotAddress(ImplicitLocOpBuilder &b,
                                             Value stage) {
  return getRingTailAddress(
      b, arith::AddIOp::create(b, constant(b, tiling.stages * 8 + 16),
                               arith::MulIOp::create(b, stage,
                                                     constant(b, 4))));
}

Value WgmmaKernelBuilder::getQueueSlotAddress(ImplicitLocOpBuilder &b) {
  return getRingTailAddress(b, constant(b, tiling.stages * 12 + 16));
}

/// The global address of the dynamic schedule's counter `index`: 0 the
/// tickets drawn, 1 the blocks done.
static Value getCounterAddress(ImplicitLocOpBuilder &b, Value counters,
                               int64_t index) {
  return arith::AddIOp::create(
      b, counters,
      arith::ConstantIntOp::create(b, b.getI64Type(), 4 * index));
}

/// `atom.<semantics>.gpu.global.add.u32` of 1 at `address`: the value
/// before.
static Value addOne(ImplicitLocOpBuilder &b, Value address,
                    StringRef semantics) {
  std::string ptx =
      ("atom." + semantics + ".gpu.global.add.u32 $0, [$1], 1;").str();
  return LLVM::InlineAsmOp::create(
             b, b.getI32Type(), ValueRange{address}, ptx, "=r,l",
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
             /*operand_attrs=*/nullptr)
      .getResult(0);
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

void WgmmaKernelBuilder::buildTicketDrawer(ImplicitLocOpBuilder &b) {
  Value itemCount = constant(b, schedule.items());
  Value blocks = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value tickets = getCounterAddress(b, countersAddress, 0);
  // Draw j (from 0): a ticket, the queue's j-th slot once the producer
  // took the one before, then the arrival on `full` (which releases the
  // slot's store). Past the items, the last draw tells the producer the
  // end.
  scf::WhileOp::create(
      b, TypeRange{b.getIndexType()}, ValueRange{constant(b, 0)},
      [&](OpBuilder &builder, Location loc, ValueRange arguments) {
        ImplicitLocOpBuilder before(loc, builder);
        Value draw = arguments[0];
        Value ticket = addOne(before, tickets, "relaxed");
        Value item = arith::AddIOp::create(
            before, blocks,
            arith::IndexCastUIOp::create(before, before.getIndexType(),
                                         ticket));
        waitParity(before, getQueueBarrierAddress(before, 1),
                   getQueueParity(before, draw, /*emptySide=*/true));
        emitPtx(before, "st.shared.u32 [$0], $1;", "r,r",
                {getQueueSlotAddress(before), ticket});
        // (The slot holds the ticket; the producer adds gridDim.)
        emitPtx(before, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r",
                {getQueueBarrierAddress(before, 0)});
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
  Value finished =
      addOne(b, getCounterAddress(b, countersAddress, 1), "acq_rel");
  Value isLast = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::AddIOp::create(b, finished,
                            arith::ConstantIntOp::create(b, i32, 1)),
      arith::IndexCastUIOp::create(b, i32, blocks));
  auto reset = scf::IfOp::create(b, isLast, false);
  ImplicitLocOpBuilder inner(b.getLoc(), reset.getThenBodyBuilder());
  for (int64_t index : {0, 1})
    emitPtx(inner, "st.relaxed.gpu.global.u32 [$0], 0;", "l",
            {getCounterAddress(inner, countersAddress, index)});
}

/// The u32 at shared-memory address `address` (i32), read after the wait
/// that published it (volatile asm: not moved above the wait).
static Value loadShared(ImplicitLocOpBuilder &b, Value address) {
  return LLVM::InlineAsmOp::create(
             b, b.getI32Type(), ValueRange{address}, "ld.shared.u32 $0, [$1];",
             "=r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
             /*operand_attrs=*/nullptr)
      .getResult(0);
}

Value WgmmaKernelBuilder::loadStageItem(ImplicitLocOpBuilder &b,
                                        Value stage) {
  return arith::IndexCastUIOp::create(
      b, b.getIndexType(), loadShared(b, getItemSlotAddress(b, stage)));
}

Value WgmmaKernelBuilder::takeNextItem(ImplicitLocOpBuilder &b, Value taken) {
  waitParity(b, getQueueBarrierAddress(b, 0),
             getQueueParity(b, taken, /*emptySide=*/false));
  Value ticket = loadShared(b, getQueueSlotAddress(b));
  emitPtx(b, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r",
          {getQueueBarrierAddress(b, 1)});
  return arith::AddIOp::create(
      b, gpu::GridDimOp::create(b, gpu::Dimension::x),
      arith::IndexCastUIOp::create(b, b.getIndexType(), ticket));
}

void WgmmaKernelBuilder::finishDynamicProducer(ImplicitLocOpBuilder &b,
                                               Value endItem,
                                               Value takenItems) {
  // The stage after the last item's K tiles, once free: its slot holds
  // the end, and its `full` phase completes by the producer's arrival
  // alone (no bytes expected).
  Value stage = waitEmpty(b, arith::MulIOp::create(b, takenItems, kTiles));
  emitPtx(b, "st.shared.u32 [$0], $1;", "r,r",
          {getItemSlotAddress(b, stage),
           arith::IndexCastUIOp::create(b, b.getI32Type(), endItem)});
  nvgpu::MBarrierArriveExpectTxOp::create(b, fullBarriers, constant(b, 0),
                                          stage,
                                          Value());
}
