//===- WgmmaKernelSpec.cpp - what the wgmma kernel's parts share ---------===//
//
// Part of qmm-lower-matmul-to-wgmma: KernelSpec (the tile, fragment and
// accumulator types, a consumer's part of the tile), the block scales'
// indices and loads, where TMA copies a K tile's scales, and a consumer
// warpgroup's thread (its rows and columns in the accumulator layout).
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

KernelSpec::KernelSpec(const MatmulOperands &operands,
                       const NvidiaChipInfo &chip, const WgmmaPlan &plan)
    : op(operands), chip(chip), plan(plan) {
  auto aType = cast<MemRefType>(op.a.getType());
  auto bType = cast<MemRefType>(op.b.getType());
  m = aType.getDimSize(0);
  k = aType.getDimSize(1);
  n = bType.getDimSize(bType.getRank() - 2);
  aElement = aType.getElementType();
  bElement = bType.getElementType();
  dElement = cast<MemRefType>(op.init.getType()).getElementType();
}

MemRefType KernelSpec::getTileType(int64_t rows, Type element,
                                   int64_t columns) const {
  return MemRefType::get({rows, columns ? columns : tiling().tileK}, element,
                         AffineMap(),
                         gpu::AddressSpaceAttr::get(
                             getContext(), gpu::AddressSpace::Workgroup));
}

nvgpu::TensorMapDescriptorType
KernelSpec::getTensorMapType(int64_t rows, Type element,
                             int64_t columns) const {
  return nvgpu::TensorMapDescriptorType::get(
      getContext(), getTileType(rows, element, columns),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

MemRefType KernelSpec::getScaleBoxType(const WgmmaScaleBox &box) const {
  return MemRefType::get(
      {box.outer, box.inner}, Float32Type::get(getContext()), AffineMap(),
      gpu::AddressSpaceAttr::get(getContext(), gpu::AddressSpace::Workgroup));
}

nvgpu::TensorMapDescriptorType
KernelSpec::getScaleTensorMapType(const WgmmaScaleBox &box) const {
  return nvgpu::TensorMapDescriptorType::get(
      getContext(), getScaleBoxType(box),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

LLVM::LLVMStructType KernelSpec::getFragmentType() const {
  SmallVector<Type> fields(
      chip.getWgmma().getAccumulatorElements(tiling().consumerColumns),
      Float32Type::get(getContext()));
  return LLVM::LLVMStructType::getLiteral(getContext(), fields);
}

LLVM::LLVMStructType KernelSpec::getAccumulatorType() const {
  if (tiling().waves == 1)
    return getFragmentType();
  SmallVector<Type> fields(tiling().waves * getFragmentType().getBody().size(),
                           Float32Type::get(getContext()));
  return LLVM::LLVMStructType::getLiteral(getContext(), fields);
}

Value KernelSpec::getWave(ImplicitLocOpBuilder &b, Value accumulator,
                          int64_t wave) const {
  if (tiling().waves == 1)
    return accumulator;
  LLVM::LLVMStructType type = getFragmentType();
  int64_t elements = type.getBody().size();
  Value fragment = LLVM::PoisonOp::create(b, type);
  for (int64_t i = 0; i < elements; ++i)
    fragment = LLVM::InsertValueOp::create(
        b, fragment,
        LLVM::ExtractValueOp::create(b, accumulator, wave * elements + i), i);
  return fragment;
}

Value KernelSpec::getConsumerRow(ImplicitLocOpBuilder &b,
                                 Value consumer) const {
  int64_t alongN = tiling().consumersAlongN();
  Value rowOfParts =
      alongN == 1 ? consumer
                  : arith::DivUIOp::create(b, consumer, constant(b, alongN));
  return arith::MulIOp::create(b, rowOfParts,
                               constant(b, tiling().waves * chip.getWgmma().m));
}

Value KernelSpec::getConsumerColumn(ImplicitLocOpBuilder &b,
                                    Value consumer) const {
  int64_t alongN = tiling().consumersAlongN();
  if (alongN == 1)
    return Value();
  return arith::MulIOp::create(
      b, arith::RemUIOp::create(b, consumer, constant(b, alongN)),
      constant(b, tiling().consumerColumns));
}

SmallVector<Value, 3> wgmma::getScaleIndices(ImplicitLocOpBuilder &b,
                                             ScaleEncodingAttr encoding,
                                             int64_t rows, int64_t k,
                                             Value row, Value kIndex,
                                             Value group) {
  // (A per-tensor scale is element (0, 0), whatever the rows, which may be
  // known at run time only.)
  SmallVector<Value, 3> indices = {constant(b, 0), constant(b, 0)};
  if (encoding.getKind() != ScaleKind::PerTensor) {
    auto [blockRows, blockK] = encoding.getBlockExtent(rows, k);
    indices = {arith::DivUIOp::create(b, row, constant(b, blockRows)),
               arith::DivUIOp::create(b, kIndex, constant(b, blockK))};
  }
  if (encoding.isMNMajor())
    std::swap(indices[0], indices[1]);
  if (group)
    indices.insert(indices.begin(), group);
  return indices;
}

Value wgmma::loadScale(ImplicitLocOpBuilder &b, Value scales,
                       ScaleEncodingAttr encoding, int64_t rows, int64_t k,
                       Value row, Value kIndex, Value group) {
  Value scale = memref::LoadOp::create(
      b, scales, getScaleIndices(b, encoding, rows, k, row, kIndex, group));
  if (scale.getType() != b.getF32Type())
    scale = arith::ExtFOp::create(b, b.getF32Type(), scale);
  return scale;
}

Value wgmma::loadAScale(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                        Value scales, Value row, Value kIndex, Value group) {
  ScaleEncodingAttr encoding = spec.op.aEncoding;
  assert(encoding.getKind() != ScaleKind::PerTensor &&
         "a per-tensor scale has no row");
  if (!spec.op.masked || !encoding.isMNMajor())
    return loadScale(b, scales, encoding, spec.m, spec.k, row, kIndex);
  assert(group && "a masked matmul's MN-major A scales need the row's group");
  auto [blockRows, blockK] = encoding.getBlockExtent(spec.m, spec.k);
  Value groupRow = arith::SubIOp::create(
      b, row, arith::MulIOp::create(b, group, constant(b, spec.op.groupRows)));
  Value kBlock = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b, group,
                            constant(b, llvm::divideCeil(spec.k, blockK))),
      arith::DivUIOp::create(b, kIndex, constant(b, blockK)));
  Value scale = memref::LoadOp::create(
      b, scales,
      ValueRange{kBlock,
                 arith::DivUIOp::create(b, groupRow, constant(b, blockRows))});
  if (scale.getType() != b.getF32Type())
    scale = arith::ExtFOp::create(b, b.getF32Type(), scale);
  return scale;
}

ScaleBoxPlace wgmma::getScaleBoxPlace(ImplicitLocOpBuilder &b,
                                      const KernelSpec &spec,
                                      const WorkTile &tile,
                                      const WgmmaScaleBox &box, bool isA,
                                      Value kIndex) {
  const WgmmaScales &scales = isA ? spec.plan.aScales : spec.plan.bScales;
  Value blockRows = constant(b, scales.blockRows);
  Value rowBlock = arith::DivUIOp::create(
      b, isA ? tile.blockRow : tile.blockColumn, blockRows);
  if (!isA && tile.group)
    rowBlock = arith::AddIOp::create(
        b,
        arith::MulIOp::create(
            b, tile.group,
            constant(b, llvm::divideCeil(spec.n, scales.blockRows))),
        rowBlock);
  Value kBlock = arith::DivUIOp::create(b, kIndex, constant(b, scales.blockK));
  // A masked matmul's MN-major A scales, [G K blocks, Mmax] (loadAScale):
  // the row in its group, the K block in its group's.
  if (isA && spec.op.masked && !box.kInner) {
    rowBlock = arith::DivUIOp::create(
        b,
        arith::SubIOp::create(
            b, tile.blockRow,
            arith::MulIOp::create(b, tile.group,
                                  constant(b, spec.op.groupRows))),
        blockRows);
    kBlock = arith::AddIOp::create(
        b,
        arith::MulIOp::create(
            b, tile.group,
            constant(b, llvm::divideCeil(spec.k, scales.blockK))),
        kBlock);
  }
  // The innermost coordinate, 16-byte aligned: a multiple of 4 where the
  // box's inner side is 4 elements (the tile's first row's is aligned in
  // an MN-major box of the tile's rows).
  Value inner = box.kInner ? kBlock : rowBlock;
  Value outer = box.kInner ? rowBlock : kBlock;
  ScaleBoxPlace place;
  place.element = constant(b, 0);
  if (box.kInner || !box.perRow) {
    Value four = constant(b, 4);
    place.element = arith::RemUIOp::create(b, inner, four);
    inner = arith::SubIOp::create(b, inner, place.element);
  }
  place.coordinates = {inner, outer};
  return place;
}

ConsumerThread ConsumerThread::create(ImplicitLocOpBuilder &b,
                                      const KernelSpec &spec,
                                      Value consumer) {
  ConsumerThread thread;
  thread.consumer = consumer;
  Value threadId = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value inWarpgroup = arith::RemUIOp::create(
      b, threadId, constant(b, spec.chip.getWgmma().threads));
  thread.warp = arith::DivUIOp::create(b, inWarpgroup, constant(b, 32));
  thread.lane = arith::RemUIOp::create(b, inWarpgroup, constant(b, 32));
  thread.isFirst = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                         inWarpgroup, constant(b, 0));
  return thread;
}

Value ConsumerThread::getOriginRow(ImplicitLocOpBuilder &b,
                                   const KernelSpec &spec,
                                   const WorkTile &tile) const {
  return arith::AddIOp::create(b, tile.blockRow,
                               spec.getConsumerRow(b, consumer));
}

Value ConsumerThread::getOriginColumn(ImplicitLocOpBuilder &b,
                                      const KernelSpec &spec,
                                      const WorkTile &tile) const {
  Value column = spec.getConsumerColumn(b, consumer);
  return column ? arith::AddIOp::create(b, tile.blockColumn, column)
                : tile.blockColumn;
}

std::pair<SmallVector<Value, 4>, Value>
ConsumerThread::getPosition(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                            const WorkTile &tile) const {
  // The accumulator layout of the intrinsic table (QMMIntrinsics.def) for
  // the thread 32 warp + lane: its two rows, and its first column in each
  // group of columns.
  const WgmmaIntrinsicInfo &wgmma = spec.chip.getWgmma();
  Value firstRow = arith::AddIOp::create(
      b, getOriginRow(b, spec, tile),
      arith::AddIOp::create(
          b, arith::MulIOp::create(b, warp, constant(b, wgmma.rowsPerWarp)),
          arith::DivUIOp::create(b, lane, constant(b, wgmma.lanesPerRow))));
  SmallVector<Value, 4> rows;
  for (int64_t wave = 0; wave < spec.tiling().waves; ++wave) {
    Value waveRow =
        wave == 0
            ? firstRow
            : arith::AddIOp::create(b, firstRow, constant(b, wave * wgmma.m));
    rows.push_back(waveRow);
    rows.push_back(
        arith::AddIOp::create(b, waveRow, constant(b, wgmma.secondRow)));
  }
  Value partColumn = getOriginColumn(b, spec, tile);
  Value laneColumn = arith::AddIOp::create(
      b, partColumn,
      arith::MulIOp::create(
          b, arith::RemUIOp::create(b, lane, constant(b, wgmma.lanesPerRow)),
          constant(b, wgmma.columnsPerLane)));
  return {rows, laneColumn};
}

/// Waits at named barrier `id` (i32) for `threads` threads.
static void syncNamedBarrier(ImplicitLocOpBuilder &b, Value id,
                             int64_t threads) {
  NVVM::BarrierOp::create(
      b, Type(), id, arith::ConstantIntOp::create(b, b.getI32Type(), threads),
      /*reductionOp=*/nullptr, /*reductionPredicate=*/Value());
}

void ConsumerThread::sync(ImplicitLocOpBuilder &b,
                          const KernelSpec &spec) const {
  syncNamedBarrier(b, ptx::getConsumerBarrierId(b, consumer),
                   spec.chip.getWgmma().threads);
}

void ConsumerThread::syncConsumers(ImplicitLocOpBuilder &b,
                                   const KernelSpec &spec) {
  syncNamedBarrier(b,
                   arith::ConstantIntOp::create(
                       b, b.getI32Type(),
                       static_cast<int64_t>(ptx::NamedBarrier::Consumers)),
                   spec.tiling().consumers * spec.chip.getWgmma().threads);
}
