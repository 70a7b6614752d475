//===- WgmmaClusterReduction.cpp - Stream-K parts reduced in a cluster ----===//
//
// Part of qmm-lower-matmul-to-wgmma: where every block takes one Stream-K
// part and no whole tile, and a tile has two parts and two consumers
// (WgmmaPlan::reducesInCluster), the parts of a tile run as a cluster of
// two blocks, cluster rank p computing part p, and their sums meet in
// distributed shared memory instead of the global workspace of
// WgmmaStreamK.cpp (whose 64 KiB of stores per part cost a quarter of
// such launches).
//
// Consumer c's sums meet in the cluster's block c, its owner. Once every
// consumer of the owner is done with its K loop, its ring is free: the
// owner expects the other part's bytes on its `received` mbarrier and
// tells the other block on its `ready` one; that block sends its fragment
// into the owner's ring with st.async, which completes the bytes on
// `received`. The owner adds it to its own sums (an add commutes, so the
// result does not depend on which part finishes first) and runs the
// consumer's epilogue: each block of the cluster finishes half of the tile.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

/// Consumer `consumer`'s `ready` (0) or `received` (1) mbarrier.
static Value getReductionBarrier(ImplicitLocOpBuilder &b,
                                 const KernelSpec &spec,
                                 const SharedMemory &shared, Value consumer,
                                 int64_t which) {
  return shared.getAddress(
      b, arith::AddIOp::create(
             b, arith::MulIOp::create(b, consumer, constant(b, 16)),
             constant(b, spec.plan.shared.reductionBarriers + 8 * which)));
}

void wgmma::initializeClusterReduction(ImplicitLocOpBuilder &b,
                                       const KernelSpec &spec,
                                       const SharedMemory &shared) {
  // `ready`: the owner's arrival; `received`: the owner's, which expects
  // the other part's bytes.
  Value one = arith::ConstantIntOp::create(b, b.getI32Type(), 1);
  for (int64_t consumer = 0; consumer < spec.tiling().consumers; ++consumer)
    for (int64_t which = 0; which < 2; ++which)
      ptx::initMBarrier(
          b, getReductionBarrier(b, spec, shared, constant(b, consumer), which),
          one);
}

std::pair<Value, Value> wgmma::reduceStreamKPartInCluster(
    ImplicitLocOpBuilder &b, const KernelSpec &spec, const SharedMemory &shared,
    const ConsumerThread &thread, const WorkTile &tile, Value accumulator) {
  assert(spec.tiling().waves == 1 &&
         spec.tiling().consumers == kReductionClusterBlocks &&
         spec.plan.schedule.parts == kReductionClusterBlocks &&
         "a cluster reduction of two parts and two consumers");
  Type i1 = b.getI1Type(), i32 = b.getI32Type();
  LLVM::LLVMStructType fragmentType = spec.getFragmentType();
  int64_t elements = fragmentType.getBody().size();
  int64_t vectors = elements / 4;
  int64_t threads = spec.chip.getWgmma().threads;
  // A fragment as the global workspace holds it, at the ring's start: the
  // warpgroup's threads side by side in each 16-byte vector (conflict-free
  // loads).
  int64_t vectorStride = threads * 16;
  Value slot = shared.getAddress(
      b, arith::MulIOp::create(
             b,
             arith::AddIOp::create(
                 b, arith::MulIOp::create(b, thread.warp, constant(b, 32)),
                 thread.lane),
             constant(b, 16)));
  // Cluster rank p takes part p (item p of the grid's); consumer c's sums
  // meet in block c.
  Value part = arith::RemUIOp::create(b, tile.partItem,
                                      constant(b, kReductionClusterBlocks));
  Value isOwner =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, part, thread.consumer);
  Value ready = getReductionBarrier(b, spec, shared, thread.consumer, 0);
  Value received = getReductionBarrier(b, spec, shared, thread.consumer, 1);
  Value phaseZero = arith::ConstantIntOp::create(b, i1, 0);
  // Every consumer of the block is done with its K loop: its ring holds no
  // stage anyone still reads.
  ConsumerThread::syncConsumers(b, spec);
  auto role = scf::IfOp::create(b, TypeRange{fragmentType}, isOwner,
                                /*withElse=*/true);
  {
    // The owner: expects the other part's fragment, tells it its ring is
    // free, waits for the bytes and adds them to its own (in part order,
    // as an add commutes).
    ImplicitLocOpBuilder then(b.getLoc(), role.getThenBodyBuilder());
    auto announce = scf::IfOp::create(then, thread.isFirst, false);
    {
      ImplicitLocOpBuilder inner(b.getLoc(), announce.getThenBodyBuilder());
      ptx::arriveExpectBytes(
          inner, received,
          arith::ConstantIntOp::create(inner, i32, vectors * vectorStride));
      Value other = arith::SubIOp::create(inner, constant(inner, 1), part);
      ptx::arriveRemoteMBarrier(inner, ready,
                                arith::IndexCastOp::create(inner, i32, other),
                                /*releaseToCluster=*/true);
    }
    ptx::waitMBarrierParity(then, received, phaseZero);
    SmallVector<int64_t> offsets;
    for (int64_t vector = 0; vector < vectors; ++vector)
      offsets.push_back(vector * vectorStride);
    Value loaded = ptx::loadSharedVectors(then, slot, offsets);
    Value sums = accumulator;
    for (int64_t element = 0; element < elements; ++element) {
      Value sum = arith::AddFOp::create(
          then, LLVM::ExtractValueOp::create(then, sums, element),
          LLVM::ExtractValueOp::create(then, loaded, element));
      sums = LLVM::InsertValueOp::create(then, sums, sum, element);
    }
    scf::YieldOp::create(then, ValueRange{sums});
  }
  {
    // The other part: waits until the owner's ring is free and sends its
    // fragment there.
    ImplicitLocOpBuilder otherwise(b.getLoc(), role.getElseBodyBuilder());
    ptx::waitMBarrierParityCluster(otherwise, ready, phaseZero);
    SmallVector<Value> values;
    for (int64_t element = 0; element < elements; ++element)
      values.push_back(
          LLVM::ExtractValueOp::create(otherwise, accumulator, element));
    ptx::sendVectorsToBlock(
        otherwise, slot,
        arith::IndexCastOp::create(otherwise, i32, thread.consumer), received,
        values, vectorStride);
    scf::YieldOp::create(otherwise, ValueRange{accumulator});
  }
  return {isOwner, role.getResult(0)};
}
