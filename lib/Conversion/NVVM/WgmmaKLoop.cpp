//===- WgmmaKLoop.cpp - the wgmma kernel's mainloop -----------------------===//
//
// Part of qmm-lower-matmul-to-wgmma: a consumer warpgroup's work per K
// tile: the shared-memory descriptors, the wgmma group issued on a ring
// stage, the wait and the stage's release, and the promotion of the
// fragment into the f32 accumulator (by the K tile's block scales, or
// every few K tiles without them).
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

static NVVM::WGMMATypes getWgmmaType(Type element) {
  return isa<Float8E5M2Type>(element) ? NVVM::WGMMATypes::e5m2
                                      : NVVM::WGMMATypes::e4m3;
}

Value Mainloop::buildDescriptor(ImplicitLocOpBuilder &b,
                                Value address) const {
  auto i64 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, b.getI64Type(), value);
  };
  // PTX ISA, "Matrix Descriptor Format": bits 0-13: address >> 4 (shared
  // memory is below 256 KiB); 16-29: the leading byte offset (unused for
  // swizzled K-major tiles, 1 by convention); 32-45: the stride between
  // 8-row atoms >> 4; 62-63: the swizzle mode (1 = 128B). The base-offset
  // bits stay 0: atoms are aligned.
  int64_t atomBytes = spec.plan.shared.alignment;
  Value start = arith::ShRUIOp::create(
      b, arith::AndIOp::create(b, address, i64(0x3FFFF)), i64(4));
  int64_t fixed = (int64_t(1) << 16) | ((atomBytes >> 4) << 32) |
                  (int64_t(1) << 62);
  return arith::OrIOp::create(b, start, i64(fixed));
}

void Mainloop::loadScales(ImplicitLocOpBuilder &b, const WorkTile &tile,
                          ArrayRef<Value> rows, Value kt, bool fromStage,
                          KTileScales &scales) const {
  const MatmulOperands &op = spec.op;
  const WgmmaTiling &tiling = spec.tiling();
  // The K tile's first K element, and where staged its ring stage.
  Value kIndex = arith::MulIOp::create(
      b, arith::AddIOp::create(b, tile.kBegin, kt), constant(b, tiling.tileK));
  Value stage;
  if (fromStage)
    stage = ring.getKTileState(b, tile, kt).stage;
  // A box's element in its row `boxRow` (a tile row's, or a row block's
  // past the tile's first; null: the first), read after the wait for the
  // stage.
  auto read = [&](const WgmmaScaleBox &box, bool isA, Value boxRow) -> Value {
    Value element =
        getScaleBoxPlace(b, spec, tile, box, isA, kIndex).element;
    if (boxRow)
      element = arith::AddIOp::create(
          b, element,
          arith::MulIOp::create(b, boxRow,
                                constant(b, box.kInner ? box.inner : 1)));
    return arith::BitcastOp::create(
        b, b.getF32Type(),
        ptx::loadShared(b, shared.getScaleAddress(b, stage, box, element)));
  };
  if (spec.plan.bScales.perKTile() && tiling.bScaleBox.present() == fromStage) {
    // One scale for the tile where a block holds it; else one per chunk of
    // the consumer's columns (a single chunk may still be another block's
    // than the tile's first column: the second consumer's of a tile split
    // along N), at the chunk's first column (the last column of B where a
    // partial tile's chunk lies past it), which lies in the box's row of
    // its block.
    int64_t chunks = spec.plan.bScaleChunks();
    bool tileInBlock = spec.plan.bScaleBlockHoldsTile();
    Value origin = tileInBlock ? tile.blockColumn
                               : thread.getOriginColumn(b, spec, tile);
    int64_t blockRows = spec.plan.bScales.blockRows;
    // The scale of the block `blocks` past the one of `column`'s (a
    // constant past it): the box row of the block, clamped to the box's
    // last (a block no chunk takes at this origin may lie past it).
    auto load = [&](Value column, int64_t blocks) -> Value {
      if (!fromStage)
        return loadScale(b, arguments.bScales, op.bEncoding, spec.n, spec.k,
                         column, kIndex, tile.group);
      if (tiling.bScaleBox.outer == 1)
        return read(tiling.bScaleBox, /*isA=*/false, Value());
      Value tileBlock =
          arith::DivUIOp::create(b, tile.blockColumn, constant(b, blockRows));
      Value block = arith::DivUIOp::create(b, column, constant(b, blockRows));
      Value boxRow = arith::SubIOp::create(b, block, tileBlock);
      if (blocks > 0) {
        Value past = arith::AddIOp::create(b, boxRow, constant(b, blocks));
        boxRow = arith::MinUIOp::create(
            b, past, constant(b, tiling.bScaleBox.outer - 1));
      }
      return read(tiling.bScaleBox, /*isA=*/false, boxRow);
    };
    // Chunks of whole tiles share their block's load: chunk c lies
    // (o + c) / q blocks past chunk 0's, q = blockRows / bScaleColumns
    // chunks a block and o = (origin % blockRows) / bScaleColumns known at
    // run time only (128 x 128 blocks, 192 columns: 2 loads for 3 chunks).
    // A partial tile's chunks past N take the last column's, per chunk.
    int64_t perBlock = blockRows / spec.plan.bScaleColumns;
    int64_t blocks = chunks > 0 ? (perBlock + chunks - 2) / perBlock + 1 : 0;
    if (!tileInBlock && !spec.plan.partialColumns && blocks < chunks) {
      SmallVector<Value, 2> loaded;
      for (int64_t block = 0; block < blocks; ++block) {
        // Global: a column of the block, within B's (for a block no chunk
        // takes, the last column's scale, unused).
        Value column = origin;
        if (block > 0 && !fromStage)
          column = arith::MinUIOp::create(
              b, arith::AddIOp::create(b, origin, constant(b, block * blockRows)),
              constant(b, spec.n - 1));
        loaded.push_back(load(column, fromStage ? block : 0));
      }
      Value offset = arith::RemUIOp::create(b, origin, constant(b, blockRows));
      for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        int64_t first = chunk / perBlock, within = chunk % perBlock;
        if (within == 0) {
          scales.b.push_back(loaded[first]);
          continue;
        }
        // Past the next block where o >= q - within.
        Value next = arith::CmpIOp::create(
            b, arith::CmpIPredicate::uge, offset,
            constant(b, (perBlock - within) * spec.plan.bScaleColumns));
        scales.b.push_back(arith::SelectOp::create(b, next, loaded[first + 1],
                                                   loaded[first]));
      }
    } else {
      for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        Value column = arith::AddIOp::create(
            b, origin, constant(b, chunk * spec.plan.bScaleColumns));
        if (!tileInBlock && spec.plan.partialColumns)
          column = arith::MinUIOp::create(b, column, constant(b, spec.n - 1));
        scales.b.push_back(load(column, 0));
      }
    }
  }
  if (spec.plan.aScales.perKTile() &&
      tiling.aScaleBox.present() == fromStage) {
    for (Value row : rows) {
      if (fromStage) {
        // (Rows past M read TMA's zeros; their sums are not stored.)
        scales.a.push_back(
            read(tiling.aScaleBox, /*isA=*/true,
                 tiling.aScaleBox.perRow
                     ? arith::SubIOp::create(b, row, tile.blockRow).getResult()
                     : Value()));
        continue;
      }
      // Rows past M read row M - 1's scales. (Where M is whole tiles no
      // row is past it, and the rows' addresses stay one pointer plus
      // constant offsets: registers a tile of waves needs.)
      Value clamped =
          spec.plan.partialRows ? clampRow(b, row, arguments.rows) : row;
      scales.a.push_back(
          loadAScale(b, spec, arguments.aScales, clamped, kIndex, tile.group));
    }
  }
}

Mainloop::IssuedKTile Mainloop::issue(ImplicitLocOpBuilder &b,
                                      const RingState &state, Value spare,
                                      bool accumulate) const {
  ring.waitFull(b, state);
  return issueOnStage(b, state.stage, spare, accumulate);
}

Mainloop::IssuedKTile Mainloop::issueOnStage(ImplicitLocOpBuilder &b,
                                             Value stage, Value spare,
                                             bool accumulate,
                                             int64_t wave) const {
  const WgmmaTiling &tiling = spec.tiling();
  const NvidiaChipInfo &chip = spec.chip;
  IssuedKTile issued;
  issued.stage = stage;
  // The consumer's rows of A's tile (the wave's) and columns of B's (rows
  // of B's K-major tile), tileK bytes each, in stage 0: their descriptors do
  // not change across K tiles (LLVM hoists them), and a stage's are theirs plus
  // the stage's offset in 16-byte units (the address field's; shared memory
  // stays below 256 KiB, so it never carries out of the field).
  Value ringAddress = shared.getRingAddress();
  Value aRow = spec.getConsumerRow(b, thread.consumer);
  if (wave != 0)
    aRow =
        arith::AddIOp::create(b, aRow, constant(b, wave * chip.getWgmma().m));
  Value aAddress = arith::AddIOp::create(
      b, ringAddress,
      arith::IndexCastOp::create(
          b, b.getI64Type(),
          arith::MulIOp::create(b, aRow, constant(b, tiling.tileK))));
  Value bAddress = arith::AddIOp::create(
      b, ringAddress,
      arith::ConstantIntOp::create(b, b.getI64Type(),
                                   spec.plan.shared.bOffset));
  if (Value column = spec.getConsumerColumn(b, thread.consumer))
    bAddress = arith::AddIOp::create(
        b, bAddress,
        arith::IndexCastOp::create(
            b, b.getI64Type(),
            arith::MulIOp::create(b, column, constant(b, tiling.tileK))));
  Value stageOffset = arith::IndexCastOp::create(
      b, b.getI64Type(),
      arith::MulIOp::create(b, stage,
                            constant(b, spec.plan.shared.stageBytes / 16)));
  Value aDescriptor =
      arith::AddIOp::create(b, buildDescriptor(b, aAddress), stageOffset);
  Value bDescriptor =
      arith::AddIOp::create(b, buildDescriptor(b, bAddress), stageOffset);

  // The spare fragment's registers were last read by a promotion: the
  // fence orders those reads before wgmma writes them.
  NVVM::WgmmaFenceAlignedOp::create(b);
  Value fragment = spare;
  auto shape = NVVM::MMAShapeAttr::get(b.getContext(), chip.getWgmma().m,
                                       tiling.consumerColumns,
                                       chip.getWgmma().k);
  for (int64_t step = 0; step < tiling.tileK / chip.getWgmma().k; ++step) {
    // A k32 step is 32 bytes further along each swizzled row: + 2 in the
    // descriptor's address field (16-byte units).
    Value advance = arith::ConstantIntOp::create(b, b.getI64Type(), 2 * step);
    Value stepA = arith::AddIOp::create(b, aDescriptor, advance);
    Value stepB = arith::AddIOp::create(b, bDescriptor, advance);
    fragment = NVVM::WgmmaMmaAsyncOp::create(
        b, spec.getFragmentType(), fragment, stepA, stepB, shape,
        getWgmmaType(spec.aElement), getWgmmaType(spec.bElement),
        NVVM::WGMMATypes::f32,
        step == 0 && !accumulate ? NVVM::WGMMAScaleOut::zero
                                 : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        NVVM::MMALayout::row, NVVM::MMALayout::col, nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  issued.fragment = fragment;
  return issued;
}

void Mainloop::releaseStage(ImplicitLocOpBuilder &b, Value stage) const {
  Value isFirstLane = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                            thread.lane, constant(b, 0));
  auto release = scf::IfOp::create(b, isFirstLane, false);
  ImplicitLocOpBuilder inner(b.getLoc(), release.getThenBodyBuilder());
  ring.releaseEmpty(inner, stage);
}

Value Mainloop::retire(
    ImplicitLocOpBuilder &b, IssuedKTile &tile, Value accumulator,
    llvm::function_ref<void(ImplicitLocOpBuilder &)> whileLastInFlight) const {
  // Wave 0 is in flight; the others are issued on its stage in turn, each
  // once the previous one's fragment is promoted. The stage is released
  // after the wait for the last.
  int64_t waves = spec.tiling().waves;
  for (int64_t wave = 0; wave < waves; ++wave) {
    if (wave != 0)
      tile.fragment =
          issueOnStage(b, tile.stage, tile.fragment, false, wave).fragment;
    if (wave == waves - 1 && whileLastInFlight)
      whileLastInFlight(b);
    NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
    if (wave == waves - 1)
      releaseStage(b, tile.stage);
    accumulator = promote(b, tile, accumulator, wave);
  }
  return accumulator;
}

Value Mainloop::promote(ImplicitLocOpBuilder &b, IssuedKTile &tile,
                        Value accumulator, int64_t wave) const {
  // Promotion: accumulator += fragment (x the K tile's scales), between
  // the wait and the next issue.
  tile.fragment = ptx::pinRegisters(b, tile.fragment);
  Value fragment = tile.fragment;
  const KTileScales &scales = tile.scales;
  int64_t elements = spec.getFragmentType().getBody().size();
  // The wave's elements of the accumulator, and its two rows' scales.
  int64_t first = wave * elements;
  ArrayRef<Value> rowScales =
      scales.a.empty() ? ArrayRef<Value>()
                       : ArrayRef<Value>(scales.a).slice(2 * wave, 2);
  // Which of the thread's two rows element i lies in (thread 0's rows are
  // 0 and the second row's offset), and which chunk of B's scales its
  // column.
  const WgmmaIntrinsicInfo &wgmma = spec.chip.getWgmma();
  int64_t chunks = std::max<size_t>(1, scales.b.size());
  auto position = [&](int64_t i) -> std::pair<int64_t, int64_t> {
    auto [row, column] = wgmma.getAccumulatorPosition(0, i);
    return {row / wgmma.secondRow,
            chunks == 1 ? 0 : column / spec.plan.bScaleColumns};
  };
  // Factors of (row, chunk), row-major: 2 x chunks of them.
  using Factors = SmallVector<Value, 8>;
  // accumulator[i] = fma(fragment[i], factor of i's row and chunk,
  // accumulator[i]), or + fragment[i] without factors; `second` (of
  // (row, chunk) too, or none) makes it fma(fragment[i] * factor, second,
  // accumulator[i]).
  auto promoteWith = [&](ImplicitLocOpBuilder &b, ArrayRef<Value> factors,
                         ArrayRef<Value> seconds) {
    Value promoted = accumulator;
    for (int64_t i = 0; i < elements; ++i) {
      Value partial = LLVM::ExtractValueOp::create(b, fragment, i);
      Value sum = LLVM::ExtractValueOp::create(b, accumulator, first + i);
      // Block scales: one fused multiply-add per element (one rounding).
      // llvm.intr.fma, not math.fma: the GPU lowering would make that a
      // call to libdevice's __nv_fmaf, and ptxas serializes wgmma around
      // calls.
      auto [row, chunk] = position(i);
      int64_t index = row * chunks + chunk;
      if (factors.empty())
        sum = arith::AddFOp::create(b, sum, partial);
      else if (seconds.empty())
        sum = LLVM::FMAOp::create(b, partial, factors[index], sum);
      else
        sum = LLVM::FMAOp::create(
            b, arith::MulFOp::create(b, partial, factors[index]),
            seconds[index], sum);
      promoted = LLVM::InsertValueOp::create(b, promoted, sum, first + i);
    }
    return promoted;
  };
  bool hasA = !rowScales.empty(), hasB = !scales.b.empty();
  if (!hasA && !hasB)
    return ptx::pinRegisters(b, promoteWith(b, {}, {}));
  Factors aFactors, bFactors, products;
  for (int64_t row = 0; row < 2; ++row)
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      aFactors.push_back(hasA ? rowScales[row] : Value());
      bFactors.push_back(hasB ? scales.b[chunk] : Value());
    }
  if (!hasA || !hasB || scales.productsChecked) {
    // One operand's block scales: its factors; both, with their products
    // checked ahead: the products.
    if (!hasA || !hasB)
      return ptx::pinRegisters(b,
                               promoteWith(b, hasA ? aFactors : bFactors, {}));
    for (auto [sa, sb] : llvm::zip(aFactors, bFactors))
      products.push_back(arith::MulFOp::create(b, sa, sb));
    return ptx::pinRegisters(b, promoteWith(b, products, {}));
  }
  // Both: sa x sb per (row, chunk), unless a product leaves f32's normal
  // range (createScaleFactors), then sa and sb in turn. A branch rather
  // than a select per element: the two-step path costs a multiply per
  // element, and the products are in range but for scales near f32's
  // limits.
  Value exact;
  for (auto [sa, sb] : llvm::zip(aFactors, bFactors)) {
    products.push_back(arith::MulFOp::create(b, sa, sb));
    Value productExact =
        createScaleProductIsExact(b, b.getLoc(), sa, sb, products.back());
    exact =
        exact ? arith::AndIOp::create(b, exact, productExact) : productExact;
  }
  auto ifOp = scf::IfOp::create(
      b, exact,
      [&](OpBuilder &nested, Location loc) {
        ImplicitLocOpBuilder inner(loc, nested);
        scf::YieldOp::create(inner, promoteWith(inner, products, {}));
      },
      [&](OpBuilder &nested, Location loc) {
        ImplicitLocOpBuilder inner(loc, nested);
        scf::YieldOp::create(inner, promoteWith(inner, aFactors, bFactors));
      });
  return ptx::pinRegisters(b, ifOp.getResult(0));
}

std::pair<bool, bool> Mainloop::getGlobalScaleOperands() const {
  const WgmmaPlan &plan = spec.plan;
  const WgmmaTiling &tiling = spec.tiling();
  return {plan.aScales.perKTile() && !tiling.aScaleBox.present(),
          plan.bScales.perKTile() && !tiling.bScaleBox.present()};
}

bool Mainloop::loadsGlobalScales() const {
  auto [a, b] = getGlobalScaleOperands();
  return spec.plan.promotionKTiles == 1 && (a || b);
}

Mainloop::KTileScales Mainloop::loadGlobalScales(ImplicitLocOpBuilder &b,
                                                 const WorkTile &tile,
                                                 ArrayRef<Value> rows,
                                                 Value kt) const {
  KTileScales scales;
  loadScales(b, tile, rows, kt, /*fromStage=*/false, scales);
  return scales;
}

int64_t Mainloop::getGlobalScaleCount() const {
  auto [a, b] = getGlobalScaleOperands();
  // (Two rows a thread in each wave: ConsumerThread::getPosition.)
  return (b ? spec.plan.bScaleChunks() : 0) + (a ? 2 * spec.tiling().waves : 0);
}

Mainloop::KTileScales Mainloop::unflattenGlobalScales(ValueRange values) const {
  assert(static_cast<int64_t>(values.size()) == getGlobalScaleCount());
  KTileScales scales;
  if (getGlobalScaleOperands().second) {
    int64_t chunks = spec.plan.bScaleChunks();
    llvm::append_range(scales.b, values.take_front(chunks));
    values = values.drop_front(chunks);
  }
  llvm::append_range(scales.a, values);
  return scales;
}

std::pair<Value, Value> Mainloop::build(ImplicitLocOpBuilder &b,
                                        const WorkTile &tile,
                                        ArrayRef<Value> rows, Value fragment,
                                        Value productsChecked,
                                        const KTileScales *firstScales) const {
  if (spec.plan.promotionKTiles > 1)
    return buildDeferred(b, tile, fragment);
  if (!productsChecked)
    return buildPerKTile(b, tile, rows, fragment, false, firstScales);
  // The verdict is the same in every thread of the warpgroup (agreed at
  // its named barrier, ScaleCheck::poll), so both branches' wgmma stay
  // warpgroup-uniform.
  auto ifOp = scf::IfOp::create(
      b, TypeRange{spec.getAccumulatorType(), spec.getFragmentType()},
      productsChecked, /*withElse=*/true);
  for (bool checked : {true, false}) {
    ImplicitLocOpBuilder inner(b.getLoc(), checked
                                               ? ifOp.getThenBodyBuilder()
                                               : ifOp.getElseBodyBuilder());
    auto [accumulator, spare] =
        buildPerKTile(inner, tile, rows, fragment, checked, firstScales);
    scf::YieldOp::create(inner, ValueRange{accumulator, spare});
  }
  return {ifOp.getResult(0), ifOp.getResult(1)};
}

void Mainloop::waitUnlessFull(ImplicitLocOpBuilder &b, const WorkTile &tile,
                              Value kt, Value full, Value hasNext) const {
  Value needed =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, full,
                            arith::ConstantIntOp::create(b, b.getI1Type(), 0));
  if (hasNext)
    needed = arith::AndIOp::create(b, needed, hasNext);
  auto ifOp = scf::IfOp::create(b, TypeRange(), needed, false);
  ImplicitLocOpBuilder then(b.getLoc(), ifOp.getThenBodyBuilder());
  ring.waitFull(then, ring.getKTileState(then, tile, kt));
}

std::pair<Value, Value>
Mainloop::buildPerKTile(ImplicitLocOpBuilder &b, const WorkTile &tile,
                        ArrayRef<Value> rows, Value fragment,
                        bool productsChecked,
                        const KTileScales *firstScales) const {
  // One K tile's wgmma group at a time (a wave's, in turn): issue,
  // wait_group 0, release the stage after the last, promote. A fragment's
  // registers are carried to the next K tile, whose first step overwrites
  // them (scale-d zero), so no zeroing is issued. K tile 0 (its wave 0),
  // in flight since before this tile: its scales, then the wait and its
  // promotion into a zero accumulator.
  // (Its scales from global memory may have been loaded ahead.)
  IssuedKTile first;
  if (firstScales)
    first.scales = *firstScales;
  else
    loadScales(b, tile, rows, constant(b, 0), /*fromStage=*/false,
               first.scales);
  loadScales(b, tile, rows, constant(b, 0), /*fromStage=*/true, first.scales);
  first.scales.productsChecked = productsChecked;
  first.fragment = fragment;
  first.stage = ring.getState(b, tile.firstIteration).stage;
  // With WgmmaPlan::testsNextStage, while a K tile's group is in flight, a
  // test (not a wait) of whether the next K tile's stage is full; after
  // the promotion, the wait for it only where the test found it empty.
  // Where the ring keeps ahead, the next group then issues as soon as the
  // promotion has read the fragment, without the wait's latency in
  // between (DeepGEMM's unrolled loop gets the same from ptxas, which
  // moves the next wait's test into the promotion). Otherwise each K tile
  // waits for its stage before its issue.
  bool testsNextStage = spec.plan.testsNextStage && spec.plan.kTiles > 1;
  Value c1 = constant(b, 1);
  Value accumulator;
  Value zero = LLVM::ZeroOp::create(b, spec.getAccumulatorType());
  if (testsNextStage) {
    // K tile 1 (there is one where the plan's items all have more than
    // one K tile).
    std::optional<int64_t> itemKTiles = getConstantIntValue(tile.kTiles);
    Value hasNext = itemKTiles && *itemKTiles > 1
                        ? Value()
                        : arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                                tile.kTiles, c1)
                              .getResult();
    Value full;
    accumulator = retire(b, first, zero, [&](ImplicitLocOpBuilder &b) {
      full = ring.isFull(b, ring.getKTileState(b, tile, c1));
    });
    waitUnlessFull(b, tile, c1, full, hasNext);
  } else {
    accumulator = retire(b, first, zero);
  }
  Value spare = first.fragment;
  if (spec.plan.kTiles == 1)
    return {accumulator, spare};
  // K tiles 1, 2, ... Scales from global memory are loaded a K tile ahead
  // and carried: ptxas puts their product before the K tile's wgmma issue,
  // which would otherwise wait on L2 there (the consumers' largest stall
  // besides the wait for wgmma in a profile on an H200). The last K tile
  // loads its own again.
  Value lastKt = arith::SubIOp::create(b, tile.kTiles, c1);
  KTileScales ahead;
  loadScales(b, tile, rows, arith::MinUIOp::create(b, c1, lastKt),
             /*fromStage=*/false, ahead);
  // K tile kt's step on `carried` (the sums, the spare fragment, kt's
  // scales from global memory): the values for K tile kt + 1.
  // `nextExists`: kt + 1 is known to be a K tile of the item (else tested).
  auto step = [&](ImplicitLocOpBuilder &b, Value kt, ValueRange carried,
                  bool nextExists) {
    KTileScales scales = ahead.withValues(carried.drop_front(2));
    KTileScales upcoming;
    loadScales(
        b, tile, rows,
        arith::MinUIOp::create(b, arith::AddIOp::create(b, kt, c1), lastKt),
        /*fromStage=*/false, upcoming);
    // The stage's boxes are read after the wait for it (before the wgmma
    // steps are issued where the step waits, else after: only the
    // promotion needs them).
    RingState state = ring.getKTileState(b, tile, kt);
    IssuedKTile next;
    if (testsNextStage) {
      next = issueOnStage(b, state.stage, carried[1]);
      loadScales(b, tile, rows, kt, /*fromStage=*/true, scales);
    } else {
      ring.waitFull(b, state);
      loadScales(b, tile, rows, kt, /*fromStage=*/true, scales);
      next = issueOnStage(b, state.stage, carried[1]);
    }
    scales.productsChecked = productsChecked;
    next.scales = scales;
    Value promoted;
    if (testsNextStage) {
      Value nextKt = arith::AddIOp::create(b, kt, c1);
      Value full;
      promoted = retire(b, next, carried[0], [&](ImplicitLocOpBuilder &b) {
        full = ring.isFull(b, ring.getKTileState(b, tile, nextKt));
      });
      waitUnlessFull(b, tile, nextKt, full,
                     nextExists
                         ? Value()
                         : arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                                 nextKt, tile.kTiles)
                               .getResult());
    } else {
      promoted = retire(b, next, carried[0]);
    }
    SmallVector<Value> values = {promoted, next.fragment};
    llvm::append_range(values, upcoming.flatten());
    return values;
  };
  // The steps in a loop of `steps` K tiles a trip
  // (WgmmaPlan::kTilesPerTrip), then a loop of the K tiles left, one a
  // trip. Within a trip, the K tile after each step but the last is known
  // to exist.
  auto buildLoop = [&](Value from, Value to, int64_t steps,
                       ValueRange initial) {
    auto loop = scf::ForOp::create(
        b, from, to, steps == 1 ? c1 : constant(b, steps), initial);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> carried(loop.getRegionIterArgs());
    Value kt = loop.getInductionVar();
    for (int64_t i = 0; i < steps; ++i)
      carried =
          step(b, i == 0 ? kt : arith::AddIOp::create(b, kt, constant(b, i)),
               carried, /*nextExists=*/i + 1 < steps);
    scf::YieldOp::create(b, carried);
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> initial = {accumulator, spare};
  llvm::append_range(initial, ahead.flatten());
  int64_t steps = spec.plan.kTilesPerTrip;
  if (steps == 1) {
    SmallVector<Value> sums = buildLoop(c1, tile.kTiles, 1, initial);
    return {sums[0], sums[1]};
  }
  // K tiles 1 .. whole by `steps`, then the rest (an item has a K tile
  // or more, so lastKt does not wrap).
  Value whole = arith::MulIOp::create(
      b, arith::DivUIOp::create(b, lastKt, constant(b, steps)),
      constant(b, steps));
  Value rest = arith::AddIOp::create(b, c1, whole);
  SmallVector<Value> sums =
      buildLoop(rest, tile.kTiles, 1, buildLoop(c1, rest, steps, initial));
  return {sums[0], sums[1]};
}

std::pair<Value, Value> Mainloop::buildDeferred(ImplicitLocOpBuilder &b,
                                                const WorkTile &tile,
                                                Value fragment) const {
  // wgmma sums `promotionKTiles` K tiles into the fragment (issue, then
  // wait_group 1 and the previous stage released: no register of a group
  // in flight is read), then wait_group 0 and the promotion. `fragment`
  // holds K tile 0's group, in flight.
  // (Tiles of waves have block scales: planWgmmaKernel.)
  assert(spec.tiling().waves == 1 && "deferred promotion of waves");
  int64_t promotionKTiles = spec.plan.promotionKTiles;
  Type fragmentType = spec.getFragmentType();
  Value c1 = constant(b, 1);
  Value accumulator = LLVM::ZeroOp::create(b, fragmentType);
  if (spec.plan.kTiles > 1) {
    // K tile kt (1, 2, ...): at a promotion point (kt a multiple of
    // promotionKTiles) the sums so far are promoted, after the wait for
    // them, and kt starts new ones; elsewhere kt adds to them and the
    // wait is for kt - 1 only.
    auto loop = scf::ForOp::create(b, c1, tile.kTiles, c1,
                                   ValueRange{accumulator, fragment});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value sums = loop.getRegionIterArgs()[0];
    Value partial = loop.getRegionIterArgs()[1];
    Value previousStage =
        ring.getKTileState(b, tile, arith::SubIOp::create(b, kt, c1)).stage;
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
      Value promoted = promote(then, done, sums);
      IssuedKTile next =
          issue(then, ring.getKTileState(then, tile, kt), done.fragment);
      scf::YieldOp::create(then, ValueRange{promoted, next.fragment});

      ImplicitLocOpBuilder otherwise(b.getLoc(), step.getElseBodyBuilder());
      IssuedKTile added =
          issue(otherwise, ring.getKTileState(otherwise, tile, kt), partial,
                /*accumulate=*/true);
      NVVM::WgmmaWaitGroupSyncOp::create(otherwise, 1);
      releaseStage(otherwise, previousStage);
      scf::YieldOp::create(otherwise, ValueRange{sums, added.fragment});
    }
    scf::YieldOp::create(b, step.getResults());
    accumulator = loop.getResult(0);
    fragment = loop.getResult(1);
  }
  // The last sums.
  NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  releaseStage(
      b, ring.getKTileState(b, tile, arith::SubIOp::create(b, tile.kTiles, c1))
             .stage);
  IssuedKTile last;
  last.fragment = fragment;
  accumulator = promote(b, last, accumulator);
  return {accumulator, last.fragment};
}
