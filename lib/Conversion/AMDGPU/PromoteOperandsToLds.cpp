//===- PromoteOperandsToLds.cpp - stage wave_mma operand tiles in LDS -----===//
//
// Stage 4 of the AMD pipeline: the workgroup's A and B tiles of each
// qmm.wave_mma are copied from global memory into workgroup buffers (LDS)
// with 16-byte accesses, in a padded layout free of bank conflicts, single
// or double buffered, and the qmm.wave_mma reads the copies. With lds_copy =
// direct, the chunks go straight from global memory into LDS
// (amdgpu.gather_to_lds) in unpadded, XOR-swizzled rows.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"
#include "qmm/Target/TargetAttr.h"
#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMPROMOTEOPERANDSTOLDS
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

namespace {

/// One operand tile to stage: the global [rows, K] source (or [G, rows, K],
/// a group's matrix selected by a leading index), the rows of the
/// workgroup tile and the LDS buffer that receives it.
struct OperandTile {
  Value global;
  int64_t tileRows;
  Value lds;
  bool isB;

  MemRefType globalType() const { return cast<MemRefType>(global.getType()); }
  Type elementType() const { return globalType().getElementType(); }
  int64_t elementBits() const { return elementType().getIntOrFloatBitWidth(); }
  int64_t chunkElements() const {
    return getCopyChunkBytes(elementType()) * 8 / elementBits();
  }
};

/// Copies workgroup tiles from global memory into LDS.
struct TileCopier {
  const ChipInfo &chip;
  ConfigAttr config;
  Location loc;

  int64_t threads() const { return chip.waveSize * config.getNumWaves(); }

  /// One thread's chunk of a tile on its way to LDS: the loaded data and
  /// where it goes (`guard`, when set, says whether the thread has it).
  struct StagedChunk {
    Value data, row, col, guard;
  };

  /// Loads this thread's chunks of the tile at `origin` ([group,] first
  /// row, first column).
  SmallVector<StagedChunk> load(OpBuilder &b, const OperandTile &tile,
                                ValueRange origin) const;
  /// Writes them into `tile.lds` (at [stage] when double buffered).
  void store(OpBuilder &b, const OperandTile &tile,
             ArrayRef<StagedChunk> chunks, Value stage) const;
  /// load, then store; or, with lds_copy = direct, copyDirect.
  void copy(OpBuilder &b, const OperandTile &tile, ValueRange origin,
            Value stage) const {
    if (config.copiesDirectToLds())
      return copyDirect(b, tile, origin, stage);
    store(b, tile, load(b, tile, origin), stage);
  }
  /// Copies the tile at `origin` straight into LDS: each wave's 64 lanes
  /// fill 64 chunks of it (the chip's widest direct load each) in lane
  /// order, each lane loading the global bytes that the swizzle places at
  /// its slot.
  void copyDirect(OpBuilder &b, const OperandTile &tile, ValueRange origin,
                  Value stage) const;

private:
  Value loadChunk(OpBuilder &b, const OperandTile &tile, ValueRange group,
                  Value row, Value k) const;
};

} // namespace

/// LDS indices [stage,] row, col: `stage` is null with one LDS buffer.
static SmallVector<Value, 3> ldsIndices(Value stage, Value row, Value col) {
  SmallVector<Value, 3> indices;
  if (stage)
    indices.push_back(stage);
  indices.append({row, col});
  return indices;
}

/// A packed FP4/FP6 operand's [G,] rows of K * w / 8 bytes as one flat
/// memref addressed by byte (see the dialect's storage rules).
static Value getFlatPackedView(OpBuilder &b, Location loc,
                               const OperandTile &tile) {
  MemRefType type = tile.globalType();
  Type elementType = tile.elementType();
  if (type.hasStaticShape())
    return memref::ReinterpretCastOp::create(
        b, loc, MemRefType::get({type.getNumElements()}, elementType),
        tile.global, /*offset=*/0,
        /*sizes=*/ArrayRef<int64_t>{type.getNumElements()},
        /*strides=*/ArrayRef<int64_t>{1});
  // A dynamic M: rows * K elements.
  IndexMath im{b, loc};
  int64_t rank = type.getRank();
  OpFoldResult size = im.mul(im.dim(tile.global, rank - 2),
                             type.getDimSize(rank - 1));
  return memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, elementType),
      tile.global, b.getIndexAttr(0), {size}, {b.getIndexAttr(1)});
}

/// The index in getFlatPackedView of byte `byte` of row `row` (of group
/// `group`, when given: the rows of all groups follow each other).
static Value getPackedByte(IndexMath &im, const OperandTile &tile,
                           ValueRange group, Value row, Value byte) {
  MemRefType type = tile.globalType();
  int64_t rank = type.getRank();
  int64_t rowBytes = type.getDimSize(rank - 1) * tile.elementBits() / 8;
  Value flatRow = row;
  if (!group.empty())
    flatRow = im.add(im.mul(group.front(), type.getDimSize(rank - 2)), row);
  return im.add(im.mul(flatRow, rowBytes), byte);
}

/// The chunk of `tile.chunkElements()` values of row `row` from column `k`.
Value TileCopier::loadChunk(OpBuilder &b, const OperandTile &tile,
                            ValueRange group, Value row, Value k) const {
  MemRefType type = tile.globalType();
  int64_t rank = type.getRank();
  int64_t extentK = type.getDimSize(rank - 1);
  auto at = [&](Value r, Value col) {
    SmallVector<Value, 3> indices(group);
    indices.append({r, col});
    return indices;
  };
  Type elementType = tile.elementType();
  int64_t chunkElements = tile.chunkElements();
  auto chunkType = VectorType::get({chunkElements}, elementType);
  IndexMath im{b, loc};
  auto load = [&](OpBuilder &b2) -> Value {
    if (tile.elementBits() == 8)
      return vector::LoadOp::create(b2, loc, chunkType, tile.global,
                                    at(row, k));
    IndexMath aim{b2, loc};
    Value flat = getFlatPackedView(b2, loc, tile);
    Value byte = aim.div(aim.mul(k, tile.elementBits()), 8);
    return vector::LoadOp::create(
        b2, loc, chunkType, flat,
        ValueRange{getPackedByte(aim, tile, group, row, byte)});
  };
  if (extentK % config.getTileK() == 0)
    return load(b);
  // K tail: a chunk wholly inside K is one vector load; one that crosses K
  // (8-bit data with K not a multiple of 16) loads its bytes one by one,
  // zeros past K; one past K is zeros.
  Value whole = extentK >= chunkElements
                    ? im.lt(k, extentK - chunkElements + 1)
                    : im.boolean(false);
  auto inBounds = scf::IfOp::create(b, loc, TypeRange{chunkType}, whole,
                                    /*withElseRegion=*/true);
  OpBuilder thenB = inBounds.getThenBodyBuilder();
  scf::YieldOp::create(thenB, loc, load(thenB));
  OpBuilder elseB = inBounds.getElseBodyBuilder();
  Value tail;
  if (extentK % chunkElements == 0) {
    tail = arith::ConstantOp::create(
        elseB, loc,
        DenseElementsAttr::get(chunkType, elseB.getZeroAttr(elementType)));
  } else {
    IndexMath eim{elseB, loc};
    Value zero = arith::ConstantOp::create(
        elseB, loc, cast<TypedAttr>(elseB.getZeroAttr(elementType)));
    SmallVector<Value> bytes;
    for (int64_t j = 0; j < chunkElements; ++j) {
      Value kj = eim.add(k, j);
      Value loaded = memref::LoadOp::create(elseB, loc, tile.global,
                                            at(row, eim.min(kj, extentK - 1)));
      bytes.push_back(arith::SelectOp::create(elseB, loc,
                                              eim.lt(kj, extentK), loaded,
                                              zero));
    }
    tail = vector::FromElementsOp::create(elseB, loc, chunkType, bytes);
  }
  scf::YieldOp::create(elseB, loc, tail);
  return inBounds.getResult(0);
}

SmallVector<TileCopier::StagedChunk>
TileCopier::load(OpBuilder &b, const OperandTile &tile,
                 ValueRange origin) const {
  ValueRange group = origin.drop_back(2);
  Value rowBase = origin[origin.size() - 2], kBase = origin.back();
  // Consecutive threads on consecutive chunks of a row, so a wave reads
  // whole rows of global memory (the placement is LdsCopyMapping's map).
  // LDS columns are bytes (packed FP4/FP6).
  IndexMath im{b, loc};
  LdsCopyMapping mapping =
      getLdsCopyMapping(chip, config, tile.elementType(), tile.isB,
                        tile.tileRows);
  AffineMap copyMap = mapping.getMap(b.getContext());
  int64_t chunks = tile.tileRows * mapping.chunksPerRow;
  int64_t rowDim = tile.globalType().getRank() - 2;
  bool rowsDivide = !tile.globalType().isDynamicDim(rowDim) &&
                    tile.globalType().getDimSize(rowDim) % tile.tileRows == 0;
  int64_t bits = tile.elementBits();
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  SmallVector<StagedChunk> staged;
  for (int64_t first = 0; first < chunks; first += threads()) {
    Value chunk = im.add(tid, first);
    StagedChunk staging;
    if (first + threads() > chunks) {
      // The last, partial round: threads without a chunk load the last one
      // again (in bounds, no branch) and do not store it.
      staging.guard = im.lt(chunk, chunks);
      chunk = im.min(chunk, chunks - 1);
    }
    SmallVector<Value, 2> place = im.apply(copyMap, {chunk});
    staging.row = place[0];
    staging.col = place[1];
    // Rows past the matrix read the last row: their products land in
    // output rows the epilogue does not store. Where the tile divides the
    // rows there are none.
    Value globalRow = im.add(rowBase, staging.row);
    if (!rowsDivide)
      globalRow = im.min(globalRow, im.last(im.dim(tile.global, rowDim)));
    Value k = im.add(kBase, bits == 8 ? staging.col
                                      : im.div(im.mul(staging.col, 8), bits));
    staging.data = loadChunk(b, tile, group, globalRow, k);
    staged.push_back(staging);
  }
  return staged;
}

void TileCopier::store(OpBuilder &b, const OperandTile &tile,
                       ArrayRef<StagedChunk> chunks, Value stage) const {
  for (const StagedChunk &chunk : chunks) {
    OpBuilder at = b;
    if (chunk.guard)
      at = scf::IfOp::create(b, loc, chunk.guard, false).getThenBodyBuilder();
    vector::StoreOp::create(at, loc, chunk.data, tile.lds,
                            ldsIndices(stage, chunk.row, chunk.col));
  }
}

void TileCopier::copyDirect(OpBuilder &b, const OperandTile &tile,
                            ValueRange origin, Value stage) const {
  ValueRange group = origin.drop_back(2);
  Value rowBase = origin[origin.size() - 2], kBase = origin.back();
  IndexMath im{b, loc};
  // The chip's widest direct load: 16 bytes per lane on gfx950, 4 on gfx942.
  int64_t chunkBytes = chip.ldsDmaBytes;
  int64_t chunksPerRow = getTileRowBytes(config, tile.elementType()) /
                         chunkBytes;
  LdsSwizzle swizzle =
      getLdsSwizzle(chip, config, tile.elementType(), tile.isB);
  int64_t rowDim = tile.globalType().getRank() - 2;
  bool rowsDivide = !tile.globalType().isDynamicDim(rowDim) &&
                    tile.globalType().getDimSize(rowDim) % tile.tileRows == 0;
  // verifyConfigForChip: whole rounds of every thread, whole rows per wave.
  int64_t chunks = tile.tileRows * chunksPerRow;
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The wave's first thread, read from lane 0 so that LLVM knows it is
  // uniform: the LDS destinations (M0) are then computed in scalar
  // registers, not per lane and read back.
  Value waveIndex = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(), im.div(tid, chip.waveSize));
  waveIndex = arith::IndexCastUIOp::create(
      b, loc, b.getIndexType(),
      ROCDL::ReadfirstlaneOp::create(b, loc, b.getI32Type(), waveIndex));
  Value waveFirst = im.mul(waveIndex, chip.waveSize);
  // A load of chunkBytes holds 8 / bits values per byte (packed FP4: 2).
  int64_t bits = tile.elementBits();
  auto transfer =
      VectorType::get({chunkBytes * 8 / bits}, tile.elementType());
  Value flat; // packed operands: the flat byte view, built once
  for (int64_t first = 0; first < chunks; first += threads()) {
    // The LDS slot (row, byte) this lane fills; lane 0's row is the wave's.
    Value slot = im.add(tid, first);
    Value row = im.div(slot, chunksPerRow);
    Value byte = im.mul(im.rem(slot, chunksPerRow), chunkBytes);
    // Its bytes come from the unit the swizzle moved there (a unit holds
    // whole loads: getLdsSwizzle).
    int64_t unitBytes = swizzle.unitBytes;
    Value unit = arith::XOrIOp::create(b, loc, im.div(byte, unitBytes),
                                       buildSwizzleUnits(im, row, swizzle));
    Value column = im.mul(unit, unitBytes);
    if (chunkBytes < unitBytes)
      column = im.add(column, im.rem(byte, unitBytes));
    Value globalRow = im.add(rowBase, row);
    if (!rowsDivide)
      globalRow = im.min(globalRow, im.last(im.dim(tile.global, rowDim)));
    Value source = tile.global;
    SmallVector<Value, 3> sourceIndices(group);
    if (bits == 8) {
      sourceIndices.append({globalRow, im.add(kBase, column)});
    } else {
      // Packed FP4: the row's bytes from the K tile's first byte.
      if (!flat)
        flat = getFlatPackedView(b, loc, tile);
      source = flat;
      sourceIndices = {getPackedByte(im, tile, group, globalRow,
                                     im.add(im.div(im.mul(kBase, bits), 8),
                                            column))};
    }
    Value waveRow = im.div(im.add(waveFirst, first), chunksPerRow);
    amdgpu::GatherToLDSOp::create(b, loc, source, sourceIndices, tile.lds,
                                  ldsIndices(stage, waveRow, im.cst(0)),
                                  TypeAttr::get(transfer));
  }
}

namespace {
struct QMMPromoteOperandsToLdsPass
    : public qmm::impl::QMMPromoteOperandsToLdsBase<
          QMMPromoteOperandsToLdsPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *target = getTargetChip(getOperation(), chip, "qmm-promote-operands-to-lds");
    if (!target)
      return signalPassFailure();
    // Consecutive wave_mma ops of one block with the same config and the
    // same A and B (the K tiles of one scale block, unrolled in the K loop)
    // share their LDS buffers and, with stages = 2, one prefetch chain.
    SmallVector<SmallVector<WaveMmaOp>> groups;
    getOperation()->walk([&](WaveMmaOp op) {
      if (isWorkgroupMemory(op.getA()) && isWorkgroupMemory(op.getB()))
        return;
      if (!groups.empty()) {
        WaveMmaOp previous = groups.back().back();
        if (previous->getBlock() == op->getBlock() &&
            previous.getConfig() == op.getConfig() &&
            previous.getA() == op.getA() && previous.getB() == op.getB()) {
          groups.back().push_back(op);
          return;
        }
      }
      groups.push_back({op});
    });
    for (ArrayRef<WaveMmaOp> group : groups)
      if (failed(promote(group, *target)))
        return signalPassFailure();
  }

  LogicalResult promote(ArrayRef<WaveMmaOp> group, const ChipInfo &chip);
};
} // namespace

/// The checks of one wave_mma before any IR is built.
static LogicalResult checkPromotable(WaveMmaOp op, const ChipInfo &chip) {
  auto fail = [&](const Twine &message) {
    return op.emitOpError("qmm-promote-operands-to-lds: ") << message;
  };
  if (isWorkgroupMemory(op.getA()) != isWorkgroupMemory(op.getB()))
    return fail("promotes A and B together; one of them is already in LDS");
  for (Value operand : {op.getA(), op.getB()}) {
    auto type = cast<MemRefType>(operand.getType());
    // Rows may be dynamic (a dynamic M); K and G are not.
    int64_t rank = type.getRank();
    if ((rank != 2 && rank != 3) || type.isDynamicDim(rank - 1) ||
        (rank == 3 && type.isDynamicDim(0)))
      return fail("needs [rows, K] or [G, rows, K] global operands of static "
                  "K and G, got ")
             << type;
  }
  if (!op->getParentOfType<gpu::LaunchOp>())
    return fail("must be inside a gpu.launch");
  ConfigAttr config = op.getConfig();
  int64_t stages = config.getStages();
  if (stages > 2)
    return fail("stages = ") << stages << " is not implemented";
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  if (stages == 2 && !loop)
    return fail("with stages = 2 must be in the body of an scf.for");
  // The prefetch clamps to the last iteration and the buffer index divides
  // by the step: both need the bounds (checked before any IR is built).
  if (stages == 2 && !getLastIterationValue(loop))
    return fail("with stages = 2, the K loop needs an index induction "
                "variable with constant bounds and step");
  auto aType = cast<MemRefType>(op.getA().getType());
  auto bType = cast<MemRefType>(op.getB().getType());
  int64_t extentK = aType.getDimSize(aType.getRank() - 1);
  if (bType.getDimSize(bType.getRank() - 1) != extentK)
    return fail("A and B must have the same K extent");
  if (config.copiesDirectToLds() && chip.ldsDmaBytes <= 0)
    return fail("lds_copy = direct needs loads into LDS; ")
           << chip.name << " has none";
  if (config.copiesDirectToLds() && extentK % config.getTileK() != 0)
    return fail("lds_copy = direct needs K (")
           << extentK << ") to be a multiple of tile K ("
           << config.getTileK() << "): a direct load has no room for zeros";
  for (Value operand : {op.getA(), op.getB()}) {
    Type element = cast<MemRefType>(operand.getType()).getElementType();
    if (element.getIntOrFloatBitWidth() < 8 &&
        (extentK % 32 != 0 || config.getTileK() % 32 != 0))
      return fail("packed ") << element
                             << " operands need K and tile K to be multiples "
                                "of 32";
  }
  return success();
}

LogicalResult
QMMPromoteOperandsToLdsPass::promote(ArrayRef<WaveMmaOp> group,
                                     const ChipInfo &chip) {
  for (WaveMmaOp op : group)
    if (failed(checkPromotable(op, chip)))
      return failure();
  WaveMmaOp front = group.front();
  ConfigAttr config = front.getConfig();
  int64_t stages = config.getStages();
  auto launch = front->getParentOfType<gpu::LaunchOp>();

  // The LDS buffers: [stages,] rows x padded tile K.
  Location loc = front.getLoc();
  auto workgroup = gpu::AddressSpaceAttr::get(&getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto addBuffer = [&](Value global, int64_t rows, bool isB) -> OperandTile {
    // Rows of bytes: packed FP4/FP6 data is addressed by byte.
    SmallVector<int64_t, 3> shape;
    if (stages > 1)
      shape.push_back(stages);
    shape.append(
        {rows, getLdsRowBytes(chip, config,
                              cast<MemRefType>(global.getType())
                                  .getElementType(),
                              isB)});
    auto type = MemRefType::get(
        shape, cast<MemRefType>(global.getType()).getElementType(),
        MemRefLayoutAttrInterface(), workgroup);
    return {global, rows, launch.addWorkgroupAttribution(type, loc), isB};
  };
  OperandTile tiles[] = {addBuffer(front.getA(), config.getTileM(), false),
                         addBuffer(front.getB(), config.getTileN(), true)};
  // Each op's [A, B] tile indices, kept apart from the ops, which are
  // replaced one by one below.
  using TileIndices = std::array<SmallVector<Value, 3>, 2>;
  auto tileIndices = [](WaveMmaOp op) {
    return TileIndices{SmallVector<Value, 3>(op.getAIndices()),
                       SmallVector<Value, 3>(op.getBIndices())};
  };
  SmallVector<TileIndices> indicesOf =
      llvm::map_to_vector(group, [&](WaveMmaOp op) { return tileIndices(op); });
  SmallVector<Location> locationOf =
      llvm::map_to_vector(group, [](WaveMmaOp op) { return op.getLoc(); });
  TileCopier copier{chip, config, loc};

  // The wave_mma reading buffer `stage` (null: the single buffer) replaces
  // `op`, which read global memory.
  auto replaceWithPromoted = [&](OpBuilder &b, WaveMmaOp op, Value stage) {
    IndexMath im{b, loc};
    Value zero = im.cst(0);
    auto promoted = WaveMmaOp::create(
        b, loc, tiles[0].lds, ldsIndices(stage, zero, zero), tiles[1].lds,
        ldsIndices(stage, zero, zero), op.getWaveRow(), op.getWaveCol(),
        op.getAcc(), op.getAScales(), op.getAScaleIndices(), op.getBScales(),
        op.getBScaleIndices(), config);
    op.replaceAllUsesWith(promoted.getResults());
    op.erase();
    return promoted;
  };
  if (stages == 1) {
    // Every wave is done with the previous tiles before they are replaced,
    // and the new ones are complete before any wave reads them.
    for (WaveMmaOp op : group) {
      OpBuilder b(op);
      gpu::BarrierOp::create(b, loc);
      for (int i = 0; i < 2; ++i)
        copier.copy(b, tiles[i], tileIndices(op)[i], nullptr);
      gpu::BarrierOp::create(b, loc);
      replaceWithPromoted(b, op, /*stage=*/Value());
    }
    return success();
  }

  // stages = 2: the J ops of the loop body multiply K tiles J * i + j
  // (iteration i, op j) in turn. Tile t is multiplied out of buffer t % 2
  // while tile t + 1 goes into the other; the first tile is copied before
  // the loop.
  auto loop = cast<scf::ForOp>(front->getParentOp());
  int64_t tilesPerTrip = group.size();
  int64_t step = *getConstantIntValue(loop.getStep());
  auto bufferOf = [&](OpBuilder &at, Value iv, int64_t j) {
    IndexMath aim{at, loc};
    AffineExpr trip =
        (at.getAffineDimExpr(0) - at.getAffineDimExpr(1)).floorDiv(step);
    return aim.apply((trip * tilesPerTrip + j) % 2,
                     {iv, loop.getLowerBound()});
  };
  // The tile origins of op `j` of the group in the iteration at `iv`.
  auto originsOf =
      [&](OpBuilder &at, int64_t j,
          Value iv) -> FailureOr<std::array<SmallVector<Value, 2>, 2>> {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), iv);
    std::array<SmallVector<Value, 2>, 2> origins;
    for (int i = 0; i < 2; ++i)
      for (Value index : indicesOf[j][i]) {
        FailureOr<Value> recomputed =
            recomputeForIteration(at, loop, index, mapping);
        if (failed(recomputed))
          return emitError(locationOf[j],
                           "qmm-promote-operands-to-lds: with stages = "
                                "2, the tile indices must be computed in the "
                                "loop without side effects");
        origins[i].push_back(*recomputed);
      }
    return origins;
  };
  OpBuilder before(loop);
  auto first = originsOf(before, 0, loop.getLowerBound());
  if (failed(first))
    return failure();
  for (int i = 0; i < 2; ++i)
    copier.copy(before, tiles[i], (*first)[i],
                bufferOf(before, loop.getLowerBound(), 0));
  gpu::BarrierOp::create(before, loc);

  // Each tile's successor (the next op's, or the first op's of the next
  // iteration) has its global loads issued before the tile's MFMAs and its
  // data written to LDS after them, so the loads' latency hides behind the
  // MFMAs. After the last tile there is nothing to load: direct copies are
  // skipped there (LLVM peels that trip, so the loop keeps no branch and
  // the last trip's barrier waits for no load), staged copies load the
  // first tile of their own iteration again (always in bounds) into the
  // buffer nobody reads, rather than branching.
  Value iv = loop.getInductionVar();
  for (int64_t j = 0; j < tilesPerTrip; ++j) {
    WaveMmaOp op = group[j];
    OpBuilder b(op);
    Value nextBuffer;
    SmallVector<TileCopier::StagedChunk> staged[2];
    if (config.copiesDirectToLds()) {
      nextBuffer = bufferOf(b, iv, j + 1);
      // The next tile, unless this is the last trip's last tile.
      OpBuilder at = b;
      Value nextIv = iv;
      if (j + 1 == tilesPerTrip) {
        Value last = arith::ConstantIndexOp::create(
            b, loc, *getLastIterationValue(loop));
        Value notLast =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv, last);
        at = scf::IfOp::create(b, loc, notLast, /*withElse=*/false)
                 .getThenBodyBuilder();
        nextIv = arith::AddIOp::create(at, loc, iv, loop.getStep());
      }
      auto nextOrigins = originsOf(at, (j + 1) % tilesPerTrip, nextIv);
      if (failed(nextOrigins))
        return failure();
      for (int i = 0; i < 2; ++i)
        copier.copyDirect(at, tiles[i], (*nextOrigins)[i], nextBuffer);
    } else {
      auto nextOrigins =
          j + 1 < tilesPerTrip
              ? originsOf(b, j + 1, iv)
              : originsOf(b, 0, createPrefetchIteration(b, loc, loop));
      if (failed(nextOrigins))
        return failure();
      nextBuffer = bufferOf(b, iv, j + 1);
      // Packed FP4/FP6 chunks are written right away: vectors of 6- or
      // 4-bit values kept live across the MFMAs would go through scratch.
      for (int i = 0; i < 2; ++i) {
        staged[i] = copier.load(b, tiles[i], (*nextOrigins)[i]);
        if (tiles[i].elementBits() < 8) {
          copier.store(b, tiles[i], staged[i], nextBuffer);
          staged[i].clear();
        }
      }
    }
    // Scheduling fences keep LLVM's scheduler from sinking the loads into
    // the MFMAs or hoisting the LDS stores above them: either shortens the
    // time the loads have to arrive to a few MFMAs.
    auto fence = [&](OpBuilder &at) {
      amdgpu::SchedBarrierOp::create(
          at, loc, amdgpu::sched_barrier_opt_enumAttr::get(
                       at.getContext(), amdgpu::sched_barrier_opt_enum::none));
    };
    fence(b);
    WaveMmaOp promoted = replaceWithPromoted(b, op, bufferOf(b, iv, j));
    OpBuilder after(promoted->getBlock(), ++Block::iterator(promoted));
    fence(after);
    for (int i = 0; i < 2; ++i)
      copier.store(after, tiles[i], staged[i], nextBuffer);
    // One barrier per tile publishes the next tile and frees this one's
    // buffer for the tile after; the last tile's ends the iteration (after
    // the block's scale update).
    if (j + 1 < tilesPerTrip) {
      gpu::BarrierOp::create(after, loc);
    } else {
      OpBuilder end = OpBuilder::atBlockTerminator(loop.getBody());
      gpu::BarrierOp::create(end, loc);
    }
  }
  return success();
}
