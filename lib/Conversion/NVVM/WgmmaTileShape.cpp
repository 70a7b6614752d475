//===- WgmmaTileShape.cpp - a wgmma kernel's tile and cluster choice ------===//
//
// The tile shape, cluster size and run-time M versions that
// qmm-lower-matmul-to-wgmma takes where its options leave them open, as pure
// functions of the problem (WgmmaPlan.h), and the B scale chunks a tile
// reads.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/NVVM/WgmmaPlan.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

int64_t wgmma::getBScaleColumns(const WgmmaScales &scales,
                                const WgmmaTiling &tiling) {
  int64_t part = tiling.consumerColumns;
  if (scales.blockRows % tiling.tileN == 0)
    return part;
  int64_t chunk = std::gcd(part, scales.blockRows);
  return chunk % 8 == 0 && part / chunk <= kMaxBScaleChunks ? chunk : 0;
}

int64_t wgmma::getAutoClusterRows(const WgmmaOptions &options, int64_t waves) {
  if (options.clusterRows != 0)
    return options.clusterRows;
  // Clusters that share A's tiles instead.
  if (options.clusterColumns > 1)
    return 1;
  // A dynamic schedule draws tiles block by block, and a cluster needs
  // room for its blocks.
  bool room =
      options.maxBlocks == 0 || options.maxBlocks >= kTwoWaveClusterRows;
  return waves > 1 && !options.dynamicSchedule && room ? kTwoWaveClusterRows
                                                       : 1;
}

std::pair<int64_t, int64_t> wgmma::chooseTileShape(const WgmmaProblem &problem,
                                                   const WgmmaOptions &options,
                                                   const NvidiaChipInfo &chip) {
  int64_t wgmmaM = chip.getWgmma().m;
  // (An M known at run time only is taken to be large.)
  int64_t rows = options.tileM                                   ? options.tileM
                 : (!problem.runtimeRows && problem.m <= wgmmaM) ? wgmmaM
                                                                 : 2 * wgmmaM;
  if (options.tileN)
    return {rows, options.tileN};
  int64_t slots = options.maxBlocks > 0
                      ? std::min(options.maxBlocks, chip.multiprocessors)
                      : chip.multiprocessors;
  // A tile must hold whole blocks of B's scales and of an FP8 output's.
  auto holdsBlocks = [&](int64_t columns) {
    return (!problem.bScales.perKTile() ||
            problem.bScales.blockRows % columns == 0) &&
           columns % std::max<int64_t>(1, problem.outScaleBlockColumns) == 0;
  };
  if (problem.runtimeRows)
    return {rows, holdsBlocks(128) ? 128 : 64};
  int64_t wideTiles =
      llvm::divideCeil(problem.m, rows) * llvm::divideCeil(problem.n, 128);
  // (Empty problems, which the kernel refuses, keep the wide tile.)
  if (wideTiles == 0)
    return {rows, 128};
  int64_t kTiles = llvm::divideCeil(problem.k, chip.getWgmmaKTile());
  bool blockScaled = problem.aScales.perKTile() || problem.bScales.perKTile();
  TileSchedule wide = getTileSchedule(
      wideTiles, /*clusterRows=*/1, /*rasterUnits=*/1, kTiles, chip,
      options.streamK, options.maxBlocks, /*dynamic=*/false);
  // Where 128-column tiles would split into more parts than a cluster
  // reduction's two and 64-column ones into two, the narrow tiles' pairs
  // add their sums in shared memory (WgmmaPlan::reducesInCluster).
  // Measured on an H200 against 128-column tiles (4-5 parts through the
  // workspace), M = 128: per-tensor 128x4096x7168 1.30x, per-row
  // 128x3072x8192 1.38x; with 1x128 x 128x128 scales 128x4096x4096 1.23x,
  // 128x4096x7168 1.06x, but 128x4096x16384 0.96x (a block-scaled narrow
  // tile's K tile costs more than half a wide one's, which a long K loop
  // adds up).
  // The schedule of 64-column tiles (twice the wide tiles) for the rules
  // below.
  TileSchedule narrow = getTileSchedule(
      2 * wideTiles, /*clusterRows=*/1, /*rasterUnits=*/1, kTiles, chip,
      options.streamK, options.maxBlocks, /*dynamic=*/false);
  auto pairsNarrowTiles = [&] {
    if (!options.clusterReduction || rows != 2 * wgmmaM ||
        wide.wholeUnits != 0 || wide.parts <= kReductionClusterBlocks)
      return false;
    if (narrow.wholeUnits != 0 || narrow.parts != kReductionClusterBlocks)
      return false;
    return !blockScaled || kTiles <= kMaxBlockScaledPairedNarrowKTiles;
  };
  // One row of 64-row tiles (M <= 64: decode, small batches), which
  // streams B: 64-column tiles where their schedule keeps as many
  // multiprocessors busy as 128-column ones' (twice the tiles, or a
  // split in fewer parts). Not block-scaled where A's box is one swizzle
  // atom (M <= 8) nor block-scaled items of few K tiles, where the narrow
  // tiles measured slower (see kMinNarrowOneRowKTiles; the first's cause
  // is not isolated).
  auto narrowsOneRow = [&] {
    if (problem.groups != 0 || rows != wgmmaM || problem.m > rows)
      return false;
    if (blockScaled &&
        (problem.m <= kSwizzleAtomRows || kTiles < kMinNarrowOneRowKTiles))
      return false;
    return narrow.blocks >= wide.blocks;
  };
  if (holdsBlocks(64) &&
      (!holdsBlocks(128) || 2 * wide.blocks <= slots ||
       (wide.wholeUnits == 0 && wide.parts > kMaxWideTileParts) ||
       pairsNarrowTiles() || narrowsOneRow()))
    return {rows, 64};
  // The share of the tiles' columns that are columns of D.
  auto columnsUse = [&](int64_t tileColumns) {
    return double(problem.n) / double(llvm::alignTo(problem.n, tileColumns));
  };
  // The share of the rounds' tile slots that compute elements of D.
  auto roundsUse = [&](int64_t tileRows, int64_t tileColumns) {
    int64_t tileRowCount = llvm::divideCeil(problem.m, tileRows);
    int64_t tileColumnCount = llvm::divideCeil(problem.n, tileColumns);
    int64_t tiles = tileRowCount * tileColumnCount;
    double use = double(problem.m) / double(tileRowCount * tileRows) *
                 columnsUse(tileColumns);
    return use * double(tiles) / double(llvm::divideCeil(tiles, slots) * slots);
  };
  // 192 columns where their rounds are about as full as 128's (their
  // wgmma steps read a sixth fewer shared-memory bytes per product, and
  // there are a third fewer epilogues), in tiles of two consumers, where
  // neither schedule splits its last round, and where a chunk of each
  // tile's columns lies in one block of B's scales. (Grouped: the rounds
  // of all groups' rows. A masked matmul's tiles are counted at run time,
  // so their rounds are unknown: by N's columns alone.) 16-bit outputs,
  // what was measured: an f32 tile's staging buffer (96 KiB) takes a stage
  // of the ring, an FP8 tile's rows (192 bytes) are not whole swizzle rows,
  // so it would not be staged.
  bool plainOutput =
      problem.outElementBytes == 2 && problem.outScaleBlockColumns == 0;
  int64_t columns = 128;
  WgmmaTiling wideTiling;
  wideTiling.tileN = wideTiling.consumerColumns = kWideTileColumns;
  if (rows == 2 * wgmmaM && wide.parts == 1 && plainOutput &&
      (!problem.bScales.perKTile() ||
       getBScaleColumns(problem.bScales, wideTiling) != 0)) {
    int64_t wideTilesN = llvm::divideCeil(problem.m, rows) *
                         llvm::divideCeil(problem.n, kWideTileColumns);
    TileSchedule widest = getTileSchedule(
        wideTilesN, /*clusterRows=*/1, /*rasterUnits=*/1, kTiles, chip,
        options.streamK, options.maxBlocks, /*dynamic=*/false);
    // (Without block scales a 128 x 128 tile promotes every few K tiles
    // and gains nothing from 192 columns: only where their rounds are
    // fuller by kWideTileUnscaledGain.)
    // (A grouped matmul's staged block scales widen the margin, as
    // measured there: kWideTileStagedUseMargin.)
    bool staged =
        problem.groups != 0 && options.stageScales &&
        getStagedScaleBoxes(problem, rows, kWideTileColumns).has_value();
    double least = !blockScaled ? 1 + kWideTileUnscaledGain
                   : staged     ? 1 - kWideTileStagedUseMargin
                                : 1 - kWideTileUseMargin;
    auto use = [&](int64_t tileColumns) {
      return problem.masked ? columnsUse(tileColumns)
                            : roundsUse(rows, tileColumns);
    };
    if (widest.parts == 1 && use(kWideTileColumns) >= least * use(128))
      columns = kWideTileColumns;
  }
  // Tiles of two waves (256 x 128) where their rounds are about as full as
  // the 128-row tile's: at short K (a 128-row tile's loads outweigh its
  // products), and at any K where they may run in clusters of two
  // (getAutoClusterRows), which DeepGEMM's 256-row tiles do too (A shared
  // there, B here), unless Stream-K splits the 128-row tiles' last round
  // (the rounds' use does not count what a split recovers, and tiles of
  // waves are not split). (16-bit outputs, what was measured; FP8 outputs'
  // quantization needs registers that a tile of waves' consumers do not
  // have to spare.) Beyond short K only where TMA copies the block scales
  // into the ring: a consumer that loads two waves' A scales from global
  // memory each K tile (A's 1 x 128 scales K-major) measured 0.88-0.95x
  // the 128-row tile on the large shapes, where it was 1.02-1.07x with
  // the same scales MN-major (kTwoWaveClusterRows); at short K it still
  // measured 1.02x (4096 x 32768 x 512).
  int64_t waveRows = 4 * wgmmaM;
  bool stagedScales = options.stageScales &&
                      getStagedScaleBoxes(problem, waveRows, 128).has_value();
  bool clusteredWaves =
      options.clusterRows == 0 && wide.parts == 1 &&
      llvm::divideCeil(problem.m, waveRows) % kTwoWaveClusterRows == 0 &&
      getAutoClusterRows(options, /*waves=*/2) == kTwoWaveClusterRows;
  // (At short K against 128 columns, as measured there.)
  bool shortK = kTiles <= kMaxTwoWaveTileKTiles;
  if (!options.tileM && blockScaled && plainOutput && problem.groups == 0 &&
      (shortK || (clusteredWaves && stagedScales)) &&
      roundsUse(waveRows, 128) >=
          (1 - kTwoWaveUseMargin) * roundsUse(rows, shortK ? 128 : columns))
    return {waveRows, 128};
  return {rows, columns};
}

int64_t wgmma::getALoadRows(int64_t rows, int64_t tileRows,
                            const NvidiaChipInfo &chip) {
  if (tileRows == chip.getWgmma().m && rows > 0 && rows < tileRows)
    return llvm::alignTo(rows, kSwizzleAtomRows);
  return tileRows;
}

llvm::SmallVector<WgmmaRowVersion, 8>
wgmma::getRowVersions(const WgmmaProblem &problem, const WgmmaOptions &options,
                      const NvidiaChipInfo &chip) {
  auto [rows, columns] = chooseTileShape(problem, options, chip);
  llvm::SmallVector<WgmmaRowVersion, 8> versions;
  if (problem.runtimeRows && !problem.masked && !options.tileM &&
      !options.tileN) {
    // The static choice changes where M crosses 64 rows (one tile row of
    // 64) and at multiples of 128 (one tile row more), up to where
    // 128-column tiles fill the multiprocessors (they keep that shape for
    // any larger M); below 64 rows, A's box holds M's rows rounded up to a
    // swizzle atom (getALoadRows), so M <= 8, 16, 32 and 48 get boxes of
    // their own (64-row boxes measured up to 10% slower than the static
    // kernel's at M = 1, 16 and 48 on an H200).
    WgmmaProblem fixed = problem;
    fixed.runtimeRows = false;
    int64_t wideColumns = llvm::divideCeil(problem.n, 128);
    int64_t lastRows =
        128 * std::max<int64_t>(
                  1, llvm::divideCeil(chip.multiprocessors, wideColumns));
    llvm::SmallVector<int64_t> bounds = {8, 16, 32, 48, 64};
    for (int64_t m = 128; m <= lastRows; m += 128)
      bounds.push_back(m);
    // A version within one tile row keeps a static schedule (Stream-K
    // included: planWgmmaKernel's oneTileRow), so it stays apart from the
    // larger M of its shape.
    auto oneRow = [](const WgmmaRowVersion &v) { return v.maxRows <= v.tileM; };
    auto loadRows = [&](const WgmmaRowVersion &v) {
      return getALoadRows(v.maxRows, v.tileM, chip);
    };
    for (int64_t bound : bounds) {
      fixed.m = bound;
      auto [m, n] = chooseTileShape(fixed, options, chip);
      WgmmaRowVersion version{bound, m, n};
      if (!versions.empty() && versions.back().tileM == m &&
          versions.back().tileN == n &&
          oneRow(versions.back()) == oneRow(version) &&
          loadRows(versions.back()) == loadRows(version))
        versions.back().maxRows = bound;
      else
        versions.push_back(version);
    }
    // The large-M shape serves the rest: the versions of more than one tile
    // row after the last one of another shape merge into it.
    while (!versions.empty() && versions.back().tileM == rows &&
           versions.back().tileN == columns && !oneRow(versions.back()))
      versions.pop_back();
  }
  versions.push_back({0, rows, columns});
  return versions;
}
