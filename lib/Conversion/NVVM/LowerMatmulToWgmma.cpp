//===- LowerMatmulToWgmma.cpp - qmm.matmul as a Hopper wgmma kernel -------===//
//
// The main loop of the NVVM pipeline: a bufferized qmm.matmul becomes one
// warp-specialized kernel (its own gpu.module) and the host code that
// launches it. Per block of (2 x wgmma M) x N_tile outputs:
//
//   warpgroup 0 (producer): one thread walks K in tiles of one swizzle row
//     (128 FP8 elements), waiting for a free stage of the ring (`empty`
//     mbarrier), then copying A's and B's tiles into it with TMA into
//     128B-swizzled shared memory, completing on the stage's `full` mbarrier;
//   warpgroups 1, 2 (consumers, 64 rows each): wait for `full`, run the
//     K tile's wgmma.mma_async steps (k = 32) into a fresh f32 fragment,
//     wait for them (wait_group 0), release the stage (`empty`) and add
//     the fragment to the f32 accumulator, multiplied by the K block's
//     scales when A or B is block-scaled (DeepGEMM's promotion: it also
//     keeps wgmma's FP8 accumulation to 128 products); while one
//     warpgroup promotes, the other's wgmma steps run. Without block
//     scales wgmma sums 4 K tiles between promotions (WgmmaPromotion.h),
//     waiting with wait_group 1 in between. A tile's first K tile is
//     issued before the previous tile's epilogue;
//   epilogue (WgmmaEpilogue.cpp): per-tensor / per-row scales, C, bias,
//     activation and the rounding, or an FP8 output's quantization per
//     block of columns, written from the documented wgmma accumulator
//     layout; D's tile staged in shared memory and stored with TMA where
//     its tensor map allows.
//
// A last round of tiles at most half as many as the blocks, after at most
// 2 whole rounds, is split along K across the idle blocks (Stream-K,
// WgmmaStreamK.cpp): each block's last work item may be a part, whose
// sums meet the others' in a workspace before one part's epilogue.
//
// Optionally (dynamic-schedule, off by default), the blocks draw their
// tiles after the first from a global counter (WgmmaTicketDrawer.cpp).
//
// Optionally (cluster-rows), clusters of blocks share B's tile through TMA
// multicast; the `empty` barriers then collect the releases of every
// block of the cluster.
//
// The wgmma descriptors are computed here (nvgpu's automatic K-stepping is
// wrong for K-major FP8), and the tensor maps are passed as pointers to
// 128-byte objects the runtime encodes (nvgpu's host lowering encodes FP8
// as bf16); see shared/nvidia.md's traps.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernelBuilder.h"

#include "qmm/Conversion/NVVM/WgmmaPromotion.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/NvidiaChip.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERMATMULTOWGMMA
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

namespace {

/// Why `op` is not lowered here (it then runs as the reference loops; an
/// FP8 output is an error instead), or the empty string.
std::string getIneligibility(MatmulOp op, const WgmmaTiling &tiling) {
  auto aType = dyn_cast<MemRefType>(op.getA().getType());
  auto bType = dyn_cast<MemRefType>(op.getB().getType());
  auto dType = dyn_cast<MemRefType>(op.getInit().getType());
  if (!aType || !bType || !dType)
    return "not bufferized";
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !dType.hasStaticShape())
    return "dynamic shapes";
  // wgmma reads OCP FP8 only (the NVVM pipeline refuses the rest before).
  for (MemRefType type : {aType, bType})
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(type.getElementType()))
      return "not OCP FP8";
  // Empty products are the reference lowering's; TMA coordinates are
  // 32-bit.
  constexpr int64_t kMaxCoordinate = (int64_t(1) << 31) - 1;
  for (int64_t extent : {aType.getDimSize(0), aType.getDimSize(1),
                         bType.getDimSize(0)})
    if (extent == 0 || extent > kMaxCoordinate)
      return "empty or above 2^31 - 1 extents";
  if (op.getBLayout() != OperandLayout::NK)
    return "B stored [K, N]";
  if (op.getAux())
    return "auxiliary outputs";
  if (op.getOutScales()) {
    // A block of the output's scales must lie within one thread quad's
    // columns of one tile (whole 8-column groups).
    int64_t blockColumns =
        op.getOutEncodingAttr().getBlockExtent(dType.getDimSize(0),
                                               dType.getDimSize(1)).second;
    if (blockColumns % 8 != 0 || tiling.tileN % blockColumns != 0)
      return "FP8 output scale blocks not dividing the kernel's tiles";
  }
  for (MemRefType type : {aType, bType, dType})
    if (!type.getLayout().isIdentity())
      return "strided operands";
  int64_t k = aType.getDimSize(1);
  // TMA reads rows at 16-byte aligned strides.
  if (k == 0 || k % 16 != 0)
    return "K not a positive multiple of 16";
  for (auto [encoding, isB] :
       {std::pair{op.getAEncoding(), false}, {op.getBEncoding(), true}}) {
    if (encoding.isMX())
      return "MX scales";
    if (encoding.getKind() != ScaleKind::Block)
      continue;
    auto [rows, kBlock] = encoding.getBlockExtent(isB ? bType.getDimSize(0)
                                                      : aType.getDimSize(0),
                                                  k);
    // A K block must be whole K tiles; B's row blocks whole N tiles, so
    // that one scale serves a consumer's columns.
    if (kBlock % tiling.tileK != 0 || (isB && rows % tiling.tileN != 0))
      return "scale blocks not aligned with the kernel's tiles";
  }
  return "";
}

} // namespace

void wgmma::emitPtx(ImplicitLocOpBuilder &b, StringRef ptx,
                    StringRef constraints, ValueRange operands) {
  LLVM::InlineAsmOp::create(b, Type(), operands, ptx, constraints,
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            /*asm_dialect=*/nullptr,
                            /*operand_attrs=*/nullptr);
}

Value WgmmaKernelBuilder::loadScale(ImplicitLocOpBuilder &b, Value scales,
                                    ScaleEncodingAttr encoding, int64_t rows,
                                    Value row, Value kIndex) {
  auto [blockRows, blockK] = encoding.getBlockExtent(rows, k);
  Value r = arith::DivUIOp::create(b, row, constant(b, blockRows));
  Value c = arith::DivUIOp::create(b, kIndex, constant(b, blockK));
  SmallVector<Value, 2> indices = {r, c};
  if (encoding.isMNMajor())
    std::swap(indices[0], indices[1]);
  Value scale = memref::LoadOp::create(b, scales, indices);
  if (scale.getType() != b.getF32Type())
    scale = arith::ExtFOp::create(b, b.getF32Type(), scale);
  return scale;
}

void WgmmaKernelBuilder::prepareConsumer(ImplicitLocOpBuilder &b) {
  Value threadId = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value thread = arith::RemUIOp::create(
      b, threadId, constant(b, chip.warpgroupThreads));
  warp = arith::DivUIOp::create(b, thread, constant(b, 32));
  lane = arith::RemUIOp::create(b, thread, constant(b, 32));
  isFirstConsumerThread =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, thread, constant(b, 0));
  // Per-tensor scales are the same for every tile: loaded once.
  Value c0 = constant(b, 0);
  for (auto [scales, encoding, rows] :
       {std::tuple{aScales, op.getAEncoding(), m},
        {bScales, op.getBEncoding(), n}}) {
    if (encoding.getKind() != ScaleKind::PerTensor)
      continue;
    (scales == aScales ? tensorScaleA : tensorScaleB) =
        loadScale(b, scales, encoding, rows, c0, c0);
  }
  // Without staging, D's elements are stored in pairs through a global
  // pointer when the pairs (two adjacent columns, the first even) are
  // aligned.
  if (n % 2 == 0 && !tensorMapD) {
    Value address = arith::IndexCastOp::create(
        b, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, destination));
    destinationPointer = LLVM::IntToPtrOp::create(
        b, LLVM::LLVMPointerType::get(op.getContext(), /*global*/ 1),
        address);
  }
}

std::pair<std::array<Value, 2>, Value>
WgmmaKernelBuilder::getThreadPosition(ImplicitLocOpBuilder &b,
                                      Value consumer) {
  // The accumulator layout of wgmma (PTX ISA, "Register fragments" of
  // wgmma .m64nNk32 with f32 D): warp w of the warpgroup holds rows
  // 16w + lane / 4 and 16w + lane / 4 + 8; in each 8-column group j the
  // thread holds columns 8j + 2 (lane % 4) and the next one, as fragment
  // elements 4j + {0, 1} (first row) and 4j + {2, 3} (second row).
  Value firstRow = arith::AddIOp::create(
      b,
      arith::AddIOp::create(
          b, blockRow,
          arith::MulIOp::create(b, consumer, constant(b, chip.wgmmaM))),
      arith::AddIOp::create(b, arith::MulIOp::create(b, warp, constant(b, 16)),
                            arith::DivUIOp::create(b, lane, constant(b, 4))));
  std::array<Value, 2> rows = {
      firstRow, arith::AddIOp::create(b, firstRow, constant(b, 8))};
  Value laneColumn = arith::AddIOp::create(
      b, blockColumn,
      arith::MulIOp::create(b, arith::RemUIOp::create(b, lane, constant(b, 4)),
                            constant(b, 2)));
  return {rows, laneColumn};
}

void WgmmaKernelBuilder::buildConsumer(ImplicitLocOpBuilder &b,
                                       Value consumer) {
  Value c1 = constant(b, 1);
  // With block scales (without: buildDeferredPromotionKLoop), one K
  // tile's wgmma group at a time: issue, wait_group 0, release the
  // stage, promote. ptxas serializes every wgmma of the kernel (C7514,
  // each step waited for on its own) once registers of a group that
  // `wait_group 1` leaves in flight are read, as a second fragment
  // promoted under the next group's steps would be; while one warpgroup
  // promotes, the other's steps keep the tensor cores busy. A fragment's
  // registers are carried to the next K tile, whose first step overwrites
  // them (scale-d zero), so no zeroing is issued.
  //
  // A tile's first K tile is issued before the previous tile's epilogue
  // (before the tile loop for the first tile), so that the tensor cores
  // work while the epilogue stores: its group is the one in flight across
  // the epilogue and the loop's back edge. The wgmma steps need no tile
  // coordinates (the producer put the tile into the next stage), only the
  // ring iteration, which runs on by K tiles across tiles.
  int64_t kTileCount = llvm::divideCeil(k, tiling.tileK);
  Type fragmentType = getFragmentType();
  // Block scales change every K tile; the others wait for the epilogue.
  int64_t promotionKTiles = getWgmmaPromotionKTiles(
      getScaleUse(op.getAEncoding()) == ScaleUse::PerKTile ||
          getScaleUse(op.getBEncoding()) == ScaleUse::PerKTile,
      tiling.promotionKTiles);
  Value poison = LLVM::PoisonOp::create(b, fragmentType);
  // Every block has a tile (the grid is at most the units of tiles), so
  // the first one's K tile 0 (ring iteration 0) is issued unconditionally.
  IssuedKTile first = issueKTile(b, consumer, constant(b, 0), poison);
  auto tileBody =
      [&](ImplicitLocOpBuilder &b, ValueRange carried) -> SmallVector<Value> {
        auto [rows, laneColumn] = getThreadPosition(b, consumer);
        Value accumulator, spare;
        if (promotionKTiles > 1) {
          std::tie(accumulator, spare) = buildDeferredPromotionKLoop(
              b, consumer, carried[0], promotionKTiles);
        } else {
          // K tile 0, in flight since before this tile: its scales, then
          // the wait and its promotion into a zero accumulator.
          IssuedKTile tile;
          tile.scales = loadKTileScales(b, rows, constant(b, 0));
          tile.fragment = carried[0];
          tile.stage = arith::RemUIOp::create(b, firstIteration,
                                              constant(b, tiling.stages));
          NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
          accumulator =
              retireKTile(b, tile, LLVM::ZeroOp::create(b, fragmentType));
          // K tiles 1, 2, ... (no loop for one K tile).
          spare = tile.fragment;
          if (kTileCount > 1) {
            auto loop = scf::ForOp::create(b, c1, itemKTiles, c1,
                                           ValueRange{accumulator, spare});
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(loop.getBody());
            Value kt = loop.getInductionVar();
            KTileScales scales = loadKTileScales(b, rows, kt);
            IssuedKTile next = issueKTile(
                b, consumer, arith::AddIOp::create(b, firstIteration, kt),
                loop.getRegionIterArgs()[1]);
            next.scales = scales;
            NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
            Value promoted =
                retireKTile(b, next, loop.getRegionIterArgs()[0]);
            scf::YieldOp::create(b, ValueRange{promoted, next.fragment});
            accumulator = loop.getResult(0);
            spare = loop.getResult(1);
          }
        }
        // The next tile's K tile 0, then this tile's epilogue. A dynamic
        // schedule's next item is in the slot of the stage after this
        // item's, which the producer fills (or marks as the end) in any
        // case.
        Value nextIteration =
            arith::AddIOp::create(b, firstIteration, itemKTiles);
        Value nextStage, nextItem;
        if (schedule.dynamic) {
          nextStage = waitFull(b, nextIteration);
          nextItem = loadStageItem(b, nextStage);
          hasNextTile =
              arith::CmpIOp::create(b, arith::CmpIPredicate::ult, nextItem,
                                    constant(b, schedule.items()));
        }
        auto nextTile = scf::IfOp::create(b, TypeRange{fragmentType},
                                          hasNextTile, /*withElse=*/true);
        {
          ImplicitLocOpBuilder then(b.getLoc(),
                                    nextTile.getThenBodyBuilder());
          IssuedKTile issued =
              nextStage ? issueKTileOnStage(then, consumer, nextStage, spare)
                        : issueKTile(then, consumer, nextIteration, spare);
          scf::YieldOp::create(then, issued.fragment);
          ImplicitLocOpBuilder otherwise(b.getLoc(),
                                         nextTile.getElseBodyBuilder());
          scf::YieldOp::create(otherwise, spare);
        }
        if (!schedule.isSplit()) {
          buildEpilogue(b, consumer, accumulator, rows, laneColumn);
          if (nextItem)
            return {nextItem, nextTile.getResult(0)};
          return {nextTile.getResult(0)};
        }
        // A Stream-K part: the epilogue where it completes the tile.
        Type i1 = b.getI1Type();
        auto ending = scf::IfOp::create(b, TypeRange{i1, fragmentType},
                                        isPart, /*withElse=*/true);
        {
          ImplicitLocOpBuilder then(b.getLoc(), ending.getThenBodyBuilder());
          auto [completes, sums] = reducePart(then, consumer, accumulator);
          scf::YieldOp::create(then, ValueRange{completes, sums});
          ImplicitLocOpBuilder otherwise(b.getLoc(),
                                         ending.getElseBodyBuilder());
          Value always = arith::ConstantIntOp::create(otherwise, i1, 1);
          scf::YieldOp::create(otherwise, ValueRange{always, accumulator});
        }
        auto epilogue = scf::IfOp::create(b, ending.getResult(0), false);
        ImplicitLocOpBuilder inner(b.getLoc(), epilogue.getThenBodyBuilder());
        buildEpilogue(inner, consumer, ending.getResult(1), rows, laneColumn);
        return {nextTile.getResult(0)};
      };
  if (schedule.dynamic)
    buildDynamicTileLoop(b, ValueRange{first.fragment}, tileBody);
  else
    buildTileLoop(b, ValueRange{first.fragment}, tileBody);
  // No path leaves with a group in flight (ptxas would wait on it itself,
  // and serialize every wgmma of the kernel for that).
  NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  // Nor with TMA stores reading the staging buffers of shared memory.
  if (tensorMapD) {
    auto issuer = scf::IfOp::create(b, isFirstConsumerThread, false);
    ImplicitLocOpBuilder inner(b.getLoc(), issuer.getThenBodyBuilder());
    NVVM::CpAsyncBulkWaitGroupOp::create(inner, 0, /*read=*/nullptr);
  }
}

void WgmmaKernelBuilder::buildKernelBody(ImplicitLocOpBuilder &b,
                                         gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = op.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  unsigned argument = 0;
  auto next = [&]() -> Value { return kernel.getArgument(argument++); };
  // The tensor maps arrive as pointers (the kernel ABI); TMA reads them
  // through the nvgpu type that records the box and swizzle.
  tensorMapA = UnrealizedConversionCastOp::create(
                   b, getTensorMapType(tiling.tileM, aElement), next())
                   .getResult(0);
  tensorMapB = UnrealizedConversionCastOp::create(
                   b,
                   getTensorMapType(tiling.tileN / tiling.clusterRows,
                                    bElement),
                   next())
                   .getResult(0);
  aScales = next();
  bScales = next();
  bias = op.getBias() ? next() : Value();
  destination = next();
  outScales = op.getOutScales() ? next() : Value();
  Type dElement = cast<MemRefType>(destination.getType()).getElementType();
  if (tiling.stagingBytes)
    tensorMapD =
        UnrealizedConversionCastOp::create(
            b,
            getTensorMapType(chip.wgmmaM, dElement, getStagingBoxColumns()),
            next())
            .getResult(0);
  if (schedule.isSplit()) {
    auto addressOf = [&](Value buffer) -> Value {
      return arith::IndexCastOp::create(
          b, b.getI64Type(),
          memref::ExtractAlignedPointerAsIndexOp::create(b, buffer));
    };
    workspaceAddress = addressOf(next());
    countersAddress = addressOf(next());
  } else if (schedule.dynamic) {
    countersAddress = arith::IndexCastOp::create(
        b, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, next()));
  }

  Value c0 = constant(b, 0), c1 = constant(b, 1);
  kTiles = constant(b, llvm::divideCeil(k, tiling.tileK));

  // The ring starts at the first swizzle atom (8 rows, 1024 bytes) boundary
  // of dynamic shared memory: TMA's 128B swizzle and the descriptors
  // assume atom-aligned tiles.
  auto rawType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 AffineMap(), workgroup);
  Value shared = gpu::DynamicSharedMemoryOp::create(b, rawType);
  int64_t atomBytes = 8 * chip.swizzleBytes;
  Value base = arith::IndexCastOp::create(
      b, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, shared));
  Value atom = arith::ConstantIntOp::create(b, b.getI64Type(), atomBytes);
  Value padding64 = arith::RemUIOp::create(
      b,
      arith::SubIOp::create(b, atom,
                            arith::RemUIOp::create(b, base, atom)),
      atom);
  ringAddress = arith::AddIOp::create(b, base, padding64);
  Value padding = arith::IndexCastOp::create(b, b.getIndexType(), padding64);
  auto tileAt = [this, shared, padding](ImplicitLocOpBuilder &b, Value stage,
                                        Value offset, MemRefType type) {
    Value bytes = arith::AddIOp::create(
        b, padding,
        arith::AddIOp::create(
            b, arith::MulIOp::create(b, stage, constant(b, tiling.stageBytes())),
            offset));
    return memref::ViewOp::create(b, type, shared, bytes, ValueRange())
        .getResult();
  };
  MemRefType aTileType = getTileType(tiling.tileM, aElement);
  int64_t bPartRows = tiling.tileN / tiling.clusterRows;
  MemRefType bPartType = getTileType(bPartRows, bElement);
  aTileAt = [=](ImplicitLocOpBuilder &b, Value stage) {
    return tileAt(b, stage, constant(b, 0), aTileType);
  };
  // This block's part of B's tile (rows of whole swizzle atoms, so the
  // parts make up the tile TMA would write in one copy).
  bTileAt = [=](ImplicitLocOpBuilder &b, Value stage) {
    Value offset = constant(b, tiling.tileM * tiling.tileK);
    if (clustered())
      offset = arith::AddIOp::create(
          b, offset,
          arith::MulIOp::create(b, clusterRank,
                                constant(b, bPartRows * tiling.tileK)));
    return tileAt(b, stage, offset, bPartType);
  };
  // D's staging buffers: one per consumer, after the `empty` barriers.
  if (tiling.stagingBytes) {
    MemRefType boxType =
        getTileType(chip.wgmmaM, dElement, getStagingBoxColumns());
    int64_t boxBytes = chip.wgmmaM * chip.swizzleBytes;
    stagingBoxAt = [=](ImplicitLocOpBuilder &b, Value consumer,
                       int64_t box) {
      Value bytes = arith::AddIOp::create(
          b, padding,
          arith::AddIOp::create(
              b,
              arith::MulIOp::create(
                  b, consumer,
                  constant(b, tiling.stagingBytes / tiling.consumers)),
              constant(b, tiling.stagingOffset(chip) + box * boxBytes)));
      return memref::ViewOp::create(b, boxType, shared, bytes, ValueRange())
          .getResult();
    };
  }

  auto barriersType =
      nvgpu::MBarrierGroupType::get(ctx, workgroup, tiling.stages);
  fullBarriers = nvgpu::MBarrierCreateOp::create(b, barriersType);
  clusterRank = clustered() ? gpu::ClusterBlockIdOp::create(
                                  b, gpu::Dimension::x)
                                  .getResult()
                            : c0;
  Value threadId = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value isFirstThread =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, threadId, c0);
  {
    auto init = scf::IfOp::create(b, isFirstThread, false);
    ImplicitLocOpBuilder inner(b.getLoc(), init.getThenBodyBuilder());
    // `empty`: one arrival per consumer warp of each block of the cluster.
    Value emptyArrivals = arith::ConstantIntOp::create(
        inner, inner.getI32Type(),
        tiling.clusterRows * tiling.consumers * chip.warpgroupThreads / 32);
    for (int64_t stage = 0; stage < tiling.stages; ++stage) {
      Value index = constant(inner, stage);
      // `full`: the producer's arrival with its byte count.
      nvgpu::MBarrierInitOp::create(inner, fullBarriers, c1, index, Value());
      emitPtx(inner, "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r",
              {getEmptyBarrierAddress(inner, index), emptyArrivals});
    }
    // The ticket queue's `full` and `empty`: one arrival each (the ticket
    // drawer's, the producer's).
    if (schedule.dynamic)
      for (int64_t which : {0, 1})
        emitPtx(inner, "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r",
                {getQueueBarrierAddress(inner, which),
                 arith::ConstantIntOp::create(inner, inner.getI32Type(), 1)});
    // The initialized barriers are seen by TMA's async proxy (and, in a
    // cluster, by the other blocks); the tensor maps the host copied into
    // global memory by the tensor-map proxy (this thread issues the
    // copies): each needs a fence first.
    if (clustered())
      NVVM::FenceMbarrierInitOp::create(inner);
    NVVM::FenceProxyOp::create(
        inner, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    nvgpu::TmaFenceOp::create(inner, tensorMapA);
    nvgpu::TmaFenceOp::create(inner, tensorMapB);
    nvgpu::TmaPrefetchOp::create(inner, tensorMapA, Value());
    nvgpu::TmaPrefetchOp::create(inner, tensorMapB, Value());
    if (tensorMapD) {
      nvgpu::TmaFenceOp::create(inner, tensorMapD);
      nvgpu::TmaPrefetchOp::create(inner, tensorMapD, Value());
    }
  }
  // No block multicasts into another's shared memory or arrives on its
  // barriers before they are initialized.
  auto syncCluster = [&]() {
    if (!clustered())
      return gpu::BarrierOp::create(b), void();
    NVVM::ClusterArriveOp::create(b, /*aligned=*/nullptr);
    NVVM::ClusterWaitOp::create(b, /*aligned=*/nullptr);
  };
  syncCluster();

  Value warpgroup = arith::DivUIOp::create(
      b, threadId, constant(b, chip.warpgroupThreads));
  Value isProducer =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warpgroup, c0);
  auto roles = scf::IfOp::create(b, isProducer, /*withElseRegion=*/true);
  {
    // The producer warpgroup gives registers up for the consumers (both
    // roles are branches of one if, as setmaxnreg requires).
    ImplicitLocOpBuilder producer(b.getLoc(), roles.getThenBodyBuilder());
    NVVM::SetMaxRegisterOp::create(producer, tiling.producerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
    auto issuing = scf::IfOp::create(producer, isFirstThread, false);
    ImplicitLocOpBuilder inner(b.getLoc(), issuing.getThenBodyBuilder());
    buildProducerLoop(inner);
    if (schedule.dynamic) {
      // The ticket drawer: the second warp's first thread.
      Value isDrawer = arith::CmpIOp::create(
          producer, arith::CmpIPredicate::eq, threadId, constant(producer, 32));
      auto drawing = scf::IfOp::create(producer, isDrawer, false);
      ImplicitLocOpBuilder drawer(b.getLoc(), drawing.getThenBodyBuilder());
      buildTicketDrawer(drawer);
    }
  }
  {
    ImplicitLocOpBuilder consumer(b.getLoc(), roles.getElseBodyBuilder());
    NVVM::SetMaxRegisterOp::create(consumer, tiling.consumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
    Value consumerIndex = arith::SubIOp::create(consumer, warpgroup, c1);
    prepareConsumer(consumer);
    buildConsumer(consumer, consumerIndex);
  }
  // Nor does a block exit while the others may still write into its
  // shared memory or arrive on its barriers.
  if (clustered())
    syncCluster();
  gpu::ReturnOp::create(b);
}

LogicalResult WgmmaKernelBuilder::build(func::FuncOp func,
                                        SymbolTable &symbols) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  auto pointer = LLVM::LLVMPointerType::get(ctx);

  // The kernel: its own gpu.module after the function, named after it.
  OpBuilder moduleBuilder(func);
  moduleBuilder.setInsertionPointAfter(func);
  auto gpuModule = gpu::GPUModuleOp::create(
      moduleBuilder, loc, (func.getName() + "_wgmma").str());
  symbols.insert(gpuModule);
  SmallVector<Type> parameters = {pointer, pointer, op.getAScales().getType(),
                                  op.getBScales().getType()};
  if (op.getBias())
    parameters.push_back(op.getBias().getType());
  parameters.push_back(op.getInit().getType());
  if (op.getOutScales())
    parameters.push_back(op.getOutScales().getType());
  if (tiling.stagingBytes)
    parameters.push_back(pointer);
  // Stream-K: each part's f32 sums, and an arrival counter per split tile
  // and consumer warpgroup. Dynamic schedules: the tickets drawn and the
  // blocks done.
  MemRefType workspaceType, countersType;
  if (schedule.isSplit()) {
    workspaceType = MemRefType::get(
        {schedule.splitTiles * schedule.parts * tiling.tileM * tiling.tileN},
        Float32Type::get(ctx));
    countersType =
        MemRefType::get({schedule.splitTiles * tiling.consumers},
                        IntegerType::get(ctx, 32));
    parameters.append({workspaceType, countersType});
  } else if (schedule.dynamic) {
    countersType = MemRefType::get({2}, IntegerType::get(ctx, 32));
    parameters.push_back(countersType);
  }
  OpBuilder kernelBuilder = OpBuilder::atBlockBegin(gpuModule.getBody());
  auto kernel = gpu::GPUFuncOp::create(
      kernelBuilder, loc, "matmul",
      FunctionType::get(ctx, parameters, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  UnitAttr::get(ctx));
  kernel.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {int32_t(tiling.threads), 1, 1}));
  ImplicitLocOpBuilder body(loc, OpBuilder::atBlockBegin(
                                     &kernel.getBody().front()));
  buildKernelBody(body, kernel);

  // The host side: the tensor maps, then the launch.
  ImplicitLocOpBuilder b(loc, op);
  auto tensorMap = [&](Value operand, int64_t rows, Type element,
                       int64_t columns = 0) -> Value {
    auto type = cast<MemRefType>(operand.getType());
    auto unranked = UnrankedMemRefType::get(element, type.getMemorySpace());
    Value cast = memref::CastOp::create(b, unranked, operand);
    Value box[2] = {constant(b, rows),
                    constant(b, columns ? columns : tiling.tileK)};
    Value map = nvgpu::TmaCreateDescriptorOp::create(
        b, getTensorMapType(rows, element, columns), cast, box);
    return UnrealizedConversionCastOp::create(b, pointer, map).getResult(0);
  };
  SmallVector<Value> arguments = {
      tensorMap(op.getA(), tiling.tileM, aElement),
      tensorMap(op.getB(), tiling.tileN / tiling.clusterRows, bElement),
      op.getAScales(), op.getBScales()};
  if (op.getBias())
    arguments.push_back(op.getBias());
  arguments.push_back(op.getInit());
  if (op.getOutScales())
    arguments.push_back(op.getOutScales());
  if (tiling.stagingBytes)
    arguments.push_back(
        tensorMap(op.getInit(), chip.wgmmaM,
                  cast<MemRefType>(op.getInit().getType()).getElementType(),
                  getStagingBoxColumns()));
  int64_t temporaries = 0;
  if (countersType) {
    // The workspace is written before it is read; the counters start at
    // zero (memref.alloc leaves contents undefined), and the kernel leaves
    // them at zero for the next launch.
    Value counters = memref::AllocOp::create(b, countersType);
    gpu::MemsetOp::create(b, /*asyncToken=*/Type(),
                          /*asyncDependencies=*/ValueRange(), counters,
                          arith::ConstantIntOp::create(b, b.getI32Type(), 0));
    if (workspaceType)
      arguments.push_back(memref::AllocOp::create(b, workspaceType));
    arguments.push_back(counters);
    temporaries = workspaceType ? 2 : 1;
  }
  Value one = constant(b, 1);
  // Persistent blocks: one per multiprocessor (at most max-blocks), or
  // one per work item.
  gpu::KernelDim3 grid{constant(b, schedule.blocks), one, one};
  gpu::KernelDim3 block{constant(b, tiling.threads), one, one};
  std::optional<gpu::KernelDim3> cluster;
  if (clustered())
    cluster = gpu::KernelDim3{constant(b, tiling.clusterRows), one, one};
  Value sharedBytes = arith::ConstantIntOp::create(
      b, b.getI32Type(), tiling.sharedBytes(chip));
  gpu::LaunchFuncOp::create(b, kernel, grid, block, sharedBytes, arguments,
                            /*asyncTokenType=*/nullptr,
                            /*asyncDependencies=*/{}, cluster);
  for (Value buffer : ArrayRef(arguments).take_back(temporaries))
    memref::DeallocOp::create(b, buffer);
  op.erase();
  return success();
}

namespace {
struct QMMLowerMatmulToWgmmaPass
    : public qmm::impl::QMMLowerMatmulToWgmmaBase<QMMLowerMatmulToWgmmaPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const NvidiaChipInfo *target = lookupNvidiaChip(chip);
    if (!target) {
      module.emitError("qmm-lower-matmul-to-wgmma: unknown chip '")
          << chip << "' (expected " << getSupportedNvidiaChipNames() << ")";
      return signalPassFailure();
    }
    if (maxBlocks < 0) {
      module.emitError("qmm-lower-matmul-to-wgmma: max-blocks must be 0 "
                       "(one block per multiprocessor) or positive, got ")
          << int64_t(maxBlocks);
      return signalPassFailure();
    }
    if (rasterRows < 1) {
      module.emitError("qmm-lower-matmul-to-wgmma: raster-rows must be at "
                       "least 1, got ")
          << int64_t(rasterRows);
      return signalPassFailure();
    }
    // One stage would work, but the producer could copy only once the
    // consumers released it: no TMA copy would ever overlap the wgmma steps.
    if (stages < 2) {
      module.emitError("qmm-lower-matmul-to-wgmma: stages must be at least "
                       "2 (a ring of one stage never overlaps the copies "
                       "with the wgmma steps), got ")
          << int64_t(stages);
      return signalPassFailure();
    }
    if (promotionKTiles < 1) {
      module.emitError("qmm-lower-matmul-to-wgmma: promotion-k-tiles must "
                       "be at least 1, got ")
          << int64_t(promotionKTiles);
      return signalPassFailure();
    }
    WgmmaTiling tiling;
    tiling.tileK = target->getWgmmaKTile();
    tiling.consumers = 2;
    tiling.tileM = tiling.consumers * target->wgmmaM;
    tiling.tileN = 128;
    tiling.stages = stages;
    tiling.promotionKTiles = promotionKTiles;
    tiling.threads = (tiling.consumers + 1) * target->warpgroupThreads;
    tiling.rasterRows = rasterRows;
    // The producer (one thread issuing copies) keeps 40 registers, what
    // CUTLASS's warp-specialized kernels give it; the consumers share the
    // rest, in setmaxnreg's steps of 8.
    tiling.producerRegisters = std::max<int64_t>(40, target->minRegistersPerThread);
    tiling.consumerRegisters =
        std::min(target->maxRegistersPerThread,
                 (target->registersPerMultiprocessor -
                  target->warpgroupThreads * tiling.producerRegisters) /
                     (tiling.consumers * target->warpgroupThreads) / 8 * 8);
    // B's tile splits into parts of whole 8-row swizzle atoms.
    int64_t maxClusterRows =
        std::min(target->maxPortableClusterBlocks, tiling.tileN / 8);
    if (clusterRows < 1 || !llvm::isPowerOf2_64(clusterRows) ||
        clusterRows > maxClusterRows) {
      module.emitError("qmm-lower-matmul-to-wgmma: cluster-rows must be a "
                       "power of two from 1 to ")
          << maxClusterRows << ", got " << int64_t(clusterRows);
      return signalPassFailure();
    }
    if (maxBlocks > 0 && maxBlocks < clusterRows) {
      module.emitError("qmm-lower-matmul-to-wgmma: max-blocks (")
          << int64_t(maxBlocks) << ") must hold a cluster of cluster-rows ("
          << int64_t(clusterRows) << ") blocks";
      return signalPassFailure();
    }
    // (The item slots counted where a kernel may have them.)
    tiling.itemSlots = dynamicSchedule;
    if (tiling.sharedBytes(*target) > target->maxSharedBytesPerBlock) {
      module.emitError("qmm-lower-matmul-to-wgmma: ")
          << int64_t(stages) << " stages need " << tiling.sharedBytes(*target)
          << " bytes of shared memory; " << target->name << " has "
          << target->maxSharedBytesPerBlock << " per block";
      return signalPassFailure();
    }

    SmallVector<std::pair<MatmulOp, func::FuncOp>> matmuls;
    WalkResult walked = module.walk([&](MatmulOp matmul) {
      std::string reason = getIneligibility(matmul, tiling);
      if (reason.empty()) {
        matmuls.push_back({matmul, matmul->getParentOfType<func::FuncOp>()});
        return WalkResult::advance();
      }
      // The reference lowering quantizes on the host (scf.for loops no
      // GPU kernel takes): on NVIDIA only the wgmma kernels quantize.
      if (matmul.getOutScales() &&
          isa<MemRefType>(matmul.getInit().getType())) {
        matmul.emitOpError("qmm-lower-matmul-to-wgmma: an FP8 output is "
                           "quantized by the wgmma kernel only, which does "
                           "not take this matmul: ")
            << reason;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    if (matmuls.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SymbolTable symbols(module);
    for (auto [matmul, func] : matmuls) {
      WgmmaKernelBuilder builder(matmul, *target, tiling, clusterRows,
                                 streamK, maxBlocks, dynamicSchedule);
      if (failed(builder.build(func, symbols)))
        return signalPassFailure();
    }
  }
};
} // namespace
