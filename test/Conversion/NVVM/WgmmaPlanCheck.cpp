//===- WgmmaPlanCheck.cpp - the wgmma kernel's plan, without IR -----------===//
//
// qmm-lower-matmul-to-wgmma's host-side plan (WgmmaPlan.h) checked against
// values worked out by hand from the sm_90a target description (132
// multiprocessors, 227 KiB of shared memory per block, 64 Ki registers,
// 128-byte swizzle rows, wgmma m64) and the PTX ISA's wgmma accumulator
// layout (the intrinsic table's wgmma row). Prints one line per case and
// exits non-zero on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/NVVM/WgmmaPlan.h"

#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>

using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

namespace {
int failures = 0;

/// Compares named values of one case, printing the case's verdict.
struct Case {
  std::string name;
  int mismatches = 0;
  explicit Case(std::string name) : name(std::move(name)) {}
  void expect(const char *what, int64_t actual, int64_t expected) {
    if (actual == expected)
      return;
    ++mismatches;
    llvm::outs() << "  " << name << ": " << what << " is " << actual
                 << ", expected " << expected << "\n";
  }
  void expect(const char *what, const std::string &actual,
              const std::string &expected) {
    if (actual == expected)
      return;
    ++mismatches;
    llvm::outs() << "  " << name << ": " << what << " is '" << actual
                 << "', expected '" << expected << "'\n";
  }
  ~Case() {
    llvm::outs() << name << ": " << (mismatches ? "MISMATCH" : "ok") << "\n";
    failures += mismatches != 0;
  }
};

const NvidiaChipInfo &hopper() { return *lookupNvidiaChip("sm_90a"); }

WgmmaProblem problem(int64_t m, int64_t n, int64_t k) {
  WgmmaProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  return problem;
}

WgmmaScales blocks(int64_t rows, int64_t k) {
  WgmmaScales scales;
  scales.kind = WgmmaScales::Kind::Block;
  scales.blockRows = rows;
  scales.blockK = k;
  return scales;
}

/// DeepSeek's recipe: A 1x128 blocks, B 128x128.
WgmmaProblem blockwiseProblem(int64_t m, int64_t n, int64_t k) {
  WgmmaProblem blockwise = problem(m, n, k);
  blockwise.aScales = blocks(1, 128);
  blockwise.bScales = blocks(128, 128);
  return blockwise;
}

WgmmaTiling tiling(const WgmmaOptions &options) {
  return llvm::cantFail(getWgmmaTiling(options, hopper()));
}

/// The plan, or a default plan after reporting why there is none.
WgmmaPlan plan(Case &c, const WgmmaProblem &problem,
               const WgmmaOptions &options = {}) {
  llvm::Expected<WgmmaPlan> planned =
      planWgmmaKernel(problem, tiling(options), options, hopper());
  if (planned)
    return *planned;
  c.expect("eligibility", llvm::toString(planned.takeError()), "");
  return WgmmaPlan();
}

std::string whyNot(const WgmmaProblem &problem,
                   const WgmmaOptions &options = {}) {
  llvm::Expected<WgmmaPlan> planned =
      planWgmmaKernel(problem, tiling(options), options, hopper());
  if (planned)
    return "";
  return llvm::toString(planned.takeError());
}

std::string optionError(const WgmmaOptions &options) {
  llvm::Expected<WgmmaTiling> tiled = getWgmmaTiling(options, hopper());
  if (tiled)
    return "";
  return llvm::toString(tiled.takeError());
}

void checkTiling() {
  Case c("default tiling");
  WgmmaTiling t = tiling({});
  // 2 consumer warpgroups of m64, N 128, K one 128-byte row of FP8.
  c.expect("tile M", t.tileM, 128);
  c.expect("tile N", t.tileN, 128);
  c.expect("tile K", t.tileK, 128);
  c.expect("threads", t.threads, 384);
  c.expect("stage bytes", t.stageBytes(), (128 + 128) * 128);
  // (65536 - 128 x 40) / 256 = 236, rounded down to setmaxnreg's step 8.
  c.expect("producer registers", t.producerRegisters, 40);
  c.expect("consumer registers", t.consumerRegisters, 232);
}

void checkOptions() {
  Case c("options refused");
  WgmmaOptions one;
  one.stages = 1;
  c.expect("stages=1", optionError(one),
           "stages must be at least 2 (a ring of one stage never overlaps "
           "the copies with the wgmma steps), got 1");
  WgmmaOptions three;
  three.clusterRows = 3;
  c.expect("cluster-rows=3", optionError(three),
           "cluster-rows must be 0 (chosen per matmul) or a power of two from "
           "1 to 8, got 3");
  // 7 stages: 229376 + 56 + 1024 bytes fit 232448; 8: 262144 + 64 + 1024
  // do not.
  WgmmaOptions seven;
  seven.stages = 7;
  c.expect("stages=7", optionError(seven), "");
  WgmmaOptions eight;
  eight.stages = 8;
  c.expect("stages=8", optionError(eight),
           "8 stages need 263232 bytes of shared memory; sm_90a has 232448 "
           "per block");
  WgmmaOptions blocks;
  blocks.maxBlocks = 2;
  blocks.clusterRows = 4;
  c.expect("max-blocks=2 cluster-rows=4", optionError(blocks),
           "max-blocks (2) must hold a cluster of cluster-rows (4) blocks");
  WgmmaOptions rows;
  rows.tileM = 96;
  c.expect("tile-m=96", optionError(rows),
           "tile-m must be 0 (chosen per matmul), 64, 128 or 256, got 96");
  WgmmaOptions columns;
  columns.tileN = 32;
  c.expect("tile-n=32", optionError(columns),
           "tile-n must be 0 (chosen per matmul), 64, 128 or 192, got 32");
}

void checkLargeSquare() {
  Case c("8192^3 per-tensor bf16");
  // (The layout of 128 x 128 tiles, given: which tile a matmul gets is
  // "tile shapes" and "192-column tiles".)
  WgmmaOptions square;
  square.tileN = 128;
  WgmmaPlan p = plan(c, problem(8192, 8192, 8192), square);
  c.expect("K tiles", p.kTiles, 64);
  c.expect("units", p.units(), 64 * 64);
  // 4096 tiles take ceil(4096 / 132) = 32 rounds; 128 blocks take them in
  // as many (a multiple of the raster's 8).
  c.expect("blocks", p.schedule.blocks, 128);
  c.expect("split", p.schedule.isSplit(), 0);
  c.expect("promotion K tiles", p.promotionKTiles, 4);
  // Ring 4 x 32768, `empty` barriers 32 bytes, staging (2 x 64 x 128 bf16)
  // at the next 1024-byte boundary, plus 1024 to align the ring.
  c.expect("empty barriers", p.shared.emptyBarriers, 131072);
  c.expect("staging", p.shared.staging, 132096);
  c.expect("staging per consumer", p.shared.stagingBytesPerConsumer, 16384);
  c.expect("staging box bytes", p.shared.stagingBoxBytes, 64 * 128);
  c.expect("box columns", p.stagingBoxColumns, 64);
  c.expect("shared bytes", p.shared.bytes, 132096 + 32768 + 1024);
  c.expect("queue", p.shared.queueBarriers, -1);
}

void checkStreamK() {
  Case c("896x2432x8192 Stream-K");
  WgmmaPlan p = plan(c, problem(896, 2432, 8192));
  // 7 x 19 = 133 tiles: one round of 132, then 1 tile split into
  // min(132 / 1, 64 K tiles / 8) = 8 parts.
  c.expect("units", p.units(), 133);
  c.expect("whole units", p.schedule.wholeUnits, 132);
  c.expect("split tiles", p.schedule.splitTiles, 1);
  c.expect("parts", p.schedule.parts, 8);
  c.expect("items", p.schedule.items(), 140);
  c.expect("blocks", p.schedule.blocks, 132);
  WgmmaOptions off;
  off.streamK = false;
  off.tileN = 128;
  WgmmaPlan unsplit = plan(c, problem(896, 2432, 8192), off);
  // Unsplit (128 columns given): 2 rounds; ceil(133 / 2) = 67 blocks,
  // rounded up to 72.
  c.expect("blocks without Stream-K", unsplit.schedule.blocks, 72);
  c.expect("parts without Stream-K", unsplit.schedule.parts, 1);
}

void checkSingleRow() {
  Case c("1x4096x4096 Stream-K without whole rounds");
  // 128 columns given (the default takes 64: "one row of 64-row tiles").
  WgmmaOptions wide;
  wide.tileN = 128;
  WgmmaPlan p = plan(c, problem(1, 4096, 4096), wide);
  // One row: tile M 64, whose two consumers split the columns (64 each).
  // 32 tiles of 128 columns and 32 K tiles, no whole round: each split
  // into min(132 / 32, 32 / 8) = 4 parts, one block per part (128 blocks).
  c.expect("tile M", p.tiling.tileM, 64);
  c.expect("tile N", p.tiling.tileN, 128);
  c.expect("consumers", p.tiling.consumers, 2);
  c.expect("consumer columns", p.tiling.consumerColumns, 64);
  c.expect("consumers along N", p.tiling.consumersAlongN(), 2);
  c.expect("threads", p.tiling.threads, 384);
  c.expect("consumer registers", p.tiling.consumerRegisters, 232);
  // A's one row, loaded as one swizzle atom of 8 rows: the 4 stages of
  // 32 KiB as stages of (8 + 128) x 128 = 17408 bytes: 7, B's tile 1024
  // bytes into each.
  c.expect("A load rows", p.tiling.aLoadRows, 8);
  c.expect("stage bytes", p.shared.stageBytes, 17408);
  c.expect("B offset", p.shared.bOffset, 1024);
  c.expect("stages", p.tiling.stages, 7);
  c.expect("whole units", p.schedule.wholeUnits, 0);
  c.expect("split tiles", p.schedule.splitTiles, 32);
  c.expect("parts", p.schedule.parts, 4);
  c.expect("blocks", p.schedule.blocks, 128);
  c.expect("partial rows", p.partialRows, 1);
  c.expect("partial columns", p.partialColumns, 0);
}

void checkOneRowTiles() {
  Case c("one row of 64-row tiles");
  // 1x4096x4096 per-tensor: 128 columns take 128 blocks (32 tiles in 4
  // parts, above); 64 columns as many: 64 tiles of 32 K tiles, no whole
  // round, min(132 / 64, 32 / 8) = 2 parts, 128 blocks. So 64 columns,
  // one consumer.
  WgmmaPlan p = plan(c, problem(1, 4096, 4096));
  c.expect("tile N", p.tiling.tileN, 64);
  c.expect("consumers", p.tiling.consumers, 1);
  c.expect("threads", p.tiling.threads, 256);
  c.expect("split tiles", p.schedule.splitTiles, 64);
  c.expect("parts", p.schedule.parts, 2);
  c.expect("blocks", p.schedule.blocks, 128);
  // 64x24576x1536 per-tensor: 192 tiles of 128 columns run on 96 blocks
  // (two rounds: 192 / 2), 384 of 64 columns on 128 (three): 64 columns.
  WgmmaPlan rounds = plan(c, problem(64, 24576, 1536));
  c.expect("24576 columns: tile N", rounds.tiling.tileN, 64);
  c.expect("24576 columns: blocks", rounds.schedule.blocks, 128);
  // Block-scaled, M = 16, 4096x7168 (56 K tiles): 64 columns (64 tiles in
  // 2 parts on 128 blocks, as many as 32 tiles in 4 parts).
  c.expect("block-scaled M 16: tile N",
           plan(c, blockwiseProblem(16, 4096, 7168)).tiling.tileN, 64);
  // Not block-scaled with one swizzle atom of A's rows (M <= 8), nor
  // block-scaled items of fewer than 8 K tiles (K = 512: 4).
  c.expect("block-scaled M 1: tile N",
           plan(c, blockwiseProblem(1, 4096, 7168)).tiling.tileN, 128);
  c.expect("block-scaled M 8: tile N",
           plan(c, blockwiseProblem(8, 4096, 7168)).tiling.tileN, 128);
  c.expect("block-scaled 4 K tiles: tile N",
           plan(c, blockwiseProblem(16, 32768, 512)).tiling.tileN, 128);
  // 1x7168x16384 per-tensor: 56 tiles of 128 columns in 2 parts (112
  // blocks) against 112 narrow tiles in one round (112 blocks): 64
  // columns.
  c.expect("7168x16384: tile N", plan(c, problem(1, 7168, 16384)).tiling.tileN,
           64);
}

void checkDynamic() {
  Case c("8192^3 dynamic schedule");
  WgmmaOptions options;
  options.dynamicSchedule = true;
  options.tileN = 128;
  WgmmaPlan p = plan(c, problem(8192, 8192, 8192), options);
  c.expect("dynamic", p.schedule.dynamic, 1);
  c.expect("blocks", p.schedule.blocks, 132);
  // After the `empty` barriers (131072 + 32): the queue's two barriers,
  // 4 item slots, the queue's slot.
  c.expect("queue barriers", p.shared.queueBarriers, 131104);
  c.expect("item slots", p.shared.itemSlots, 131120);
  c.expect("queue slot", p.shared.queueSlot, 131136);
  c.expect("staging", p.shared.staging, 132096);
  c.expect("shared bytes", p.shared.bytes, 165888);
  // One round has nothing to hand out: 128x128x8192 stays static.
  WgmmaPlan one = plan(c, problem(128, 128, 8192), options);
  c.expect("one tile dynamic", one.schedule.dynamic, 0);
}

void checkBlockScales() {
  Case c("4096x7168x16384 1x128 x 128x128");
  // A's scales MN-major, which TMA copies into the ring: tiles of two
  // waves in clusters of 2 ("clustered waves" below): 16 x
  // 56 tiles of 256 x 128, 448 units of 2 on 66 slots: ceil(448 / 66) = 7
  // rounds, ceil(448 / 7) = 64 units (whole raster groups of 8 / 2 = 4),
  // 128 blocks.
  WgmmaProblem mn = blockwiseProblem(4096, 7168, 16384);
  mn.aScales.mnMajor = true;
  WgmmaPlan p = plan(c, mn);
  c.expect("promotion K tiles", p.promotionKTiles, 1);
  c.expect("tile", p.tiling.tileM * 1000 + p.tiling.tileN, 256128);
  c.expect("cluster rows", p.tiling.clusterRows, 2);
  c.expect("units", p.units(), 8 * 56);
  c.expect("blocks", p.schedule.blocks, 128);
  // Without clusters: 192-column tiles (0.933 of 128 columns' rounds), 32
  // x 38; ceil(1216 / 132) = 10 rounds: ceil(1216 / 10) = 122, rounded up
  // to the raster's 8: 128 blocks.
  WgmmaOptions unclustered;
  unclustered.clusterRows = 1;
  WgmmaPlan q = plan(c, mn, unclustered);
  c.expect("unclustered tile", q.tiling.tileM * 1000 + q.tiling.tileN, 128192);
  c.expect("unclustered units", q.units(), 32 * 38);
  c.expect("unclustered blocks", q.schedule.blocks, 128);
  // A's scales K-major, which the consumers load from global memory: the
  // same 192-column tiles as without clusters, not tiles of two waves.
  WgmmaPlan k = plan(c, blockwiseProblem(4096, 7168, 16384));
  c.expect("K-major tile", k.tiling.tileM * 1000 + k.tiling.tileN, 128192);
  c.expect("K-major cluster rows", k.tiling.clusterRows, 1);
  c.expect("K-major staged A scales", k.tiling.aScaleBox.present(), 0);
  c.expect("K-major units", k.units(), 32 * 38);
  c.expect("K-major blocks", k.schedule.blocks, 128);
}

void checkScaleChecks() {
  Case c("scale checks ahead");
  WgmmaProblem blockwise = blockwiseProblem(4096, 7168, 16384);
  // Without clusters, 10 tiles of 192 columns a block: checked (in global
  // memory: shared memory as without: 4 x 40960 + 32, atom-aligned, + 128
  // x 192 x 2 of staging + 1024).
  WgmmaOptions unclustered;
  unclustered.clusterRows = 1;
  WgmmaPlan p = plan(c, blockwise, unclustered);
  c.expect("checked", p.scaleChecks, 1);
  c.expect("shared bytes", p.shared.bytes, 164864 + 49152 + 1024);
  // Not where the promotion tests nothing: per-row scales, or block scales
  // on one operand only.
  WgmmaProblem rows = blockwise;
  rows.aScales = WgmmaScales();
  rows.aScales.kind = WgmmaScales::Kind::PerRow;
  c.expect("per-row A", plan(c, rows).scaleChecks, 0);
  // Not where no block has a second tile: 1 x 32 tiles on 32 blocks.
  WgmmaProblem oneRound = blockwise;
  oneRound.m = 128;
  oneRound.n = 4096;
  c.expect("one round", plan(c, oneRound).scaleChecks, 0);
  // Not with Stream-K parts (7 x 19 tiles: a part ends the second round).
  WgmmaPlan s = plan(c, blockwiseProblem(896, 2432, 8192));
  c.expect("split", s.schedule.isSplit(), 1);
  c.expect("split checked", s.scaleChecks, 0);
  // Nor with a dynamic schedule, nor where the option is off.
  WgmmaOptions dynamic;
  dynamic.dynamicSchedule = true;
  c.expect("dynamic", plan(c, blockwise, dynamic).scaleChecks, 0);
  WgmmaOptions off;
  off.checkScalesAhead = false;
  c.expect("off", plan(c, blockwise, off).scaleChecks, 0);
  // Nor where the tiles are counted at run time (a run-time M).
  WgmmaProblem runtime = blockwise;
  runtime.m = 0;
  runtime.runtimeRows = true;
  c.expect("run-time M", plan(c, runtime).scaleChecks, 0);
  // But where a masked matmul's bound of tiles (32 groups of 4096 rows)
  // gives later tiles: its counts decide which A scales are checked.
  WgmmaProblem masked = blockwiseProblem(4096, 4096, 7168);
  masked.groups = 32;
  masked.masked = true;
  c.expect("masked", plan(c, masked).scaleChecks, 1);
  // Not with a masked matmul's 64-row (decode) tiles.
  WgmmaOptions decodeTiles;
  decodeTiles.tileM = 64;
  WgmmaPlan decode = plan(c, masked, decodeTiles);
  c.expect("masked, 64-row tiles: rows", decode.tiling.tileM, 64);
  c.expect("masked, 64-row tiles", decode.scaleChecks, 0);
  // Nor where a block's tiles after its first hold fewer than 64 K tiles:
  // 128x24576x1536, 192 tiles on 132 blocks, one more tile of 12 K tiles.
  WgmmaProblem wide = blockwise;
  wide.m = 128;
  wide.n = 24576;
  wide.k = 1536;
  c.expect("12 later K tiles", plan(c, wide).scaleChecks, 0);
  // 4096x24576x1536: 4096 tiles of 192 columns, at most 32 a block: 31 x
  // 12 later.
  wide.m = 4096;
  c.expect("372 later K tiles", plan(c, wide).scaleChecks, 1);
  // Nor where a tile has fewer than 8 K tiles: 4096x32768x512 (62 x 4
  // later K tiles).
  c.expect("4 K tiles a tile",
           plan(c, blockwiseProblem(4096, 32768, 512)).scaleChecks, 0);
}

void checkScaleBoxes() {
  Case c("scale boxes");
  // (128-column tiles; a 192-column tile's boxes: "192-column tiles".)
  WgmmaOptions o;
  o.tileN = 128;
  // MN-major A scales (1x128) and K-major B scales (128x128), 4096 x 7168
  // x 16384: each stage gets A's box of the tile's 128 rows of one K block
  // (one 512-byte row) and B's of 4 K blocks of the tile's column block
  // (16 bytes, TMA's smallest), each 128-byte aligned in a 640-byte slot.
  WgmmaProblem mn = blockwiseProblem(4096, 7168, 16384);
  mn.aScales.mnMajor = true;
  WgmmaPlan p = plan(c, mn, o);
  const WgmmaTiling &t = p.tiling;
  c.expect("A box", t.aScaleBox.outer * 1000 + t.aScaleBox.inner, 1128);
  c.expect("A per row, K inner", t.aScaleBox.perRow * 10 + t.aScaleBox.kInner,
           10);
  c.expect("B box", t.bScaleBox.outer * 1000 + t.bScaleBox.inner, 1004);
  c.expect("B per row, K inner", t.bScaleBox.perRow * 10 + t.bScaleBox.kInner,
           1);
  c.expect("B offset", t.bScaleBox.offset, 512);
  c.expect("slot bytes", t.scaleSlotBytes, 640);
  // After the 4 stages (4 x 32 KiB) and their barriers (32 bytes), 128-byte
  // aligned; D's staging after the 4 slots (133760), atom-aligned.
  c.expect("slots", p.shared.scaleSlots, 131200);
  c.expect("staging", p.shared.staging, 134144);
  // K-major A scales of each row: a box per row of the tile (128 x 16
  // bytes) is slower than the consumers' loads, and B's alone would not
  // spare the consumers the wait: none.
  WgmmaPlan k = plan(c, blockwiseProblem(4096, 7168, 16384), o);
  c.expect("K-major rows: slot", k.tiling.scaleSlotBytes, 0);
  c.expect("K-major rows: slots", k.shared.scaleSlots, -1);
  // 128x128 blocks on both, K-major: 16 bytes of one row block each.
  WgmmaProblem square = blockwiseProblem(4096, 7168, 16384);
  square.aScales = blocks(128, 128);
  WgmmaPlan q = plan(c, square, o);
  c.expect("square: A box", q.tiling.aScaleBox.outer * 1000 +
                                q.tiling.aScaleBox.inner, 1004);
  c.expect("square: slot", q.tiling.scaleSlotBytes, 256);
  // Rows of scales not 16-byte aligned (K = 384: 3 K blocks), MN-major
  // rows of a run-time M, B's MN-major grouped scales, scales that are
  // not f32, strided scales, or the option off: none.
  WgmmaProblem odd = mn;
  odd.k = 384;
  c.expect("K blocks not x4", plan(c, odd, o).tiling.scaleSlotBytes, 0);
  WgmmaProblem runtime = mn;
  runtime.m = 0;
  runtime.runtimeRows = true;
  c.expect("run-time M, MN-major", plan(c, runtime, o).tiling.scaleSlotBytes,
           0);
  // A grouped matmul's MN-major A scales: a matmul's boxes, contiguous
  // ([K blocks, M]) and masked ([G K blocks, Mmax], M the group's rows).
  WgmmaProblem grouped = mn;
  grouped.groups = 4;
  c.expect("grouped, MN-major A", plan(c, grouped, o).tiling.scaleSlotBytes,
           640);
  WgmmaProblem masked = grouped;
  masked.masked = true;
  WgmmaPlan maskedPlan = plan(c, masked, o);
  c.expect("masked, MN-major A box",
           maskedPlan.tiling.aScaleBox.outer * 1000 +
               maskedPlan.tiling.aScaleBox.inner,
           1128);
  c.expect("masked, MN-major A slot", maskedPlan.tiling.scaleSlotBytes, 640);
  // (A group's rows not a multiple of 4: its rows of scales are not
  // 16-byte aligned.)
  WgmmaProblem maskedOdd = masked;
  maskedOdd.m = 4094;
  c.expect("masked, rows not x4", plan(c, maskedOdd, o).tiling.scaleSlotBytes,
           0);
  WgmmaProblem groupedBothMN = grouped;
  groupedBothMN.bScales.mnMajor = true;
  c.expect("grouped, MN-major B",
           plan(c, groupedBothMN, o).tiling.scaleSlotBytes, 0);
  WgmmaProblem half = mn;
  half.bScales.elementBytes = 2;
  c.expect("bf16 scales", plan(c, half, o).tiling.scaleSlotBytes, 0);
  WgmmaProblem strided = mn;
  strided.aScales.contiguous = false;
  c.expect("strided", plan(c, strided, o).tiling.scaleSlotBytes, 0);
  WgmmaOptions off = o;
  off.stageScales = false;
  c.expect("off", plan(c, mn, off).tiling.scaleSlotBytes, 0);
  // A grouped matmul's K-major 128x128 scales of both: boxes (B's at
  // group g's row blocks, counted by the kernel).
  WgmmaProblem groupedSquare = square;
  groupedSquare.groups = 4;
  c.expect("grouped, K-major blocks",
           plan(c, groupedSquare, o).tiling.scaleSlotBytes, 256);
  // Per-tensor and per-row scales change no K tile: no slot.
  c.expect("per-tensor",
           plan(c, problem(4096, 7168, 16384), o).tiling.scaleSlotBytes, 0);
}

void checkRowVersions() {
  Case c("row versions");
  auto describe = [](const llvm::SmallVector<WgmmaRowVersion, 8> &versions) {
    std::string text;
    for (const WgmmaRowVersion &v : versions)
      text += std::to_string(v.maxRows) + ":" + std::to_string(v.tileM) + "x" +
              std::to_string(v.tileN) + " ";
    return text;
  };
  // A run-time M against N = 7168 (56 wide columns on 132
  // multiprocessors): 64 x 64 up to M = 64, in five versions whose A
  // boxes hold 8, 16, 32, 48 and 64 rows; 128 x 64 up to 128 (56 wide
  // tiles, at most half), 128 x 128 up to 256 (112 wide tiles or more),
  // 128 x 192 up to 384 (114 tiles in one round against 168 of 128
  // columns in two), the large-M kernel (128 x 128) beyond.
  WgmmaProblem runtime = blockwiseProblem(0, 7168, 2048);
  runtime.runtimeRows = true;
  c.expect("N 7168",
           describe(getRowVersions(runtime, WgmmaOptions(), hopper())),
           "8:64x64 16:64x64 32:64x64 48:64x64 64:64x64 128:128x64 "
           "256:128x128 384:128x192 0:128x128 ");
  // N = 16384 (128 wide columns, 128 blocks): 64 rows of 128 columns for
  // M <= 8 (one swizzle atom of A's rows, block-scaled), of 64 columns up
  // to M = 64 (256 narrow tiles also take 128 blocks: "one row of 64-row
  // tiles"; again boxes of 8 to 64 rows), then 128 x 128: one tile row up
  // to M = 128 (a static schedule of its own), the large-M kernel beyond.
  WgmmaProblem wide = blockwiseProblem(0, 16384, 2048);
  wide.runtimeRows = true;
  c.expect("N 16384", describe(getRowVersions(wide, WgmmaOptions(), hopper())),
           "8:64x128 16:64x64 32:64x64 48:64x64 64:64x64 128:128x128 "
           "0:128x128 ");
  // The M <= 16 version's plan: A's box (and stage) holds 16 rows, as the
  // kernel compiled for M = 16 does.
  WgmmaProblem decode = runtime;
  decode.maxRows = 16;
  WgmmaOptions small;
  small.tileM = 64;
  small.tileN = 64;
  WgmmaPlan sixteen = plan(c, decode, small);
  c.expect("M <= 16: A load rows", sixteen.tiling.aLoadRows, 16);
  c.expect("M <= 16: stage bytes", sixteen.shared.stageBytes, (16 + 64) * 128);
  c.expect("M = 16 static: A load rows",
           plan(c, blockwiseProblem(16, 7168, 2048), small).tiling.aLoadRows,
           16);
  decode.maxRows = 40;
  c.expect("M <= 40: A load rows", plan(c, decode, small).tiling.aLoadRows, 40);
  // A version within one tile row is planned as one tile row, statically:
  // at N = 4096, K = 7168, 32 tiles of 128 x 128 split along K into 4
  // parts (Stream-K) on 128 blocks, as the kernel compiled for M = 128.
  WgmmaProblem deep = blockwiseProblem(0, 4096, 7168);
  deep.runtimeRows = true;
  deep.maxRows = 128;
  WgmmaOptions wideTile;
  wideTile.tileM = wideTile.tileN = 128;
  WgmmaPlan oneRow = plan(c, deep, wideTile);
  c.expect("one tile row", oneRow.oneTileRow, 1);
  c.expect("counted at run time", oneRow.countsItemsAtRunTime(), 0);
  c.expect("split", oneRow.schedule.isSplit(), 1);
  c.expect("blocks", oneRow.schedule.blocks, 128);
  WgmmaPlan stat = plan(c, blockwiseProblem(128, 4096, 7168), wideTile);
  c.expect("static parts", stat.schedule.parts, oneRow.schedule.parts);
  // Unbounded, the tiles are counted at run time, without a split.
  deep.maxRows = 0;
  WgmmaPlan counted = plan(c, deep, wideTile);
  c.expect("unbounded: counted", counted.countsItemsAtRunTime(), 1);
  c.expect("unbounded: split", counted.schedule.isSplit(), 0);
  // A static M, or a forced tile side: the one shape.
  c.expect("static M",
           describe(getRowVersions(blockwiseProblem(128, 7168, 2048),
                                   WgmmaOptions(), hopper())),
           "0:128x64 ");
  WgmmaOptions forced;
  forced.tileN = 128;
  c.expect("forced", describe(getRowVersions(runtime, forced, hopper())),
           "0:128x128 ");
}

void checkWaves() {
  Case c("tiles of two waves");
  // tile-m=256, 4096 x 7168 x 16384 with 1x128 x 128x128 scales: two
  // consumers of 128 rows each, computed as two waves of wgmma M (64) rows
  // through one fragment.
  WgmmaOptions options;
  options.tileM = 256;
  options.clusterRows = 1;
  WgmmaPlan p = plan(c, blockwiseProblem(4096, 7168, 16384), options);
  const WgmmaTiling &t = p.tiling;
  c.expect("tile", t.tileM * 1000 + t.tileN, 256128);
  c.expect("consumers", t.consumers, 2);
  c.expect("waves", t.waves, 2);
  c.expect("threads", t.threads, 384);
  // (65536 - 128 x 40) / 256, in steps of 8.
  c.expect("consumer registers", t.consumerRegisters, 232);
  c.expect("A load rows", t.aLoadRows, 256);
  c.expect("stage bytes", p.shared.stageBytes, (256 + 128) * 128);
  // 4 stages of 48 KiB (196608), their barriers (32 bytes), then D's
  // staging atom-aligned: one wave of each consumer at a time, 128 rows
  // x 128 columns of bf16 (32768 bytes): 197632 + 32768 + 1024.
  c.expect("stages", t.stages, 4);
  c.expect("staging", p.shared.staging, 197632);
  c.expect("staging per consumer", p.shared.stagingBytesPerConsumer, 16384);
  c.expect("shared bytes", p.shared.bytes, 231424);
  c.expect("promotion K tiles", p.promotionKTiles, 1);
  // 16 x 56 tiles in 7 rounds on 128 blocks.
  c.expect("units", p.units(), 896);
  c.expect("blocks", p.schedule.blocks, 128);
  // 1792 x 2432 x 8192: 7 x 19 = 133 tiles, a last round of one tile on
  // 132 blocks, which Stream-K would split into 8 parts (64 K tiles); tiles
  // of waves are not split: 72 blocks take the 133 tiles in 2 rounds.
  WgmmaPlan unsplit = plan(c, blockwiseProblem(1792, 2432, 8192), options);
  c.expect("133 tiles: parts", unsplit.schedule.parts, 1);
  c.expect("133 tiles: blocks", unsplit.schedule.blocks, 72);
  // MN-major A scales: each stage's slot holds A's box of the tile's 256
  // rows (1024 bytes) and B's 16 bytes (1152 with alignment). With 4
  // stages, slots and staging need 235520 bytes, more than 232448: 3
  // stages, 147456 + 24, slots at 147584 (3 x 1152), staging at 151552.
  WgmmaProblem mn = blockwiseProblem(4096, 7168, 16384);
  mn.aScales.mnMajor = true;
  WgmmaPlan staged = plan(c, mn, options);
  c.expect("MN-major: A box", staged.tiling.aScaleBox.inner, 256);
  c.expect("MN-major: slot", staged.tiling.scaleSlotBytes, 1152);
  c.expect("MN-major: stages", staged.tiling.stages, 3);
  c.expect("MN-major: slots", staged.shared.scaleSlots, 147584);
  c.expect("MN-major: staging", staged.shared.staging, 151552);
  c.expect("MN-major: shared bytes", staged.shared.bytes, 185344);
  // Waves share one fragment promoted every K tile: block scales only, and
  // not in a grouped matmul (a tile's rows would span two groups'
  // 128-row segments).
  const char *refusal = "a tile of 256 rows (tile-m) without block scales "
                        "or in a grouped matmul";
  c.expect("per-tensor", whyNot(problem(4096, 4096, 4096), options), refusal);
  WgmmaProblem grouped = blockwiseProblem(4096, 4096, 4096);
  grouped.groups = 4;
  c.expect("grouped", whyNot(grouped, options), refusal);
  // One operand's block scales suffice.
  WgmmaProblem rowBlock = blockwiseProblem(4096, 4096, 4096);
  rowBlock.aScales.kind = WgmmaScales::Kind::PerRow;
  c.expect("per-row A, block B", whyNot(rowBlock, options), "");
}

void checkClusters() {
  Case c("clusters of 2");
  WgmmaOptions options;
  options.clusterRows = 2;
  options.tileN = 128;
  WgmmaPlan p = plan(c, problem(512, 384, 2048), options);
  // 4 x 3 tiles in units of 2 rows: 6 units on 132 / 2 = 66 slots; raster
  // groups of 8 / 2 = 4 units; 6 units, 12 blocks.
  c.expect("cluster rows", p.tiling.clusterRows, 2);
  c.expect("raster units", p.rasterUnits, 4);
  c.expect("units", p.units(), 6);
  c.expect("blocks", p.schedule.blocks, 12);
  // 3 tile rows do not divide into clusters of 2: none.
  WgmmaPlan odd = plan(c, problem(384, 384, 2048), options);
  c.expect("odd tile rows", odd.tiling.clusterRows, 1);
  // A grouped matmul's neighbouring tile rows may read different groups'
  // B: no clusters; the 12 tiles are 12 units on 12 blocks.
  WgmmaProblem grouped = problem(512, 384, 2048);
  grouped.groups = 4;
  WgmmaPlan g = plan(c, grouped, options);
  c.expect("grouped cluster rows", g.tiling.clusterRows, 1);
  c.expect("grouped units", g.units(), 12);
  c.expect("grouped blocks", g.schedule.blocks, 12);
}

void checkClusterColumns() {
  Case c("clusters of 2 along N");
  WgmmaOptions options;
  options.clusterColumns = 2;
  options.tileN = 128;
  WgmmaPlan p = plan(c, problem(512, 512, 2048), options);
  // 4 x 4 tiles in units of 2 columns: 4 x 2 = 8 units on 66 slots, raster
  // groups of 8 tile rows (the units' rows); 8 units, 16 blocks, each
  // loading half of A's 128 rows. cluster-rows left open takes none.
  c.expect("cluster columns", p.tiling.clusterColumns, 2);
  c.expect("cluster rows", p.tiling.clusterRows, 1);
  c.expect("unit columns", p.unitColumns, 2);
  c.expect("raster units", p.rasterUnits, 8);
  c.expect("units", p.units(), 8);
  c.expect("blocks", p.schedule.blocks, 16);
  c.expect("launch cluster", p.clusterBlocks(), 2);
  // 3 tile columns do not divide into clusters of 2: none.
  WgmmaPlan odd = plan(c, problem(512, 384, 2048), options);
  c.expect("odd tile columns", odd.tiling.clusterColumns, 1);
  c.expect("odd units", odd.units(), 12);
  // A grouped (contiguous) matmul's tile row is one group's: its tiles
  // share A's rows, so clusters along N stay.
  WgmmaProblem grouped = problem(512, 512, 2048);
  grouped.groups = 4;
  c.expect("grouped cluster columns",
           plan(c, grouped, options).tiling.clusterColumns, 2);
  // 8 loaded rows of A (M = 8) do not split into two parts of whole 8-row
  // swizzle atoms: none; 32 rows split into 16.
  c.expect("8 rows",
           plan(c, problem(8, 512, 2048), options).tiling.clusterColumns, 1);
  c.expect("32 rows",
           plan(c, problem(32, 512, 2048), options).tiling.clusterColumns, 2);
  // Clustered blocks are not split along K: 1 tile row of 4 tiles at K =
  // 8192 (Stream-K would split them unclustered) runs 2 units on 4 blocks.
  WgmmaPlan deep = plan(c, problem(128, 512, 8192), options);
  c.expect("no split", deep.schedule.isSplit(), false);
  c.expect("deep blocks", deep.schedule.blocks, 4);
  // Options: a power of two up to 8, one shared operand, room in max-blocks.
  WgmmaOptions three;
  three.clusterColumns = 3;
  c.expect("cluster-columns=3", optionError(three),
           "cluster-columns must be a power of two from 1 to 8, got 3");
  WgmmaOptions both;
  both.clusterColumns = 2;
  both.clusterRows = 2;
  c.expect("both", optionError(both),
           "cluster-rows (2) and cluster-columns (2) cannot both exceed 1: a "
           "cluster shares B's tiles or A's, not both");
  // cluster-rows left open with clusters along N: tiles of two waves take
  // no clusters along M.
  WgmmaOptions waves;
  waves.clusterColumns = 2;
  c.expect("auto cluster rows", getAutoClusterRows(waves, 2), 1);
}

void checkStaging() {
  Case c("staging");
  WgmmaOptions wide;
  wide.tileN = 128;
  WgmmaProblem oddN = problem(136, 135, 256);
  // 135 bf16 elements: rows of 270 bytes are no tensor map's stride.
  WgmmaPlan p = plan(c, oddN, wide);
  c.expect("odd N staging", p.shared.staging, -1);
  c.expect("odd N bytes", p.shared.bytes, 131072 + 32 + 1024);
  WgmmaProblem f32 = problem(256, 256, 512);
  f32.outElementBytes = 4;
  WgmmaPlan q = plan(c, f32, wide);
  c.expect("f32 staging", q.shared.staging, 132096);
  c.expect("f32 bytes", q.shared.bytes, 132096 + 65536 + 1024);
  c.expect("f32 box columns", q.stagingBoxColumns, 32);
  // 6 stages leave no room for 64 KiB of f32 staging: 197632 + 65536 +
  // 1024 > 232448.
  WgmmaOptions six = wide;
  six.stages = 6;
  WgmmaPlan r = plan(c, f32, six);
  c.expect("6 stages f32 staging", r.shared.staging, -1);
  c.expect("6 stages f32 bytes", r.shared.bytes, 196608 + 48 + 1024);
}

void checkIneligible() {
  Case c("ineligible");
  WgmmaProblem kn = problem(128, 64, 256);
  kn.bStoredNK = false;
  c.expect("B [K, N]", whyNot(kn), "B stored [K, N]");
  WgmmaProblem mx = problem(128, 64, 256);
  mx.aScales.kind = WgmmaScales::Kind::MX;
  c.expect("MX", whyNot(mx), "MX scales");
  c.expect("K = 100", whyNot(problem(128, 64, 100)),
           "K not a positive multiple of 16");
  c.expect("M = 0", whyNot(problem(0, 64, 256)),
           "empty or above 2^31 - 1 extents");
  WgmmaProblem narrowK = problem(128, 128, 256);
  narrowK.aScales = blocks(1, 64);
  c.expect("1x64 blocks", whyNot(narrowK),
           "scale blocks not aligned with the kernel's tiles");
  // B blocks of 16 rows: 8 chunks of a 128-column tile, each its own
  // scale (at most 4); of 64 rows: two chunks, or one in 64-column tiles.
  WgmmaProblem narrowN = problem(128, 128, 256);
  narrowN.bScales = blocks(16, 128);
  WgmmaOptions wide;
  wide.tileN = 128;
  c.expect("16x128 B blocks in 128-column tiles", whyNot(narrowN, wide),
           "scale blocks not aligned with the kernel's tiles");
  narrowN.bScales = blocks(64, 128);
  c.expect("64x128 B blocks in 128-column tiles", whyNot(narrowN, wide), "");
  c.expect("64x128 B blocks in 64-column tiles", whyNot(narrowN), "");
  WgmmaProblem outBlocks = problem(128, 96, 256);
  outBlocks.outScaleBlockColumns = 12;
  c.expect("1x12 output blocks", whyNot(outBlocks),
           "FP8 output scale blocks not dividing the kernel's tiles");
  WgmmaProblem fnuz = problem(128, 64, 256);
  fnuz.ocpFP8 = false;
  c.expect("FNUZ", whyNot(fnuz), "not OCP FP8");
  WgmmaProblem strided = problem(128, 64, 256);
  strided.contiguous = false;
  c.expect("strided", whyNot(strided), "strided operands");
}

void checkTileShapes() {
  Case c("tile shapes");
  WgmmaProblem decode = problem(128, 7168, 2048);
  decode.aScales = blocks(1, 128);
  decode.bScales = blocks(128, 128);
  WgmmaPlan p = plan(c, decode);
  // M 128: two consumers; 56 tiles of 128 columns and 16 K tiles (too
  // few for Stream-K) on 56 <= 132 / 2 blocks: 64 columns, 112 tiles,
  // 112 blocks; 131072 / ((128 + 64) x 128) = 5 stages.
  c.expect("128-row tile M", p.tiling.tileM, 128);
  c.expect("128-row tile N", p.tiling.tileN, 64);
  c.expect("128-row units", p.units(), 112);
  c.expect("128-row blocks", p.schedule.blocks, 112);
  c.expect("128-row parts", p.schedule.parts, 1);
  c.expect("128-row stages", p.tiling.stages, 5);
  c.expect("128-row threads", p.tiling.threads, 384);
  c.expect("128-row consumers along N", p.tiling.consumersAlongN(), 1);
  c.expect("128-row stage bytes", p.shared.stageBytes, 24576);
  c.expect("128-row B offset", p.shared.bOffset, 128 * 128);
  // M 64: one consumer, 64 x 64 tiles (8 stages of 16 KiB), 256 threads:
  // (65536 - 128 x 40) / 128 = 472 registers, setmaxnreg's limit 256.
  WgmmaProblem sixtyFour = decode;
  sixtyFour.m = 64;
  WgmmaPlan q = plan(c, sixtyFour);
  c.expect("64-row tile M", q.tiling.tileM, 64);
  c.expect("64-row tile N", q.tiling.tileN, 64);
  c.expect("64-row consumers", q.tiling.consumers, 1);
  c.expect("64-row consumer columns", q.tiling.consumerColumns, 64);
  c.expect("64-row threads", q.tiling.threads, 256);
  c.expect("64-row consumer registers", q.tiling.consumerRegisters, 256);
  c.expect("64-row stages", q.tiling.stages, 8);
  c.expect("64-row partial rows", q.partialRows, 0);
  // 128 x 2112 x 7168: 17 wide tiles of 56 K tiles would split in
  // min(132 / 17, 56 / 8) = 7 parts: 64 columns, 33 tiles in
  // min(132 / 33, 7) = 4 parts on 132 blocks.
  WgmmaProblem manyParts = decode;
  manyParts.n = 2112;
  manyParts.k = 7168;
  WgmmaPlan u = plan(c, manyParts);
  c.expect("7-part tile N", u.tiling.tileN, 64);
  c.expect("7-part units", u.units(), 33);
  c.expect("7-part parts", u.schedule.parts, 4);
  c.expect("7-part blocks", u.schedule.blocks, 132);
  // 128 x 7168 x 16384: 56 wide tiles in 2 parts on 112 blocks: 128
  // columns stay.
  WgmmaProblem twoParts = decode;
  twoParts.k = 16384;
  WgmmaPlan v = plan(c, twoParts);
  c.expect("2-part tile N", v.tiling.tileN, 128);
  c.expect("2-part parts", v.schedule.parts, 2);
  c.expect("2-part blocks", v.schedule.blocks, 112);
  // 4096 x 2112: 32 x 17 = 544 tiles of 128 columns in 5 rounds use
  // 2112 / 2176 x 544 / 660 = 0.800 of the slots; 32 x 11 = 352 of 192
  // columns in 3 rounds, 352 / 396 = 0.889: 192 columns, the module's 4
  // stages of 40 KiB.
  WgmmaProblem large = decode;
  large.m = 4096;
  large.n = 2112;
  WgmmaPlan r = plan(c, large);
  c.expect("large tile N", r.tiling.tileN, 192);
  c.expect("large stages", r.tiling.stages, 4);
  // B blocks of 64 rows fit 64-column tiles only, whatever the shape.
  WgmmaProblem narrowBlocks = problem(4096, 4096, 256);
  narrowBlocks.bScales = blocks(64, 128);
  c.expect("64-row B blocks tile N", plan(c, narrowBlocks).tiling.tileN, 64);
  // 64 x 128 with an FP8 output in 1x128 blocks: a block must lie in one
  // consumer's columns, so one consumer takes all 128.
  WgmmaProblem wideBlocks = problem(64, 128, 256);
  wideBlocks.outScaleBlockColumns = 128;
  WgmmaPlan w = plan(c, wideBlocks);
  c.expect("1x128 output tile N", w.tiling.tileN, 128);
  c.expect("1x128 output consumers", w.tiling.consumers, 1);
  c.expect("1x128 output consumer columns", w.tiling.consumerColumns, 128);
  c.expect("1x128 output threads", w.tiling.threads, 256);
  // 16 rows, which only stream B, follow the same rule: 56 tiles of 128
  // columns with 16 K tiles (too few to split) would keep 56 <= 132 / 2
  // blocks busy, so 112 tiles of 64 columns (one consumer) on 112 blocks.
  WgmmaProblem streaming = decode;
  streaming.m = 16;
  WgmmaPlan x = plan(c, streaming);
  c.expect("16-row tile N", x.tiling.tileN, 64);
  c.expect("16-row consumers", x.tiling.consumers, 1);
  c.expect("16-row blocks", x.schedule.blocks, 112);
  // Forced shapes: 64 x 64 on a large square, 128 x 128 on a single row.
  WgmmaOptions small;
  small.tileM = 64;
  small.tileN = 64;
  WgmmaPlan s = plan(c, problem(8192, 8192, 8192), small);
  c.expect("forced 64x64 units", s.units(), 128 * 128);
  c.expect("forced 64x64 stages", s.tiling.stages, 8);
  WgmmaOptions wide;
  wide.tileM = 128;
  wide.tileN = 128;
  WgmmaPlan t = plan(c, problem(1, 4096, 4096), wide);
  c.expect("forced 128x128 tile M", t.tiling.tileM, 128);
  c.expect("forced 128x128 parts", t.schedule.parts, 4);
  c.expect("forced 128x128 stages", t.tiling.stages, 4);
  // A second consumer row reads A's rows 64-127: all 128 are loaded.
  c.expect("forced 128x128 A load rows", t.tiling.aLoadRows, 128);
}

void checkDeepRing() {
  Case c("deep ring of 64-column tiles");
  // Per-tensor 128 x 7168 x 2048: 112 tiles of 128 x 64 (as the
  // block-scaled case of "tile shapes", whose ring keeps 5 stages of the
  // module's bytes). Without block scales the ring keeps a 128 x 128
  // ring's products: 4 x 128 x 128 / (128 x 64) = 8 stages of 24 KiB,
  // 196608 bytes, their barriers (64) up to 197632, D's bf16 staging
  // buffer (128 x 64 x 2 = 16384) and the 1 KiB of alignment: 215040.
  WgmmaProblem decode = problem(128, 7168, 2048);
  WgmmaPlan p = plan(c, decode);
  c.expect("per-tensor tile N", p.tiling.tileN, 64);
  c.expect("per-tensor stages", p.tiling.stages, 8);
  c.expect("per-tensor staging", p.shared.staging, 197632);
  c.expect("per-tensor bytes", p.shared.bytes, 215040);
  // Per-row, an f32 output: the same 8 stages, a staging buffer of 32768:
  // 231424 bytes, within 232448.
  WgmmaProblem rows = decode;
  rows.aScales.kind = rows.bScales.kind = WgmmaScales::Kind::PerRow;
  rows.outElementBytes = 4;
  WgmmaPlan q = plan(c, rows);
  c.expect("per-row f32 stages", q.tiling.stages, 8);
  c.expect("per-row f32 bytes", q.shared.bytes, 231424);
  // stages=6 asks for 12 of 24 KiB; 9 would need 221184 + 72 bytes, up to
  // 222208, and the staging buffer: 239616 > 232448. 8 fit.
  WgmmaOptions six;
  six.stages = 6;
  c.expect("stages=6 takes what fits", plan(c, decode, six).tiling.stages, 8);
  // Where D cannot be staged (here: no TMA store), nothing is kept for
  // it: 9 stages, 221184 + 72 bytes and the 1 KiB, 222280 <= 232448; 10
  // would need 245760 + 80.
  WgmmaProblem unstaged = decode;
  unstaged.outTmaStorable = false;
  WgmmaPlan u = plan(c, unstaged, six);
  c.expect("stages=6 unstaged stages", u.tiling.stages, 9);
  c.expect("stages=6 unstaged staging", u.shared.staging, -1);
  c.expect("stages=6 unstaged bytes", u.shared.bytes, 222280);
  // Block scales: the ring of the module's bytes, 131072 / 24576 = 5.
  WgmmaProblem scaled = decode;
  scaled.aScales = blocks(1, 128);
  scaled.bScales = blocks(128, 128);
  c.expect("block-scaled stages", plan(c, scaled).tiling.stages, 5);
  // One consumer (64 x 64 tiles at M = 64): the ring of bytes, 131072 /
  // 16384 = 8 (not 4 x 128 x 128 / (64 x 64) = 16).
  WgmmaProblem oneConsumer = decode;
  oneConsumer.m = 64;
  WgmmaPlan r = plan(c, oneConsumer);
  c.expect("one consumer tile", r.tiling.tileM * 1000 + r.tiling.tileN, 64064);
  c.expect("one consumer stages", r.tiling.stages, 8);
  // 128 x 128 tiles keep the module's 4.
  c.expect("128x128 stages", plan(c, problem(4096, 4096, 4096)).tiling.stages,
           4);
}

void checkStreamedBRing() {
  Case c("ring of tiles streaming B");
  auto stages = [&](const WgmmaProblem &problem) {
    return plan(c, problem).tiling.stages;
  };
  // Block-scaled 256 x 4096 x 7168: 128 x 128 tiles in 2 tile rows, 56 K
  // tiles, so each B tile is read by 2 tile rows (<= 5 / 2) and the ring
  // takes a fifth 32 KiB stage: 163840 bytes, 5 barriers (40) to 163880;
  // 64 tiles on 132 multiprocessors split in two Stream-K parts that
  // reduce in clusters (2 x 16 barrier bytes) to 163912; D's bf16 staging
  // buffer (128 x 128 x 2 = 32768) from the next 1 KiB, 164864, to 197632;
  // and the 1 KiB of alignment: 198656 <= 232448.
  WgmmaPlan p = plan(c, blockwiseProblem(256, 4096, 7168));
  c.expect("256x4096x7168 tile", p.tiling.tileM * 1000 + p.tiling.tileN,
           128128);
  c.expect("256x4096x7168 stages", p.tiling.stages, 5);
  c.expect("256x4096x7168 staging", p.shared.staging, 164864);
  c.expect("256x4096x7168 bytes", p.shared.bytes, 198656);
  // One stage more than the module's up to 5, the depth measured: a module
  // of 3 stages gives 4, one of 5 keeps 5.
  WgmmaOptions three, five;
  three.stages = 3;
  five.stages = 5;
  c.expect("stages=3 stages",
           plan(c, blockwiseProblem(256, 4096, 7168), three).tiling.stages, 4);
  c.expect("stages=5 stages",
           plan(c, blockwiseProblem(256, 4096, 7168), five).tiling.stages, 5);
  // 3 tile rows (M = 384, or M = 320 with a partial third), or 32 K tiles
  // (K = 4096): the module's 4.
  c.expect("384x4096x7168 stages", stages(blockwiseProblem(384, 4096, 7168)),
           4);
  c.expect("320x4096x7168 stages", stages(blockwiseProblem(320, 4096, 7168)),
           4);
  c.expect("256x4096x4096 stages", stages(blockwiseProblem(256, 4096, 4096)),
           4);
  // Not block-scaled: the module's 4.
  c.expect("per-tensor 256x4096x7168 stages",
           stages(problem(256, 4096, 7168)), 4);
  // Contiguous grouped, 2432 rows (19 tile rows, each group's rows padded
  // to whole tiles): 8 groups of 2.375 tile rows on average (<= 2.5) take
  // 5; 4 groups of 4.75 keep 4.
  WgmmaProblem grouped = blockwiseProblem(2432, 4096, 7168);
  grouped.groups = 8;
  c.expect("8 groups stages", stages(grouped), 5);
  grouped.groups = 4;
  c.expect("4 groups stages", stages(grouped), 4);
  // Masked: the groups' rows are counted at run time; the module's 4.
  WgmmaProblem masked = blockwiseProblem(8 * 256, 4096, 7168);
  masked.groups = 8;
  masked.masked = true;
  c.expect("masked stages", stages(masked), 4);
  // An f32 output with A's scales MN-major (staged): a fifth stage (ring
  // and barriers to 163880, 5 scale slots from 163968, D's 65536-byte
  // staging buffer after the next 1 KiB) would pass 232448, so the ring
  // keeps 4 stages beside the staging buffer and the scale slots.
  WgmmaProblem f32 = blockwiseProblem(256, 4096, 7168);
  f32.aScales.mnMajor = true;
  f32.outElementBytes = 4;
  WgmmaPlan q = plan(c, f32);
  c.expect("f32 tile", q.tiling.tileM * 1000 + q.tiling.tileN, 128128);
  c.expect("f32 stages", q.tiling.stages, 4);
  c.expect("f32 staged", q.shared.staging > 0, true);
  c.expect("f32 scale slots", q.tiling.scaleSlotBytes > 0, true);
}

void checkTwoWavesChosen() {
  Case c("two waves at short K");
  auto rows = [&](const WgmmaProblem &problem) {
    return plan(c, problem).tiling.tileM;
  };
  // Beyond short K, tiles of two waves only where TMA copies the block
  // scales into the ring: A's scales MN-major.
  auto mnBlockwiseProblem = [](int64_t m, int64_t n, int64_t k) {
    WgmmaProblem problem = blockwiseProblem(m, n, k);
    problem.aScales.mnMajor = true;
    return problem;
  };
  // 4096 x 32768 x 512, 1x128 x 128x128: 4 K tiles (<= 6). 256 rows: 16 x
  // 256 = 4096 tiles in 32 rounds of 132, 4096 / 4224 = 0.970 of the
  // slots; 128 rows: 8192 tiles in 63 rounds, 8192 / 8316 = 0.985;
  // 0.970 >= 0.98 x 0.985 = 0.965: two waves.
  WgmmaProblem shortK = blockwiseProblem(4096, 32768, 512);
  c.expect("4096x32768x512 tile M", rows(shortK), 256);
  c.expect("4096x32768x512 waves", plan(c, shortK).tiling.waves, 2);
  // MN-major A scales: the same.
  c.expect("4096x32768x512 MN-major tile M",
           rows(mnBlockwiseProblem(4096, 32768, 512)), 256);
  // K = 768: 6 K tiles; 896 tiles (7 rounds, 0.970) against 1792 (14
  // rounds, 0.970).
  c.expect("4096x7168x768 tile M", rows(blockwiseProblem(4096, 7168, 768)),
           256);
  // K = 1024: 8 K tiles, more than 6: 128 rows without clusters; where
  // they are left open, 16 tile rows of 256 pair into clusters, 2048 tiles
  // in 16 rounds (0.970) against 192 columns' 32 x 86 = 2752 in 21
  // (16384 / 16512 x 2752 / 2772 = 0.985): 0.970 >= 0.98 x 0.985 = 0.965.
  WgmmaOptions unclustered;
  unclustered.clusterRows = 1;
  c.expect(
      "4096x16384x1024 unclustered tile M",
      plan(c, blockwiseProblem(4096, 16384, 1024), unclustered).tiling.tileM,
      128);
  c.expect("4096x16384x1024 tile M",
           rows(mnBlockwiseProblem(4096, 16384, 1024)), 256);
  // K-major A scales, which each wave would load from global memory every
  // K tile: 128 rows.
  c.expect("4096x16384x1024 K-major tile M",
           rows(blockwiseProblem(4096, 16384, 1024)), 128);
  // 2048 x 7168 x 512: 448 tiles in 4 rounds, 448 / 528 = 0.848, against
  // 896 in 7, 896 / 924 = 0.970: 128 rows.
  c.expect("2048x7168x512 tile M", rows(blockwiseProblem(2048, 7168, 512)),
           128);
  // 300 rows: 2 rows of 256-row tiles use 300 / 512 of their rows, 64
  // tiles in one round of 132: 0.586 x 64 / 132 = 0.284; 3 of 128 rows:
  // 300 / 384 x 96 / 132 = 0.568.
  c.expect("300x4096x512 tile M", rows(blockwiseProblem(300, 4096, 512)),
           128);
  // Not block-scaled, an f32 or FP8 output, grouped, or a tile shape
  // given: 128 rows.
  c.expect("per-tensor tile M", rows(problem(4096, 32768, 512)), 128);
  WgmmaProblem f32 = shortK;
  f32.outElementBytes = 4;
  c.expect("f32 output tile M", rows(f32), 128);
  WgmmaProblem fp8 = shortK;
  fp8.outElementBytes = 1;
  fp8.outScaleBlockColumns = 128;
  c.expect("FP8 output tile M", rows(fp8), 128);
  WgmmaProblem grouped = shortK;
  grouped.groups = 4;
  c.expect("grouped tile M", rows(grouped), 128);
  WgmmaOptions given;
  given.tileN = 128;
  c.expect("tile-n given: tile M", plan(c, shortK, given).tiling.tileM, 128);
}

void checkWideTiles() {
  Case c("192-column tiles");
  WgmmaOptions wide;
  wide.tileN = 192;
  // 4096 x 2112 x 7168, 1x128 x 128x128, 128 x 192 tiles: 32 x 11 = 352
  // tiles; a tile starts at a multiple of 192 columns, 0 or 64 into a
  // 128-column block of B's scales, so 64-column chunks (gcd(192, 128))
  // each lie in one block: 3 B scales per K tile.
  WgmmaPlan p = plan(c, blockwiseProblem(4096, 2112, 7168), wide);
  c.expect("tile N", p.tiling.tileN, 192);
  c.expect("consumer columns", p.tiling.consumerColumns, 192);
  c.expect("consumers", p.tiling.consumers, 2);
  c.expect("B scale columns", p.bScaleColumns, 64);
  c.expect("B scale chunks", p.bScaleChunks(), 3);
  c.expect("units", p.units(), 32 * 11);
  // (128 + 192) x 128 = 40960-byte stages, the module's 4 of them, and a
  // staging buffer of 128 x 192 bf16: 163840 + 32 (barriers), aligned to
  // 1024, + 49152 + 1024 = 215040 bytes.
  c.expect("stage bytes", p.shared.stageBytes, 40960);
  c.expect("stages", p.tiling.stages, 4);
  c.expect("staging bytes", p.tiling.stagingBytes, 128 * 192 * 2);
  c.expect("shared bytes", p.shared.bytes, 215040);
  // K-major A scales of single rows are not staged, so neither are B's.
  c.expect("B scale box", p.tiling.bScaleBox.present(), 0);
  // 128 columns: one scale for the consumer's columns.
  WgmmaOptions narrow;
  narrow.tileN = 128;
  WgmmaPlan q = plan(c, blockwiseProblem(4096, 2112, 7168), narrow);
  c.expect("128-column B scale columns", q.bScaleColumns, 128);
  c.expect("128-column B scale chunks", q.bScaleChunks(), 1);
  // Not block-scaled: no B scales in the mainloop.
  c.expect("per-tensor B scale columns",
           plan(c, problem(4096, 2112, 7168), wide).bScaleColumns, 0);
  // MN-major A scales are staged; B's box then holds the two row blocks a
  // tile reaches (rows 0-1 of the box: the tile's first block and the
  // next), 4 K blocks each: 2 x 4 f32, after A's 128 x 1 rows.
  WgmmaProblem mn = blockwiseProblem(4096, 2112, 7168);
  mn.aScales.mnMajor = true;
  WgmmaPlan staged = plan(c, mn, wide);
  c.expect("staged A box rows", staged.tiling.aScaleBox.inner, 128);
  c.expect("staged B box outer", staged.tiling.bScaleBox.outer, 2);
  c.expect("staged B box inner", staged.tiling.bScaleBox.inner, 4);
  c.expect("staged B box K inner", staged.tiling.bScaleBox.kInner, 1);
  c.expect("staged B box offset", staged.tiling.bScaleBox.offset, 512);
  c.expect("staged slot bytes", staged.tiling.scaleSlotBytes, 640);
  // MN-major B scales: a straddling tile's next row block may lie past a
  // box of 4 aligned row blocks, so neither operand's is staged.
  WgmmaProblem bothMN = mn;
  bothMN.bScales.mnMajor = true;
  c.expect("MN-major B box", plan(c, bothMN, wide).tiling.bScaleBox.present(),
           0);
  // B blocks of 64 columns in 128-column tiles: two chunks of 64; blocks
  // of 16 would take 8 (more than kMaxBScaleChunks): the reference loops.
  WgmmaProblem b64 = blockwiseProblem(1024, 1024, 1024);
  b64.bScales = blocks(64, 128);
  WgmmaPlan chunks = plan(c, b64, narrow);
  c.expect("64-row B blocks: scale columns", chunks.bScaleColumns, 64);
  c.expect("64-row B blocks: chunks", chunks.bScaleChunks(), 2);
  WgmmaProblem b16 = b64;
  b16.bScales = blocks(16, 128);
  c.expect("16-row B blocks", whyNot(b16, narrow),
           "scale blocks not aligned with the kernel's tiles");
  // 64 rows: one consumer of 192 columns.
  WgmmaPlan single = plan(c, blockwiseProblem(64, 1152, 1024), wide);
  c.expect("64-row consumers", single.tiling.consumers, 1);
  c.expect("64-row consumer columns", single.tiling.consumerColumns, 192);
  // An FP8 output's 128-column scale blocks do not divide 192 columns.
  WgmmaProblem fp8 = blockwiseProblem(4096, 2112, 7168);
  fp8.outElementBytes = 1;
  fp8.outScaleBlockColumns = 128;
  c.expect("FP8 output, 128-column blocks", whyNot(fp8, wide),
           "FP8 output scale blocks not dividing the kernel's tiles");
  // The rule (kWideTileUseMargin = 0.07): 192 columns where their rounds'
  // use is at least 0.93 of 128 columns'. With U(c) the share of the
  // rounds' slots that compute elements of D (132 slots):
  // (Without clusters: where they are left open, tiles of two waves come
  // first on some of these shapes, "clustered waves" below.)
  WgmmaOptions unclustered;
  unclustered.clusterRows = 1;
  auto columns = [&](const WgmmaProblem &problem) {
    return plan(c, problem, unclustered).tiling.tileN;
  };
  // 4096 x 2112 x 7168: 0.889 / 0.800 = 1.11 ("tile shapes" above).
  c.expect("4096x2112x7168", columns(blockwiseProblem(4096, 2112, 7168)), 192);
  // 8192^3: 64 x 43 = 2752 tiles in 21 rounds, 8192 / 8256 x 2752 / 2772
  // = 0.985, against 4096 in 32, 4096 / 4224 = 0.970: 1.016, block-scaled
  // 192; per-tensor (at least 1.05 more) 128.
  c.expect("8192^3", columns(blockwiseProblem(8192, 8192, 8192)), 192);
  c.expect("per-tensor 8192^3", columns(problem(8192, 8192, 8192)), 128);
  // 4096 x 7168 x 16384: 32 x 38 = 1216 tiles in 10 rounds, 7168 / 7296 x
  // 1216 / 1320 = 0.905, against 1792 in 14, 0.970: 0.933.
  c.expect("4096x7168x16384", columns(blockwiseProblem(4096, 7168, 16384)),
           192);
  // Without block scales, 192 only where the rounds' use is 1.05 times
  // 128's or more: per-tensor 4096 x 7168 x 16384 (0.933) keeps 128.
  c.expect("per-tensor 4096x7168x16384", columns(problem(4096, 7168, 16384)),
           128);
  // 4096^3: 32 x 22 = 704 tiles in 6 rounds, 4096 / 4224 x 704 / 792 =
  // 0.862, against 1024 in 8, 0.970: 0.889.
  c.expect("4096^3", columns(blockwiseProblem(4096, 4096, 4096)), 128);
  // 896 x 2432 x 2048: 7 x 13 = 91 tiles in one round, 2432 / 2496 x 91 /
  // 132 = 0.672, against 133 in 2 rounds, 0.504 (16 K tiles: no split).
  c.expect("896x2432x2048", columns(problem(896, 2432, 2048)), 192);
  // With 8192 K, 128 columns' last round splits (Stream-K): 128.
  c.expect("896x2432x8192", columns(problem(896, 2432, 8192)), 128);
  // Short K: tiles of two waves (256 x 128) are chosen first.
  c.expect("4096x32768x512 tile N", columns(blockwiseProblem(4096, 32768, 512)),
           128);
  // B blocks of 32 rows: a 192-column tile would take 6 chunks (more than
  // kMaxBScaleChunks), 128 columns take 4: 128.
  WgmmaProblem b32 = blockwiseProblem(4096, 2112, 7168);
  b32.bScales = blocks(32, 128);
  c.expect("32-row B blocks", columns(b32), 128);
  // Grouped by the rounds of all groups' rows: 4096 x 2112 as above.
  WgmmaProblem grouped = blockwiseProblem(4096, 2112, 7168);
  grouped.groups = 4;
  c.expect("grouped", columns(grouped), 192);
  // Masked: the tiles are counted at run time, so by N's columns alone
  // (the rounds of one group's bound of 4096 rows would be 32 x 22 = 704
  // tiles in 6 rounds, 0.889 of 128 columns'): 4096 / 4224 = 0.970 of
  // 192-column tiles' columns are N's, at least 0.93: 192; 640 columns,
  // 640 / 768 = 0.833: 128.
  WgmmaProblem masked = blockwiseProblem(4096, 4096, 7168);
  masked.groups = 32;
  masked.masked = true;
  c.expect("masked 4096 columns", columns(masked), 192);
  WgmmaProblem maskedNarrow = blockwiseProblem(4096, 640, 7168);
  maskedNarrow.groups = 32;
  maskedNarrow.masked = true;
  c.expect("masked 640 columns", columns(maskedNarrow), 128);
  // Grouped with A's scales MN-major, which TMA stages
  // (kWideTileStagedUseMargin = 0.15): 4096 x 4096 x 7168 in 4 groups,
  // 0.889 of 128 columns' use as 4096^3 above: 192, where K-major A scales
  // (loaded, the 0.07 margin) and a dense matmul's MN-major ones keep 128.
  WgmmaProblem stagedGrouped = blockwiseProblem(4096, 4096, 7168);
  stagedGrouped.groups = 4;
  c.expect("grouped K-major A scales, 0.889", columns(stagedGrouped), 128);
  stagedGrouped.aScales.mnMajor = true;
  c.expect("grouped MN-major A scales, 0.889", columns(stagedGrouped), 192);
  WgmmaProblem stagedDense = blockwiseProblem(4096, 4096, 7168);
  stagedDense.aScales.mnMajor = true;
  c.expect("dense MN-major A scales, 0.889", columns(stagedDense), 128);
  // 1024 x 4096 x 7168 in 8 groups: 8 x 22 = 176 tiles in 2 rounds, 4096 /
  // 4224 x 176 / 264 = 0.646, against 256 in 2, 0.970: 0.667, below 0.85.
  WgmmaProblem stagedFew = blockwiseProblem(1024, 4096, 7168);
  stagedFew.groups = 8;
  stagedFew.aScales.mnMajor = true;
  c.expect("grouped MN-major A scales, 0.667", columns(stagedFew), 128);
  // An FP8 output in 128-column blocks, an f32 output, 64 rows: 128, 128,
  // 64.
  c.expect("FP8 output tile N", columns(fp8), 128);
  WgmmaProblem f32 = blockwiseProblem(4096, 2112, 7168);
  f32.outElementBytes = 4;
  c.expect("f32 output tile N", columns(f32), 128);
  c.expect("64 rows", columns(blockwiseProblem(64, 2112, 7168)), 64);
  // Two waves and 192 columns: refused.
  WgmmaOptions wavesWide = wide;
  wavesWide.tileM = 256;
  c.expect("tile-m=256 tile-n=192", optionError(wavesWide),
           "tile-m 256 (two waves) takes tile-n 64 or 128, got 192");
}

void checkALoadRows() {
  Case c("A load rows");
  // Fewer rows of A than a 64-row tile: the stage holds A's rows rounded
  // up to 8 (a swizzle atom), the ring's 131072 bytes in more stages.
  // 9 rows, 1536 x 4096: 16 rows. 12 tiles of 128 columns in min(132 /
  // 12, 32 / 8) = 4 parts would keep 48 <= 66 blocks busy: 64 columns.
  // (16 + 64) x 128 = 10240-byte stages, 12 of them.
  WgmmaPlan a = plan(c, problem(9, 1536, 4096));
  c.expect("9-row A load rows", a.tiling.aLoadRows, 16);
  c.expect("9-row tile N", a.tiling.tileN, 64);
  c.expect("9-row stage bytes", a.shared.stageBytes, 10240);
  c.expect("9-row B offset", a.shared.bOffset, 16 * 128);
  c.expect("9-row stages", a.tiling.stages, 12);
  // 33 rows, 512 x 1024: 40 rows; 4 tiles of 128 columns and 8 K tiles
  // (no split) would keep 4 blocks busy, so 64 columns: (40 + 64) x 128 =
  // 13312-byte stages, 9 of them (119808 bytes).
  WgmmaPlan b = plan(c, problem(33, 512, 1024));
  c.expect("33-row A load rows", b.tiling.aLoadRows, 40);
  c.expect("33-row tile N", b.tiling.tileN, 64);
  c.expect("33-row stage bytes", b.shared.stageBytes, 13312);
  c.expect("33-row B offset", b.shared.bOffset, 40 * 128);
  c.expect("33-row stages", b.tiling.stages, 9);
  c.expect("33-row empty barriers", b.shared.emptyBarriers, 9 * 13312);
  // 64 rows fill the tile; 65 take 128-row tiles: every row loaded.
  c.expect("64-row A load rows", plan(c, problem(64, 512, 1024)).tiling.aLoadRows,
           64);
  c.expect("65-row A load rows", plan(c, problem(65, 512, 1024)).tiling.aLoadRows,
           128);
}

void checkAccumulatorLayout() {
  Case c("accumulator layout");
  const WgmmaIntrinsicInfo &wgmma = hopper().getWgmma();
  c.expect("wgmma M", wgmma.m, 64);
  c.expect("wgmma K", wgmma.k, 32);
  c.expect("elements of a 128-wide tile", wgmma.getAccumulatorElements(128),
           64);
  // PTX ISA's figure for wgmma .m64nNk32 with an f32 D: thread 0 holds
  // D[0][0], D[0][1], D[8][0], D[8][1], then the same 8 columns further.
  auto p = wgmma.getAccumulatorPosition(0, 3);
  c.expect("thread 0 element 3 row", p.first, 8);
  c.expect("thread 0 element 3 column", p.second, 1);
  // Thread 37: warp 1, lane 5 (row 16 + 1, columns 2, 3 of each group);
  // element 6: group 1, second row, first column.
  p = wgmma.getAccumulatorPosition(37, 6);
  c.expect("thread 37 element 6 row", p.first, 25);
  c.expect("thread 37 element 6 column", p.second, 10);
  p = wgmma.getAccumulatorPosition(127, 63);
  c.expect("thread 127 element 63 row", p.first, 63);
  c.expect("thread 127 element 63 column", p.second, 127);
  // The 128 threads' 64 elements cover the 64 x 128 tile once each.
  std::set<int64_t> covered;
  for (int64_t thread = 0; thread < 128; ++thread)
    for (int64_t element = 0; element < 64; ++element) {
      auto q = wgmma.getAccumulatorPosition(thread, element);
      if (q.first >= 0 && q.first < 64 && q.second >= 0 && q.second < 128)
        covered.insert(q.first * 128 + q.second);
    }
  c.expect("distinct positions", int64_t(covered.size()), 64 * 128);
}
} // namespace

void checkMasked() {
  Case c("masked grouped");
  WgmmaOptions wide;
  wide.tileM = 128;
  wide.tileN = 128;
  WgmmaProblem masked = problem(256, 384, 512);
  masked.groups = 4;
  masked.masked = true;
  // A bound of 4 groups x 2 tile rows x 3 tile columns: 24 units on 24
  // blocks, unsplit and static even when asked otherwise.
  WgmmaOptions asked = wide;
  asked.dynamicSchedule = true;
  WgmmaPlan p = plan(c, masked, asked);
  c.expect("masked groups", p.maskedGroups, 4);
  c.expect("units", p.units(), 24);
  c.expect("blocks", p.schedule.blocks, 24);
  c.expect("split", p.schedule.isSplit(), 0);
  c.expect("dynamic", p.schedule.dynamic, 0);
  c.expect("cluster rows", p.tiling.clusterRows, 1);
  // 256 rows a group are whole tiles: staged as a matmul (132096, after
  // 4 stages of 32 KiB and their barriers).
  c.expect("staging", p.shared.staging, 132096);
  // 40 rows a group are not: a box would reach into the next group's.
  WgmmaProblem partial = masked;
  partial.m = 40;
  c.expect("40-row staging", plan(c, partial, wide).shared.staging, -1);
  // max-blocks caps the grid; a bound of many tiles keeps one block per
  // multiprocessor.
  WgmmaOptions few = wide;
  few.maxBlocks = 3;
  c.expect("max-blocks 3", plan(c, masked, few).schedule.blocks, 3);
  WgmmaProblem decode = problem(4096, 4096, 7168);
  decode.groups = 32;
  decode.masked = true;
  c.expect("32 x 4096 rows", plan(c, decode, wide).schedule.blocks, 132);
}

void checkKTilesPerTrip() {
  Case c("K tiles a trip");
  // 128x4096x7168: 32 tiles of 128 columns split by Stream-K into 128
  // parts on 128 blocks, one item each: two K tiles a trip.
  WgmmaPlan single = plan(c, blockwiseProblem(128, 4096, 7168));
  c.expect("one item a block: items", single.schedule.items(), 128);
  c.expect("one item a block: blocks", single.schedule.blocks, 128);
  c.expect("one item a block", single.kTilesPerTrip, 2);
  // 4096x7168x16384: 1216 tiles on 128 blocks: one.
  c.expect("rounds of tiles",
           plan(c, blockwiseProblem(4096, 7168, 16384)).kTilesPerTrip, 1);
  // max-blocks 2 on 256x256 (4 tiles of 128 x 128): two items a block.
  WgmmaOptions two;
  two.maxBlocks = 2;
  c.expect("4 tiles, 4 blocks",
           plan(c, blockwiseProblem(256, 256, 1024)).kTilesPerTrip, 2);
  c.expect("4 tiles, 2 blocks",
           plan(c, blockwiseProblem(256, 256, 1024), two).kTilesPerTrip, 1);
  // Clusters of 2 along M: 8 x 2 tiles in 8 units on 8 blocks in 4
  // clusters of 2: two units a cluster.
  WgmmaOptions clustered;
  clustered.clusterRows = 2;
  clustered.maxBlocks = 8;
  WgmmaPlan cp = plan(c, blockwiseProblem(1024, 256, 1024), clustered);
  c.expect("clustered units", cp.schedule.items(), 8);
  c.expect("clustered", cp.kTilesPerTrip, 1);
  // Without max-blocks (tiles of 128 x 128 asked for): 8 units on 16
  // blocks in 8 clusters, one a cluster.
  WgmmaOptions clusteredWide;
  clusteredWide.clusterRows = 2;
  clusteredWide.tileM = 128;
  clusteredWide.tileN = 128;
  WgmmaPlan cw = plan(c, blockwiseProblem(1024, 256, 1024), clusteredWide);
  c.expect("clustered wide blocks", cw.schedule.blocks, 16);
  c.expect("clustered wide", cw.kTilesPerTrip, 2);
  // Items counted at run time (masked groups): one.
  WgmmaProblem masked = blockwiseProblem(256, 384, 512);
  masked.groups = 4;
  masked.masked = true;
  c.expect("masked", plan(c, masked).kTilesPerTrip, 1);
  // Unscaled: one, also where every K tile is promoted.
  c.expect("per-tensor", plan(c, problem(128, 4096, 7168)).kTilesPerTrip, 1);
  WgmmaOptions every;
  every.promotionKTiles = 1;
  c.expect("per-tensor every K tile",
           plan(c, problem(128, 4096, 7168), every).kTilesPerTrip, 1);
}

void checkClusteredWaves() {
  Case c("clustered waves");
  auto tile = [&](const WgmmaPlan &p) {
    return p.tiling.tileM * 1000 + p.tiling.tileN;
  };
  // A's scales MN-major (staged by TMA), where tiles of two waves are
  // chosen; K-major below.
  auto blockwiseProblem = [](int64_t m, int64_t n, int64_t k) {
    WgmmaProblem problem = ::blockwiseProblem(m, n, k);
    problem.aScales.mnMajor = true;
    return problem;
  };
  // cluster-rows left open, 4096 x 4096 x 7168 (56 K tiles): 16 x 32 = 512
  // tiles of 256 x 128 in 256 units of 2 on 66 slots, 4 rounds, 256 / 264
  // = 0.970; 128 x 128: 1024 tiles in 8 rounds of 132, 0.970 (192
  // columns: 32 x 22 = 704 in 6, 0.862, under 0.93 of 128's). 0.970 >=
  // 0.98 x 0.970: two waves in clusters of 2; 256 units in 4 rounds on 64
  // clusters, 128 blocks.
  WgmmaPlan p = plan(c, blockwiseProblem(4096, 4096, 7168));
  c.expect("4096x4096x7168 tile", tile(p), 256128);
  c.expect("4096x4096x7168 waves", p.tiling.waves, 2);
  c.expect("4096x4096x7168 cluster rows", p.tiling.clusterRows, 2);
  c.expect("4096x4096x7168 units", p.units(), 256);
  c.expect("4096x4096x7168 blocks", p.schedule.blocks, 128);
  // K-major A scales: 128 x 128, no clusters.
  WgmmaPlan kMajor = plan(c, ::blockwiseProblem(4096, 4096, 7168));
  c.expect("K-major 4096x4096x7168 tile", tile(kMajor), 128128);
  c.expect("K-major 4096x4096x7168 cluster rows", kMajor.tiling.clusterRows, 1);
  // 2048 x 7168 x 7168: 8 x 56 = 448 tiles, 224 units in 4 rounds of 66,
  // 224 / 264 = 0.848; 128 x 192: 16 x 38 = 608 tiles in 5 rounds, 7168 /
  // 7296 x 608 / 660 = 0.905: 0.848 < 0.98 x 0.905, 128 x 192, no
  // clusters.
  WgmmaPlan few = plan(c, blockwiseProblem(2048, 7168, 7168));
  c.expect("2048x7168x7168 tile", tile(few), 128192);
  c.expect("2048x7168x7168 cluster rows", few.tiling.clusterRows, 1);
  // 1792 x 2432 x 8192: 7 tile rows of 256 do not pair: 128 rows.
  c.expect("odd wave rows tile",
           tile(plan(c, blockwiseProblem(1792, 2432, 8192))) / 1000, 128);
  // 896 x 2432 x 8192: 4 tile rows of 256, 76 tiles in one round of 66
  // pairs (896 / 1024 x 76 / 132 = 0.504), as full as 128 rows' 133 tiles
  // in 2 rounds (0.504), but Stream-K splits 128 rows' last round, which
  // the rounds' use does not count: 128 rows.
  c.expect("split 128 rows tile",
           tile(plan(c, blockwiseProblem(896, 2432, 8192))) / 1000, 128);
  // Not where clusters cannot run: a dynamic schedule, max-blocks 1, or
  // cluster-rows given as 1; nor without block scales, grouped, or with an
  // f32 output.
  WgmmaProblem square = blockwiseProblem(4096, 4096, 7168);
  WgmmaOptions dynamic;
  dynamic.dynamicSchedule = true;
  WgmmaPlan d = plan(c, square, dynamic);
  c.expect("dynamic tile", tile(d), 128128);
  c.expect("dynamic cluster rows", d.tiling.clusterRows, 1);
  WgmmaOptions one;
  one.maxBlocks = 1;
  c.expect("max-blocks 1 tile rows", tile(plan(c, square, one)) / 1000, 128);
  WgmmaOptions unclustered;
  unclustered.clusterRows = 1;
  c.expect("cluster-rows 1 tile", tile(plan(c, square, unclustered)), 128128);
  c.expect("per-tensor tile", tile(plan(c, problem(4096, 4096, 7168))), 128128);
  WgmmaProblem grouped = square;
  grouped.groups = 4;
  c.expect("grouped cluster rows", plan(c, grouped).tiling.clusterRows, 1);
  WgmmaProblem f32 = square;
  f32.outElementBytes = 4;
  c.expect("f32 output tile", tile(plan(c, f32)) / 1000, 128);
  // tile-m=256 given, cluster-rows left open: clusters where the tile rows
  // pair (16), none where not (3).
  WgmmaOptions given;
  given.tileM = 256;
  c.expect("tile-m 256 cluster rows", plan(c, square, given).tiling.clusterRows,
           2);
  c.expect("tile-m 256, 3 tile rows: cluster rows",
           plan(c, blockwiseProblem(768, 512, 512), given).tiling.clusterRows,
           1);
  // cluster-rows given (2) keeps 128 x 128 tiles in clusters at long K
  // where 256 rows were not chosen by the rule above (tile-n given).
  WgmmaOptions pairs;
  pairs.clusterRows = 2;
  pairs.tileN = 128;
  WgmmaPlan q = plan(c, square, pairs);
  c.expect("cluster-rows 2 tile", tile(q), 128128);
  c.expect("cluster-rows 2 cluster rows", q.tiling.clusterRows, 2);
}

void checkTestsNextStage() {
  Case c("tests the next stage");
  // Blocks of several items (1024 tiles of 128 x 128 of 4096^3 on 128
  // blocks): the next K tile's stage is tested while a group is in flight.
  WgmmaPlan square = plan(c, blockwiseProblem(4096, 4096, 4096));
  c.expect("rounds of tiles: columns", square.tiling.tileN, 128);
  c.expect("rounds of tiles", square.testsNextStage, true);
  // 4096x7168x16384 without clusters takes tiles of 192 columns: not
  // tested.
  WgmmaOptions unclustered;
  unclustered.clusterRows = 1;
  WgmmaPlan wide = plan(c, blockwiseProblem(4096, 7168, 16384), unclustered);
  c.expect("192 columns: columns", wide.tiling.tileN, 192);
  c.expect("192 columns", wide.testsNextStage, false);
  // One item a block (128x4096x7168 in 128 Stream-K parts): each K tile
  // waits at its issue.
  c.expect("one item a block",
           plan(c, blockwiseProblem(128, 4096, 7168)).testsNextStage, false);
  WgmmaOptions two;
  two.maxBlocks = 2;
  c.expect("4 tiles, 2 blocks",
           plan(c, blockwiseProblem(256, 256, 1024), two).testsNextStage, true);
  // Items counted at run time (masked groups): one K tile a trip, tested.
  WgmmaProblem masked = blockwiseProblem(256, 384, 512);
  masked.groups = 4;
  masked.masked = true;
  c.expect("masked", plan(c, masked).testsNextStage, true);
  // Unscaled: never, also where every K tile is promoted.
  c.expect("per-tensor", plan(c, problem(4096, 4096, 4096)).testsNextStage,
           false);
  WgmmaOptions every;
  every.promotionKTiles = 1;
  c.expect("per-tensor every K tile",
           plan(c, problem(4096, 4096, 4096), every).testsNextStage, false);
}

int main() {
  checkTiling();
  checkOptions();
  checkLargeSquare();
  checkStreamK();
  checkSingleRow();
  checkOneRowTiles();
  checkDynamic();
  checkBlockScales();
  checkScaleChecks();
  checkScaleBoxes();
  checkRowVersions();
  checkWaves();
  checkClusters();
  checkClusterColumns();
  checkStaging();
  checkIneligible();
  checkTileShapes();
  checkDeepRing();
  checkStreamedBRing();
  checkTwoWavesChosen();
  checkWideTiles();
  checkALoadRows();
  checkMasked();
  checkAccumulatorLayout();
  checkKTilesPerTrip();
  checkTestsNextStage();
  checkClusteredWaves();
  llvm::outs() << failures << " failing\n";
  return failures ? 1 : 0;
}
