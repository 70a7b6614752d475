//===- WgmmaPipeline.cpp - the wgmma kernel's ring of stages --------------===//
//
// Part of qmm-lower-matmul-to-wgmma: the block's shared memory (the ring
// of stages, its barriers, D's staging buffers; WgmmaSharedLayout) and the
// ring's two arrays of mbarriers. `full` is nvgpu's (TMA completes it);
// `empty` is driven through PtxBuilders.h, because a consumer warp's
// release must reach every block of a cluster (whose producers multicast
// into its shared memory) and nvgpu's ops address one block's barriers
// only. Both keep mbarrier's default semantics, as CUTLASS's cluster
// pipelines do.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

//===----------------------------------------------------------------------===//
// SharedMemory
//===----------------------------------------------------------------------===//

SharedMemory::SharedMemory(ImplicitLocOpBuilder &b, const KernelSpec &spec)
    : spec(spec) {
  // The ring starts at the first swizzle-atom boundary of dynamic shared
  // memory: TMA's 128B swizzle and the descriptors assume atom-aligned
  // tiles.
  auto rawType = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  shared = gpu::DynamicSharedMemoryOp::create(b, rawType);
  Value base = arith::IndexCastOp::create(
      b, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, shared));
  Value atom = arith::ConstantIntOp::create(b, b.getI64Type(),
                                            spec.plan.shared.alignment);
  Value padding64 = arith::RemUIOp::create(
      b, arith::SubIOp::create(b, atom, arith::RemUIOp::create(b, base, atom)),
      atom);
  ringAddress = arith::AddIOp::create(b, base, padding64);
  padding = arith::IndexCastOp::create(b, b.getIndexType(), padding64);
}

Value SharedMemory::getAddress(ImplicitLocOpBuilder &b, Value offset) const {
  Value address = arith::AddIOp::create(
      b, ringAddress, arith::IndexCastOp::create(b, b.getI64Type(), offset));
  return arith::TruncIOp::create(b, b.getI32Type(), address);
}

Value SharedMemory::getView(ImplicitLocOpBuilder &b, Value bytes,
                            MemRefType type) const {
  return memref::ViewOp::create(b, type, shared,
                                arith::AddIOp::create(b, padding, bytes),
                                ValueRange())
      .getResult();
}

Value SharedMemory::getTilePart(ImplicitLocOpBuilder &b, Value stage,
                                int64_t tileOffset, int64_t tileRows,
                                int64_t partRows, Type element,
                                Value clusterRank) const {
  Value offset = constant(b, tileOffset);
  if (partRows < tileRows)
    offset = arith::AddIOp::create(
        b, offset,
        arith::MulIOp::create(
            b, clusterRank, constant(b, partRows * spec.tiling().tileK)));
  Value bytes = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b, stage, constant(b, spec.plan.shared.stageBytes)),
      offset);
  return getView(b, bytes, spec.getTileType(partRows, element));
}

Value SharedMemory::getATile(ImplicitLocOpBuilder &b, Value stage,
                             Value clusterRank) const {
  return getTilePart(b, stage, spec.plan.shared.aOffset,
                     spec.tiling().aLoadRows, spec.getAPartRows(),
                     spec.aElement, clusterRank);
}

Value SharedMemory::getBTile(ImplicitLocOpBuilder &b, Value stage,
                             Value clusterRank) const {
  return getTilePart(b, stage, spec.plan.shared.bOffset, spec.tiling().tileN,
                     spec.getBPartRows(), spec.bElement, clusterRank);
}

/// The bytes of stage `stage`'s box `box` from the ring's start.
static Value getScaleBoxBytes(ImplicitLocOpBuilder &b,
                              const WgmmaSharedLayout &layout, Value stage,
                              const WgmmaScaleBox &box) {
  return arith::AddIOp::create(
      b, arith::MulIOp::create(b, stage, constant(b, layout.scaleSlotBytes)),
      constant(b, layout.scaleSlots + box.offset));
}

Value SharedMemory::getScaleBox(ImplicitLocOpBuilder &b, Value stage,
                                const WgmmaScaleBox &box) const {
  return getView(b, getScaleBoxBytes(b, spec.plan.shared, stage, box),
                 spec.getScaleBoxType(box));
}

Value SharedMemory::getScaleAddress(ImplicitLocOpBuilder &b, Value stage,
                                    const WgmmaScaleBox &box,
                                    Value index) const {
  return getAddress(
      b, arith::AddIOp::create(
             b, getScaleBoxBytes(b, spec.plan.shared, stage, box),
             arith::MulIOp::create(b, index, constant(b, 4))));
}

Value SharedMemory::getStagingBox(ImplicitLocOpBuilder &b, Value consumer,
                                  int64_t box) const {
  const WgmmaSharedLayout &layout = spec.plan.shared;
  Value bytes = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b, consumer,
                            constant(b, layout.stagingBytesPerConsumer)),
      constant(b, layout.staging + box * layout.stagingBoxBytes));
  return getView(b, bytes,
                 spec.getTileType(spec.chip.getWgmma().m, spec.dElement,
                                  spec.plan.stagingBoxColumns));
}

Value SharedMemory::getGroupTable(ImplicitLocOpBuilder &b) const {
  const WgmmaSharedLayout &layout = spec.plan.shared;
  auto type = MemRefType::get(
      {spec.plan.tiling.groupTableEntries}, b.getI32Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  return getView(b, constant(b, layout.groupTable), type);
}

//===----------------------------------------------------------------------===//
// RingState
//===----------------------------------------------------------------------===//

RingState RingState::at(ImplicitLocOpBuilder &b, Value iteration,
                        int64_t stages) {
  // In 32 bits: by a stage count that is not a power of two, an index
  // (64-bit) remainder and quotient become 64-bit multiply-highs, which the
  // GPU emulates with several 32-bit ones, on the consumers' path from one
  // K tile to the next (5 stages measured 6% slower than 4 on an H200
  // before). A block's iterations (its items times their K tiles)
  // stay far below 2^32.
  Type i32 = b.getI32Type();
  Value narrow = arith::IndexCastUIOp::create(b, i32, iteration);
  Value count = arith::ConstantIntOp::create(b, i32, stages);
  Value stage = arith::IndexCastUIOp::create(
      b, b.getIndexType(), arith::RemUIOp::create(b, narrow, count));
  Value round = arith::DivUIOp::create(b, narrow, count);
  Value parity =
      arith::AndIOp::create(b, round, arith::ConstantIntOp::create(b, i32, 1));
  return {iteration, stage,
          arith::IndexCastUIOp::create(b, b.getIndexType(), parity)};
}

RingState RingState::advance(ImplicitLocOpBuilder &b, Value count,
                             int64_t stages) const {
  return at(b, arith::AddIOp::create(b, iteration, count), stages);
}

//===----------------------------------------------------------------------===//
// RingPipeline
//===----------------------------------------------------------------------===//

RingPipeline::RingPipeline(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                           const SharedMemory &shared)
    : spec(spec), shared(shared) {
  auto type = nvgpu::MBarrierGroupType::get(
      b.getContext(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup),
      spec.tiling().stages);
  fullBarriers = nvgpu::MBarrierCreateOp::create(b, type);
}

Value RingPipeline::getEmptyBarrierAddress(ImplicitLocOpBuilder &b,
                                           Value stage) const {
  return shared.getAddress(
      b, arith::AddIOp::create(
             b, constant(b, spec.plan.shared.emptyBarriers),
             arith::MulIOp::create(b, stage, constant(b, 8))));
}

void RingPipeline::initialize(ImplicitLocOpBuilder &b) const {
  const WgmmaTiling &tiling = spec.tiling();
  // `empty`: one arrival per consumer warp of each block of the cluster.
  Value emptyArrivals =
      arith::ConstantIntOp::create(b, b.getI32Type(),
                                   tiling.clusterBlocks() * tiling.consumers *
                                       spec.chip.getWgmma().threads / 32);
  Value one = constant(b, 1);
  for (int64_t stage = 0; stage < tiling.stages; ++stage) {
    Value index = constant(b, stage);
    // `full`: the producer's arrival with its byte count.
    nvgpu::MBarrierInitOp::create(b, fullBarriers, one, index, Value());
    ptx::initMBarrier(b, getEmptyBarrierAddress(b, index), emptyArrivals);
  }
}

RingState RingPipeline::getKTileState(ImplicitLocOpBuilder &b,
                                      const WorkTile &tile, Value kt) const {
  return getState(b, arith::AddIOp::create(b, tile.firstIteration, kt));
}

void RingPipeline::waitEmpty(ImplicitLocOpBuilder &b,
                             const RingState &state) const {
  // A stage is free once the consumers released its previous round; the
  // first round finds every stage free (waiting for the parity of the
  // phase before a fresh barrier's first one returns at once).
  Value parity = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                       state.phase, constant(b, 0));
  ptx::waitMBarrierParity(b, getEmptyBarrierAddress(b, state.stage), parity);
}

void RingPipeline::arriveFull(ImplicitLocOpBuilder &b, Value stage,
                              Value bytes) const {
  nvgpu::MBarrierArriveExpectTxOp::create(b, fullBarriers, bytes, stage,
                                          Value());
}

void RingPipeline::waitFull(ImplicitLocOpBuilder &b,
                            const RingState &state) const {
  Value parity = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                       state.phase, constant(b, 0));
  Value ticks = constant(b, 10000000);
  nvgpu::MBarrierTryWaitParityOp::create(b, fullBarriers, parity, ticks,
                                         state.stage);
}

Value RingPipeline::isFull(ImplicitLocOpBuilder &b,
                           const RingState &state) const {
  Value parity = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, state.phase,
                                       constant(b, 0));
  Value address = nvgpu::MBarrierGetOp::create(b, b.getI64Type(), fullBarriers,
                                               state.stage);
  return ptx::testMBarrierParity(b, address, parity);
}

void RingPipeline::releaseEmpty(ImplicitLocOpBuilder &b, Value stage) const {
  Value address = getEmptyBarrierAddress(b, stage);
  if (!spec.plan.clustered()) {
    ptx::arriveMBarrier(b, address);
    return;
  }
  // The same barrier of each block of the cluster. The arrival keeps the
  // default semantics (release at CTA scope): what it orders is this
  // warp's wgmma reads, complete after the wait, before TMA's writes;
  // release at cluster scope would also wait for the previous tile's
  // global stores, on every K tile.
  for (int64_t rank = 0; rank < spec.tiling().clusterBlocks(); ++rank)
    ptx::arriveRemoteMBarrier(
        b, address, arith::ConstantIntOp::create(b, b.getI32Type(), rank));
}
