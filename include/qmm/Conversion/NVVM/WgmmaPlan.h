//===- WgmmaPlan.h - the host-side plan of a wgmma kernel -------*- C++ -*-===//
//
// What qmm-lower-matmul-to-wgmma decides before it builds any IR: whether
// its kernel takes a matmul (and why not), the tiling, the persistent
// blocks' schedule and the shared-memory layout. Pure functions of plain
// data (the matmul's description, the pass's options and the NVIDIA target
// description), unit-tested without IR (test/Conversion/NVVM/
// WgmmaPlanCheck.cpp), the way CUTLASS keeps a GEMM's problem shape, tile
// scheduler parameters and shared storage apart from the device code.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_NVVM_WGMMAPLAN_H
#define QMM_CONVERSION_NVVM_WGMMAPLAN_H

#include "qmm/Conversion/NVVM/WgmmaPromotion.h"
#include "qmm/Target/NvidiaChip.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace mlir {
namespace qmm {
namespace wgmma {

/// The pass's options (qmm-lower-matmul-to-wgmma; Passes.td says what each
/// does).
struct WgmmaOptions {
  int64_t stages = kDefaultWgmmaStages;
  int64_t rasterRows = 8;
  /// Blocks of a cluster that share B's tiles (TMA multicast); 0 chooses
  /// per matmul (getAutoClusterRows).
  int64_t clusterRows = 0;
  /// Blocks of a cluster that share A's tiles (TMA multicast; 1: none).
  int64_t clusterColumns = 1;
  bool streamK = true;
  int64_t maxBlocks = 0;
  int64_t promotionKTiles = kDefaultWgmmaPromotionKTiles;
  bool dynamicSchedule = false;
  bool checkScalesAhead = true;
  bool stageScales = true;
  /// Stream-K parts of a tile reduce in one cluster, through distributed
  /// shared memory, where every block takes one part.
  bool clusterReduction = true;
  /// A kernel tile's rows (64: one consumer warpgroup of wgmma M rows;
  /// 128: two; 256: two of two waves each) and columns (64, 128 or 192);
  /// 0 chooses per matmul (chooseTileShape).
  int64_t tileM = 0, tileN = 0;
};

/// How an operand's scales are given, as far as the kernel cares.
struct WgmmaScales {
  enum class Kind { PerTensor, PerRow, Block, MX };
  Kind kind = Kind::PerTensor;
  /// Block: the rows (N for B) and the K extent one scale covers.
  int64_t blockRows = 1, blockK = 1;
  /// Bytes of one scale (f32: 4); whether the scales are stored MN-major
  /// ([K blocks, row blocks]) and contiguously (an identity layout).
  int64_t elementBytes = 4;
  bool mnMajor = false, contiguous = true;
  /// Whether the scales change every K tile (block scales): they are then
  /// applied to wgmma's partial sums, else once in the epilogue.
  bool perKTile() const { return kind == Kind::Block; }
};

/// One matmul, described by what the kernel's eligibility and plan read.
struct WgmmaProblem {
  /// A is M x K, B is stored N x K ([K, N] when `bStoredNK` is false),
  /// D is M x N.
  int64_t m = 0, n = 0, k = 0;
  /// M is known at run time only (m is then 0): the kernel counts its
  /// tiles from D's rows, and the host sizes the grid.
  bool runtimeRows = false;
  /// A run-time M known to be at most this many rows (0: unbounded): a
  /// kernel version's bound (getRowVersions).
  int64_t maxRows = 0;
  /// A grouped matmul: B's matrices (0: a matmul). Contiguous: each
  /// 128-row segment of A's M rows belongs to one group. Masked (`masked`):
  /// A holds `groups` matrices of M rows each (Mmax), of which the first
  /// count[g] are valid, known at run time only.
  int64_t groups = 0;
  bool masked = false;
  bool bStoredNK = true;
  /// Whether A and B hold OCP FP8 (E4M3FN, E5M2), what wgmma reads.
  bool ocpFP8 = true;
  /// Whether every operand's rows are contiguous (identity layouts).
  bool contiguous = true;
  bool auxOutputs = false;
  WgmmaScales aScales, bScales;
  /// D's element size, and whether TMA may store D's elements (bf16,
  /// f16, f32, or the codes of an FP8 output).
  int64_t outElementBytes = 2;
  bool outTmaStorable = true;
  /// An FP8 output: the columns of one block of its scales (0: none).
  int64_t outScaleBlockColumns = 0;
};

/// One K tile's block scales of an operand as a TMA box of f32 in a ring
/// stage's scale slot: `outer` x `inner` elements (inner: contiguous in
/// memory). TMA's innermost coordinate must be 16-byte aligned, so a box
/// whose inner side is 4 elements (the smallest, 16 bytes) starts at a
/// multiple of 4, and the K tile's element lies (coordinate mod 4) in:
///   K-major scales ([row blocks, K blocks], `kInner`): 4 K blocks of each
///   row block the tile covers, the row's element (row, K block mod 4);
///   MN-major ([K blocks, row blocks]): the K tile's block of the tile's
///   rows (element row), or of 4 row blocks (element row block mod 4).
struct WgmmaScaleBox {
  int64_t outer = 0, inner = 0;
  /// Whether each tile row has a scale of its own (else one row block
  /// covers the tile), and whether K blocks are innermost.
  bool perRow = false, kInner = false;
  /// Byte offset in the stage's scale slot.
  int64_t offset = 0;
  bool present() const { return outer != 0; }
  int64_t bytes() const { return 4 * outer * inner; }
};

/// The kernel's shape, derived from the chip: the K tile is one swizzle row
/// of FP8 elements, each consumer warpgroup owns `waves` x wgmma M rows.
struct WgmmaTiling {
  int64_t tileM = 0, tileN = 0, tileK = 0, stages = 0, consumers = 0,
          threads = 0;
  /// Blocks of wgmma M rows each consumer computes in turn per K tile
  /// (1, or 2 in a 256-row tile): a wave's wgmma group is issued, waited
  /// for and promoted into its part of the accumulator before the next
  /// wave's, so that one fragment of wgmma M rows serves them all (the
  /// accumulator holds `waves` of them).
  int64_t waves = 1;
  /// The columns of a consumer's part of the tile (wgmma N): the whole
  /// tile's where the consumers split its rows (wgmma M each), half of it
  /// where a 64-row tile's two consumers split its columns.
  int64_t consumerColumns = 0;
  /// Consumers along N (1: along M) and consumer `c`'s part's origin in
  /// the tile.
  int64_t consumersAlongN() const { return tileN / consumerColumns; }
  /// Rows of tiles walked together by the persistent blocks (L2 reuse).
  int64_t rasterRows = 1;
  /// Registers per thread after setmaxnreg: the producer's and the
  /// consumers'.
  int64_t producerRegisters = 0, consumerRegisters = 0;
  /// Blocks of a cluster (along M) that share B's tiles through TMA
  /// multicast: a power of two up to 8 (1: no clusters, and for grouped
  /// matmuls, whose neighbouring tile rows may read different B).
  int64_t clusterRows = 1;
  /// Blocks of a cluster (along N) that share A's tiles through TMA
  /// multicast, each loading a part of A's tile rows: a power of two up to
  /// 8 (1: none). At most one of clusterRows and clusterColumns exceeds 1.
  int64_t clusterColumns = 1;
  int64_t clusterBlocks() const { return clusterRows * clusterColumns; }
  /// Bytes of the consumers' staging buffers for D's tile (0: the epilogue
  /// stores to global memory from registers).
  int64_t stagingBytes = 0;
  /// K tiles wgmma sums between promotions into f32 without block scales.
  int64_t promotionKTiles = kDefaultWgmmaPromotionKTiles;
  /// Whether the ring's tail holds a dynamic schedule's state.
  bool itemSlots = false;
  /// Whether it holds a cluster reduction's mbarriers (two per consumer).
  bool reductionBarriers = false;
  /// Entries of a masked matmul's item table (its groups + 1; 0 without):
  /// the items before each group's tiles, counted once per launch.
  int64_t groupTableEntries = 0;
  /// Block scales that TMA copies into each stage beside its tiles (A's
  /// and B's box, where present; the others are loaded from global memory
  /// by the consumers), and the bytes of a stage's slot for them.
  WgmmaScaleBox aScaleBox, bScaleBox;
  int64_t scaleSlotBytes = 0;
  /// Rows of A's tile that TMA loads into each stage: tileM, or where a
  /// single consumer row's tile has more rows than A (M < wgmma M, or a
  /// run-time M version's bound below it), those rows rounded up to a
  /// swizzle atom (8 rows; getALoadRows). wgmma still reads wgmma M rows
  /// from the stage: those past A's part of the stage are B's bytes, which
  /// only reach accumulator rows past M, never stored. TMA writes every row
  /// of its box, zeros past M included, and those writes bounded the
  /// small-M kernels (DeepGEMM's heuristics note the same "TMA L2 OOB
  /// bound" and load 16 or 32 rows).
  int64_t aLoadRows = 0;
  int64_t stageBytes() const { return (aLoadRows + tileN) * tileK; }
};

/// Where things lie in a block's dynamic shared memory, in bytes from the
/// ring's start (the first swizzle-atom boundary of the allocation):
///
///   stage 0 .. stages - 1     A's tile, then B's (stageBytes each)
///   `empty` mbarriers         8 bytes per stage (`full` ones are nvgpu's)
///   staged block scales only: a scale slot per stage (scaleSlotBytes)
///   dynamic schedules only:   the ticket queue's `full` and `empty`
///                             mbarriers, an item slot per stage (4 bytes),
///                             the queue's slot (4 bytes)
///   cluster reductions only:  per consumer a `ready` and a `received`
///                             mbarrier (the received sums reuse the ring)
///   staging (atom-aligned)    D's tile per consumer, in boxes of wgmma M
///                             rows of one swizzle row
struct WgmmaSharedLayout {
  /// The ring's start alignment: one swizzle atom (8 rows), which TMA's
  /// 128B swizzle and the wgmma descriptors assume.
  int64_t alignment = 0;
  int64_t stages = 0, stageBytes = 0;
  /// Within a stage: A's tile and B's.
  int64_t aOffset = 0, bOffset = 0;
  int64_t emptyBarriers = 0;
  /// The stages' scale slots (-1 without staged scales).
  int64_t scaleSlots = -1, scaleSlotBytes = 0;
  /// A dynamic schedule's state (-1 without one).
  int64_t queueBarriers = -1, itemSlots = -1, queueSlot = -1;
  /// A cluster reduction's mbarriers (-1 without one): consumer c's
  /// `ready` at 16 c, its `received` at 16 c + 8.
  int64_t reductionBarriers = -1;
  /// A masked matmul's item table (i32 entries; -1 without one).
  int64_t groupTable = -1;
  /// D's staging buffers (-1 without), each consumer's bytes, and the
  /// bytes of one box.
  int64_t staging = -1, stagingBytesPerConsumer = 0, stagingBoxBytes = 0;
  /// The dynamic shared memory a launch asks for: the used bytes plus room
  /// to align the ring's start.
  int64_t bytes = 0;
};

/// How the persistent blocks share the work: units of tiles round by
/// round (as many blocks as run at once), then, with Stream-K, the last
/// round's tiles split along K into `parts` parts, one per block, as the
/// blocks' last work items (item wholeUnits + p: tile wholeUnits + p /
/// parts, part p % parts). A dynamic schedule hands the units out in the
/// same order as blocks free up instead: block i takes item i first, then
/// item G + t, t the ticket it draws from a global counter (G blocks).
struct TileSchedule {
  /// The grid's blocks.
  int64_t blocks = 0;
  /// Work items that are whole units of tiles (all of them without a
  /// split).
  int64_t wholeUnits = 0;
  /// Tiles after those, split into `parts` parts (1: none).
  int64_t splitTiles = 0;
  int64_t parts = 1;
  /// Whether the blocks draw their items after the first from a counter.
  bool dynamic = false;
  int64_t items() const { return wholeUnits + splitTiles * parts; }
  bool isSplit() const { return parts > 1; }
};

/// K tiles up to which block-scaled matmuls take 64-column tiles whose
/// Stream-K pairs reduce in clusters rather than 128-column tiles of more
/// parts (chooseTileShape).
constexpr int64_t kMaxBlockScaledPairedNarrowKTiles = 64;

/// The blocks of a cluster whose Stream-K parts add their sums in shared
/// memory (WgmmaPlan::reducesInCluster): tiles of 2 parts. Measured on an
/// H200 against the global workspace: 1.05x at 128x7168x16384, 1.09x at
/// 128x7168x7168 (1x128 x 128x128 scales). Larger clusters need a chip's
/// GPC layout (an H200 runs 30 clusters of 4 at once: 128x4096x7168's 32
/// tiles of 4 parts then took two rounds, 0.61x); pairs of 4 parts
/// reduced in clusters of 2, then through the workspace, lost 2-8%, and
/// a single consumer's tiles (one block finishing them) 4%.
constexpr int64_t kReductionClusterBlocks = 2;

/// When Stream-K splits a last round (each shape measured against itself
/// unsplit on an H100):
/// - parts have at least 8 K tiles, so that the reduction (each part's
///   64 KiB of f32 sums stored, the last part reading all of them) stays
///   below the compute a part moves to an idle block;
constexpr int64_t kMinStreamKPartKTiles = 8;
/// - tiles have at least 32 K tiles: a block's fixed costs (prologue,
///   reduction) outweigh half of a shorter K loop;
constexpr int64_t kMinStreamKTileKTiles = 32;
/// - at most 2 whole rounds come first: after many rounds the blocks
///   drift apart and the last round's idle time is mostly hidden already,
///   so the reduction costs more than it saves.
constexpr int64_t kMaxStreamKRounds = 2;

/// `units` units of `clusterBlocks` tiles, with `kTiles` K tiles each, on
/// at most `maxBlocks` blocks (one per multiprocessor if 0), which walk
/// them in raster groups `rasterUnits` units high. `dynamic` asks for a
/// dynamic schedule, which unclustered kernels of more than one round
/// whose last round is not split get.
TileSchedule getTileSchedule(int64_t units, int64_t clusterBlocks,
                             int64_t rasterUnits, int64_t kTiles,
                             const NvidiaChipInfo &chip, bool streamK,
                             int64_t maxBlocks, bool dynamic);

/// The tile shapes the kernel builds: rows of one or two consumer
/// warpgroups (wgmma M each), columns of 64, 128 or 192 (a 192-column
/// tile's fragment and accumulator, 96 registers each, are what a
/// consumer of two keeps beside its scales and addresses).
constexpr int64_t kWgmmaTileColumns[] = {64, 128, 192};

/// The most B scales a consumer applies per K tile (its columns in chunks
/// that each lie in one block of B's scales, WgmmaPlan::bScaleColumns).
constexpr int64_t kMaxBScaleChunks = 4;

/// Stream-K parts of a 128-column tile above which 64 columns do better:
/// the last part adds every part's 32-64 KiB slot alone (measured on an
/// H200: 128x2112x7168 with 1x128 x 128x128 scales, 7 parts of 17 tiles,
/// is 11% slower than 4 parts of 33 narrow tiles).
constexpr int64_t kMaxWideTileParts = 4;

/// A single row of 64-row tiles (M <= 64) takes 64-column tiles where
/// their schedule keeps as many multiprocessors busy as 128-column ones'
/// (chooseTileShape). Measured on an H200 over DeepSeek's N x K at M = 1,
/// 16 and 64 (per-tensor and 1x128 x 128x128 scales,
/// benchmarks/results/2026-12-03-h200-decode-tiles.md): 1.02-1.17x on 17
/// of the 18 shapes that change (64x4096x7168 per-tensor 1.17x,
/// 1x4096x4096 1.09x), 0.99x on 16x24576x1536 per-tensor; slower for
/// block-scaled M <= kSwizzleAtomRows (0.86-0.97x) and block-scaled
/// items of fewer than this many K tiles (16x32768x512: 0.95x).
constexpr int64_t kMinNarrowOneRowKTiles = 8;
/// The rows of a 128B-swizzle atom: A's box holds M's rows rounded up to
/// them below one 64-row tile (getALoadRows).
constexpr int64_t kSwizzleAtomRows = 8;

/// K tiles of a tile up to which block-scaled matmuls take tiles of two
/// waves (256 rows) without clusters where their rounds keep the
/// multiprocessors as busy: at short K a 128 x 128 tile's loads outweigh
/// its products. Measured on an H200 (256 against 128 rows, no clusters):
/// 1.06-1.14x at K = 512 and 1.08x at K = 768 on 4096-8192 rows, but 0.94x
/// at K = 1024 (and 0.94x at 2048 x 7168 x 512, whose 448 tiles fill 3.4
/// rounds). Beyond, only in clusters (kTwoWaveClusterRows).
/// benchmarks/results/2026-11-30-h200-consumer-registers.md.
constexpr int64_t kMaxTwoWaveTileKTiles = 6;
/// How much less of the multiprocessors' rounds (the share of tile slots
/// that compute rows of D), relatively, a tile of two waves may use than
/// the tile of 128 rows chosen otherwise.
constexpr double kTwoWaveUseMargin = 0.02;
/// The blocks of the clusters that tiles of two waves run in where
/// cluster-rows is left open: two consecutive 256-row tiles of a column,
/// B's tile multicast to both. Beyond short K, tiles of two waves are
/// chosen only so. Measured on an H200 against the tile chosen before
/// (128 x 128 or 128 x 192), old and new plans in turn: 4096 x 7168 x 16384
/// 1.05x, 4096 x 4096 x 7168 1.04x, 2048 x 4096 x 7168 1.03x, 4096 x 7168 x
/// 2048 1.02x, 4096 x 32768 x 512 (256 rows already) 1.015x, 4096 x 24576 x
/// 1536 and 4096^3 1.01x, 4096 x 16384 x 1024 1.00x, 8192^3 0.99x; without
/// the clusters 256 rows lost up to 15% (4096^3 0.86x, 8192^3 0.85x).
/// Those had A's scales MN-major; K-major ones, which each wave loads from
/// global memory, made them 0.88-0.95x (2026-12-04-h200-kmajor-waves-
/// masked-columns.md), so long K takes them only with staged scales.
/// benchmarks/results/2026-12-03-h200-clustered-waves.md.
constexpr int64_t kTwoWaveClusterRows = 2;

/// Block-scaled 128 x 128 tiles whose B matrices only a few tile rows read
/// (a dense M's tile rows, or a contiguous grouped matmul's tile rows per
/// group on average, at most kStreamedBTileRowsTimesTwo / 2) and whose K
/// is at least kStreamedBMinKTiles K tiles take one ring stage more than
/// the module's, up to kStreamedBMaxStages (the depth measured), where it
/// fits beside D's staging buffer and the scale slots: B then comes from
/// HBM rather than L2, and a fifth stage keeps more of its latency
/// covered. Measured on an H100 (5 stages against 4, same run,
/// benchmarks/results/2026-12-07-h100-streamed-b-ring.md): dense M = 256
/// (2 tile rows) at K = 7168 1.02-1.11x, contiguous groups of 2.4 tile
/// rows on average (~256 rows) at K = 7168 1.01-1.045x; not at short K
/// (M = 256: K = 4096 0.955x, K = 2048 0.97x; the groups at K = 2048
/// 1.016x, within noise) nor at 3 or more tile rows (M = 288 and 320
/// 0.91-0.98x, M = 384 and 512 0.98x, groups of ~1024 rows 0.98x), where
/// L2 serves B's repeat reads.
constexpr int64_t kStreamedBTileRowsTimesTwo = 5;
constexpr int64_t kStreamedBMinKTiles = 56;
constexpr int64_t kStreamedBMaxStages = 5;

/// The widest tile's columns, and how much less of the multiprocessors'
/// rounds (the share of tile slots that compute elements of D),
/// relatively, its tiles may use than 128 columns. Measured on an H200
/// (128 x 192 against 128 x 128 tiles): a 128 x 192 tile computes its
/// elements about 9% faster, so 192 columns were 1.02-1.05x where they use
/// 0.933 of 128's rounds (4096 x 7168, K = 2048 and 16384), 1.05-1.08x
/// at 0.98-1.02 (8192^3, 16384 x 7168 x 2048, 4096 x 24576 x 1536),
/// 1.14-1.22x at 1.11-1.33 (4096 x 2112 x 7168, 896 x 2432 x 2048), but
/// 0.97x at 0.889 (4096^3). Without block scales (per-tensor, per-row) a
/// 192-column tile computes its elements no faster (0.97-1.02x at 0.933
/// and 1.016, 1.13-1.22x at 1.11 and 1.33), so those take 192 columns
/// only where their rounds' use is at least kWideTileUnscaledGain more.
/// benchmarks/results/2026-12-01-h200-wide-tiles.md.
constexpr int64_t kWideTileColumns = 192;
constexpr double kWideTileUseMargin = 0.07;
/// kWideTileUseMargin where TMA stages a grouped matmul's block scales
/// (getStagedScaleBoxes: A's MN-major; dense matmuls not measured): there a
/// 128 x 192 tile computes its elements 10-14% faster than 128 x 128
/// (contiguous, 1.10-1.145x at 0.96-1.0 of 128's use), and 192 columns
/// measured 1.05x and 1.08x at 0.889 of 128's use
/// (benchmarks/results/2026-12-05-h200-grouped-staged-192.md).
constexpr double kWideTileStagedUseMargin = 0.15;
constexpr double kWideTileUnscaledGain = 0.05;

/// K tiles of a block's items after its first from which block scales are
/// checked ahead (ScaleCheck): the check's cost, about a microsecond a
/// block (the consumers' reads of the counters, the counts at the end),
/// against at least ~16 us of those K tiles promoted without the test
/// (3-10% faster on an H200; 128x24576x1536, one more tile of 12 K tiles a
/// block, measured 8% slower with the check). And the K tiles of one tile
/// from which the consumers' reads of the counters, until every block is
/// done, cost less than the tiles gain (4096x32768x512, tiles of 4 K
/// tiles: 6% slower; 4096x7168x2048, 16: 5% faster).
constexpr int64_t kMinCheckedKTiles = 64;
constexpr int64_t kMinCheckedTileKTiles = 8;
/// Tile rows from which a masked matmul's block scales are checked ahead.
/// One of 64-row tiles is a decode kernel, bound by B's bytes: the test
/// the check saves hides under them, the checkers' loads and the polls do
/// not (on an H100, 6-32 groups of 4-20 rows: 0.93-0.96x with the check;
/// 128-row tiles, 6 groups of ~1024 rows 1.04-1.06x, 32 of ~192 0.98-1.01x).
constexpr int64_t kMinMaskedCheckedTileRows = 128;
/// K tiles per trip of a block-scaled K loop, where each block has a
/// single work item (WgmmaPlan::kTilesPerTrip; the K tiles left over run
/// one a trip after it). Measured on an H200 by the peers benchmark's
/// method, two against one: 1.00-1.02x on such shapes (128 x 4096 x 7168,
/// 128 x 2112 x 7168, 64 x 4096 x 7168, 1 x 4096 x 7168), but 0.94-1.00x
/// on shapes of several tiles a block (4096 x 2112 x 7168, 8192^3, 16384 x
/// 7168 x 2048) and 0.82-0.94x on large contiguous grouped ones, although
/// a sweep of single plans had measured those faster.
/// benchmarks/results/2026-12-01-h200-k-loop-steps.md.
constexpr int64_t kPerKTileLoopSteps = 2;
/// The widest tiles whose block-scaled K loop tests the next K tile's stage
/// while a group is in flight (WgmmaPlan::testsNextStage). Measured on an
/// H200 by the peers benchmark's method against waiting at each issue:
/// 1.01-1.03x on large blockwise shapes of 128-column tiles (4096^3 1.03x,
/// 4096 x 4096 x 7168 1.01x; 4096 x 32768 x 512, 256-row tiles, 0.99x) and
/// 1.00-1.03x on grouped ones; with 192-column tiles 0.998-1.009x on dense
/// shapes and 1.00-1.02x on grouped ones of 4096 columns, but 0.80-0.93x
/// on contiguous grouped ones of 6144 and 7168 columns; where a block has
/// one work item it cost 1-4% (8% with 64 x 64 tiles).
/// benchmarks/results/2026-12-02-h200-k-tile-wait.md.
constexpr int64_t kMaxNextStageTestColumns = 128;

/// The columns of a consumer's part that one of B's block scales covers in
/// every tile (WgmmaPlan::bScaleColumns), or 0 where the part's columns
/// are not chunks of whole 8-column groups (a thread quad's), at most
/// kMaxBScaleChunks of them, that each lie in one block: tiles start at
/// multiples of the part's columns, so chunks of the greatest common
/// divisor of those and the block's rows never straddle two blocks.
int64_t getBScaleColumns(const WgmmaScales &scales, const WgmmaTiling &tiling);

/// The TMA boxes that copy the block scales of `problem`'s tiles of
/// `tileM` x `tileN` into the ring (absent for an operand without block
/// scales), or none where TMA cannot copy an operand's block scales (then
/// the consumers load both operands' from global memory): A's 1 x 128
/// scales K-major, for one, whose boxes would be a row of 16 bytes per row
/// of the tile. (Whether the slots fit beside the ring is the plan's.)
std::optional<std::pair<WgmmaScaleBox, WgmmaScaleBox>>
getStagedScaleBoxes(const WgmmaProblem &problem, int64_t tileM, int64_t tileN);

/// The blocks of a cluster for a tile of `waves` waves: cluster-rows where
/// given, else kTwoWaveClusterRows for tiles of two waves (unless a
/// dynamic schedule or max-blocks leaves no room for clusters, or
/// cluster-columns shares A's tiles instead) and 1 for the others. (The plan
/// keeps 1 where M's tile rows do not divide.)
int64_t getAutoClusterRows(const WgmmaOptions &options, int64_t waves);

/// The tile of `problem` (rows and columns) where `options` leave it
/// open: wgmma M rows where M fits in them (a second row of consumers
/// would only multiply padding; two consumers then split 128 columns),
/// and 64 columns where 128 would leave at least half the multiprocessors
/// idle even after Stream-K or (a single round) split each tile in more
/// than kMaxWideTileParts parts (also with few rows of A, which only
/// stream B: 1x7168x2048 blockwise on an H200, 6.0 us on 112 blocks of 64
/// columns against 7.8 on 56 of 128); 64 also where only 64 hold whole
/// blocks of B's scales (or an FP8 output's). Otherwise 128 columns,
/// whose wgmma steps read the fewest shared-memory bytes per product
/// (128 x 64 tiles measured 25-30% slower on large shapes). Block-scaled
/// with a 16-bit output, not grouped: 256 x 128 tiles where they use the
/// rounds within kTwoWaveUseMargin of the tile of 128 rows chosen
/// otherwise, at most kMaxTwoWaveTileKTiles K tiles or, cluster-rows left
/// open, at any K where M's 256-row tiles pair into clusters
/// (kTwoWaveClusterRows) and TMA copies the block scales into the ring
/// (getStagedScaleBoxes: not A's 1 x 128 scales K-major). Else, in tiles of 128
/// rows (grouped: by all groups' rows) with a 16-bit output, where neither
/// schedule splits its last round, where a tile's chunks of 64 columns lie in
/// blocks of B's scales and an FP8 output's blocks divide 192: 192 columns
/// where they use the rounds within kWideTileUseMargin of 128 columns
/// (kWideTileStagedUseMargin where TMA stages a grouped matmul's block
/// scales; a masked matmul, whose tiles are counted at run time: where N uses
/// their columns so).
/// benchmarks/results/2026-11-30-h200-tile-shapes.md has the measurements.
std::pair<int64_t, int64_t> chooseTileShape(const WgmmaProblem &problem,
                                            const WgmmaOptions &options,
                                            const NvidiaChipInfo &chip);

/// The rows of A's tile that TMA loads into a stage (WgmmaTiling::aLoadRows)
/// for `rows` rows of A (a static M, or a run-time M's bound; 0: unknown) in
/// tiles of `tileRows`: A's rows rounded up to a swizzle atom (8 rows) where
/// they are fewer than a single consumer row's wgmma M, else the tile's.
int64_t getALoadRows(int64_t rows, int64_t tileRows,
                     const NvidiaChipInfo &chip);

/// A version of a run-time M's kernel: the tile shape chooseTileShape
/// gives a static M of up to `maxRows` rows (0: any M above the versions
/// before).
struct WgmmaRowVersion {
  int64_t maxRows = 0, tileM = 0, tileN = 0;
};

/// The versions of `problem`'s kernel, by M, the host choosing one at run
/// time: for a run-time M (not masked, no tile side forced), where the
/// static choice differs across M (64 rows for M <= 64, 64 columns for an
/// M whose 128-column tiles would leave half the multiprocessors idle),
/// one version per shape in M's order, the last for any larger M (the
/// large-M shape); else the single version. A version within one tile row
/// stays apart from larger M of its shape: its schedule is static; so do
/// M <= 8, 16, 32 and 48, whose A boxes are smaller (getALoadRows).
llvm::SmallVector<WgmmaRowVersion, 8>
getRowVersions(const WgmmaProblem &problem, const WgmmaOptions &options,
               const NvidiaChipInfo &chip);

/// The limits of the module's kernels, or why `options` are refused (the
/// message names the option): the largest tile (two consumers, 128
/// columns), whose ring must fit in shared memory. planWgmmaKernel shapes
/// each matmul's tile within it, in as many stages as its bytes hold.
llvm::Expected<WgmmaTiling> getWgmmaTiling(const WgmmaOptions &options,
                                           const NvidiaChipInfo &chip);

/// The shared-memory layout of `tiling`.
WgmmaSharedLayout getSharedLayout(const WgmmaTiling &tiling,
                                  const NvidiaChipInfo &chip);

/// Everything the device code of one matmul's kernel is built from.
struct WgmmaPlan {
  WgmmaTiling tiling;
  TileSchedule schedule;
  WgmmaSharedLayout shared;
  /// K tiles of a whole tile; tile rows and columns; units of tiles along
  /// M (tile rows / clusterRows) and N (tile columns / clusterColumns), and
  /// the units of a raster group's column.
  int64_t kTiles = 0, tileRows = 0, tileColumns = 0, unitRows = 0,
          unitColumns = 0, rasterUnits = 0;
  /// K tiles wgmma sums between promotions (1 with block scales).
  int64_t promotionKTiles = 1;
  /// A's and B's scales (the problem's): those that change every K tile
  /// the mainloop applies, the others the epilogue.
  WgmmaScales aScales, bScales;
  /// Staged epilogues: the columns of one box of D's tensor map.
  int64_t stagingBoxColumns = 0;
  /// B's block scales: the columns of a consumer's part that one scale
  /// covers in every tile. All of them where a block of B's scales holds
  /// whole tiles; else chunks that each lie in one block (the greatest
  /// common divisor of the part's columns and the block's: a 192-column
  /// tile of 128-column blocks straddles two, its 64-column chunks never
  /// do), one scale each per K tile.
  int64_t bScaleColumns = 0;
  int64_t bScaleChunks() const {
    return bScaleColumns ? tiling.consumerColumns / bScaleColumns : 0;
  }
  /// Whether one block of B's scales holds every whole tile (one scale per
  /// tile and K tile, at the tile's first column).
  bool bScaleBlockHoldsTile() const {
    return bScales.perKTile() && bScales.blockRows % tiling.tileN == 0;
  }
  /// Whether M or N leaves partial tiles (the epilogue masks them).
  bool partialRows = false, partialColumns = false;
  /// A masked grouped matmul's groups (0 otherwise): its units of tiles,
  /// G x tileRows x tileColumns, are an upper bound; the blocks walk the
  /// tiles of the groups' valid rows, counted at run time (TileScheduler).
  int64_t maskedGroups = 0;
  /// M known at run time only: tileRows and unitRows are 0 (the kernel
  /// counts the tiles of D's rows), the schedule's blocks are the most the
  /// host's grid takes.
  bool runtimeRows = false;
  /// Both operands' block scales checked ahead (ScaleCheck): the producer
  /// warpgroup's idle warps check every scale once per launch, and the
  /// consumers promote a block's tiles after its first without the
  /// per-K-tile exactness test where all are in range.
  bool scaleChecks = false;
  /// K tiles a trip of the block-scaled K loop: kPerKTileLoopSteps where
  /// each block's (cluster's) work is a single item (a round of whole
  /// tiles or Stream-K parts, counted at compile time), else 1 (also for
  /// unscaled kernels that promote every K tile: not measured).
  int64_t kTilesPerTrip = 1;
  /// Whether the block-scaled K loop tests the next K tile's stage while a
  /// group is in flight and waits for it after the promotion only where it
  /// was not yet full (Mainloop::buildPerKTile), rather than waiting at
  /// each K tile's issue: where blocks have several work items (one K tile
  /// a trip) and tiles of at most kMaxNextStageTestColumns columns.
  bool testsNextStage = false;
  /// A run-time M bounded within one tile row (a version of at most tileM
  /// rows): its tiles are those of one tile row whatever M, so the schedule
  /// is the static one (Stream-K included); rows past M are masked.
  bool oneTileRow = false;
  /// Whether the number of work items is known at run time only.
  bool countsItemsAtRunTime() const {
    return maskedGroups || (runtimeRows && !oneTileRow);
  }
  /// Whether the two Stream-K parts of each split tile run as a cluster
  /// of two blocks and add their sums through distributed shared memory
  /// (reduceStreamKPartInCluster) instead of the global workspace, each
  /// block finishing one consumer's half of the tile: where every block
  /// takes one part, no whole tile, a tile has 2 parts and 2 consumers,
  /// and the sums a block receives fit in its ring (kReductionClusterBlocks
  /// has the measurements).
  bool reducesInCluster = false;
  /// Whether the parts' sums go through the global workspace.
  bool usesWorkspace() const { return schedule.isSplit() && !reducesInCluster; }
  /// Whether clusters of blocks share A's or B's tiles (TMA multicast).
  bool clustered() const { return tiling.clusterBlocks() > 1; }
  /// The blocks of a launch's cluster (1: no clusters).
  int64_t clusterBlocks() const {
    return reducesInCluster ? kReductionClusterBlocks : tiling.clusterBlocks();
  }
  int64_t units() const { return unitRows * unitColumns; }
};

/// The plan of `problem`'s kernel under `tiling` (getWgmmaTiling), or why
/// the kernel does not take the matmul (then it runs as the reference
/// loops).
llvm::Expected<WgmmaPlan> planWgmmaKernel(const WgmmaProblem &problem,
                                          const WgmmaTiling &tiling,
                                          const WgmmaOptions &options,
                                          const NvidiaChipInfo &chip);

} // namespace wgmma
} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_NVVM_WGMMAPLAN_H
