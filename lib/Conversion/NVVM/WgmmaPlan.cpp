//===- WgmmaPlan.cpp - the host-side plan of a wgmma kernel ---------------===//
//
// Eligibility, tiling, persistent schedule and shared-memory layout of
// qmm-lower-matmul-to-wgmma's kernels, as pure functions (WgmmaPlan.h).
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/NVVM/WgmmaPlan.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

static llvm::Error refuse(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

TileSchedule wgmma::getTileSchedule(int64_t units, int64_t clusterBlocks,
                                    int64_t rasterUnits, int64_t kTiles,
                                    const NvidiaChipInfo &chip, bool streamK,
                                    int64_t maxBlocks, bool dynamic) {
  int64_t limit = maxBlocks > 0 ? std::min(maxBlocks, chip.multiprocessors)
                                : chip.multiprocessors;
  // The units that run at once: one per cluster of blocks.
  int64_t slots = std::max<int64_t>(1, limit / clusterBlocks);
  TileSchedule schedule;
  // Dynamic: every slot takes units as it frees up, so the blocks that
  // run faster take more and all multiprocessors work (no balancing).
  // Clustered blocks would have to draw their tickets together, and a
  // split last round is static by construction; one round has nothing
  // to hand out.
  if (dynamic && clusterBlocks == 1 && units > slots &&
      !getTileSchedule(units, clusterBlocks, rasterUnits, kTiles, chip, streamK,
                       maxBlocks, /*dynamic=*/false)
           .isSplit()) {
    schedule.blocks = slots;
    schedule.wholeUnits = units;
    schedule.dynamic = true;
    return schedule;
  }
  // Unsplit, the fewest blocks that take the units in as many rounds as
  // `slots` would, rounded up to whole columns of a raster group (at most
  // `slots`): 4096 tiles run 32 rounds on 128 blocks rather than 132, and
  // each round covers whole columns of 8 tile rows.
  int64_t balancedSlots = std::min(
      slots, static_cast<int64_t>(llvm::alignTo(
                 llvm::divideCeil(units, llvm::divideCeil(units, slots)),
                 rasterUnits)));
  schedule.blocks = std::min(units, balancedSlots) * clusterBlocks;
  schedule.wholeUnits = units;
  // Clustered blocks take units together (they share A's or B's tiles),
  // so they are not split.
  if (!streamK || clusterBlocks > 1)
    return schedule;
  int64_t rounds = units / slots, lastRound = units % slots;
  if (lastRound == 0 || 2 * lastRound > slots ||
      rounds > kMaxStreamKRounds || kTiles < kMinStreamKTileKTiles)
    return schedule;
  int64_t parts =
      std::min(slots / lastRound, kTiles / kMinStreamKPartKTiles);
  if (parts < 2)
    return schedule;
  schedule.wholeUnits = rounds * slots;
  schedule.splitTiles = lastRound;
  schedule.parts = parts;
  // Without whole rounds, one block per part.
  schedule.blocks = rounds ? slots : lastRound * parts;
  return schedule;
}

/// The bytes of the sums a block receives in a cluster reduction
/// (WgmmaPlan::reducesInCluster): the other part's fragment of the
/// consumer whose half of the tile the block finishes.
static int64_t getClusterReductionBytes(const WgmmaTiling &tiling,
                                        const NvidiaChipInfo &chip) {
  return 4 * chip.getWgmma().m * tiling.consumerColumns;
}

WgmmaSharedLayout wgmma::getSharedLayout(const WgmmaTiling &tiling,
                                         const NvidiaChipInfo &chip) {
  WgmmaSharedLayout layout;
  layout.alignment = 8 * chip.swizzleBytes;
  layout.stages = tiling.stages;
  layout.stageBytes = tiling.stageBytes();
  layout.aOffset = 0;
  layout.bOffset = tiling.aLoadRows * tiling.tileK;
  int64_t end = tiling.stages * layout.stageBytes;
  layout.emptyBarriers = end;
  end += 8 * tiling.stages;
  if (tiling.scaleSlotBytes) {
    // TMA writes unswizzled boxes at 128-byte aligned addresses.
    layout.scaleSlots = llvm::alignTo(end, 128);
    layout.scaleSlotBytes = tiling.scaleSlotBytes;
    end = layout.scaleSlots + tiling.stages * tiling.scaleSlotBytes;
  }
  if (tiling.itemSlots) {
    layout.queueBarriers = end;
    layout.itemSlots = end + 16;
    layout.queueSlot = layout.itemSlots + 4 * tiling.stages;
    end = layout.queueSlot + 4;
  }
  if (tiling.reductionBarriers) {
    layout.reductionBarriers = llvm::alignTo(end, 8);
    end = layout.reductionBarriers + 16 * tiling.consumers;
  }
  if (tiling.groupTableEntries) {
    layout.groupTable = llvm::alignTo(end, 4);
    end = layout.groupTable + 4 * tiling.groupTableEntries;
  }
  if (tiling.stagingBytes) {
    layout.staging = llvm::alignTo(end, layout.alignment);
    layout.stagingBytesPerConsumer = tiling.stagingBytes / tiling.consumers;
    layout.stagingBoxBytes = chip.getWgmma().m * chip.swizzleBytes;
    end = layout.staging + tiling.stagingBytes;
  }
  layout.bytes = end + layout.alignment;
  return layout;
}

/// Sets `tiling`'s tile to `rows` x `columns`, computed by two consumer
/// warpgroups (rows of wgmma M each, two waves of them each in a tile of 4
/// wgmma M, or with `splitColumns` halves of the columns of a tile of
/// wgmma M rows), or one where the tile has wgmma M rows; and what
/// follows: the threads and the registers.
static void setTileShape(WgmmaTiling &tiling, int64_t rows, int64_t columns,
                         bool splitColumns, const NvidiaChipInfo &chip) {
  int64_t wgmmaM = chip.getWgmma().m;
  int64_t consumers = rows == wgmmaM && !splitColumns ? 1 : 2;
  tiling.consumers = consumers;
  // Two consumers of more than wgmma M rows each: waves of wgmma M rows.
  tiling.waves = std::max<int64_t>(1, rows / (consumers * wgmmaM));
  tiling.tileM = rows;
  tiling.tileN = columns;
  tiling.aLoadRows = rows;
  tiling.consumerColumns = splitColumns ? columns / 2 : columns;
  tiling.threads = (consumers + 1) * chip.getWgmma().threads;
  // The producer (one thread issuing copies) keeps 40 registers, what
  // CUTLASS's warp-specialized kernels give it; the consumers share the
  // rest, in setmaxnreg's steps of 8.
  tiling.producerRegisters =
      std::max<int64_t>(40, chip.minRegistersPerThread);
  tiling.consumerRegisters =
      std::min(chip.maxRegistersPerThread,
               (chip.registersPerMultiprocessor -
                chip.getWgmma().threads * tiling.producerRegisters) /
                   (consumers * chip.getWgmma().threads) / 8 * 8);
}

/// The TMA box of one K tile's block scales of an operand whose tiles
/// have `tileRows` rows (of `rows`, 0 where known at run time only) and
/// reach `tileBlocks` row blocks at most (B's tiles that straddle blocks:
/// 2), or none where TMA cannot copy them: scales that are not f32,
/// strided, rows of scales not 16-byte aligned (TMA's strides), or row
/// blocks that neither are single rows nor hold whole tiles, unless K-major.
static WgmmaScaleBox getScaleBox(const WgmmaScales &scales, int64_t tileRows,
                                 int64_t rows, int64_t k, bool grouped,
                                 bool isA, int64_t tileBlocks = 1) {
  WgmmaScaleBox box;
  if (!scales.perKTile() || scales.elementBytes != 4 || !scales.contiguous)
    return box;
  // The smallest box TMA copies: 16 bytes.
  constexpr int64_t kMinInner = 4;
  bool perRow = scales.blockRows == 1;
  if (!perRow && scales.blockRows % tileRows != 0 && tileBlocks == 1)
    return box;
  if (!scales.mnMajor) {
    // [row blocks, K blocks]: the K tile's block and the next three of
    // each row block the tile reaches. Not of each of the tile's rows: a
    // box of 128 rows of 16 bytes made the TMA copies of small tiles 2x
    // slower (measured on an H200), as TMA fetches a box row by row. (A
    // straddling tile's box past the last row block reads TMA's zeros,
    // which no column of D takes.)
    if (perRow || llvm::divideCeil(k, scales.blockK) * 4 % 16 != 0)
      return box;
    box.inner = kMinInner;
    box.outer = tileBlocks;
    box.kInner = true;
  } else {
    // [K blocks, row blocks]: the tile's rows (or its row block and the
    // next three) of the K tile's block. (B's grouped scales are collapsed
    // along rows, which MN-major ones are not; a masked matmul's A scales
    // [G, K blocks, Mmax] are read as [G K blocks, Mmax], `rows` the
    // group's; a straddling tile's next row block may lie past the box.)
    if ((grouped && !isA) || rows == 0 || tileBlocks != 1 ||
        llvm::divideCeil(rows, scales.blockRows) * 4 % 16 != 0)
      return box;
    box.inner = perRow ? tileRows : kMinInner;
    box.outer = 1;
  }
  box.perRow = perRow;
  return box;
}

/// Gives `tiling`'s stages a slot for the scale boxes `a` and `b` (each
/// 128-byte aligned, as TMA writes boxes), or none where both are absent.
static void setScaleSlot(WgmmaTiling &tiling, WgmmaScaleBox a,
                         WgmmaScaleBox b) {
  constexpr int64_t kBoxAlignment = 128;
  a.offset = 0;
  b.offset = llvm::alignTo(a.bytes(), kBoxAlignment);
  tiling.aScaleBox = a;
  tiling.bScaleBox = b;
  tiling.scaleSlotBytes =
      a.present() || b.present()
          ? llvm::alignTo(b.offset + b.bytes(), kBoxAlignment)
          : 0;
}

llvm::Expected<WgmmaTiling> wgmma::getWgmmaTiling(const WgmmaOptions &options,
                                                  const NvidiaChipInfo &chip) {
  if (options.maxBlocks < 0)
    return refuse(llvm::formatv("max-blocks must be 0 (one block per "
                                "multiprocessor) or positive, got {0}",
                                options.maxBlocks));
  if (options.rasterRows < 1)
    return refuse(llvm::formatv("raster-rows must be at least 1, got {0}",
                                options.rasterRows));
  // One stage would work, but the producer could copy only once the
  // consumers released it: no TMA copy would ever overlap the wgmma steps.
  if (options.stages < 2)
    return refuse(llvm::formatv(
        "stages must be at least 2 (a ring of one stage never overlaps the "
        "copies with the wgmma steps), got {0}",
        options.stages));
  if (options.promotionKTiles < 1)
    return refuse(llvm::formatv("promotion-k-tiles must be at least 1, got "
                                "{0}",
                                options.promotionKTiles));
  // The epilogue stores the accumulator's elements in pairs of adjacent
  // columns, as every wgmma layout holds them.
  if (chip.getWgmma().columnsPerLane != 2)
    return refuse("the epilogue needs 2 adjacent columns per lane in the "
                  "wgmma accumulator layout");
  int64_t wgmmaM = chip.getWgmma().m;
  if (options.tileM != 0 && options.tileM != wgmmaM &&
      options.tileM != 2 * wgmmaM && options.tileM != 4 * wgmmaM)
    return refuse(llvm::formatv("tile-m must be 0 (chosen per matmul), {0}, "
                                "{1} or {2}, got {3}",
                                wgmmaM, 2 * wgmmaM, 4 * wgmmaM, options.tileM));
  if (options.tileN != 0 &&
      !llvm::is_contained(kWgmmaTileColumns, options.tileN))
    return refuse(llvm::formatv("tile-n must be 0 (chosen per matmul), 64, "
                                "128 or 192, got {0}",
                                options.tileN));
  // A consumer of two waves holds a fragment beside two waves' sums: 192
  // columns' 3 x 96 registers a thread would not fit.
  if (options.tileM == 4 * wgmmaM && options.tileN > 128)
    return refuse(llvm::formatv("tile-m {0} (two waves) takes tile-n 64 or "
                                "128, got {1}",
                                options.tileM, options.tileN));
  WgmmaTiling tiling;
  tiling.tileK = chip.getWgmmaKTile();
  tiling.stages = options.stages;
  tiling.promotionKTiles = options.promotionKTiles;
  tiling.rasterRows = options.rasterRows;
  // The largest tile, 128 x 128: its ring must fit, and smaller tiles
  // keep its bytes (planWgmmaKernel).
  setTileShape(tiling, 2 * wgmmaM, 128, /*splitColumns=*/false, chip);
  // B's tile splits into parts of whole 8-row swizzle atoms.
  int64_t maxClusterRows =
      std::min(chip.maxPortableClusterBlocks, tiling.tileN / 8);
  if (options.clusterRows != 0 &&
      (options.clusterRows < 1 || !llvm::isPowerOf2_64(options.clusterRows) ||
       options.clusterRows > maxClusterRows))
    return refuse(llvm::formatv("cluster-rows must be 0 (chosen per matmul) "
                                "or a power of two from 1 to {0}, got {1}",
                                maxClusterRows, options.clusterRows));
  if (options.maxBlocks > 0 && options.maxBlocks < options.clusterRows)
    return refuse(llvm::formatv("max-blocks ({0}) must hold a cluster of "
                                "cluster-rows ({1}) blocks",
                                options.maxBlocks, options.clusterRows));
  // A's tile splits into parts of whole 8-row swizzle atoms: the smallest
  // tile (wgmma M rows) into at most wgmma M / 8.
  int64_t maxClusterColumns =
      std::min(chip.maxPortableClusterBlocks, wgmmaM / 8);
  if (options.clusterColumns < 1 ||
      !llvm::isPowerOf2_64(options.clusterColumns) ||
      options.clusterColumns > maxClusterColumns)
    return refuse(llvm::formatv("cluster-columns must be a power of two from "
                                "1 to {0}, got {1}",
                                maxClusterColumns, options.clusterColumns));
  if (options.clusterColumns > 1 && options.clusterRows > 1)
    return refuse(llvm::formatv(
        "cluster-rows ({0}) and cluster-columns ({1}) cannot both exceed 1: "
        "a cluster shares B's tiles or A's, not both",
        options.clusterRows, options.clusterColumns));
  if (options.maxBlocks > 0 && options.maxBlocks < options.clusterColumns)
    return refuse(llvm::formatv("max-blocks ({0}) must hold a cluster of "
                                "cluster-columns ({1}) blocks",
                                options.maxBlocks, options.clusterColumns));
  // The ring must fit with a dynamic schedule's state where a kernel may
  // have one (staging buffers are left out where they do not fit).
  WgmmaTiling largest = tiling;
  largest.itemSlots = options.dynamicSchedule;
  int64_t bytes = getSharedLayout(largest, chip).bytes;
  if (bytes > chip.maxSharedBytesPerBlock)
    return refuse(llvm::formatv("{0} stages need {1} bytes of shared memory; "
                                "{2} has {3} per block",
                                options.stages, bytes, chip.name,
                                chip.maxSharedBytesPerBlock));
  return tiling;
}

/// The row blocks of B's scales that a tile of `tiling` reaches at most:
/// where its first column lies in a block (a multiple of the chunk's
/// columns) and its columns after.
static int64_t getBScaleTileBlocks(const WgmmaScales &scales,
                                   const WgmmaTiling &tiling) {
  int64_t chunk = std::gcd(tiling.tileN, scales.blockRows);
  return llvm::divideCeil(scales.blockRows - chunk + tiling.tileN,
                          scales.blockRows);
}

std::optional<std::pair<WgmmaScaleBox, WgmmaScaleBox>>
wgmma::getStagedScaleBoxes(const WgmmaProblem &problem, int64_t tileM,
                           int64_t tileN) {
  bool grouped = problem.groups != 0;
  WgmmaTiling tiling;
  tiling.tileN = tileN;
  WgmmaScaleBox a = getScaleBox(problem.aScales, tileM, problem.m, problem.k,
                                grouped, /*isA=*/true),
                b = getScaleBox(
                    problem.bScales, tileN, problem.n, problem.k, grouped,
                    /*isA=*/false,
                    problem.bScales.perKTile()
                        ? getBScaleTileBlocks(problem.bScales, tiling)
                        : 1);
  if (a.present() != problem.aScales.perKTile() ||
      b.present() != problem.bScales.perKTile())
    return std::nullopt;
  return std::pair{a, b};
}

/// Why the kernel does not take `problem`, or the empty string.
static std::string getIneligibility(const WgmmaProblem &problem,
                                    const WgmmaTiling &tiling) {
  // wgmma reads OCP FP8 only (the NVVM pipeline refuses the rest before).
  if (!problem.ocpFP8)
    return "not OCP FP8";
  // Empty products are the reference lowering's; TMA coordinates are
  // 32-bit.
  constexpr int64_t kMaxCoordinate = (int64_t(1) << 31) - 1;
  for (int64_t extent : {problem.m, problem.k, problem.n})
    if ((extent == 0 && !(problem.runtimeRows && extent == problem.m)) ||
        extent > kMaxCoordinate)
      return "empty or above 2^31 - 1 extents";
  if (problem.runtimeRows && problem.masked)
    return "a run-time M of a masked matmul (its M is its buffer's bound)";
  // wgmma reads K-major FP8 tiles only (PTX ISA: transposed layouts are
  // for 16-bit types).
  if (!problem.bStoredNK)
    return "B stored [K, N]";
  if (problem.auxOutputs)
    return "auxiliary outputs";
  // A block of the output's scales must lie within one thread quad's
  // columns of one tile (whole 8-column groups).
  if (int64_t columns = problem.outScaleBlockColumns)
    if (columns % 8 != 0 || tiling.consumerColumns % columns != 0)
      return "FP8 output scale blocks not dividing the kernel's tiles";
  if (!problem.contiguous)
    return "strided operands";
  // Waves share one fragment, promoted every K tile: block scales only
  // (the others' fragments sum several K tiles, one per wave would not
  // fit in the registers). A tile's rows lie in one group's (contiguous:
  // 128-row segments), which 256 rows would not.
  if (tiling.waves > 1 &&
      (!(problem.aScales.perKTile() || problem.bScales.perKTile()) ||
       problem.groups != 0))
    return llvm::formatv("a tile of {0} rows (tile-m) without block scales "
                         "or in a grouped matmul",
                         tiling.tileM);
  // TMA reads rows at 16-byte aligned strides.
  if (problem.k % 16 != 0)
    return "K not a positive multiple of 16";
  for (auto [scales, isB] :
       {std::pair{problem.aScales, false}, {problem.bScales, true}}) {
    if (scales.kind == WgmmaScales::Kind::MX)
      return "MX scales";
    if (scales.kind != WgmmaScales::Kind::Block)
      continue;
    // A K block must be whole K tiles; B's row blocks whole N tiles, so
    // that one scale serves a consumer's columns, or a few chunks of them
    // each in one block (getBScaleColumns), of whole 8-column groups.
    if (scales.blockK % tiling.tileK != 0 ||
        (isB && getBScaleColumns(scales, tiling) == 0))
      return "scale blocks not aligned with the kernel's tiles";
  }
  return "";
}

/// Whether `tiling`'s stages hold more bytes than a 128 x 128 tile's (the
/// module's largest, getWgmmaTiling): tiles of waves and of 192 columns,
/// which take the module's stages, as many as fit (fitStages).
static bool hasLargeStages(const WgmmaTiling &tiling,
                           const NvidiaChipInfo &chip) {
  return tiling.stageBytes() > (2 * chip.getWgmma().m + 128) * tiling.tileK;
}

/// Whether `tiling`'s shared memory fits in a block, after taking stages
/// from a tile of large stages down to 2 where it does not (its 40-48 KiB
/// stages keep the staging buffers and scale slots beside the ring).
static bool fitStages(WgmmaTiling &tiling, const NvidiaChipInfo &chip) {
  auto fits = [&] {
    return getSharedLayout(tiling, chip).bytes <= chip.maxSharedBytesPerBlock;
  };
  while (!fits() && hasLargeStages(tiling, chip) && tiling.stages > 2)
    --tiling.stages;
  return fits();
}

/// The bytes of D's staging buffers where D's tiles may go out through
/// shared memory and TMA stores, else 0: elements TMA may store whose rows
/// are 16-byte aligned (a tensor map's strides), in whole swizzle rows per
/// consumer; a masked matmul's only where its groups' rows are whole tiles
/// (a box would reach past a group's rows into the next group's, which
/// another block writes). The waves of a consumer go out in turn through
/// one buffer.
static int64_t getStageableBytes(const WgmmaProblem &problem,
                                 const WgmmaTiling &tiling,
                                 const NvidiaChipInfo &chip) {
  int64_t elementBytes = problem.outElementBytes;
  if (!problem.outTmaStorable ||
      problem.n * elementBytes % chip.tmaGlobalAlignment != 0 ||
      tiling.consumerColumns * elementBytes % chip.swizzleBytes != 0 ||
      (problem.masked && problem.m % tiling.tileM != 0))
    return 0;
  return tiling.tileM / tiling.waves * tiling.tileN * elementBytes;
}

/// The bytes of D's staging buffers (getStageableBytes) where they fit
/// beside the ring, else 0.
static int64_t getStagingBytes(const WgmmaProblem &problem,
                               const WgmmaTiling &tiling,
                               const NvidiaChipInfo &chip) {
  WgmmaTiling staged = tiling;
  staged.stagingBytes = getStageableBytes(problem, tiling, chip);
  if (!staged.stagingBytes || !fitStages(staged, chip))
    return 0;
  return staged.stagingBytes;
}

/// Whether `tiling` is a block-scaled 128 x 128 tile (wgmma M rows per
/// consumer) whose B matrices at most kStreamedBTileRowsTimesTwo / 2 tile
/// rows read on average, over at least kStreamedBMinKTiles K tiles: a
/// dense M's tile rows, known at compile time, or a contiguous grouped
/// matmul's tile rows per group (its groups' rows are padded to whole
/// tiles; a masked matmul's are counted at run time only). Such a tile
/// streams B from HBM (kStreamedBTileRowsTimesTwo says what was measured).
static bool streamsB(const WgmmaProblem &problem, const WgmmaTiling &tiling,
                     const NvidiaChipInfo &chip) {
  bool blockScaled = problem.aScales.perKTile() || problem.bScales.perKTile();
  if (!blockScaled || problem.runtimeRows || problem.masked ||
      tiling.tileM != 2 * chip.getWgmma().m || tiling.tileN != 128 ||
      tiling.consumers != 2 || tiling.waves != 1)
    return false;
  int64_t tileRows = llvm::divideCeil(problem.m, tiling.tileM);
  int64_t bMatrices = std::max<int64_t>(1, problem.groups);
  return 2 * tileRows <= kStreamedBTileRowsTimesTwo * bMatrices &&
         llvm::divideCeil(problem.k, tiling.tileK) >= kStreamedBMinKTiles;
}

/// The stages of `tiling`'s ring, from the module's (`moduleTiling`: stages
/// of 128 x 128 tiles):
/// - a smaller tile keeps the ring's bytes in more stages: small-M kernels
///   stream B, and the bytes in flight are what keep HBM busy;
/// - a tile of waves or of 192 columns takes the module's count of its own
///   40-48 KiB stages where they fit (fitStages): 2 or 3 stages of 128 x
///   128 tiles' bytes would leave TMA fewer stages ahead of the consumers;
/// - a tile of two consumers and 64 columns without block scales keeps a
///   128 x 128 ring's products instead, as many stages as fit beside a
///   staging buffer for D: its 24 KiB stage feeds half the products of a
///   32 KiB one, so a ring of the same bytes covers too little of HBM's
///   latency. Measured on an H200 (8 stages against 5,
///   benchmarks/results/2026-12-01-h200-ring-depth.md): per-tensor and
///   per-row 1.07-1.22x (128 x 7168 x 2048 1.18x, 128 x 8192 x 2048 1.13x,
///   1024^3 1.08x); block-scaled kernels, whose consumers spend longer on a
///   K tile, 0.98-0.99x, and 64-row tiles (one consumer, or two of 64
///   columns) 0.97-1.01x, so they keep the ring of bytes.
static int64_t getRingStages(const WgmmaProblem &problem,
                             const WgmmaTiling &tiling,
                             const WgmmaTiling &moduleTiling,
                             const WgmmaOptions &options,
                             const NvidiaChipInfo &chip) {
  if (hasLargeStages(tiling, chip))
    return moduleTiling.stages;
  int64_t ofBytes =
      moduleTiling.stages * moduleTiling.stageBytes() / tiling.stageBytes();
  bool blockScaled = problem.aScales.perKTile() || problem.bScales.perKTile();
  if (blockScaled || tiling.consumers != 2 || tiling.waves != 1 ||
      tiling.tileN != 64)
    return ofBytes;
  WgmmaTiling deep = tiling;
  deep.stages = moduleTiling.stages * moduleTiling.tileM * moduleTiling.tileN /
                (tiling.tileM * tiling.tileN);
  deep.stagingBytes = getStageableBytes(problem, tiling, chip);
  deep.itemSlots = options.dynamicSchedule;
  while (deep.stages > ofBytes &&
         getSharedLayout(deep, chip).bytes > chip.maxSharedBytesPerBlock)
    --deep.stages;
  return deep.stages;
}

llvm::Expected<WgmmaPlan>
wgmma::planWgmmaKernel(const WgmmaProblem &problem,
                       const WgmmaTiling &moduleTiling,
                       const WgmmaOptions &options,
                       const NvidiaChipInfo &chip) {
  WgmmaPlan plan;
  WgmmaTiling &tiling = plan.tiling;
  tiling = moduleTiling;
  auto [rows, columns] = chooseTileShape(problem, options, chip);
  // A tile of wgmma M rows and 128 columns: two consumers of 64 columns
  // each (measured 0-6% faster than one of 128 on small M), unless an FP8
  // output's scale blocks are wider than 64 columns.
  bool splitColumns =
      rows == chip.getWgmma().m && columns == 128 &&
      64 % std::max<int64_t>(1, problem.outScaleBlockColumns) == 0;
  setTileShape(tiling, rows, columns, splitColumns, chip);
  // Fewer rows of A than one consumer row's wgmma M: the stage holds (and
  // TMA fills) A's rows only, up to the next swizzle atom. The consumers'
  // wgmma M rows from the stage's start then end inside it (B follows).
  // A run-time M bounded below wgmma M (a kernel version's) loads its
  // bound's rows the same way.
  tiling.aLoadRows = getALoadRows(
      problem.runtimeRows ? problem.maxRows : problem.m, rows, chip);
  // A masked matmul's blocks find an item's group in a table of the
  // items before each group, counted once per launch, rather than walking
  // the counts per tile (which cost every tile a loop over the groups).
  tiling.groupTableEntries = problem.masked ? problem.groups + 1 : 0;
  tiling.stages = getRingStages(problem, tiling, moduleTiling, options, chip);
  std::string reason = getIneligibility(problem, tiling);
  if (!reason.empty())
    return refuse(reason);
  plan.tileRows = llvm::divideCeil(problem.m, tiling.tileM);
  // A run-time M within one tile row: one tile row, scheduled statically.
  plan.oneTileRow = problem.runtimeRows && !problem.masked &&
                    problem.maxRows > 0 && problem.maxRows <= tiling.tileM;
  if (plan.oneTileRow) {
    plan.tileRows = 1;
    plan.runtimeRows = true;
  }
  plan.tileColumns = llvm::divideCeil(problem.n, tiling.tileN);
  plan.unitColumns = plan.tileColumns;
  plan.kTiles = llvm::divideCeil(problem.k, tiling.tileK);
  plan.aScales = problem.aScales;
  plan.bScales = problem.bScales;
  if (problem.bScales.perKTile())
    plan.bScaleColumns = getBScaleColumns(problem.bScales, tiling);
  if (problem.masked || (problem.runtimeRows && !plan.oneTileRow)) {
    // The tiles are counted at run time (a masked matmul's of its groups'
    // valid rows, or those of M's rows): one block per multiprocessor (at
    // most max-blocks; masked, at most one per tile of the bound; for a
    // run-time M the host's grid takes at most one per tile) walks them;
    // no split (the last round is unknown here), no dynamic schedule, no
    // clusters.
    tiling.clusterRows = tiling.clusterColumns = 1;
    int64_t limit = options.maxBlocks > 0
                        ? std::min(options.maxBlocks, chip.multiprocessors)
                        : chip.multiprocessors;
    plan.runtimeRows = problem.runtimeRows;
    if (problem.masked) {
      plan.maskedGroups = problem.groups;
      plan.unitRows = problem.groups * plan.tileRows;
      plan.rasterUnits = 1;
      plan.schedule.blocks = std::min(plan.units(), limit);
    } else {
      plan.rasterUnits = tiling.rasterRows;
      plan.schedule.blocks = limit;
    }
    plan.schedule.wholeUnits = plan.units();
  } else {
    // Clusters of `cluster-rows` blocks where M's tile rows divide by it
    // and the cluster's tiles read the same B (not so in a grouped
    // matmul, whose next tile row may be another group's).
    int64_t clusterRows = getAutoClusterRows(options, tiling.waves);
    tiling.clusterRows = plan.tileRows % clusterRows == 0 && problem.groups == 0
                             ? clusterRows
                             : 1;
    // Clusters of `cluster-columns` blocks, consecutive tiles of one row
    // (of one group, where grouped), where N's tile columns divide by it
    // and A's loaded rows split into whole 8-row swizzle atoms.
    tiling.clusterColumns =
        plan.tileColumns % options.clusterColumns == 0 &&
                tiling.aLoadRows % (8 * options.clusterColumns) == 0
            ? options.clusterColumns
            : 1;
    plan.unitRows = plan.tileRows / tiling.clusterRows;
    plan.unitColumns = plan.tileColumns / tiling.clusterColumns;
    plan.rasterUnits =
        std::max<int64_t>(1, tiling.rasterRows / tiling.clusterRows);
    // (Not split where a consumer has waves: reduceStreamKPart adds one
    // wave's fragment.)
    plan.schedule =
        getTileSchedule(plan.units(), tiling.clusterBlocks(), plan.rasterUnits,
                        plan.kTiles, chip, options.streamK && tiling.waves == 1,
                        options.maxBlocks, options.dynamicSchedule);
  }
  tiling.itemSlots = plan.schedule.dynamic;
  // Where every block takes one Stream-K part (no whole tiles) and a tile
  // has two, they run at once as a cluster: their sums meet in
  // distributed shared memory, not in the global workspace (whose stores
  // measured a quarter of such launches on an H200); a run-time M's
  // versions within one tile row too (their grid is the static one).
  const TileSchedule &schedule = plan.schedule;
  plan.reducesInCluster = options.clusterReduction && schedule.isSplit() &&
                          schedule.wholeUnits == 0 &&
                          schedule.blocks == schedule.items() &&
                          schedule.parts == kReductionClusterBlocks &&
                          tiling.consumers == kReductionClusterBlocks &&
                          !plan.clustered() && !plan.countsItemsAtRunTime();
  tiling.reductionBarriers = plan.reducesInCluster;
  // Block scales go through the ring: TMA copies each K tile's scales
  // into the stage with its tiles. Loaded by the consumers from global
  // memory, they arrive after L2's latency each K tile, and ptxas puts
  // their product before the K tile's wgmma issue (measured: the
  // consumers' largest stall besides the wait for wgmma).
  // Both operands' or none: the promotion waits for the K tile's
  // scales, so one operand's still loaded from global memory would keep
  // the wait.
  if (options.stageScales) {
    if (auto boxes = getStagedScaleBoxes(problem, tiling.tileM, tiling.tileN)) {
      setScaleSlot(tiling, boxes->first, boxes->second);
      // (Where the slots do not fit beside the ring, the consumers load
      // the scales.)
      int64_t stages = tiling.stages;
      if (!fitStages(tiling, chip)) {
        setScaleSlot(tiling, WgmmaScaleBox(), WgmmaScaleBox());
        tiling.stages = stages;
      }
    }
  }
  // Both operands' block scales: their products decide the promotion's
  // form per K tile (Mainloop::promote), unless checked ahead (ScaleCheck),
  // which needs the counters that split and dynamic schedules use for
  // themselves, and pays where a block's items after its first hold
  // kMinCheckedKTiles K tiles, kMinCheckedTileKTiles or more a tile (a
  // masked matmul's bound: every group's Mmax rows). Not for a run-time M,
  // whose small versions would pay for the check alone, nor for a masked
  // matmul's decode tiles (kMinMaskedCheckedTileRows). A masked matmul's
  // A scales are checked for the groups' valid rows only (its buffer's
  // other rows hold anything).
  int64_t clusters = plan.schedule.blocks / tiling.clusterBlocks();
  int64_t laterKTiles =
      (llvm::divideCeil(plan.schedule.items(), std::max<int64_t>(1, clusters)) -
       1) *
      plan.kTiles;
  plan.scaleChecks =
      options.checkScalesAhead && problem.aScales.perKTile() &&
      problem.bScales.perKTile() && !plan.schedule.isSplit() &&
      !plan.schedule.dynamic && !(plan.runtimeRows && !plan.oneTileRow) &&
      !(plan.maskedGroups && tiling.tileM < kMinMaskedCheckedTileRows) &&
      laterKTiles >= kMinCheckedKTiles &&
      plan.kTiles >= kMinCheckedTileKTiles;
  tiling.stagingBytes = getStagingBytes(problem, tiling, chip);
  fitStages(tiling, chip);
  // A tile that streams B takes one stage more, up to the depth measured,
  // only where it fits beside the staging buffer and the scale slots.
  if (streamsB(problem, tiling, chip) &&
      tiling.stages < kStreamedBMaxStages) {
    WgmmaTiling deeper = tiling;
    ++deeper.stages;
    if (getSharedLayout(deeper, chip).bytes <= chip.maxSharedBytesPerBlock)
      tiling = deeper;
  }
  // The sums a block receives lie in its ring, free once its consumers'
  // K loops are done.
  if (plan.reducesInCluster && getClusterReductionBytes(tiling, chip) >
                                   tiling.stages * tiling.stageBytes()) {
    plan.reducesInCluster = false;
    tiling.reductionBarriers = false;
  }
  plan.shared = getSharedLayout(tiling, chip);
  // Block scales change every K tile; the others wait for the epilogue.
  bool blockScaled = problem.aScales.perKTile() || problem.bScales.perKTile();
  plan.promotionKTiles =
      getWgmmaPromotionKTiles(blockScaled, tiling.promotionKTiles);
  // (A dynamic schedule draws more items than blocks, always.)
  plan.kTilesPerTrip = blockScaled && !plan.countsItemsAtRunTime() &&
                               !plan.schedule.dynamic &&
                               plan.schedule.items() <= clusters
                           ? kPerKTileLoopSteps
                           : 1;
  plan.testsNextStage = blockScaled && plan.promotionKTiles == 1 &&
                        plan.kTilesPerTrip == 1 &&
                        tiling.tileN <= kMaxNextStageTestColumns;
  if (tiling.stagingBytes)
    plan.stagingBoxColumns = chip.swizzleBytes / problem.outElementBytes;
  plan.partialRows = problem.runtimeRows || problem.m % tiling.tileM != 0;
  plan.partialColumns = problem.n % tiling.tileN != 0;
  return plan;
}
