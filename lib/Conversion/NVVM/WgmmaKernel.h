//===- WgmmaKernel.h - the parts of a wgmma kernel --------------*- C++ -*-===//
//
// The device side of qmm-lower-matmul-to-wgmma, composed the way CUTLASS
// composes a Hopper GEMM (problem, mainloop, epilogue, tile scheduler):
// each part is a type of its own with explicit inputs and outputs, built
// from the host-side plan (qmm/Conversion/NVVM/WgmmaPlan.h):
//
//   MatmulOperands  what the kernel reads of a qmm.matmul or a
//                   qmm.grouped_matmul (WgmmaOperands.cpp)
//   KernelSpec      the matmul, the chip and the plan (read only);
//                   ConsumerThread, a consumer's rows and columns
//                   (WgmmaKernelSpec.cpp)
//   KernelArguments the kernel's arguments as values of its body
//   SharedMemory    the ring's address and typed views (WgmmaPipeline.cpp)
//   RingPipeline    the `full` and `empty` mbarriers of the ring; a
//                   RingState is one iteration's stage and phase, advanced
//                   by K tiles across the tiles a block computes
//                   (WgmmaPipeline.cpp)
//   TileScheduler   the persistent loop over work items: each yields a
//                   WorkTile (WgmmaTileSchedule.cpp)
//   TicketQueue     a dynamic schedule's shared state and its ticket drawer
//                   (WgmmaTicketDrawer.cpp)
//   Producer        the TMA producer thread (WgmmaProducer.cpp)
//   Consumer        a consumer warpgroup's loop over its work items
//                   (WgmmaConsumer.cpp)
//   Mainloop        a consumer warpgroup's K tiles: wgmma groups, waits,
//                   promotion (WgmmaKLoop.cpp)
//   reduceStreamKPart  a split tile's reduction (WgmmaStreamK.cpp), or in
//                   a cluster (WgmmaClusterReduction.cpp)
//   Epilogue        the output tile (WgmmaEpilogue.cpp)
//
// LowerMatmulToWgmma.cpp only wires them: the kernel's set-up, the roles
// and the launch.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_NVVM_WGMMAKERNEL_H
#define QMM_LIB_CONVERSION_NVVM_WGMMAKERNEL_H

#include "qmm/Conversion/NVVM/WgmmaPlan.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/NvidiaChip.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>

namespace mlir {
namespace qmm {
namespace wgmma {

inline Value constant(ImplicitLocOpBuilder &b, int64_t value) {
  return arith::ConstantIndexOp::create(b, value);
}

/// `row` clamped into `rows` rows (index values; folded where `rows` is a
/// constant).
inline Value clampRow(ImplicitLocOpBuilder &b, Value row, Value rows) {
  std::optional<int64_t> known = getConstantIntValue(rows);
  Value last = known ? constant(b, *known - 1)
                     : arith::SubIOp::create(b, rows, constant(b, 1));
  return arith::MinUIOp::create(b, row, last);
}

/// What the kernel reads of the op it lowers (bufferized): a qmm.matmul,
/// or a qmm.grouped_matmul, whose B holds G matrices [G, N, K] (B's scales
/// and the bias a leading G). Contiguous, each of A's rows names its group
/// in `groupLayout`. Masked, `groupLayout` holds each group's valid rows,
/// and A, its scales (but per-tensor ones, [G, 1, 1]), D and an FP8
/// output's scales are [G Mmax, ...] views of the op's [G, Mmax, ...]
/// operands (collapseMaskedOperands), `groupRows` = Mmax.
struct MatmulOperands {
  static MatmulOperands get(MatmulOp op);
  static MatmulOperands get(GroupedMatmulOp op);

  Operation *op = nullptr;
  Value a, b, aScales, bScales, bias, init, aux, outScales;
  /// Grouped: each row's group ([M] i32, -1 for a padding row, which
  /// keeps its values), or masked, each group's valid rows ([G] i32); null
  /// for a matmul.
  Value groupLayout;
  bool masked = false;
  int64_t groupRows = 0;
  ScaleEncodingAttr aEncoding, bEncoding, outEncoding;
  bool bStoredNK = true, accumulate = false;
  Activation activation = Activation::None;
  /// An FP8 output's scale rule.
  ScaleRounding outRounding = ScaleRounding::None;
  float outMinAmax = 0;

  bool isGrouped() const { return static_cast<bool>(groupLayout); }
  /// A masked matmul: its operands as the kernel reads them (above),
  /// collapsed by ops built at `b`.
  void collapseMaskedOperands(ImplicitLocOpBuilder &b);
};

/// `op` described for planWgmmaKernel, or why it cannot be
/// (WgmmaOperands.cpp).
llvm::Expected<WgmmaProblem> describeMatmul(const MatmulOperands &op);

/// The matmul, the chip and the plan of one kernel: what every part reads.
struct KernelSpec {
  KernelSpec(const MatmulOperands &operands, const NvidiaChipInfo &chip,
             const WgmmaPlan &plan);

  MatmulOperands op;
  const NvidiaChipInfo &chip;
  const WgmmaPlan &plan;
  int64_t m, n, k;
  Type aElement, bElement, dElement;

  const WgmmaTiling &tiling() const { return plan.tiling; }
  MLIRContext *getContext() const { return op.op->getContext(); }
  /// A box of `rows` x `columns` in shared memory (columns: the K tile by
  /// default).
  MemRefType getTileType(int64_t rows, Type element,
                         int64_t columns = 0) const;
  nvgpu::TensorMapDescriptorType getTensorMapType(int64_t rows, Type element,
                                                  int64_t columns = 0) const;
  /// A box of block scales in shared memory, and its tensor map's type
  /// (unswizzled f32).
  MemRefType getScaleBoxType(const WgmmaScaleBox &box) const;
  nvgpu::TensorMapDescriptorType
  getScaleTensorMapType(const WgmmaScaleBox &box) const;
  /// A consumer's f32 fragment: wgmma M x its columns over 128 threads.
  LLVM::LLVMStructType getFragmentType() const;
  /// A consumer's f32 sums: a fragment per wave, in turn (the fragment's
  /// type where the tile has one wave).
  LLVM::LLVMStructType getAccumulatorType() const;
  /// Wave `wave`'s fragment of `accumulator` (getAccumulatorType).
  Value getWave(ImplicitLocOpBuilder &b, Value accumulator, int64_t wave) const;
  /// Consumer `consumer`'s part of the tile: its first row and column
  /// there (the column null where the consumers split rows only).
  Value getConsumerRow(ImplicitLocOpBuilder &b, Value consumer) const;
  Value getConsumerColumn(ImplicitLocOpBuilder &b, Value consumer) const;
  /// The rows of A's tile (its loaded rows) and of B's tile that one
  /// block of a cluster loads (all of them where the cluster does not
  /// share the operand).
  int64_t getAPartRows() const {
    return tiling().aLoadRows / tiling().clusterColumns;
  }
  int64_t getBPartRows() const {
    return tiling().tileN / tiling().clusterRows;
  }
};

/// The kernel's arguments, as values of its body (null where absent).
struct KernelArguments {
  Value tensorMapA, tensorMapB, aScales, bScales, bias, destination,
      outScales;
  /// Grouped: each row's group.
  Value groupLayout;
  /// D's rows (index): a constant, or for a run-time M D's extent.
  Value rows;
  /// D's tensor map (staged epilogues).
  Value tensorMapD;
  /// The block scales' tensor maps where TMA copies them into the ring
  /// (WgmmaTiling's scale boxes), else null.
  Value tensorMapAScales, tensorMapBScales;
  /// Split schedules: the workspace's and the arrival counters' global
  /// addresses (i64). Dynamic schedules: the counters' (the tickets drawn,
  /// the blocks done).
  Value workspaceAddress, countersAddress;
};

/// The indices of loadScale's element.
SmallVector<Value, 3> getScaleIndices(ImplicitLocOpBuilder &b,
                                      ScaleEncodingAttr encoding, int64_t rows,
                                      int64_t k, Value row, Value kIndex,
                                      Value group = Value());
/// The scale of operand `scales` (`encoding`, `rows` rows, K extent `k`)
/// for row `row` and K index `kIndex` (index values), as f32; of group
/// `group`'s matrix where the scales have a leading group dimension.
Value loadScale(ImplicitLocOpBuilder &b, Value scales,
                ScaleEncodingAttr encoding, int64_t rows, int64_t k,
                Value row, Value kIndex, Value group = Value());

/// A's scale (per row or per block, not per tensor) of row `row` of A as
/// the kernel reads it and K index `kIndex`, as f32. A masked matmul's
/// MN-major scales [G, K blocks, Mmax] are read through their collapsed
/// [G K blocks, Mmax] view: row g Mmax + r's is at (g K blocks + K block, r)
/// (`group`: the row's group, needed there only).
Value loadAScale(ImplicitLocOpBuilder &b, const KernelSpec &spec, Value scales,
                 Value row, Value kIndex, Value group);

/// A masked matmul's group `group` (index): its valid rows, its count in
/// `groupLayout` clamped into [0, Mmax] (index).
Value loadMaskedGroupRows(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                          Value groupLayout, Value group);

/// The block's dynamic shared memory, laid out as WgmmaSharedLayout says.
class SharedMemory {
public:
  /// Aligns the ring's start in the block's dynamic shared memory.
  SharedMemory(ImplicitLocOpBuilder &b, const KernelSpec &spec);

  /// The ring's start (i64 shared-memory address).
  Value getRingAddress() const { return ringAddress; }
  /// The 32-bit address `offset` bytes after the ring's start.
  Value getAddress(ImplicitLocOpBuilder &b, Value offset) const;
  Value getAddress(ImplicitLocOpBuilder &b, int64_t offset) const {
    return getAddress(b, constant(b, offset));
  }
  /// This block's part of A's tile and of B's in stage `stage` (the whole
  /// tile where the cluster does not share the operand; else rows of
  /// whole swizzle atoms, so the parts of a cluster's blocks make up the
  /// tile TMA would write in one copy).
  Value getATile(ImplicitLocOpBuilder &b, Value stage, Value clusterRank) const;
  Value getBTile(ImplicitLocOpBuilder &b, Value stage,
                 Value clusterRank) const;
  /// Stage `stage`'s box of block scales `box` as a view for TMA.
  Value getScaleBox(ImplicitLocOpBuilder &b, Value stage,
                    const WgmmaScaleBox &box) const;
  /// The 32-bit address of element `index` of stage `stage`'s box `box`.
  Value getScaleAddress(ImplicitLocOpBuilder &b, Value stage,
                        const WgmmaScaleBox &box, Value index) const;
  /// Consumer `consumer`'s staging box `box` as a shared-memory view.
  Value getStagingBox(ImplicitLocOpBuilder &b, Value consumer,
                      int64_t box) const;
  /// A masked matmul's item table (WgmmaSharedLayout::groupTable) as a
  /// view of its i32 entries.
  Value getGroupTable(ImplicitLocOpBuilder &b) const;

private:
  Value getView(ImplicitLocOpBuilder &b, Value bytes, MemRefType type) const;
  /// Cluster rank `clusterRank`'s part (`partRows` of `tileRows` rows) of
  /// the operand tile at `tileOffset` bytes from stage `stage`'s start.
  Value getTilePart(ImplicitLocOpBuilder &b, Value stage, int64_t tileOffset,
                    int64_t tileRows, int64_t partRows, Type element,
                    Value clusterRank) const;

  const KernelSpec &spec;
  /// The allocation (i8, dynamic) and the bytes before the ring's start.
  Value shared, padding;
  Value ringAddress;
};

/// Where an iteration of the ring is: ring iterations count K tiles on
/// across the tiles a block computes; iteration i uses stage i mod stages
/// in phase (i / stages) mod 2 of the stage's barriers.
struct RingState {
  Value iteration, stage, phase;
  /// The state of iteration `iteration` (index).
  static RingState at(ImplicitLocOpBuilder &b, Value iteration,
                      int64_t stages);
  /// The state `count` (index) iterations later.
  RingState advance(ImplicitLocOpBuilder &b, Value count,
                    int64_t stages) const;
};

struct WorkTile;

/// The ring's barriers: a `full` mbarrier per stage (the producer's
/// arrival with the stage's byte count; TMA completes it) and an `empty`
/// one (one arrival per consumer warp of each block of the cluster).
class RingPipeline {
public:
  /// Creates the `full` barriers' group (initialized by initialize()).
  RingPipeline(ImplicitLocOpBuilder &b, const KernelSpec &spec,
               const SharedMemory &shared);

  /// Initializes both arrays (one thread).
  void initialize(ImplicitLocOpBuilder &b) const;
  RingState getState(ImplicitLocOpBuilder &b, Value iteration) const {
    return RingState::at(b, iteration, spec.tiling().stages);
  }
  /// The state of work item `tile`'s K tile `kt` (index): the ring's
  /// iteration tile.firstIteration + kt, for the producer and the
  /// consumers alike.
  RingState getKTileState(ImplicitLocOpBuilder &b, const WorkTile &tile,
                          Value kt) const;
  /// The producer: waits until `state`'s stage is free (its previous
  /// round released; the first round finds every stage free).
  void waitEmpty(ImplicitLocOpBuilder &b, const RingState &state) const;
  /// The producer arms `stage`'s `full` barrier with `bytes` (index) the
  /// copies will bring.
  void arriveFull(ImplicitLocOpBuilder &b, Value stage, Value bytes) const;
  /// The `full` barriers, which the TMA copies complete on.
  Value getFullBarriers() const { return fullBarriers; }

  /// A consumer: waits until `state`'s stage is full.
  void waitFull(ImplicitLocOpBuilder &b, const RingState &state) const;
  /// A consumer: whether `state`'s stage is full (i1), without waiting; a
  /// true verdict orders the stage's contents as waitFull does.
  Value isFull(ImplicitLocOpBuilder &b, const RingState &state) const;
  /// A consumer warp (one lane) releases `stage` in each block of the
  /// cluster.
  void releaseEmpty(ImplicitLocOpBuilder &b, Value stage) const;

private:
  Value getEmptyBarrierAddress(ImplicitLocOpBuilder &b, Value stage) const;

  const KernelSpec &spec;
  const SharedMemory &shared;
  Value fullBarriers;
};

/// One work item of a block's persistent loop.
struct WorkTile {
  /// The item (dynamic schedules) and how many the block took before it.
  Value item, taken;
  /// The tile's first output row and column.
  Value blockRow, blockColumn;
  /// Grouped: the group of the tile's rows (index). Contiguous: that of
  /// its first row, 0 for a tile of padding rows (whose outputs are not
  /// stored); masked: the group whose valid rows it covers.
  Value group;
  /// Contiguous grouped: whether the tile holds padding rows only (i1).
  Value isPadding;
  /// The ring iteration of the item's first K tile.
  Value firstIteration;
  /// The item's first K tile and its count (a Stream-K part's, else 0 and
  /// the K tiles of a tile).
  Value kBegin, kTiles;
  /// Split schedules: whether the item is a part (i1), and its index among
  /// the parts (item - wholeUnits; valid in a part).
  Value isPart, partItem;
  /// Static schedules: whether the block computes another item after this
  /// one (i1), and where the schedule skips tiles of padding, that item.
  Value hasNext, nextItem;
};

/// Where TMA copies an operand's K tile block scales for a tile
/// (WgmmaScaleBox): the box's coordinates, innermost first, and the
/// element of the box that holds the scale of the tile's first row.
struct ScaleBoxPlace {
  SmallVector<Value, 2> coordinates;
  Value element;
};
/// `box`'s place for the K tile from K element `kIndex` of `tile`'s rows
/// of A (`isA`) or its columns of B (their first row block: a grouped
/// matmul's B scales are [G N blocks, K blocks]).
ScaleBoxPlace getScaleBoxPlace(ImplicitLocOpBuilder &b,
                               const KernelSpec &spec, const WorkTile &tile,
                               const WgmmaScaleBox &box, bool isA,
                               Value kIndex);

/// The persistent blocks' loop over their work items (TileSchedule):
/// units of a cluster's tiles (`clusterRows` of one column, or
/// `clusterColumns` of one row), in raster groups of `raster-rows` tile
/// rows walked unit column by unit column; a block takes its
/// rank's tile of a unit. A grouped matmul's tile takes its group from its
/// first row (both roles read it).
class TileScheduler {
public:
  using Body = llvm::function_ref<SmallVector<Value>(
      ImplicitLocOpBuilder &, const WorkTile &, ValueRange)>;

  /// `groupLayout`: a grouped matmul's group layout (null for a matmul);
  /// `rows`: D's rows (KernelArguments::rows); `groupTable`: a masked
  /// matmul's item table (SharedMemory::getGroupTable; null otherwise).
  TileScheduler(const KernelSpec &spec, Value clusterRank, Value groupLayout,
                Value rows, Value groupTable)
      : spec(spec), clusterRank(clusterRank), groupLayout(groupLayout),
        rows(rows), groupTable(groupTable) {}

  /// A masked matmul's item table: entry g holds the items (tiles of valid
  /// rows) of the groups before g, entry G all of them. Filled by the
  /// block's threads (`threadId` of `threads`) before the block's barrier,
  /// so that an item's group is a search of G + 1 entries, not a walk over
  /// the counts per tile.
  void fillGroupTable(ImplicitLocOpBuilder &b, Value threadId,
                      int64_t threads) const;

  /// A static schedule's loop: item = cluster, cluster + clusters, ...
  /// below `itemCount` (getItemCount's where null), past the tiles of
  /// padding rows where it skips them (skipsPadding). `body` gets the
  /// loop-carried values (`initial` at first) and returns the next ones.
  /// `firstItem`: getFirstItem's, where already found.
  void buildLoop(ImplicitLocOpBuilder &b, ValueRange initial, Body body,
                 Value itemCount = Value(), Value firstItem = Value()) const;
  /// Whether a static schedule skips the tiles whose rows are all padding
  /// (a contiguous grouped matmul's rows of group -1, as DeepGEMM's
  /// scheduler does): the producer loads nothing for them and the
  /// consumers compute nothing, so the ring's iterations count the other
  /// tiles' K tiles only. (A dynamic schedule's tickets are not skipped.)
  bool skipsPadding() const;
  /// The block's first item (the first after the padding it skips), which
  /// may be past the items where a block has none.
  Value getFirstItem(ImplicitLocOpBuilder &b, Value itemCount) const;
  /// The work items: the plan's, a masked matmul's tiles of its groups'
  /// valid rows (counted from `groupLayout`), or for a run-time M the tiles
  /// of its rows.
  Value getItemCount(ImplicitLocOpBuilder &b) const;
  /// A dynamic schedule's loop: from item = the block's index while item <
  /// items. `body` returns the next item, then the next carried values.
  /// Returns the item that ended the loop, the items the block took, then
  /// the carried values.
  SmallVector<Value> buildDynamicLoop(ImplicitLocOpBuilder &b,
                                      ValueRange initial, Body body) const;
  /// The block's first item, as the loop will hand it to the body (but
  /// hasNext), for work done ahead of the loop (`firstItem`:
  /// getFirstItem's, where already found).
  WorkTile getFirstTile(ImplicitLocOpBuilder &b,
                        Value firstItem = Value()) const;
  /// The block's item after `tile` (but hasNext): a static schedule's next
  /// one, or for a dynamic schedule the item `nextItem` it drew.
  WorkTile getNextTile(ImplicitLocOpBuilder &b, const WorkTile &tile,
                       Value nextItem = Value()) const;

private:
  /// Item `item`, the block's `taken`-th: its coordinates, its K tiles
  /// (a Stream-K part's) and their first ring iteration.
  WorkTile getTile(ImplicitLocOpBuilder &b, Value item, Value taken) const;
  /// `blocks` (a block's index or the grid's blocks) counted in clusters:
  /// a static schedule's first item and stride.
  Value inClusters(ImplicitLocOpBuilder &b, Value blocks) const;
  /// `item`, or where it is a tile of padding rows (skipsPadding) the
  /// first of item + stride, item + 2 stride, ... that is not, or the
  /// first at or past `itemCount`.
  Value skipPaddingTiles(ImplicitLocOpBuilder &b, Value item, Value stride,
                         Value itemCount) const;
  /// The next item and the next carried values of an item loop's step.
  using ItemStepResult = std::pair<Value, SmallVector<Value>>;
  using ItemStep = llvm::function_ref<ItemStepResult(ImplicitLocOpBuilder &,
                                                     WorkTile &, ValueRange)>;
  /// An scf.while over a block's items from `firstItem` while below
  /// `itemCount`, carrying the item, the items taken and `initial`: `step`
  /// gets the item's tile and the carried values. Returns the loop's
  /// results (the item that ended it, the items taken, the values).
  SmallVector<Value> buildItemLoop(ImplicitLocOpBuilder &b, Value firstItem,
                                   Value itemCount, ValueRange initial,
                                   ItemStep step) const;
  /// buildLoop where it skips tiles of padding (buildItemLoop).
  void buildSkippingLoop(ImplicitLocOpBuilder &b, ValueRange initial, Body body,
                         Value itemCount, Value clusters,
                         Value firstItem) const;
  /// Sets `tile`'s coordinates (and group) for unit `unit` in the raster
  /// order.
  void setCoordinates(ImplicitLocOpBuilder &b, Value unit,
                      WorkTile &tile) const;
  /// A masked matmul's: item `item` of the groups' valid tiles, group by
  /// group, each group's tile rows first (B's tile stays in L2).
  void setMaskedCoordinates(ImplicitLocOpBuilder &b, Value item,
                            WorkTile &tile) const;
  /// A masked matmul's group `group`: the tile rows of its valid rows
  /// (loadMaskedGroupRows), an index value.
  Value getMaskedGroupTileRows(ImplicitLocOpBuilder &b, Value group) const;

  /// Units of tiles along M: the plan's, or for a run-time M its tile rows.
  Value getUnitRows(ImplicitLocOpBuilder &b) const;

  /// Entry `index` of the item table (index values in and out).
  Value loadGroupTable(ImplicitLocOpBuilder &b, Value index) const;

  const KernelSpec &spec;
  Value clusterRank, groupLayout, rows, groupTable;
};

/// A dynamic schedule's shared state (the ticket queue's two mbarriers and
/// slot, an item slot per stage) and its global counters.
class TicketQueue {
public:
  TicketQueue(const KernelSpec &spec, const SharedMemory &shared,
              const KernelArguments &arguments)
      : spec(spec), shared(shared), arguments(arguments) {}

  /// Initializes the queue's barriers (one thread).
  void initialize(ImplicitLocOpBuilder &b) const;
  /// The ticket drawer's loop (a thread of the producer warpgroup's
  /// second warp): draws the block's items after its first one ahead of
  /// the producer, then counts the block done; the last block resets the
  /// counters.
  void buildDrawer(ImplicitLocOpBuilder &b) const;
  /// The producer's item after its `taken`-th (index) from the queue.
  Value takeNextItem(ImplicitLocOpBuilder &b, Value taken) const;
  /// The producer tells the consumers stage `stage`'s item.
  void publishItem(ImplicitLocOpBuilder &b, Value stage, Value item) const;
  /// A consumer's read of stage `stage`'s item (index), after its wait.
  Value readItem(ImplicitLocOpBuilder &b, Value stage) const;

private:
  /// The queue's `full` (0) or `empty` (1) mbarrier, and its slot.
  Value getBarrierAddress(ImplicitLocOpBuilder &b, int64_t which) const;
  Value getSlotAddress(ImplicitLocOpBuilder &b) const;
  Value getItemSlotAddress(ImplicitLocOpBuilder &b, Value stage) const;

  const KernelSpec &spec;
  const SharedMemory &shared;
  const KernelArguments &arguments;
};

/// Block scales checked ahead (WgmmaScaleCheck.cpp): with block scales on
/// both operands, each K tile's promotion tests whether its products
/// sa x sb are normal f32 (Mainloop::promote), a branch that costs 3-10% on
/// an H200. Once per launch, the producer warpgroup's idle warps (all but
/// the TMA thread's) of every block check a share of both operands' scales
/// for the sufficient condition that each is zero or of magnitude 2^-62 ..
/// 2^63, and count in global counters (zero at the launch, left at zero by
/// the grid's last block): the blocks that found one out of that range,
/// then the blocks done. The consumers promote their block's tiles after
/// its first without the test once every block is done and none found one.
class ScaleCheck {
public:
  /// Warps of the producer warpgroup that check (1, 2, 3).
  static constexpr int64_t kWarps = 3;
  /// The consumers' verdict so far: the checks not all done yet, every
  /// scale in range, or not.
  enum Verdict : int32_t { Unknown = 0, InRange = 1, OutOfRange = 2 };

  ScaleCheck(const KernelSpec &spec, const KernelArguments &arguments)
      : spec(spec), arguments(arguments) {}

  /// Checking warp `checker` (index, from 0), lane `lane`: its share of the
  /// scales, then its counts.
  void buildChecker(ImplicitLocOpBuilder &b, Value checker, Value lane) const;
  /// A consumer thread: the Verdict (i32) from the counters, the same in
  /// every thread meeting at named barrier `barrierId` (i32) with it.
  Value poll(ImplicitLocOpBuilder &b, Value barrierId) const;
  /// One thread of a block whose checks and polls are over: counts the
  /// block done; the grid's last resets the counters for the next launch.
  void buildReset(ImplicitLocOpBuilder &b) const;

private:
  /// Element e (index) of a share's elements: its indices in the memref.
  using ElementIndices = llvm::function_ref<SmallVector<Value, 3>(
      ImplicitLocOpBuilder &, Value)>;
  /// `inRange` and whether every element of `scales` (a memref) that
  /// global checking thread `thread` of `threads` covers is in range (i1).
  Value checkShare(ImplicitLocOpBuilder &b, Value scales, Value thread,
                   Value threads, Value inRange) const;
  /// A masked matmul's A scales of its groups' valid rows: as checkShare,
  /// checking thread `blockThread` of block `block`'s `perBlock`.
  Value checkValidRowShare(ImplicitLocOpBuilder &b, Value block,
                           Value blockThread, Value perBlock,
                           Value inRange) const;
  /// `inRange` and whether elements `thread`, `thread` + `threads`, ...
  /// (below `elements`) of `scales` are in range (i1), `inFlight` loads a
  /// lane before it tests them.
  Value checkElements(ImplicitLocOpBuilder &b, Value scales, Value elements,
                      Value thread, Value threads, Value inRange,
                      int64_t inFlight, ElementIndices indicesOf) const;
  Value getCounterAddress(ImplicitLocOpBuilder &b, int64_t index) const;

  const KernelSpec &spec;
  const KernelArguments &arguments;
};

/// The producer warpgroup's issuing thread: for each work item's K tiles,
/// a free stage, then A's and B's tiles copied into it with TMA.
class Producer {
public:
  Producer(const KernelSpec &spec, const KernelArguments &arguments,
           const SharedMemory &shared, const RingPipeline &ring,
           const TileScheduler &scheduler, const TicketQueue *queue,
           Value clusterRank)
      : spec(spec), arguments(arguments), shared(shared), ring(ring),
        scheduler(scheduler), queue(queue), clusterRank(clusterRank) {}

  /// The producer's persistent loop.
  void build(ImplicitLocOpBuilder &b) const;

private:
  /// The K loop of one work item.
  void buildItem(ImplicitLocOpBuilder &b, const WorkTile &tile) const;
  /// The K tile at `kOffset` (its first K element): its boxes of block
  /// scales copied into stage `stage`, where the plan has them.
  void loadScaleBoxes(ImplicitLocOpBuilder &b, const WorkTile &tile,
                      Value stage, Value kOffset) const;
  /// This block's part `part` (getATile, getBTile) of an operand's tile
  /// from row `firstRow` of `tensorMap` at `kOffset` into stage `stage`:
  /// the rank's `partRows` rows, multicast to the cluster's blocks where
  /// `sharers` (its blocks that share the tile) exceed 1.
  void loadTilePart(ImplicitLocOpBuilder &b, Value part, Value tensorMap,
                    Value kOffset, Value firstRow, int64_t partRows,
                    int64_t sharers, Value stage) const;
  /// After a dynamic schedule's last item: the consumers told the end.
  void finishDynamic(ImplicitLocOpBuilder &b, Value endItem,
                     Value takenItems) const;

  const KernelSpec &spec;
  const KernelArguments &arguments;
  const SharedMemory &shared;
  const RingPipeline &ring;
  const TileScheduler &scheduler;
  const TicketQueue *queue;
  Value clusterRank;
};

/// A consumer warpgroup's persistent loop over its block's work items
/// (WgmmaConsumer.cpp): each item's K tiles (Mainloop), the next item's K
/// tile 0 issued before the item's epilogue (Epilogue), a Stream-K part's
/// reduction, and the scale check's verdict asked for.
class Consumer {
public:
  /// The kernel's parts the consumers drive or read.
  struct Parts {
    const KernelSpec &spec;
    const KernelArguments &arguments;
    const SharedMemory &shared;
    const RingPipeline &ring;
    const TileScheduler &scheduler;
    const TicketQueue *queue;
    const ScaleCheck *scaleCheck;
  };

  explicit Consumer(const Parts &parts) : parts(parts) {}

  /// Consumer warpgroup `consumer`'s tile loop.
  void build(ImplicitLocOpBuilder &b, Value consumer) const;

private:
  Parts parts;
};

/// A consumer warpgroup's thread: its warpgroup's index among the
/// consumers, its warp and lane.
struct ConsumerThread {
  Value consumer, warp, lane;
  /// The warpgroup's first thread (i1), which issues its TMA stores and
  /// Stream-K arrivals.
  Value isFirst;
  static ConsumerThread create(ImplicitLocOpBuilder &b,
                               const KernelSpec &spec, Value consumer);
  /// The first row and the first column of D in the consumer's part of
  /// `tile` (KernelSpec::getConsumerRow / getConsumerColumn from the
  /// tile's origin).
  Value getOriginRow(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                     const WorkTile &tile) const;
  Value getOriginColumn(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                        const WorkTile &tile) const;
  /// The thread's output rows of `tile`, two per wave (wave by wave), and
  /// its first column there (add groupColumns x group for column group
  /// `group`), from the accumulator layout of the intrinsic table's wgmma
  /// row.
  std::pair<SmallVector<Value, 4>, Value>
  getPosition(ImplicitLocOpBuilder &b, const KernelSpec &spec,
              const WorkTile &tile) const;
  /// The warpgroup meets at its named barrier.
  void sync(ImplicitLocOpBuilder &b, const KernelSpec &spec) const;
  /// Every consumer warpgroup of the block meets at the consumers' named
  /// barrier (the producer does not take part).
  static void syncConsumers(ImplicitLocOpBuilder &b, const KernelSpec &spec);
};

/// A consumer warpgroup's K tiles of a work item.
class Mainloop {
public:
  /// A K tile's block scales as loaded: B's for each chunk of the
  /// consumer's columns (WgmmaPlan::bScaleColumns; one where a block holds
  /// the tile) and A's for each of the thread's rows, wave by wave (each
  /// empty where that operand is not block-scaled).
  struct KTileScales {
    SmallVector<Value, 1> b;
    SmallVector<Value, 2> a;
    /// Both: whether every scale was found in range ahead (ScaleCheck),
    /// so that every product sa x sb is exact and the promotion tests none.
    bool productsChecked = false;
    /// The loaded scales in order (B's, then A's), and the same scales
    /// with `values` (as flatten() ordered them) in their place.
    SmallVector<Value> flatten() const {
      SmallVector<Value> values(b.begin(), b.end());
      llvm::append_range(values, a);
      return values;
    }
    KTileScales withValues(ValueRange values) const {
      KTileScales scales = *this;
      for (Value &scale : llvm::concat<Value>(scales.b, scales.a)) {
        scale = values.front();
        values = values.drop_front();
      }
      return scales;
    }
  };
  /// A K tile whose wgmma group was issued: its fragment, its ring stage
  /// and its block scales.
  struct IssuedKTile {
    Value fragment, stage;
    KTileScales scales;
  };

  Mainloop(const KernelSpec &spec, const KernelArguments &arguments,
           const SharedMemory &shared, const RingPipeline &ring,
           const ConsumerThread &thread)
      : spec(spec), arguments(arguments), shared(shared), ring(ring),
        thread(thread) {}

  /// Waits for `state`'s stage and issues its wgmma steps into the
  /// registers of `spare` (a fragment already promoted). With
  /// `accumulate`, the steps add to the fragment's sums (which a group in
  /// flight may still be writing) instead of starting anew.
  IssuedKTile issue(ImplicitLocOpBuilder &b, const RingState &state,
                    Value spare, bool accumulate = false) const;
  /// issue() on stage `stage`, which the caller waited for: of the
  /// consumer's wave `wave` (its rows of A from wave x wgmma M on).
  IssuedKTile issueOnStage(ImplicitLocOpBuilder &b, Value stage, Value spare,
                           bool accumulate = false, int64_t wave = 0) const;
  /// A work item's K tiles after its K tile 0, whose group (`fragment`) is
  /// in flight: returns the item's f32 sums (before the epilogue's scales)
  /// and the spare fragment. `productsChecked` (i1, or null): the item's
  /// verdict from ScaleCheck, true where its block scales are all in range;
  /// the K loop is then built twice, with and without the promotions'
  /// test.
  /// `firstScales`: K tile 0's block scales from global memory, loaded
  /// ahead (loadGlobalScales); null where build loads them.
  std::pair<Value, Value> build(ImplicitLocOpBuilder &b, const WorkTile &tile,
                                ArrayRef<Value> rows, Value fragment,
                                Value productsChecked = Value(),
                                const KTileScales *firstScales = nullptr) const;
  /// Whether the consumers load block scales from global memory each K
  /// tile (those TMA does not copy into the ring).
  bool loadsGlobalScales() const;
  /// K tile `kt`'s block scales from global memory for `tile`'s rows
  /// `rows` (ConsumerThread::getPosition): the tile loop loads the next
  /// tile's first ahead of the epilogue, whose stores hide the latency
  /// that would otherwise stall the tile's first promotion.
  KTileScales loadGlobalScales(ImplicitLocOpBuilder &b, const WorkTile &tile,
                               ArrayRef<Value> rows, Value kt) const;
  /// The values of loadGlobalScales' scales, flattened (B's, then one per
  /// row of the thread), and those values back as scales.
  int64_t getGlobalScaleCount() const;
  KTileScales unflattenGlobalScales(ValueRange values) const;

private:
  /// Whether A's and B's block scales (each) are loaded from global memory
  /// each K tile rather than copied into the ring by TMA.
  std::pair<bool, bool> getGlobalScaleOperands() const;
  /// Loads K tile `kt`'s block scales for `rows` into `scales` (nothing
  /// without block scales): with `fromStage`, those TMA copied into the
  /// K tile's stage (after the wait for it), else the others, from global
  /// memory.
  void loadScales(ImplicitLocOpBuilder &b, const WorkTile &tile,
                  ArrayRef<Value> rows, Value kt, bool fromStage,
                  KTileScales &scales) const;
  /// With `tile`'s group (wave 0's) in flight: waits for it, then issues
  /// and waits for the other waves' in turn, releases its stage and
  /// returns `accumulator` plus each wave's scaled fragment;
  /// `tile.fragment` becomes the pinned fragment, for the next K tile.
  /// `whileLastInFlight` (if any) builds what runs while the last wave's
  /// group is in flight, before the wait for it.
  Value retire(ImplicitLocOpBuilder &b, IssuedKTile &tile, Value accumulator,
               llvm::function_ref<void(ImplicitLocOpBuilder &)>
                   whileLastInFlight = {}) const;
  /// After K tile kt - 1's promotion: waits for K tile `kt`'s stage unless
  /// `full` (i1: a test of it while kt - 1's group was in flight) or there
  /// is no such K tile (`hasNext`, i1; null where there is).
  void waitUnlessFull(ImplicitLocOpBuilder &b, const WorkTile &tile, Value kt,
                      Value full, Value hasNext) const;
  /// One lane per warp releases `stage` (after a wait for the groups that
  /// read it: wait_group is warp-wide).
  void releaseStage(ImplicitLocOpBuilder &b, Value stage) const;
  /// `accumulator` plus `tile`'s fragment (wave `wave`'s) times its block
  /// scales (if any) in the wave's part, pinned; `tile.fragment` becomes
  /// the pinned fragment.
  Value promote(ImplicitLocOpBuilder &b, IssuedKTile &tile, Value accumulator,
                int64_t wave = 0) const;
  /// Block scales: one wgmma group at a time, each promoted.
  std::pair<Value, Value> buildPerKTile(ImplicitLocOpBuilder &b,
                                        const WorkTile &tile,
                                        ArrayRef<Value> rows, Value fragment,
                                        bool productsChecked,
                                        const KTileScales *firstScales) const;
  /// Epilogue-applied scales: wgmma sums `promotionKTiles` K tiles into
  /// the fragment before each promotion.
  std::pair<Value, Value> buildDeferred(ImplicitLocOpBuilder &b,
                                        const WorkTile &tile,
                                        Value fragment) const;
  /// The shared-memory matrix descriptor of a K-major tile at byte address
  /// `address` (i64) in 128B-swizzled rows.
  Value buildDescriptor(ImplicitLocOpBuilder &b, Value address) const;

  const KernelSpec &spec;
  const KernelArguments &arguments;
  const SharedMemory &shared;
  const RingPipeline &ring;
  const ConsumerThread &thread;
};

/// A Stream-K part's end, in `thread`'s warpgroup: its sums `accumulator`
/// stored to its workspace slot, its arrival counted; the last part of the
/// tile to arrive adds all the slots in order and resets the counter.
/// Returns whether this warpgroup runs the tile's epilogue (i1) and the
/// tile's sums there.
std::pair<Value, Value> reduceStreamKPart(ImplicitLocOpBuilder &b,
                                          const KernelSpec &spec,
                                          const KernelArguments &arguments,
                                          const ConsumerThread &thread,
                                          const WorkTile &tile,
                                          Value accumulator);

/// The same end where a tile's two parts run as a cluster of two blocks
/// (WgmmaPlan::reducesInCluster), cluster rank p computing part p:
/// consumer c's sums meet in block c (its owner), which adds the other
/// part's to its own and runs that consumer's epilogue; the other block
/// sends its sums into the owner's ring with st.async once the owner's K
/// loops are done. Returns what reduceStreamKPart does.
std::pair<Value, Value> reduceStreamKPartInCluster(
    ImplicitLocOpBuilder &b, const KernelSpec &spec, const SharedMemory &shared,
    const ConsumerThread &thread, const WorkTile &tile, Value accumulator);
/// Initializes a cluster reduction's mbarriers (one thread).
void initializeClusterReduction(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                                const SharedMemory &shared);

/// A consumer warpgroup's output tiles: scales, C, bias, activation and
/// the rounding to D's type, or an FP8 output's quantization; staged and
/// stored with TMA, or stored from registers.
class Epilogue {
public:
  /// Loads what does not change from tile to tile (per-tensor scales).
  Epilogue(ImplicitLocOpBuilder &b, const KernelSpec &spec,
           const KernelArguments &arguments, const SharedMemory &shared,
           const ConsumerThread &thread);

  /// Tile `tile`'s outputs from the f32 sums `accumulator` (one wave's
  /// fragment: a tile of waves is stored a wave at a time, `tile` moved
  /// down by the wave's rows); the thread's two rows there and its first
  /// column, as ConsumerThread::getPosition gives them.
  void build(ImplicitLocOpBuilder &b, const WorkTile &tile, Value accumulator,
             ArrayRef<Value> rows, Value laneColumn) const;
  /// After the last tile: the TMA stores done reading the staging buffers.
  void finish(ImplicitLocOpBuilder &b) const;

private:
  /// The 32-bit shared address of the thread's first staged byte (its
  /// first row, group 0), swizzled as TMA reads the staging buffer;
  /// computed once per tile, the pointers below are it XOR and plus
  /// constants.
  Value getStagingBase(ImplicitLocOpBuilder &b) const;
  /// The shared-memory pointer where the thread's pair of 8-column group
  /// `group` in row `half` is staged: the accumulator layout's columns,
  /// 16-byte chunks swizzled by the row as TMA reads them.
  Value getStagingPointer(ImplicitLocOpBuilder &b, Value base, int64_t group,
                          int64_t half) const;
  /// Before the warpgroup writes its staging buffer: the TMA stores of its
  /// previous tile have read it.
  void beginStaging(ImplicitLocOpBuilder &b) const;
  /// After it: the writes made visible to TMA (the async proxy), then one
  /// thread stores the boxes into D and commits them as a bulk group.
  void storeStagedTile(ImplicitLocOpBuilder &b, const WorkTile &tile) const;
  /// FP8 outputs: the thread's f32 results quantized per block of C
  /// columns by qmm.quantize's rule, the codes stored in pairs and each
  /// row's block scales by the row's first lane, in the rows written
  /// (getRowsWritten). `resultsAt(group, half)` builds the f32 results of 8-column group `group` in row `rows[half]`
  /// (the thread's two columns there).
  void storeQuantized(
      ImplicitLocOpBuilder &b, const WorkTile &tile,
      llvm::function_ref<std::array<Value, 2>(int64_t, int64_t)> resultsAt,
      ArrayRef<Value> rows, ArrayRef<Value> rowsWritten, Value laneColumn,
      bool staged) const;
  /// The tile's outputs, staged and stored with TMA or stored from
  /// registers in `rowsWritten` (build's choice).
  void buildStores(ImplicitLocOpBuilder &b, const WorkTile &tile,
                   Value accumulator, ArrayRef<Value> rows,
                   ArrayRef<Value> rowsWritten, Value laneColumn,
                   bool staged) const;
  /// A grouped matmul: whether `tile` writes every row of the consumer's
  /// part (i1).
  Value isPartWritten(ImplicitLocOpBuilder &b, const WorkTile &tile) const;
  /// Whether `tile` writes the thread's rows `rows` (i1 each; null where
  /// always): rows inside D, and in a grouped matmul not padding (masked:
  /// below the group's count).
  std::array<Value, 2> getRowsWritten(ImplicitLocOpBuilder &b,
                                      const WorkTile &tile,
                                      ArrayRef<Value> rows) const;

  const KernelSpec &spec;
  const KernelArguments &arguments;
  const SharedMemory &shared;
  const ConsumerThread &thread;
  /// A's and B's per-tensor scales, each null where the operand's scales
  /// are not per-tensor (B's also in a grouped matmul: loaded per tile).
  Value tensorScaleA, tensorScaleB;
  /// D as a global pointer where pairs of elements are stored at once, or
  /// null (odd N, or staged).
  Value destinationPointer;
};

} // namespace wgmma
} // namespace qmm
} // namespace mlir

#endif // QMM_LIB_CONVERSION_NVVM_WGMMAKERNEL_H
