//===- WgmmaKernelBuilder.h - the wgmma kernel of one matmul ----*- C++ -*-===//
//
// Shared by the files of qmm-lower-matmul-to-wgmma, in the kernel's order:
// LowerMatmulToWgmma.cpp (the pass, the kernel's set-up and roles, the
// consumers' tile loop body, the launch), WgmmaTileSchedule.cpp (the
// persistent blocks' work items and their loop), WgmmaProducer.cpp (the
// TMA producer and the `empty` barriers), WgmmaTicketDrawer.cpp (a
// dynamic schedule's tickets and shared state), WgmmaKLoop.cpp (a consumer's
// K tiles: wgmma groups, waits, promotion), WgmmaStreamK.cpp (the split
// last round's reduction) and WgmmaEpilogue.cpp (the epilogue).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_NVVM_WGMMAKERNELBUILDER_H
#define QMM_LIB_CONVERSION_NVVM_WGMMAKERNELBUILDER_H

#include "qmm/Conversion/NVVM/WgmmaPromotion.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/NvidiaChip.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/MathExtras.h"

#include <functional>

namespace mlir {
namespace qmm {
namespace wgmma {

/// The kernel's shape, derived from the chip: the K tile is one swizzle row
/// of FP8 elements, each consumer warpgroup owns wgmma M rows.
struct WgmmaTiling {
  int64_t tileM, tileN, tileK, stages, consumers, threads;
  /// Rows of tiles walked together by the persistent blocks (L2 reuse).
  int64_t rasterRows;
  /// Registers per thread after setmaxnreg: the producer's and the
  /// consumers'.
  int64_t producerRegisters, consumerRegisters;
  /// Blocks of a cluster (along M) that share B's tiles through TMA
  /// multicast: a power of two up to 8 (1: no clusters).
  int64_t clusterRows = 1;
  /// Bytes of the consumers' staging buffers for D's tile (0: the epilogue
  /// stores to global memory from registers).
  int64_t stagingBytes = 0;
  /// K tiles wgmma sums between promotions into f32 without block scales.
  int64_t promotionKTiles = kDefaultWgmmaPromotionKTiles;
  /// Whether the ring's tail holds a dynamic schedule's state (after the
  /// `empty` mbarriers): the ticket queue's two mbarriers, a slot per
  /// stage where the producer tells the consumers the work item of the
  /// stage's data, and the ticket queue's slot.
  bool itemSlots = false;
  int64_t stageBytes() const { return (tileM + tileN) * tileK; }
  /// The bytes after the ring: the stages' `empty` mbarriers (8 bytes
  /// each) and a dynamic schedule's state.
  int64_t ringTailBytes() const {
    return stages * 8 + (itemSlots ? 16 + stages * 4 + 4 : 0);
  }
  /// Where the staging buffers start, from the ring's start: after the
  /// ring's tail, at a swizzle atom (8 rows).
  int64_t stagingOffset(const NvidiaChipInfo &chip) const {
    return llvm::alignTo(stages * stageBytes() + ringTailBytes(),
                         8 * chip.swizzleBytes);
  }
  /// The ring, its tail and the staging buffers, plus room to align the
  /// ring's start to a swizzle atom.
  int64_t sharedBytes(const NvidiaChipInfo &chip) const {
    int64_t used = stagingBytes ? stagingOffset(chip) + stagingBytes
                                : stages * stageBytes() + ringTailBytes();
    return used + 8 * chip.swizzleBytes;
  }
};

/// How an operand's scales are applied: once per output element in the
/// epilogue (per-tensor, per-row), or per K tile to the f32 partial sums.
enum class ScaleUse { Epilogue, PerKTile };

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

/// When Stream-K splits a last round (measured on an H100, each shape
/// against itself unsplit: the README's Stream-K section):
/// - parts have at least 8 K tiles, so that the reduction (each part's
///   64 KiB of f32 sums stored, the last part reading all of them) stays
///   below the compute a part moves to an idle block;
constexpr int64_t kMinStreamKPartKTiles = 8;
/// - tiles have at least 32 K tiles: a block's fixed costs (prologue,
///   reduction) outweigh half of a shorter K loop (128x7168x2048, 16 K
///   tiles in 2 parts, measured 25% slower);
constexpr int64_t kMinStreamKTileKTiles = 32;
/// - at most 2 whole rounds come first: after many rounds the blocks
///   drift apart and the last round's idle time is mostly hidden already,
///   so the reduction costs more than it saves (8192^3, 31 rounds,
///   measured 2% slower; 1 round, 23-37% faster).
constexpr int64_t kMaxStreamKRounds = 2;

/// `units` units of `clusterRows` tiles, with `kTiles` K tiles each, on
/// at most `maxBlocks` blocks (one per multiprocessor if 0), which walk
/// them in raster groups `rasterUnits` units high. `dynamic` asks for a
/// dynamic schedule, which unclustered kernels of more than one round
/// whose last round is not split get.
TileSchedule getTileSchedule(int64_t units, int64_t clusterRows,
                             int64_t rasterUnits, int64_t kTiles,
                             const NvidiaChipInfo &chip, bool streamK,
                             int64_t maxBlocks, bool dynamic);

inline ScaleUse getScaleUse(ScaleEncodingAttr encoding) {
  return encoding.getKind() == ScaleKind::Block ? ScaleUse::PerKTile
                                                : ScaleUse::Epilogue;
}

/// Inline PTX without results.
void emitPtx(ImplicitLocOpBuilder &b, StringRef ptx, StringRef constraints,
             ValueRange operands);

/// Builds the kernel of one matmul.
class WgmmaKernelBuilder {
public:
  /// Clusters of `maxClusterRows` blocks where M's tile rows divide by it,
  /// else none.
  WgmmaKernelBuilder(MatmulOp op, const NvidiaChipInfo &chip,
                     const WgmmaTiling &sharedTiling, int64_t maxClusterRows,
                     bool streamK, int64_t maxBlocks, bool dynamicSchedule)
      : op(op), chip(chip), tiling(sharedTiling) {
    auto aType = cast<MemRefType>(op.getA().getType());
    auto bType = cast<MemRefType>(op.getB().getType());
    m = aType.getDimSize(0);
    k = aType.getDimSize(1);
    n = bType.getDimSize(0);
    aElement = aType.getElementType();
    bElement = bType.getElementType();
    tiling.clusterRows =
        llvm::divideCeil(m, tiling.tileM) % maxClusterRows == 0
            ? maxClusterRows
            : 1;
    schedule = getTileSchedule(getUnitCount(), tiling.clusterRows,
                               getRasterUnits(),
                               llvm::divideCeil(k, tiling.tileK), chip,
                               streamK, maxBlocks, dynamicSchedule);
    tiling.itemSlots = schedule.dynamic;
    tiling.stagingBytes = getStagingBytes();
  }

  /// Creates the kernel in a new gpu.module before `func` and replaces the
  /// op by the tensor maps and the launch.
  LogicalResult build(func::FuncOp func, SymbolTable &symbols);

private:
  /// A box of `rows` x `columns` in shared memory (columns: the K tile by
  /// default).
  MemRefType getTileType(int64_t rows, Type element, int64_t columns = 0) {
    return MemRefType::get({rows, columns ? columns : tiling.tileK}, element,
                           AffineMap(),
                           gpu::AddressSpaceAttr::get(
                               op.getContext(), gpu::AddressSpace::Workgroup));
  }
  nvgpu::TensorMapDescriptorType
  getTensorMapType(int64_t rows, Type element, int64_t columns = 0) {
    return nvgpu::TensorMapDescriptorType::get(
        op.getContext(), getTileType(rows, element, columns),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  }
  LLVM::LLVMStructType getFragmentType() {
    SmallVector<Type> fields(tiling.tileN / 2,
                             Float32Type::get(op.getContext()));
    return LLVM::LLVMStructType::getLiteral(op.getContext(), fields);
  }

  void buildKernelBody(ImplicitLocOpBuilder &b, gpu::GPUFuncOp kernel);
  /// The persistent loop over work items: units of `clusterRows` tiles of
  /// one column, item = cluster, cluster + clusters, ..., in groups of
  /// `rasterRows` tile rows walked column by column (a block takes its
  /// rank's tile), then a Stream-K part (TileSchedule). Sets blockRow,
  /// blockColumn, firstIteration, itemKBegin, itemKTiles and (split
  /// schedules) isPart and partItem for `body`.
  /// `body` gets the loop-carried values (`initial` at first) and returns
  /// the next ones. Sets hasNextTile too: whether this block computes
  /// another tile after this one.
  void buildTileLoop(
      ImplicitLocOpBuilder &b, ValueRange initial,
      llvm::function_ref<SmallVector<Value>(ImplicitLocOpBuilder &,
                                            ValueRange)>
          body);
  /// The persistent loop of a dynamic schedule: from item = the block's
  /// index while item < items, setting what buildTileLoop sets except
  /// hasNextTile (and tileItem). `body` gets the loop-carried values and
  /// returns the next item followed by the next carried values. Returns
  /// the loop's results: the item that ended it, the items the block
  /// took, then the carried values.
  SmallVector<Value> buildDynamicTileLoop(
      ImplicitLocOpBuilder &b, ValueRange initial,
      llvm::function_ref<SmallVector<Value>(ImplicitLocOpBuilder &,
                                            ValueRange)>
          body);
  /// Sets blockRow and blockColumn for work unit `unit` in the raster
  /// order (a block takes its rank's tile of the unit).
  void setTileCoordinates(ImplicitLocOpBuilder &b, Value unit);
  /// The units the persistent loop walks: columns of `clusterRows` tiles.
  int64_t getUnitCount() const {
    return llvm::divideCeil(m, tiling.tileM) / tiling.clusterRows *
           llvm::divideCeil(n, tiling.tileN);
  }
  /// The units of a raster group's column (`raster-rows` tile rows).
  int64_t getRasterUnits() const {
    return std::max<int64_t>(1, tiling.rasterRows / tiling.clusterRows);
  }
  /// The producer thread's persistent loop over its work items.
  void buildProducerLoop(ImplicitLocOpBuilder &b);
  /// The producer's K loop of one work item.
  void buildProducer(ImplicitLocOpBuilder &b);
  /// Dynamic schedules (WgmmaTicketDrawer.cpp): the ticket drawer, a
  /// thread of the producer warpgroup's second warp, draws the block's
  /// items after its first from the counter (gridDim + the ticket) one
  /// ahead of the producer, through a one-slot queue, then counts the
  /// block done; the last block resets the counters.
  void buildTicketDrawer(ImplicitLocOpBuilder &b);
  /// The producer's item after its `taken`-th (index) from the queue.
  Value takeNextItem(ImplicitLocOpBuilder &b, Value taken);
  /// After the producer's last item: the consumers told the end
  /// (`endItem`, past the items, in the next stage's slot, the stage's
  /// `full` barrier arrived on without data).
  void finishDynamicProducer(ImplicitLocOpBuilder &b, Value endItem,
                             Value takenItems);
  /// The shared-memory address (32-bit) `offset` bytes after the ring's
  /// stages.
  Value getRingTailAddress(ImplicitLocOpBuilder &b, Value offset);
  /// The shared-memory address (32-bit) of stage `stage`'s item slot.
  Value getItemSlotAddress(ImplicitLocOpBuilder &b, Value stage);
  /// A consumer's read of stage `stage`'s item (index), after its wait.
  Value loadStageItem(ImplicitLocOpBuilder &b, Value stage);
  /// The ticket queue's `full` (0) or `empty` (1) mbarrier, and its slot.
  Value getQueueBarrierAddress(ImplicitLocOpBuilder &b, int64_t which);
  Value getQueueSlotAddress(ImplicitLocOpBuilder &b);
  /// Waits for the phase of parity `parity` (i1) of the mbarrier at
  /// `address` to complete (for a fresh barrier, parity 1 returns at once).
  void waitParity(ImplicitLocOpBuilder &b, Value address, Value parity);
  /// The consumers' values that do not change from tile to tile.
  void prepareConsumer(ImplicitLocOpBuilder &b);
  /// The consumer warpgroup `consumer`'s tile loop.
  void buildConsumer(ImplicitLocOpBuilder &b, Value consumer);
  /// The thread's two output rows (the wgmma accumulator layout) and its
  /// first column in the current tile.
  std::pair<std::array<Value, 2>, Value>
  getThreadPosition(ImplicitLocOpBuilder &b, Value consumer);
  /// A K tile's block scales as loaded: B's for the block's columns and A's
  /// for each of the thread's rows (each null where that operand is not
  /// block-scaled).
  struct KTileScales {
    Value b;
    SmallVector<Value, 2> a;
  };
  /// A K tile whose wgmma group was issued: its fragment, its ring stage
  /// and its block scales.
  struct IssuedKTile {
    Value fragment, stage;
    KTileScales scales;
  };
  /// Loads K tile `kt`'s block scales for `rows` (nothing without block
  /// scales). They are multiplied only at the promotion, after the wait
  /// for the K tile's group, which covers the loads' latency.
  KTileScales loadKTileScales(ImplicitLocOpBuilder &b, ArrayRef<Value> rows,
                              Value kt);
  /// Waits for the stage of ring iteration `iteration` and issues its wgmma
  /// steps into the registers of `spare` (a fragment already promoted).
  /// With `accumulate`, the steps add to the fragment's sums (which a
  /// group in flight may still be writing) instead of starting anew.
  IssuedKTile issueKTile(ImplicitLocOpBuilder &b, Value consumer,
                         Value iteration, Value spare,
                         bool accumulate = false);
  /// Ring iteration `iteration`'s stage and its round's parity (index,
  /// 0 or 1): the phase that the stage's barriers are in.
  std::pair<Value, Value> getRingPosition(ImplicitLocOpBuilder &b,
                                          Value iteration);
  /// Waits for the stage of ring iteration `iteration` to be full and
  /// returns the stage.
  Value waitFull(ImplicitLocOpBuilder &b, Value iteration);
  /// issueKTile on stage `stage`, which the caller waited for.
  IssuedKTile issueKTileOnStage(ImplicitLocOpBuilder &b, Value consumer,
                                Value stage, Value spare,
                                bool accumulate = false);
  /// `fragment` unchanged, through an empty volatile asm that defines its
  /// registers anew: LLVM keeps the reads and writes of async wgmma
  /// registers on the right side of the waits and the next issue, instead
  /// of moving them across (which costs copies and registers).
  Value pinFragment(ImplicitLocOpBuilder &b, Value fragment);
  /// After the wait for `tile`'s group: releases its stage and returns
  /// `accumulator` plus the scaled fragment.
  /// `tile.fragment` becomes the pinned fragment, for the next K tile.
  Value retireKTile(ImplicitLocOpBuilder &b, IssuedKTile &tile,
                    Value accumulator);
  /// One lane per warp releases ring stage `stage` (after a wait for the
  /// groups that read it: wait_group is warp-wide).
  void releaseStage(ImplicitLocOpBuilder &b, Value stage);
  /// `accumulator` plus `tile`'s fragment times its block scales (if any),
  /// pinned; `tile.fragment` becomes the pinned fragment.
  Value promoteFragment(ImplicitLocOpBuilder &b, IssuedKTile &tile,
                        Value accumulator);
  /// A tile's K loop for epilogue-applied scales: wgmma sums
  /// `promotionKTiles` K tiles into the fragment (issue, then wait_group 1
  /// and the previous stage released: no register of a group in flight is
  /// read), then wait_group 0 and the promotion. `fragment` holds K tile
  /// 0's group, in flight. Returns the accumulator and the spare fragment.
  std::pair<Value, Value> buildDeferredPromotionKLoop(
      ImplicitLocOpBuilder &b, Value consumer, Value fragment,
      int64_t promotionKTiles);
  /// The shared-memory matrix descriptor of a K-major tile at byte address
  /// `address` (i64) in 128B-swizzled rows.
  Value buildDescriptor(ImplicitLocOpBuilder &b, Value address);
  /// The scale of operand `scales` (`encoding`, `rows` rows) for row `row`
  /// and K index `kIndex` (index values), as f32.
  Value loadScale(ImplicitLocOpBuilder &b, Value scales,
                  ScaleEncodingAttr encoding, int64_t rows, Value row,
                  Value kIndex);
  /// A Stream-K part's end, in consumer `consumer`'s warpgroup: its sums
  /// `accumulator` stored to its workspace slot, its arrival counted; the
  /// last part of the tile to arrive adds all the slots in order and
  /// resets the counter. Returns whether this warpgroup runs the tile's
  /// epilogue (i1) and the tile's sums there.
  std::pair<Value, Value> reducePart(ImplicitLocOpBuilder &b, Value consumer,
                                     Value accumulator);
  void buildEpilogue(ImplicitLocOpBuilder &b, Value consumer,
                     Value accumulator, ArrayRef<Value> rows,
                     Value laneColumn);
  /// The bytes of D's staging buffers where D's tiles go out through
  /// shared memory and TMA stores, else 0: outputs of bf16, f16, f32 or
  /// FP8 (the codes; their scales are stored from registers) whose rows
  /// are 16-byte aligned (a tensor map's strides), when the buffers fit
  /// beside the ring.
  int64_t getStagingBytes();
  /// D's staging box: 64 rows (a consumer's) of 128 bytes, in the 128B
  /// swizzle of the tensor map's boxes.
  int64_t getStagingBoxColumns();
  /// The shared-memory pointer where the thread's pair of 8-column group
  /// `group` in row `half` is staged: the wgmma layout's columns,
  /// 16-byte chunks swizzled by the row as TMA reads them.
  Value getStagingPointer(ImplicitLocOpBuilder &b, Value consumer,
                          int64_t group, int64_t half);
  /// Before a consumer writes its staging buffer: the TMA stores of its
  /// previous tile have read it (one thread waits, the warpgroup meets at
  /// a named barrier).
  void beginStaging(ImplicitLocOpBuilder &b, Value consumer);
  /// After it: the writes made visible to TMA (the async proxy), then one
  /// thread stores the boxes into D and commits them as a bulk group.
  void storeStagedTile(ImplicitLocOpBuilder &b, Value consumer);
  /// Consumer `consumer`'s warpgroup meets at its named barrier.
  void syncConsumer(ImplicitLocOpBuilder &b, Value consumer);
  /// FP8 outputs: the thread's f32 results quantized per block of C
  /// columns by qmm.quantize's rule, the codes stored in
  /// pairs and each row's block scales by the row's first lane.
  /// `resultsAt(group, half)` builds the f32 results of 8-column group
  /// `group` in row `rows[half]` (the thread's two columns there).
  void storeQuantizedOutput(
      ImplicitLocOpBuilder &b, Value consumer,
      llvm::function_ref<std::array<Value, 2>(int64_t, int64_t)> resultsAt,
      ArrayRef<Value> rows, Value laneColumn);

  Value constant(ImplicitLocOpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, value);
  }
  /// The shared-memory address (32-bit) of stage `stage`'s `empty`
  /// mbarrier, after the ring.
  Value getEmptyBarrierAddress(ImplicitLocOpBuilder &b, Value stage);
  /// The `empty` mbarriers are driven by PTX of the kernel's own (nvgpu's
  /// ops address the barriers of one block only): a consumer warp's release
  /// reaches every block of the cluster (whose producers multicast into its
  /// shared memory). Both keep mbarrier's default semantics, as CUTLASS's
  /// cluster pipelines do.
  /// waitEmpty: waits until the stage of ring iteration `iteration` is
  /// free (its previous round released) and returns the stage.
  Value waitEmpty(ImplicitLocOpBuilder &b, Value iteration);
  void releaseEmpty(ImplicitLocOpBuilder &b, Value stage);

  MatmulOp op;
  const NvidiaChipInfo &chip;
  WgmmaTiling tiling;
  TileSchedule schedule;
  int64_t m = 0, n = 0, k = 0;
  Type aElement, bElement;

  // Kernel values, set while the body is built.
  Value tensorMapA, tensorMapB, aScales, bScales, bias, destination;
  /// D's tensor map (staged epilogues), or null.
  Value tensorMapD;
  /// The thread that issues a consumer's TMA stores: its first.
  Value isFirstConsumerThread;
  /// An FP8 output's scales, or null.
  Value outScales;
  Value fullBarriers, sharedBase, ringAddress;
  /// This block's rank in its cluster (index).
  Value clusterRank;
  Value blockRow, blockColumn; ///< the tile's first output row / column
  /// The ring iteration of the tile's first K tile (ring iterations count
  /// on across the tiles a block computes).
  Value firstIteration;
  /// The K tiles of every whole tile.
  Value kTiles;
  /// In the tile loop: the work item's first K tile and its count (a
  /// Stream-K part's, else 0 and kTiles).
  Value itemKBegin, itemKTiles;
  /// Split schedules, in the tile loop: whether the item is a part (i1),
  /// and its index among the parts (item - wholeUnits; valid in a part).
  Value isPart, partItem;
  /// Split schedules: the workspace's and the arrival counters' global
  /// addresses (i64). Dynamic schedules: the counters' (the tickets
  /// drawn, the blocks done).
  Value workspaceAddress, countersAddress;
  /// Dynamic schedules, in the tile loop: the work item and how many the
  /// block took before it (index).
  Value tileItem, takenItems;
  /// In the tile loop: whether the block has another tile after this one.
  Value hasNextTile;
  bool clustered() const { return tiling.clusterRows > 1; }
  // Consumer values set by prepareConsumer.
  Value warp, lane;
  /// A's and B's per-tensor scales, each null where the operand's scales
  /// are not per-tensor.
  Value tensorScaleA, tensorScaleB;
  /// D as a global pointer where pairs of elements are stored at once, or
  /// null (odd N).
  Value destinationPointer;
  std::function<Value(ImplicitLocOpBuilder &, Value)> aTileAt, bTileAt;
  /// Consumer `consumer`'s staging box `box` as a shared-memory view.
  std::function<Value(ImplicitLocOpBuilder &, Value, int64_t)> stagingBoxAt;
};

} // namespace wgmma
} // namespace qmm
} // namespace mlir

#endif // QMM_LIB_CONVERSION_NVVM_WGMMAKERNELBUILDER_H
