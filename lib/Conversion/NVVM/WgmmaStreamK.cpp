//===- WgmmaStreamK.cpp - the wgmma kernel's split last round -------------===//
//
// Stream-K for the last round of tiles (part of qmm-lower-matmul-to-wgmma):
// how a part's sums meet the others' in a workspace. With T tiles on G
// persistent blocks, a last round of L = T mod G tiles (0 < L <= G / 2)
// would keep G - L blocks idle for a whole tile; split along K
// (WgmmaTileSchedule.cpp), most blocks take one part of it after their
// whole tiles.
//
// The reduction is deterministic: each part stores its sums into its own
// slot, and the part that arrives last adds the slots in their order, so
// the result does not depend on the order the parts finish in.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

std::pair<Value, Value>
WgmmaKernelBuilder::reducePart(ImplicitLocOpBuilder &b, Value consumer,
                               Value accumulator) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type fragmentType = getFragmentType();
  // A thread's fragment as 16-byte vectors; the warpgroup's threads store
  // each vector side by side (coalesced), consumer by consumer, slot by
  // slot (one slot per part: partItem).
  int64_t vectors = tiling.tileN / 8;
  int64_t threads = chip.warpgroupThreads;
  Value thread = arith::AddIOp::create(
      b, arith::MulIOp::create(b, warp, constant(b, 32)), lane);
  Value parts = constant(b, schedule.parts);
  Value splitTile = arith::DivUIOp::create(b, partItem, parts);
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
                consumer),
            constant(b, vectors * threads)),
        thread);
    return arith::AddIOp::create(
        b, workspaceAddress,
        arith::IndexCastOp::create(
            b, i64, arith::MulIOp::create(b, index, constant(b, 16))));
  };
  // The part's sums into its slot: one asm statement of 16 vector stores.
  std::string stores;
  SmallVector<std::string> storeConstraints = {"l"};
  SmallVector<Value> storeOperands = {slotAddress(b, partItem)};
  for (int64_t vector = 0; vector < vectors; ++vector) {
    stores += llvm::formatv("st.global.v4.f32 [$0+{0}], {{${1}, ${2}, ${3}, "
                            "${4}};\n",
                            vector * vectorStride, 4 * vector + 1,
                            4 * vector + 2, 4 * vector + 3, 4 * vector + 4)
                  .str();
    for (int64_t element = 0; element < 4; ++element) {
      storeOperands.push_back(
          LLVM::ExtractValueOp::create(b, accumulator, 4 * vector + element));
      storeConstraints.push_back("f");
    }
  }
  emitPtx(b, stores, llvm::join(storeConstraints, ","), storeOperands);
  // Every thread's stores happen before the first thread's release (the
  // barrier orders them, the release is cumulative); its acquire, when
  // it arrives last, before the loads of every thread after the barrier.
  syncConsumer(b, consumer);
  Value counter = arith::AddIOp::create(
      b, countersAddress,
      arith::IndexCastOp::create(
          b, i64,
          arith::MulIOp::create(
              b,
              arith::AddIOp::create(
                  b,
                  arith::MulIOp::create(b, splitTile,
                                        constant(b, tiling.consumers)),
                  consumer),
              constant(b, 4))));
  auto arrival = scf::IfOp::create(b, TypeRange{i32}, isFirstConsumerThread,
                                   /*withElse=*/true);
  {
    ImplicitLocOpBuilder then(b.getLoc(), arrival.getThenBodyBuilder());
    Value before =
        LLVM::InlineAsmOp::create(
            then, i32, ValueRange{counter},
            "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;", "=r,l",
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
            /*operand_attrs=*/nullptr)
            .getResult(0);
    Value isLast = arith::CmpIOp::create(
        then, arith::CmpIPredicate::eq, before,
        arith::ConstantIntOp::create(then, i32, schedule.parts - 1));
    scf::YieldOp::create(then, ValueRange{arith::ExtUIOp::create(
                                   then, i32, isLast)});
    ImplicitLocOpBuilder otherwise(b.getLoc(),
                                   arrival.getElseBodyBuilder());
    scf::YieldOp::create(
        otherwise, ValueRange{arith::ConstantIntOp::create(otherwise, i32, 0)});
  }
  // The warpgroup learns the first thread's answer: an or over its threads
  // at its named barrier.
  Value barrierId = arith::IndexCastOp::create(
      b, i32, arith::AddIOp::create(b, consumer, constant(b, 1)));
  // (nvvm.barrier reduces at barrier 0 only.)
  Value anyLast =
      LLVM::InlineAsmOp::create(
          b, i32,
          ValueRange{arrival.getResult(0), barrierId,
                     arith::ConstantIntOp::create(b, i32,
                                                  chip.warpgroupThreads)},
          "{ .reg .pred last; setp.ne.u32 last, $1, 0; "
          "bar.red.or.pred last, $2, $3, last; selp.u32 $0, 1, 0, last; }",
          "=r,r,r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
          /*operand_attrs=*/nullptr)
          .getResult(0);
  Value completes = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ne, anyLast,
      arith::ConstantIntOp::create(b, i32, 0));
  auto gather = scf::IfOp::create(b, TypeRange{fragmentType}, completes,
                                  /*withElse=*/true);
  {
    ImplicitLocOpBuilder then(b.getLoc(), gather.getThenBodyBuilder());
    // The tile's sums: slots 0, 1, ..., parts - 1 added in that order
    // (the last part's own sums are read back from its slot too). One
    // asm statement loads a batch of slots: its loads are all issued
    // before the first add waits for one (one L2 round trip per batch,
    // not one per vector). Two slots per batch where they pair up (their
    // 128 values still fit beside the sums in the registers), else one:
    // with 3 parts, one slot at a time measured 1-4% faster than a pair
    // and a single slot.
    int64_t elements = 4 * vectors;
    int64_t slotBytes = tiling.consumers * vectors * vectorStride;
    Type f32 = b.getF32Type();
    auto addSlots = [&](ImplicitLocOpBuilder &b, Value sums, Value slot,
                        int64_t count) -> Value {
      std::string loads;
      for (int64_t at = 0; at < count; ++at)
        for (int64_t vector = 0; vector < vectors; ++vector) {
          int64_t first = at * elements + 4 * vector;
          loads += llvm::formatv("ld.relaxed.gpu.global.v4.f32 {{${0}, ${1}, "
                                 "${2}, ${3}}, [${4}+{5}];\n",
                                 first, first + 1, first + 2, first + 3,
                                 count * elements,
                                 at * slotBytes + vector * vectorStride)
                       .str();
        }
      SmallVector<std::string> constraints(count * elements, "=f");
      constraints.push_back("l");
      auto loadedType = LLVM::LLVMStructType::getLiteral(
          op.getContext(), SmallVector<Type>(count * elements, f32));
      // Relaxed at GPU scope: read from L2, where the other parts' stores
      // are, never from a stale line of this block's L1.
      Value loaded =
          LLVM::InlineAsmOp::create(
              b, loadedType, ValueRange{slotAddress(b, slot)}, loads,
              llvm::join(constraints, ","), /*has_side_effects=*/true,
              /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
              /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
              .getResult(0);
      for (int64_t at = 0; at < count; ++at)
        for (int64_t position = 0; position < elements; ++position) {
          Value sum = arith::AddFOp::create(
              b, LLVM::ExtractValueOp::create(b, sums, position),
              LLVM::ExtractValueOp::create(b, loaded,
                                           at * elements + position));
          sums = LLVM::InsertValueOp::create(b, sums, sum, position);
        }
      return sums;
    };
    Value firstSlot = arith::MulIOp::create(then, splitTile, parts);
    int64_t batch = schedule.parts % 2 ? 1 : 2;
    int64_t batches = schedule.parts / batch;
    auto loop = scf::ForOp::create(
        then, constant(then, 0), constant(then, batches), constant(then, 1),
        ValueRange{LLVM::ZeroOp::create(then, fragmentType).getResult()});
    {
      OpBuilder::InsertionGuard guard(then);
      then.setInsertionPointToStart(loop.getBody());
      Value slot = arith::AddIOp::create(
          then, firstSlot,
          arith::MulIOp::create(then, loop.getInductionVar(),
                                constant(then, batch)));
      scf::YieldOp::create(
          then, ValueRange{addSlots(then, loop.getRegionIterArgs()[0], slot,
                                    batch)});
    }
    Value sums = loop.getResult(0);
    // Every part has arrived: the counter is free for the next launch.
    auto reset = scf::IfOp::create(then, isFirstConsumerThread, false);
    {
      ImplicitLocOpBuilder inner(b.getLoc(), reset.getThenBodyBuilder());
      emitPtx(inner, "st.relaxed.gpu.global.u32 [$0], 0;", "l", {counter});
    }
    scf::YieldOp::create(then, ValueRange{sums});
    ImplicitLocOpBuilder otherwise(b.getLoc(), gather.getElseBodyBuilder());
    scf::YieldOp::create(otherwise, ValueRange{accumulator});
  }
  return {completes, gather.getResult(0)};
}
