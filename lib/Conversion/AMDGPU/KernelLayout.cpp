//===- KernelLayout.cpp - how a configured matmul sits on the chip --------===//

#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <numeric>
#include <vector>

using namespace mlir;
using namespace mlir::qmm;

OperandLaneLayout qmm::getOperandLayout(ConfigAttr config, Type elementType,
                                        bool forB) {
  return config.getIntrinsic().getOperandLayout(
      elementType.getIntOrFloatBitWidth(), forB);
}

int64_t qmm::getTileRowBytes(ConfigAttr config, Type elementType) {
  return config.getTileK() * elementType.getIntOrFloatBitWidth() / 8;
}

/// Extra bank cycles of `count` LDS accesses of `bytes` each, the i-th (by
/// thread i) at `addressOf(i)`, under the chip's bank model.
static int64_t countBankConflicts(const ChipInfo &chip, int64_t count,
                                  int64_t bytes,
                                  function_ref<int64_t(int64_t)> addressOf) {
  std::vector<LdsLaneAccess> accesses;
  accesses.reserve(count);
  for (int64_t i = 0; i < count; ++i)
    accesses.push_back({i, addressOf(i), bytes});
  return chip.countLdsBankConflictCycles(accesses);
}

/// Extra bank cycles of one wave's fragment reads of the runs at byte
/// `column` of their rows, with rows of `rowBytes` under `swizzle`; with
/// `hardwareOrder`, 128-bit reads are served in the hardware's lane groups
/// (ChipInfo::getLdsReadB128LaneOrder, as the performance model serves
/// them) rather than in lane order (as the emulator does).
static int64_t fragmentReadConflicts(const ChipInfo &chip,
                                     const OperandLaneLayout &layout,
                                     int64_t rowBytes,
                                     const LdsSwizzle &swizzle = {},
                                     int64_t column = 0,
                                     bool hardwareOrder = false) {
  int64_t runBytes = layout.getRunBytes();
  auto addressOf = [&](int64_t lane) {
    int64_t row = lane % layout.rows;
    int64_t byte = column + (lane / layout.rows) * runBytes;
    return row * rowBytes + (byte ^ swizzle.getXorBytes(row));
  };
  if (!hardwareOrder || runBytes != 16)
    return countBankConflicts(chip, chip.waveSize, runBytes, addressOf);
  std::vector<LdsLaneAccess> accesses;
  for (int64_t lane = 0; lane < chip.waveSize; ++lane)
    accesses.push_back({ChipInfo::getLdsReadB128LaneOrder(lane),
                        addressOf(lane), runBytes});
  llvm::sort(accesses, [](const LdsLaneAccess &x, const LdsLaneAccess &y) {
    return x.lane < y.lane;
  });
  return chip.countLdsBankConflictCycles(accesses);
}

/// Extra bank cycles of one wave's fragment reads of a whole K tile: every
/// run of every MFMA step (their columns differ, and so may a swizzle's
/// conflicts).
static int64_t tileReadConflicts(const ChipInfo &chip, ConfigAttr config,
                                 const OperandLaneLayout &layout,
                                 int64_t rowBytes, const LdsSwizzle &swizzle,
                                 bool hardwareOrder = false) {
  int64_t cycles = 0;
  int64_t stepK = config.getIntrinsic().k;
  for (int64_t kStep = 0; kStep < config.getTileK(); kStep += stepK)
    for (int64_t run = 0; run < layout.runs; ++run)
      cycles += fragmentReadConflicts(
          chip, layout, rowBytes, swizzle,
          (kStep + run * layout.runStrideK) * layout.elementBits / 8,
          hardwareOrder);
  return cycles;
}

int64_t qmm::getLdsRowPadding(const ChipInfo &chip, ConfigAttr config,
                              Type elementType, bool forB) {
  // The smallest padding, in whole fragment runs (whole dwords, so
  // fragment reads stay aligned), whose fragment reads are free of bank
  // conflicts; the tile copies choose their row order to match (see
  // getLdsCopyMapping).
  if (config.copiesDirectToLds())
    return 0;
  OperandLaneLayout layout = getOperandLayout(config, elementType, forB);
  int64_t unit = std::lcm<int64_t>(layout.getRunBytes(), chip.ldsBankBytes);
  int64_t rowBytes = getTileRowBytes(config, elementType);
  int64_t best = unit, bestConflicts = -1;
  for (int64_t units = 1; units <= 8; ++units) {
    int64_t padding = units * unit;
    int64_t conflicts = fragmentReadConflicts(chip, layout, rowBytes + padding);
    if (bestConflicts < 0 || conflicts < bestConflicts) {
      best = padding;
      bestConflicts = conflicts;
    }
    if (conflicts == 0)
      break;
  }
  return best;
}

/// The swizzle search of getLdsSwizzle for one operand layout and row
/// width: the fewest bank conflicts in the hardware's order of 128-bit
/// reads, then in lane order, among patterns whose period divides the
/// fragment rows; the first found (smallest parameters) on ties.
static LdsSwizzle searchLdsSwizzle(const ChipInfo &chip, ConfigAttr config,
                                   const OperandLaneLayout &layout,
                                   int64_t rowBytes) {
  // Units of one fragment run (at most 16 bytes), so that a run stays
  // whole, and at least one direct load, so that a load does too.
  int64_t unitBytes =
      std::max<int64_t>(chip.ldsDmaBytes, std::min<int64_t>(16, layout.getRunBytes()));
  int64_t units = std::max<int64_t>(1, rowBytes / unitBytes);
  auto cost = [&](const LdsSwizzle &swizzle) {
    return std::pair(
        tileReadConflicts(chip, config, layout, rowBytes, swizzle, true),
        tileReadConflicts(chip, config, layout, rowBytes, swizzle, false));
  };
  LdsSwizzle best;
  best.unitBytes = unitBytes;
  auto bestCost = cost(best);
  for (int64_t steps = 1; steps <= units; steps *= 2)
    for (int64_t rowsPerStep = 1; rowsPerStep * steps <= layout.rows;
         rowsPerStep *= 2)
      for (int64_t flipUnits = 0; flipUnits < units;
           flipUnits = flipUnits ? flipUnits * 2 : 1)
        for (int64_t flipRows = 1; 2 * flipRows <= layout.rows;
             flipRows *= 2) {
          LdsSwizzle candidate{unitBytes, rowsPerStep, steps, flipRows,
                               flipUnits};
          if (layout.rows % candidate.getPeriod() != 0)
            continue;
          if (bestCost == std::pair<int64_t, int64_t>(0, 0))
            return best;
          auto candidateCost = cost(candidate);
          if (candidateCost < bestCost) {
            best = candidate;
            bestCost = candidateCost;
          }
          if (!flipUnits)
            break; // flipRows means nothing without a flip
        }
  return best;
}

LdsSwizzle qmm::getLdsSwizzle(const ChipInfo &chip, ConfigAttr config,
                              Type elementType, bool forB) {
  if (!config.copiesDirectToLds())
    return {};
  // The search depends on the chip, the instruction's lane layout, the row
  // width and the MFMA steps of a tile: cached, as tuning asks for it for
  // many configs (from several threads).
  OperandLaneLayout layout = getOperandLayout(config, elementType, forB);
  int64_t rowBytes = getTileRowBytes(config, elementType);
  std::string key;
  llvm::raw_string_ostream(key)
      << chip.name << ' ' << config.getIntrinsic().spelling << ' '
      << layout.rows << ' ' << layout.runs << ' ' << layout.runLength << ' '
      << layout.runStrideK << ' ' << layout.elementBits << ' ' << rowBytes;
  static std::mutex mutex;
  static llvm::StringMap<LdsSwizzle> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
  }
  LdsSwizzle swizzle = searchLdsSwizzle(chip, config, layout, rowBytes);
  std::lock_guard<std::mutex> lock(mutex);
  cache.try_emplace(key, swizzle);
  return swizzle;
}

AffineMap LdsCopyMapping::getMap(MLIRContext *context) const {
  AffineExpr chunk = getAffineDimExpr(0, context);
  if (rowStride == 0)
    return AffineMap::get(1, 0,
                          {chunk.floorDiv(chunksPerRow),
                           (chunk % chunksPerRow) * chunkBytes},
                          context);
  int64_t perPhase = rowsPerPhase * chunksPerRow;
  int64_t perGroup = perPhase * rowStride;
  AffineExpr inGroup = chunk % perGroup;
  AffineExpr inPhase = inGroup % perPhase;
  AffineExpr row = chunk.floorDiv(perGroup) * (rowsPerPhase * rowStride) +
                   inGroup.floorDiv(perPhase) +
                   inPhase.floorDiv(chunksPerRow) * rowStride;
  return AffineMap::get(1, 0, {row, (inPhase % chunksPerRow) * chunkBytes},
                        context);
}

std::pair<int64_t, int64_t> qmm::placeChunk(AffineMap copyMap,
                                            int64_t chunk) {
  SmallVector<int64_t, 2> place = copyMap.compose(ArrayRef<int64_t>{chunk});
  return {place[0], place[1]};
}

/// Extra bank cycles of the writes of a whole tile copied with `mapping`
/// into rows of `rowBytes`: each wave's lanes write consecutive chunks.
static int64_t copyWriteConflicts(const ChipInfo &chip, MLIRContext *context,
                                  const LdsCopyMapping &mapping,
                                  int64_t tileRows, int64_t rowBytes) {
  AffineMap map = mapping.getMap(context);
  return countBankConflicts(
      chip, tileRows * mapping.chunksPerRow, mapping.chunkBytes,
      [&](int64_t chunk) {
        auto [row, col] = placeChunk(map, chunk);
        return row * rowBytes + col;
      });
}

LdsCopyMapping qmm::getLdsCopyMapping(const ChipInfo &chip, ConfigAttr config,
                                      Type elementType, bool forB,
                                      int64_t tileRows) {
  LdsCopyMapping mapping;
  mapping.chunkBytes = getCopyChunkBytes(elementType);
  mapping.chunksPerRow =
      getTileRowBytes(config, elementType) / mapping.chunkBytes;
  assert(mapping.chunksPerRow > 0 &&
         getTileRowBytes(config, elementType) % mapping.chunkBytes == 0 &&
         "verifyConfigForChip admits tile rows of whole chunks only");
  int64_t rowBytes = getLdsRowBytes(chip, config, elementType, forB);
  int64_t lanesPerPhase = chip.getLdsLanesPerPhase(mapping.chunkBytes);
  int64_t best = copyWriteConflicts(chip, config.getContext(), mapping, tileRows, rowBytes);
  int64_t rowsPerPhase = lanesPerPhase / mapping.chunksPerRow;
  if (best == 0 || rowsPerPhase < 2 ||
      lanesPerPhase % mapping.chunksPerRow != 0)
    return mapping;
  LdsCopyMapping candidate = mapping;
  candidate.rowsPerPhase = rowsPerPhase;
  for (int64_t stride = 1; rowsPerPhase * stride <= tileRows; ++stride) {
    if (tileRows % (rowsPerPhase * stride) != 0)
      continue;
    candidate.rowStride = stride;
    int64_t conflicts =
        copyWriteConflicts(chip, config.getContext(), candidate, tileRows,
                           rowBytes);
    if (conflicts < best) {
      best = conflicts;
      mapping = candidate;
    }
    if (best == 0)
      break;
  }
  return mapping;
}

int64_t qmm::getLdsConflictCyclesPerTile(const ChipInfo &chip,
                                          ConfigAttr config,
                                          OperandTypes operands) {
  int64_t cycles = 0;
  for (auto [type, forB, waveRows, tileRows] :
       {std::tuple(operands.a, false, config.getWaveTileM(), config.getTileM()),
        std::tuple(operands.b, true, config.getWaveTileN(),
                   config.getTileN())}) {
    OperandLaneLayout layout = getOperandLayout(config, type, forB);
    int64_t rowBytes = getLdsRowBytes(chip, config, type, forB);
    // One read per run, MFMA step along K and fragment row block. Direct
    // copies fill each wave's 1 KiB of LDS in lane order (no conflicts);
    // their swizzled reads differ from column to column.
    if (config.copiesDirectToLds()) {
      cycles += (waveRows / layout.rows) *
                tileReadConflicts(chip, config, layout, rowBytes,
                                  getLdsSwizzle(chip, config, type, forB));
      continue;
    }
    int64_t reads = (waveRows / layout.rows) *
                    (config.getTileK() / config.getIntrinsic().k) * layout.runs;
    cycles += reads * fragmentReadConflicts(chip, layout, rowBytes);
    LdsCopyMapping mapping =
        getLdsCopyMapping(chip, config, type, forB, tileRows);
    cycles += copyWriteConflicts(chip, config.getContext(), mapping, tileRows, rowBytes) /
              config.getNumWaves();
  }
  return cycles;
}

int64_t qmm::getLdsFootprint(const ChipInfo &chip, ConfigAttr config,
                             OperandTypes operands) {
  return config.getStages() *
         (getLdsRowBytes(chip, config, operands.a, false) * config.getTileM() +
          getLdsRowBytes(chip, config, operands.b, true) * config.getTileN());
}

std::optional<MFMAKind> qmm::getMFMAKindFor(const ChipInfo &chip,
                                            OperandTypes operands) {
  Type aType = operands.a, bType = operands.b;
  if (operands.mxScales) {
    // gfx950's scaled MFMA reads every MX element format and applies the
    // E8M0 scales itself.
    if (chip.hasScaledMFMA && isMXElementType(aType) && isMXElementType(bType))
      return MFMAKind::ScaledF8F6F4;
    return std::nullopt;
  }
  for (Type t : {aType, bType})
    if (!isQuantizedElementType(t))
      return std::nullopt;
  // Native FP8, and FP4/FP6: gfx950's f8f6f4 forms read them as they are,
  // gfx942's fp8 forms after an exact conversion to FNUZ FP8 in registers
  // (every FP4/FP6 value is an e4m3fnuz value).
  auto native = [&](Type t) {
    return t.getIntOrFloatBitWidth() < 8 ||
           getFormatFamily(t) == chip.nativeFP8;
  };
  if (native(aType) && native(bType))
    return chip.hasScaledMFMA ? MFMAKind::F8F6F4 : MFMAKind::FP8;
  // FNUZ data on gfx950: every e4m3fnuz / e5m2fnuz value is exact in bf16
  // (no FP8 scaling maps all of them onto OCP), so the fragments are
  // converted in registers and run on the bf16 forms.
  for (const MMAIntrinsicInfo *info : chip.getIntrinsics())
    if (info->kind == MFMAKind::BF16 && isFNUZType(aType) &&
        isFNUZType(bType))
      return MFMAKind::BF16;
  return std::nullopt;
}

LogicalResult qmm::verifySplitK(ConfigAttr config, int64_t k,
                                int64_t scaleBlockK, bool grouped,
                                function_ref<InFlightDiagnostic()> emitError) {
  int64_t split = config.getSplit();
  int64_t tiles = llvm::divideCeil(k, config.getTileK());
  // K = 0 has no tiles to split: the kernel only runs the epilogue.
  if (split == 1 || tiles == 0)
    return success();
  if (grouped)
    return emitError() << "config: split = " << split
                       << " (split-K) is not implemented for grouped matmuls";
  if (tiles % split != 0)
    return emitError() << "config: split = " << split << " must divide the "
                       << tiles << " K tiles (K = " << k << ", tile K = "
                       << config.getTileK() << ")";
  if (config.getMfmaKind() == MFMAKind::ScaledF8F6F4 || scaleBlockK >= k)
    return success();
  int64_t tilesPerBlock = scaleBlockK / config.getTileK();
  if (tilesPerBlock == 0 || (tiles / split) % tilesPerBlock != 0)
    return emitError() << "config: split = " << split << ": each range of "
                       << tiles / split
                       << " K tiles must hold whole scale blocks of "
                       << scaleBlockK << " along K";
  return success();
}

/// What lds_copy = direct needs: loads into LDS (the chip's widest, 16
/// bytes per lane on gfx950, 4 on gfx942), 8-bit or packed 4-bit operands
/// (a 16-byte load then holds whole values; FP6 rows of K tiles that are
/// multiples of 32 never divide a wave's bytes), tile rows whose bytes a
/// wave's 64 loads cover whole, and the same number of chunks for every
/// thread.
static LogicalResult
verifyDirectCopy(ConfigAttr config, const ChipInfo &chip,
                 OperandTypes operands,
                 function_ref<InFlightDiagnostic()> emitError) {
  int64_t chunkBytes = chip.ldsDmaBytes;
  if (chunkBytes <= 0)
    return emitError() << "config: lds_copy = direct needs loads into LDS; "
                       << chip.name << " has none";
  int64_t waveBytes = chip.waveSize * chunkBytes;
  int64_t threads = chip.waveSize * config.getNumWaves();
  for (auto [type, rows] : {std::pair(operands.a, config.getTileM()),
                            std::pair(operands.b, config.getTileN())}) {
    unsigned bits = type.getIntOrFloatBitWidth();
    if (bits != 8 && bits != 4)
      return emitError() << "config: lds_copy = direct copies 8-bit and "
                            "packed 4-bit operands only, got "
                         << type;
    int64_t rowBytes = getTileRowBytes(config, type);
    if (rowBytes % chunkBytes != 0 || rowBytes > waveBytes ||
        waveBytes % rowBytes != 0)
      return emitError() << "config: lds_copy = direct needs the "
                         << rowBytes << "-byte tile rows of " << type
                         << " to divide " << waveBytes
                         << " (one wave's direct loads fill whole rows)";
    if (rows * (rowBytes / chunkBytes) % threads != 0)
      return emitError() << "config: lds_copy = direct needs each tile's "
                         << chunkBytes << "-byte chunks (" << rows << " x "
                         << rowBytes / chunkBytes
                         << ") to be a multiple of the " << threads
                         << " threads";
  }
  return success();
}

LogicalResult
qmm::verifyConfigForChip(ConfigAttr config, const ChipInfo &chip,
                         OperandTypes operands,
                         function_ref<InFlightDiagnostic()> emitError) {
  ArrayRef<int64_t> s = config.getMfmaShape();
  MFMAKind kind = config.getMfmaKind();
  if (!chip.findMFMA(kind, s[0], s[1], s[2]))
    return emitError() << "config: " << chip.name << " has no "
                       << stringifyEnum(kind) << " MFMA " << s[0] << "x"
                       << s[1] << "x" << s[2];
  std::optional<MFMAKind> readable = getMFMAKindFor(chip, operands);
  // Native FP8 runs on the fp8 and f8f6f4 forms, converted FNUZ on bf16,
  // MX operands on the scaled forms.
  bool matches = false;
  if (readable) {
    switch (*readable) {
    case MFMAKind::BF16:
      matches = kind == MFMAKind::BF16;
      break;
    case MFMAKind::ScaledF8F6F4:
      matches = kind == MFMAKind::ScaledF8F6F4;
      break;
    default:
      matches = kind == MFMAKind::FP8 ||
                kind == MFMAKind::F8F6F4;
    }
  }
  if (!matches)
    return emitError() << "config: mfma = " << stringifyEnum(kind)
                       << " does not read " << operands.a << " x "
                       << operands.b << (operands.mxScales ? " with MX scales" : "")
                       << " on " << chip.name;
  if (config.getTileK() % 16 != 0)
    return emitError() << "config: tile K (" << config.getTileK()
                       << ") must be a multiple of 16";
  // The tile copies move each row in whole chunks (getLdsCopyMapping):
  // a row narrower than a chunk would have none.
  for (Type type : {operands.a, operands.b}) {
    int64_t values = getCopyChunkValues(type);
    if (config.getTileK() % values != 0)
      return emitError() << "config: tile K (" << config.getTileK()
                         << ") must be a multiple of " << values << " for "
                         << type << " operands: their tile rows are copied "
                         << "to LDS in whole " << getCopyChunkBytes(type)
                         << "-byte chunks of " << values << " values";
  }
  // No extent beyond the LDS bytes can fit (a row takes at least a byte,
  // a value at least half of one); bounding them first keeps the
  // footprint's arithmetic below from overflowing.
  int64_t ldsBytes = chip.ldsBytesPerWorkgroup;
  if (config.getTileM() > ldsBytes || config.getTileN() > ldsBytes ||
      config.getTileK() > 2 * ldsBytes)
    return emitError() << "config: tile [" << config.getTileM() << ", "
                       << config.getTileN() << ", " << config.getTileK()
                       << "] cannot fit in the " << ldsBytes
                       << " bytes of LDS of " << chip.name;
  if (config.copiesDirectToLds() &&
      failed(verifyDirectCopy(config, chip, operands, emitError)))
    return failure();
  int64_t lds = getLdsFootprint(chip, config, operands);
  if (lds > chip.ldsBytesPerWorkgroup)
    return emitError() << "config: the tiles take " << lds
                       << " bytes of LDS; " << chip.name << " has "
                       << chip.ldsBytesPerWorkgroup;
  return success();
}

/// Smallest power of two >= `v`, clamped to [lo, hi].
static int64_t powerOfTwoTile(int64_t v, int64_t lo, int64_t hi) {
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(v), lo, hi);
}

ConfigAttr qmm::selectConfig(MLIRContext *ctx, const ChipInfo &chip,
                             int64_t m, int64_t n, int64_t k,
                             OperandTypes operands, int64_t scaleBlockK,
                             int64_t outputBlockN) {
  std::optional<MFMAKind> kind = getMFMAKindFor(chip, operands);
  if (!kind)
    return {};
  // The scaled MFMA applies the block scales itself: they do not bound the
  // K tile.
  if (*kind == MFMAKind::ScaledF8F6F4)
    scaleBlockK = k;
  // 32x32 instructions read half the LDS bytes per flop of the 16x16 ones;
  // they pay off once both tile extents can hold two of them per wave.
  // An FP8 output's tile may have to be widened to lcm(block, MFMA N)
  // (below): 16-wide MFMAs keep that within 256 columns for more widths.
  bool large = m >= 128 && n >= 128 &&
               (!outputBlockN || std::lcm(outputBlockN, int64_t(32)) <= 256);
  // 128-byte K tiles: one LDS row per phase of 16-byte writes, and one
  // K tile per 128-wide scale block. A K tile must not straddle two scale
  // blocks: the largest divisor of the scale block that does not exceed
  // the tile. Returns 0 when no tile of whole MFMA steps fits a block.
  auto getTileK = [&](const MMAIntrinsicInfo &shape) -> int64_t {
    int64_t tileK = std::max<int64_t>(shape.k, 128);
    if (k < tileK) // (K = 0 still gets a tile: the kernel runs no K loop)
      tileK = llvm::alignTo(std::max<int64_t>(k, 1), shape.k);
    if (scaleBlockK < k)
      tileK = std::gcd(tileK, scaleBlockK);
    return tileK % shape.k == 0 && tileK % getTileKMultiple(operands) == 0
               ? tileK
               : 0;
  };
  // The preferred shape, else the other one when only its K fits the
  // scale blocks (48-wide blocks: 32x32x16 instead of 16x16x32), else, for
  // FP8 on gfx950, the fp8 forms when the f8f6f4 ones are too deep.
  SmallVector<MFMAKind, 2> kinds = {*kind};
  if (*kind == MFMAKind::F8F6F4 && operands.a.getIntOrFloatBitWidth() == 8 &&
      operands.b.getIntOrFloatBitWidth() == 8)
    kinds.push_back(MFMAKind::FP8);
  const MMAIntrinsicInfo *shape = nullptr;
  int64_t tileK = 0;
  for (MFMAKind candidateKind : kinds)
    for (int64_t size : {large ? 32 : 16, large ? 16 : 32})
      for (const MMAIntrinsicInfo *candidate : chip.getIntrinsics())
        if (!shape && candidate->kind == candidateKind &&
            candidate->m == size && candidate->n == size &&
            (tileK = getTileK(*candidate)))
          shape = candidate;
  if (!shape)
    return {};
  kind = shape->kind;
  int64_t mn = shape->m;
  int64_t tileM = powerOfTwoTile(m, mn, 128);
  int64_t tileN = powerOfTwoTile(n, mn, 128);
  int64_t wavesM = std::min<int64_t>(2, tileM / mn);
  int64_t wavesN = std::min<int64_t>(2, tileN / mn);
  // An FP8 output's block amax is reduced within one wave: when 2 x 2
  // waves would split a block, all waves go along M, and when N spans
  // several tiles, the tile is a whole number of blocks (and MFMA tiles)
  // wide.
  if (outputBlockN && (tileN / wavesN) % outputBlockN != 0) {
    wavesM = std::min<int64_t>(4, tileM / mn);
    wavesN = 1;
    int64_t blocksAndTiles = std::lcm(outputBlockN, mn);
    if (tileN % outputBlockN != 0 && n > tileN && blocksAndTiles <= 256)
      tileN = blocksAndTiles;
  }
  MFMAKind attrKind = MFMAKind::F8F6F4;
  if (*kind == MFMAKind::FP8)
    attrKind = MFMAKind::FP8;
  else if (*kind == MFMAKind::BF16)
    attrKind = MFMAKind::BF16;
  else if (*kind == MFMAKind::ScaledF8F6F4)
    attrKind = MFMAKind::ScaledF8F6F4;
  auto make = [&](int64_t tk, int64_t stages = 1) {
    return ConfigAttr::get(ctx, {tileM, tileN, tk}, {wavesM, wavesN},
                           attrKind, {shape->m, shape->n, shape->k}, stages,
                           /*split=*/int64_t(1), LdsCopy::Registers);
  };
  // Two workgroups' tiles within one CU's LDS, so that one workgroup's
  // copies overlap the other's MFMAs: halve tile K (down to the MFMA's K)
  // until they fit.
  ConfigAttr config = make(tileK);
  while (2 * getLdsFootprint(chip, config, operands) > chip.ldsBytesPerCU &&
         (tileK / 2) % shape->k == 0 &&
         (tileK / 2) % getTileKMultiple(operands) == 0) {
    tileK /= 2;
    config = make(tileK);
  }
  // Double buffering where two workgroups' double-buffered tiles still fit
  // a CU's LDS and the K loop has at least two tiles: tile i + 1's global
  // loads are then in flight during tile i's MFMAs (qmm-promote-operands-
  // to-lds). On gfx950's 160 KiB that holds for the 128x128x128 FP8 tiles
  // (2 x 72 KiB); gfx942's 64 KiB keeps them single-buffered.
  ConfigAttr doubleBuffered = make(tileK, /*stages=*/2);
  if (k >= 2 * tileK &&
      2 * getLdsFootprint(chip, doubleBuffered, operands) <= chip.ldsBytesPerCU)
    config = doubleBuffered;
  return config;
}
