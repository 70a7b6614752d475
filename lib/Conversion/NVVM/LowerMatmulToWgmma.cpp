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

NVVM::WGMMATypes getWgmmaType(Type element) {
  return isa<Float8E5M2Type>(element) ? NVVM::WGMMATypes::e5m2
                                      : NVVM::WGMMATypes::e4m3;
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

Value WgmmaKernelBuilder::getEmptyBarrierAddress(ImplicitLocOpBuilder &b,
                                                 Value stage) {
  Value offset = arith::AddIOp::create(
      b, constant(b, tiling.stages * tiling.stageBytes()),
      arith::MulIOp::create(b, stage, constant(b, 8)));
  Value address = arith::AddIOp::create(
      b, ringAddress,
      arith::IndexCastOp::create(b, b.getI64Type(), offset));
  return arith::TruncIOp::create(b, b.getI32Type(), address);
}

void WgmmaKernelBuilder::waitEmpty(ImplicitLocOpBuilder &b, Value stage,
                                   Value parity) {
  // The braces scope the label to this copy of the loop.
  emitPtx(b,
          "{ .reg .pred done; wait_empty: mbarrier.try_wait.parity."
          "shared::cta.b64 done, [$0], $1; @!done bra wait_empty; }",
          "r,r",
          {getEmptyBarrierAddress(b, stage),
           arith::ExtUIOp::create(b, b.getI32Type(), parity)});
}

void WgmmaKernelBuilder::releaseEmpty(ImplicitLocOpBuilder &b, Value stage) {
  Value address = getEmptyBarrierAddress(b, stage);
  if (!clustered()) {
    emitPtx(b, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r", {address});
    return;
  }
  // The same barrier of each block of the cluster (mapa: its address in
  // that block's shared memory). The arrival keeps the default semantics
  // (release at CTA scope), as CUTLASS's cluster pipelines do: what it
  // orders is this warp's wgmma reads, complete after the wait, before
  // TMA's writes; release at cluster scope would also wait for the
  // previous tile's global stores, on every K tile.
  for (int64_t rank = 0; rank < tiling.clusterRows; ++rank)
    emitPtx(b,
            "{ .reg .b32 remote; mapa.shared::cluster.u32 remote, $0, $1; "
            "mbarrier.arrive.shared::cluster.b64 _, [remote]; }",
            "r,r",
            {address,
             arith::ConstantIntOp::create(b, b.getI32Type(), rank)});
}

Value WgmmaKernelBuilder::buildDescriptor(ImplicitLocOpBuilder &b,
                                          Value address) {
  auto i64 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, b.getI64Type(), value);
  };
  // Bits 0-13: address >> 4 (shared memory is below 256 KiB); 16-29: the
  // leading byte offset (unused for swizzled K-major tiles, 1 by
  // convention); 32-45: the stride between 8-row atoms >> 4; 62-63: the
  // swizzle mode (1 = 128B). The base-offset bits stay 0: atoms are aligned.
  int64_t atomBytes = 8 * chip.swizzleBytes;
  Value start = arith::ShRUIOp::create(
      b, arith::AndIOp::create(b, address, i64(0x3FFFF)), i64(4));
  int64_t fixed = (int64_t(1) << 16) | ((atomBytes >> 4) << 32) |
                  (int64_t(1) << 62);
  return arith::OrIOp::create(b, start, i64(fixed));
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

void WgmmaKernelBuilder::buildProducer(ImplicitLocOpBuilder &b) {
  Value c0 = constant(b, 0), c1 = constant(b, 1);
  Value stages = constant(b, tiling.stages);
  auto loop = scf::ForOp::create(b, c0, itemKTiles, c1);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value iteration = arith::AddIOp::create(b, firstIteration, kt);
  Value stage = arith::RemUIOp::create(b, iteration, stages);
  Value round = arith::DivUIOp::create(b, iteration, stages);
  // A stage is free once the consumers released its previous round; the
  // first round finds every stage free (waiting for the parity of the phase
  // before a fresh barrier's first one returns at once).
  Value roundParity = arith::AndIOp::create(b, round, c1);
  Value parity = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                       roundParity, c0);
  waitEmpty(b, stage, parity);
  // The stage's bytes: A's tile and all of B's, whose parts the cluster's
  // blocks multicast.
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, fullBarriers, constant(b, tiling.stageBytes()), stage, Value());
  // TMA coordinates are innermost first: (k, row).
  Value kOffset = arith::MulIOp::create(
      b, arith::AddIOp::create(b, itemKBegin, kt), constant(b, tiling.tileK));
  nvgpu::TmaAsyncLoadOp::create(b, aTileAt(b, stage), fullBarriers,
                                tensorMapA, ValueRange{kOffset, blockRow},
                                stage, Value(), Value());
  // This block's part of B's tile (all of it without a cluster), written
  // into every block of the cluster, completing on each one's `full`.
  Value bRow = blockColumn;
  Value multicastMask;
  if (clustered()) {
    bRow = arith::AddIOp::create(
        b, blockColumn,
        arith::MulIOp::create(b, clusterRank,
                              constant(b, tiling.tileN / tiling.clusterRows)));
    multicastMask = arith::ConstantIntOp::create(
        b, b.getI16Type(), (int64_t(1) << tiling.clusterRows) - 1);
  }
  nvgpu::TmaAsyncLoadOp::create(b, bTileAt(b, stage), fullBarriers,
                                tensorMapB, ValueRange{kOffset, bRow}, stage,
                                multicastMask, Value());
  b.setInsertionPointAfter(loop);
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
    Value scale = loadScale(b, scales, encoding, rows, c0, c0);
    tensorScale =
        tensorScale ? arith::MulFOp::create(b, tensorScale, scale) : scale;
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

WgmmaKernelBuilder::KTileScales
WgmmaKernelBuilder::loadKTileScales(ImplicitLocOpBuilder &b,
                                    ArrayRef<Value> rows, Value kt) {
  KTileScales scales;
  Value kIndex = arith::MulIOp::create(
      b, arith::AddIOp::create(b, itemKBegin, kt), constant(b, tiling.tileK));
  if (getScaleUse(op.getBEncoding()) == ScaleUse::PerKTile)
    scales.b =
        loadScale(b, bScales, op.getBEncoding(), n, blockColumn, kIndex);
  if (getScaleUse(op.getAEncoding()) == ScaleUse::PerKTile) {
    // Rows past M read row M - 1's scales.
    for (Value row : rows) {
      Value clamped = arith::MinUIOp::create(b, row, constant(b, m - 1));
      scales.a.push_back(
          loadScale(b, aScales, op.getAEncoding(), m, clamped, kIndex));
    }
  }
  return scales;
}

WgmmaKernelBuilder::IssuedKTile
WgmmaKernelBuilder::issueKTile(ImplicitLocOpBuilder &b, Value consumer,
                               Value iteration, Value spare,
                               bool accumulate) {
  MLIRContext *ctx = op.getContext();
  Value c0 = constant(b, 0), c1 = constant(b, 1);
  Value stages = constant(b, tiling.stages);
  IssuedKTile issued;
  issued.stage = arith::RemUIOp::create(b, iteration, stages);
  Value round = arith::DivUIOp::create(b, iteration, stages);
  Value parity = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                       arith::AndIOp::create(b, round, c1), c0);

  Value ticks = constant(b, 10000000);
  nvgpu::MBarrierTryWaitParityOp::create(b, fullBarriers, parity, ticks,
                                         issued.stage);
  Value stageAddress = arith::AddIOp::create(
      b, ringAddress,
      arith::IndexCastOp::create(
          b, b.getI64Type(),
          arith::MulIOp::create(b, issued.stage,
                                constant(b, tiling.stageBytes()))));
  Value aAddress = arith::AddIOp::create(
      b, stageAddress,
      arith::IndexCastOp::create(
          b, b.getI64Type(),
          arith::MulIOp::create(b, consumer,
                                constant(b, chip.wgmmaM * tiling.tileK))));
  Value bAddress = arith::AddIOp::create(
      b, stageAddress,
      arith::ConstantIntOp::create(b, b.getI64Type(),
                                   tiling.tileM * tiling.tileK));
  Value aDescriptor = buildDescriptor(b, aAddress);
  Value bDescriptor = buildDescriptor(b, bAddress);

  // The spare fragment's registers were last read by a promotion: the
  // fence orders those reads before wgmma writes them.
  NVVM::WgmmaFenceAlignedOp::create(b);
  Value fragment = spare;
  auto shape = NVVM::MMAShapeAttr::get(ctx, chip.wgmmaM, tiling.tileN,
                                       chip.wgmmaK8Bit);
  for (int64_t step = 0; step < tiling.tileK / chip.wgmmaK8Bit; ++step) {
    // A k32 step is 32 bytes further along each swizzled row: + 2 in the
    // descriptor's address field (16-byte units).
    Value advance = arith::ConstantIntOp::create(b, b.getI64Type(), 2 * step);
    Value stepA = arith::AddIOp::create(b, aDescriptor, advance);
    Value stepB = arith::AddIOp::create(b, bDescriptor, advance);
    fragment = NVVM::WgmmaMmaAsyncOp::create(
        b, getFragmentType(), fragment, stepA, stepB, shape,
        getWgmmaType(aElement), getWgmmaType(bElement), NVVM::WGMMATypes::f32,
        step == 0 && !accumulate ? NVVM::WGMMAScaleOut::zero
                                 : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        NVVM::MMALayout::row, NVVM::MMALayout::col, nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  issued.fragment = fragment;
  return issued;
}

Value WgmmaKernelBuilder::pinFragment(ImplicitLocOpBuilder &b,
                                      Value fragment) {
  auto type = cast<LLVM::LLVMStructType>(fragment.getType());
  int64_t count = type.getBody().size();
  SmallVector<Value> registers;
  SmallVector<std::string> outputs, inputs;
  for (int64_t i = 0; i < count; ++i) {
    registers.push_back(LLVM::ExtractValueOp::create(b, fragment, i));
    outputs.push_back("=f");
    inputs.push_back(std::to_string(i));
  }
  std::string constraints = llvm::join(outputs, ",") + "," +
                            llvm::join(inputs, ",");
  return LLVM::InlineAsmOp::create(b, type, registers, /*asm_string=*/"",
                                   constraints, /*has_side_effects=*/true,
                                   /*is_align_stack=*/false,
                                   LLVM::tailcallkind::TailCallKind::None,
                                   /*asm_dialect=*/nullptr,
                                   /*operand_attrs=*/nullptr)
      .getResult(0);
}

void WgmmaKernelBuilder::releaseStage(ImplicitLocOpBuilder &b, Value stage) {
  Value isFirstLane = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                                            constant(b, 0));
  auto release = scf::IfOp::create(b, isFirstLane, false);
  ImplicitLocOpBuilder inner(b.getLoc(), release.getThenBodyBuilder());
  releaseEmpty(inner, stage);
}

Value WgmmaKernelBuilder::retireKTile(ImplicitLocOpBuilder &b,
                                      IssuedKTile &tile,
                                      Value accumulator) {
  // The caller waited for the tile's wgmma group.
  releaseStage(b, tile.stage);
  return promoteFragment(b, tile, accumulator);
}

Value WgmmaKernelBuilder::promoteFragment(ImplicitLocOpBuilder &b,
                                          IssuedKTile &tile,
                                          Value accumulator) {
  // Promotion: accumulator += fragment (x the K tile's scales), between
  // the wait and the next issue.
  tile.fragment = pinFragment(b, tile.fragment);
  Value fragment = tile.fragment;
  // The K tile's factor per row (of the thread's two): sa x sb.
  SmallVector<Value, 2> factors;
  const KTileScales &scales = tile.scales;
  for (int64_t row = 0; row < 2 && (scales.b || !scales.a.empty()); ++row) {
    if (scales.a.empty())
      factors.push_back(scales.b);
    else if (!scales.b)
      factors.push_back(scales.a[row]);
    else
      factors.push_back(arith::MulFOp::create(b, scales.a[row], scales.b));
  }
  Value promoted = accumulator;
  for (int64_t i = 0; i < tiling.tileN / 2; ++i) {
    Value partial = LLVM::ExtractValueOp::create(b, fragment, i);
    Value sum = LLVM::ExtractValueOp::create(b, accumulator, i);
    // Block scales: one fused multiply-add per element (one rounding).
    // llvm.intr.fma, not math.fma: the GPU lowering would make that a call
    // to libdevice's __nv_fmaf, and ptxas serializes wgmma around calls.
    if (!factors.empty())
      sum = LLVM::FMAOp::create(b, partial, factors[(i % 4) / 2], sum);
    else
      sum = arith::AddFOp::create(b, sum, partial);
    promoted = LLVM::InsertValueOp::create(b, promoted, sum, i);
  }
  return pinFragment(b, promoted);
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
      getScaleUse(op.getBEncoding()) == ScaleUse::PerKTile);
  Value poison = LLVM::PoisonOp::create(b, fragmentType);
  // Every block has a tile (the grid is at most the units of tiles), so
  // the first one's K tile 0 (ring iteration 0) is issued unconditionally.
  IssuedKTile first = issueKTile(b, consumer, constant(b, 0), poison);
  buildTileLoop(
      b, ValueRange{first.fragment},
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
        // The next tile's K tile 0, then this tile's epilogue.
        auto nextTile = scf::IfOp::create(b, TypeRange{fragmentType},
                                          hasNextTile, /*withElse=*/true);
        {
          ImplicitLocOpBuilder then(b.getLoc(),
                                    nextTile.getThenBodyBuilder());
          IssuedKTile issued = issueKTile(
              then, consumer, arith::AddIOp::create(then, firstIteration,
                                                    itemKTiles),
              spare);
          scf::YieldOp::create(then, issued.fragment);
          ImplicitLocOpBuilder otherwise(b.getLoc(),
                                         nextTile.getElseBodyBuilder());
          scf::YieldOp::create(otherwise, spare);
        }
        if (!schedule.isSplit()) {
          buildEpilogue(b, consumer, accumulator, rows, laneColumn);
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
      });
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

std::pair<Value, Value> WgmmaKernelBuilder::buildDeferredPromotionKLoop(
    ImplicitLocOpBuilder &b, Value consumer, Value fragment,
    int64_t promotionKTiles) {
  int64_t kTileCount = llvm::divideCeil(k, tiling.tileK);
  Type fragmentType = getFragmentType();
  Value c1 = constant(b, 1);
  auto stageOf = [&](ImplicitLocOpBuilder &b, Value kt) -> Value {
    return arith::RemUIOp::create(b, arith::AddIOp::create(b, firstIteration,
                                                           kt),
                                  constant(b, tiling.stages));
  };
  Value accumulator = LLVM::ZeroOp::create(b, fragmentType);
  if (kTileCount > 1) {
    // K tile kt (1, 2, ...): at a promotion point (kt a multiple of
    // promotionKTiles) the sums so far are promoted, after the wait for
    // them, and kt starts new ones; elsewhere kt adds to them and the
    // wait is for kt - 1 only.
    auto loop = scf::ForOp::create(b, c1, itemKTiles, c1,
                                   ValueRange{accumulator, fragment});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value sums = loop.getRegionIterArgs()[0];
    Value partial = loop.getRegionIterArgs()[1];
    Value iteration = arith::AddIOp::create(b, firstIteration, kt);
    Value previousStage = stageOf(b, arith::SubIOp::create(b, kt, c1));
    Value isPromotionPoint = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, kt, constant(b, promotionKTiles)),
        constant(b, 0));
    auto step = scf::IfOp::create(b, TypeRange{fragmentType, fragmentType},
                                  isPromotionPoint, /*withElse=*/true);
    {
      ImplicitLocOpBuilder then(b.getLoc(), step.getThenBodyBuilder());
      NVVM::WgmmaWaitGroupSyncOp::create(then, 0);
      releaseStage(then, previousStage);
      IssuedKTile done;
      done.fragment = partial;
      Value promoted = promoteFragment(then, done, sums);
      IssuedKTile next = issueKTile(then, consumer, iteration, done.fragment);
      scf::YieldOp::create(then, ValueRange{promoted, next.fragment});

      ImplicitLocOpBuilder otherwise(b.getLoc(), step.getElseBodyBuilder());
      IssuedKTile next2 = issueKTile(otherwise, consumer, iteration, partial,
                                     /*accumulate=*/true);
      NVVM::WgmmaWaitGroupSyncOp::create(otherwise, 1);
      releaseStage(otherwise, previousStage);
      scf::YieldOp::create(otherwise, ValueRange{sums, next2.fragment});
    }
    scf::YieldOp::create(b, step.getResults());
    accumulator = loop.getResult(0);
    fragment = loop.getResult(1);
  }
  // The last sums.
  NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  releaseStage(b, stageOf(b, arith::SubIOp::create(b, itemKTiles, c1)));
  IssuedKTile last;
  last.fragment = fragment;
  accumulator = promoteFragment(b, last, accumulator);
  return {accumulator, last.fragment};
}

void WgmmaKernelBuilder::buildTileLoop(
    ImplicitLocOpBuilder &b, ValueRange initial,
    llvm::function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, ValueRange)>
        body) {
  // The loop walks units of `clusterRows` tiles of one column, one unit
  // per cluster at a time; a block takes its rank's tile of the unit.
  Value cluster = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value clusters = gpu::GridDimOp::create(b, gpu::Dimension::x);
  if (clustered()) {
    Value rows = constant(b, tiling.clusterRows);
    cluster = arith::DivUIOp::create(b, cluster, rows);
    clusters = arith::DivUIOp::create(b, clusters, rows);
  }
  Value itemCount = constant(b, schedule.items());
  auto loop = scf::ForOp::create(b, cluster, itemCount, clusters, initial);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value item = loop.getInductionVar();
  hasNextTile = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ult,
      arith::AddIOp::create(b, item, clusters), itemCount);
  // Only a block's last item can be a part: the ones before are whole.
  Value local = arith::DivUIOp::create(
      b, arith::SubIOp::create(b, item, cluster), clusters);
  firstIteration = arith::MulIOp::create(b, local, kTiles);
  Value unit = item;
  itemKBegin = constant(b, 0);
  itemKTiles = kTiles;
  if (schedule.isSplit()) {
    // Part p (item wholeUnits + p): K tiles [p' K / s, (p' + 1) K / s) of
    // tile wholeUnits + p / s, with p' = p mod s.
    Value wholeUnits = constant(b, schedule.wholeUnits);
    Value parts = constant(b, schedule.parts);
    isPart = arith::CmpIOp::create(b, arith::CmpIPredicate::uge, item,
                                   wholeUnits);
    partItem = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, item, wholeUnits), wholeUnits);
    Value part = arith::RemUIOp::create(b, partItem, parts);
    auto kBoundary = [&](Value index) -> Value {
      return arith::DivUIOp::create(b, arith::MulIOp::create(b, index, kTiles),
                                    parts);
    };
    Value begin = kBoundary(part);
    Value end = kBoundary(arith::AddIOp::create(b, part, constant(b, 1)));
    unit = arith::SelectOp::create(
        b, isPart,
        arith::AddIOp::create(b, wholeUnits,
                              arith::DivUIOp::create(b, partItem, parts)),
        item);
    itemKBegin = arith::SelectOp::create(b, isPart, begin, itemKBegin);
    itemKTiles = arith::SelectOp::create(
        b, isPart, arith::SubIOp::create(b, end, begin), kTiles);
  }
  // Grouped order: `rasterRows` rows of tiles, column by column, so that
  // the blocks running at once share A's and B's tiles in L2.
  int64_t unitRows = llvm::divideCeil(m, tiling.tileM) / tiling.clusterRows;
  int64_t tileColumns = llvm::divideCeil(n, tiling.tileN);
  int64_t rasterUnits = std::max<int64_t>(1, tiling.rasterRows /
                                                 tiling.clusterRows);
  Value perGroup = constant(b, rasterUnits * tileColumns);
  Value group = arith::DivUIOp::create(b, unit, perGroup);
  Value groupFirstRow =
      arith::MulIOp::create(b, group, constant(b, rasterUnits));
  Value groupRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, constant(b, unitRows), groupFirstRow),
      constant(b, rasterUnits));
  Value inGroup = arith::RemUIOp::create(b, unit, perGroup);
  Value unitRow = arith::AddIOp::create(
      b, groupFirstRow, arith::RemUIOp::create(b, inGroup, groupRows));
  Value tileColumn = arith::DivUIOp::create(b, inGroup, groupRows);
  Value tileRow = unitRow;
  if (clustered())
    tileRow = arith::AddIOp::create(
        b, arith::MulIOp::create(b, unitRow, constant(b, tiling.clusterRows)),
        clusterRank);
  blockRow = arith::MulIOp::create(b, tileRow, constant(b, tiling.tileM));
  blockColumn =
      arith::MulIOp::create(b, tileColumn, constant(b, tiling.tileN));
  SmallVector<Value> next = body(b, loop.getRegionIterArgs());
  // Without loop-carried values, scf.for's builder made the yield.
  if (!initial.empty())
    scf::YieldOp::create(b, next);
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
    buildTileLoop(inner, ValueRange(),
                  [&](ImplicitLocOpBuilder &b, ValueRange) {
                    buildProducer(b);
                    return SmallVector<Value>();
                  });
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
  // and consumer warpgroup.
  MemRefType workspaceType, countersType;
  if (schedule.isSplit()) {
    workspaceType = MemRefType::get(
        {schedule.splitTiles * schedule.parts * tiling.tileM * tiling.tileN},
        Float32Type::get(ctx));
    countersType =
        MemRefType::get({schedule.splitTiles * tiling.consumers},
                        IntegerType::get(ctx, 32));
    parameters.append({workspaceType, countersType});
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
  if (schedule.isSplit()) {
    // The workspace is written before it is read; the counters start at
    // zero (memref.alloc leaves contents undefined), and the kernel leaves
    // them at zero for the next launch.
    Value counters = memref::AllocOp::create(b, countersType);
    gpu::MemsetOp::create(b, /*asyncToken=*/Type(),
                          /*asyncDependencies=*/ValueRange(), counters,
                          arith::ConstantIntOp::create(b, b.getI32Type(), 0));
    arguments.append({memref::AllocOp::create(b, workspaceType), counters});
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
  if (schedule.isSplit())
    for (Value buffer : ArrayRef(arguments).take_back(2))
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
    WgmmaTiling tiling;
    tiling.tileK = target->getWgmmaKTile();
    tiling.consumers = 2;
    tiling.tileM = tiling.consumers * target->wgmmaM;
    tiling.tileN = 128;
    tiling.stages = stages;
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
                                 streamK, maxBlocks);
      if (failed(builder.build(func, symbols)))
        return signalPassFailure();
    }
  }
};
} // namespace
