//===- WgmmaKLoop.cpp - the wgmma kernel's K loop -------------------------===//
//
// Part of qmm-lower-matmul-to-wgmma: a consumer warpgroup's work per K
// tile: the shared-memory descriptors, the wgmma group issued on a ring
// stage, the wait and the stage's release, and the promotion of the
// fragment into the f32 accumulator (by the K tile's block scales, or
// every few K tiles without them).
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernelBuilder.h"

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

static NVVM::WGMMATypes getWgmmaType(Type element) {
  return isa<Float8E5M2Type>(element) ? NVVM::WGMMATypes::e5m2
                                      : NVVM::WGMMATypes::e4m3;
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

std::pair<Value, Value>
WgmmaKernelBuilder::getRingPosition(ImplicitLocOpBuilder &b, Value iteration) {
  Value stages = constant(b, tiling.stages);
  Value stage = arith::RemUIOp::create(b, iteration, stages);
  Value round = arith::DivUIOp::create(b, iteration, stages);
  return {stage, arith::AndIOp::create(b, round, constant(b, 1))};
}

Value WgmmaKernelBuilder::waitFull(ImplicitLocOpBuilder &b,
                                   Value iteration) {
  auto [stage, roundParity] = getRingPosition(b, iteration);
  Value parity = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                       roundParity, constant(b, 0));
  Value ticks = constant(b, 10000000);
  nvgpu::MBarrierTryWaitParityOp::create(b, fullBarriers, parity, ticks,
                                         stage);
  return stage;
}

WgmmaKernelBuilder::IssuedKTile
WgmmaKernelBuilder::issueKTile(ImplicitLocOpBuilder &b, Value consumer,
                               Value iteration, Value spare,
                               bool accumulate) {
  return issueKTileOnStage(b, consumer, waitFull(b, iteration), spare,
                           accumulate);
}

WgmmaKernelBuilder::IssuedKTile
WgmmaKernelBuilder::issueKTileOnStage(ImplicitLocOpBuilder &b,
                                      Value consumer, Value stage,
                                      Value spare, bool accumulate) {
  MLIRContext *ctx = op.getContext();
  IssuedKTile issued;
  issued.stage = stage;
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
  const KTileScales &scales = tile.scales;
  // accumulator[i] = fma(fragment[i], factor of i's row, accumulator[i]),
  // or + fragment[i] without one; `second` (per row, or none) makes it
  // fma(fragment[i] * factor, second, accumulator[i]).
  auto promoteWith = [&](ImplicitLocOpBuilder &b, ArrayRef<Value> rowFactors,
                         ArrayRef<Value> secondFactors) {
    Value promoted = accumulator;
    for (int64_t i = 0; i < tiling.tileN / 2; ++i) {
      Value partial = LLVM::ExtractValueOp::create(b, fragment, i);
      Value sum = LLVM::ExtractValueOp::create(b, accumulator, i);
      // Block scales: one fused multiply-add per element (one rounding).
      // llvm.intr.fma, not math.fma: the GPU lowering would make that a
      // call to libdevice's __nv_fmaf, and ptxas serializes wgmma around
      // calls.
      int64_t row = (i % 4) / 2;
      if (rowFactors.empty())
        sum = arith::AddFOp::create(b, sum, partial);
      else if (secondFactors.empty())
        sum = LLVM::FMAOp::create(b, partial, rowFactors[row], sum);
      else
        sum = LLVM::FMAOp::create(
            b, arith::MulFOp::create(b, partial, rowFactors[row]),
            secondFactors[row], sum);
      promoted = LLVM::InsertValueOp::create(b, promoted, sum, i);
    }
    return promoted;
  };
  if (scales.a.empty() || !scales.b) {
    // One operand's block scales (or none): one factor per row.
    SmallVector<Value, 2> factors;
    for (int64_t row = 0; row < 2 && (scales.b || !scales.a.empty()); ++row)
      factors.push_back(scales.a.empty() ? scales.b : scales.a[row]);
    return pinFragment(b, promoteWith(b, factors, {}));
  }
  // Both: sa x sb per row, unless a product leaves f32's normal range
  // (createScaleFactors), then sa and sb in turn. A branch rather than a
  // select per element: the two-step path costs a multiply per element
  // (measured 13-23% slower on blockwise shapes when always taken), and
  // the products are in range but for scales near f32's limits.
  SmallVector<Value, 2> products;
  Value exact;
  for (int64_t row = 0; row < 2; ++row) {
    products.push_back(arith::MulFOp::create(b, scales.a[row], scales.b));
    Value rowExact = createScaleProductIsExact(b, b.getLoc(), scales.a[row],
                                               scales.b, products.back());
    exact = exact ? arith::AndIOp::create(b, exact, rowExact) : rowExact;
  }
  auto ifOp = scf::IfOp::create(
      b, exact,
      [&](OpBuilder &nested, Location loc) {
        ImplicitLocOpBuilder inner(loc, nested);
        scf::YieldOp::create(inner, promoteWith(inner, products, {}));
      },
      [&](OpBuilder &nested, Location loc) {
        ImplicitLocOpBuilder inner(loc, nested);
        SmallVector<Value, 2> seconds(2, scales.b);
        scf::YieldOp::create(inner, promoteWith(inner, scales.a, seconds));
      });
  Value promoted = ifOp.getResult(0);
  return pinFragment(b, promoted);
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

