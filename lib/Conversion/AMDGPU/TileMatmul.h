//===- TileMatmul.h - qmm-tile-matmul's pieces, shared by its files -*- C++ -*-===//
//
// Private to qmm-tile-matmul (TileMatmul.cpp, TileMatmulSplitK.cpp): the
// problem a matmul poses, what a workgroup tile reads and writes, where a
// wave sits, and the K loop that builds a tile's product.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_AMDGPU_TILEMATMUL_H
#define QMM_LIB_CONVERSION_AMDGPU_TILEMATMUL_H

#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace qmm {
namespace tiling {

/// The extents and the scale block of one qmm.matmul.
struct MatmulProblem {
  int64_t m, n, k;
  /// Extent along K over which one product of scales holds; the partial
  /// sums of one such block are scaled once.
  int64_t scaleBlockK;
  /// K tiles in all, and the split-K factor (ranges of numTiles / split
  /// tiles, one per workgroup along z; 1 without split-K).
  int64_t numTiles = 0, split = 1;
  /// An upper bound of a dynamic M (`qmm.max_m`; 0: none).
  int64_t maxM = 0;
};

/// What one workgroup tile multiplies and where it writes: the operands of
/// a qmm.matmul, or one group's views of a qmm.grouped_matmul's.
struct TileOperands {
  Value a, aScales, b, bScales, init;
  ScaleEncodingAttr aEncoding, bEncoding;
  bool accumulate = false;
  Value bias, aux;
  Activation activation = Activation::None;
  /// Grouped matmuls: rows whose group index is negative are not stored
  /// (contiguous), rows from this count on are not stored (masked).
  Value rowGroups, validRows;
  /// Grouped matmuls: the group index selecting A's or B's matrix in a
  /// [G, rows, K] operand (empty for [rows, K] operands).
  SmallVector<Value, 1> aGroup, bGroup;
  /// FP8 outputs: the scales and the rule that quantizes them.
  Value outScales;
  ScaleEncodingAttr outEncoding;
  ScaleRounding outRounding = ScaleRounding::None;
  float outMinAmax = 0;

  /// The wave's store of its accumulators `acc` at (row, col).
  void createStore(OpBuilder &b, Location loc, ValueRange acc, Value row,
                   Value col, ConfigAttr config) const {
    MLIRContext *ctx = b.getContext();
    // The grid has ceil(M / tile M) x ceil(N / tile N) workgroups: where a
    // tile divides its dimension, no wave's sub-tile crosses the edge.
    auto outType = cast<MemRefType>(init.getType());
    auto divides = [&](unsigned dim, int64_t tile) {
      return !outType.isDynamicDim(dim) && outType.getDimSize(dim) % tile == 0;
    };
    bool inBounds[2] = {divides(0, config.getTileM()),
                        divides(1, config.getTileN())};
    WaveStoreOp::create(
        b, loc, acc, init, row, col, bias, aux, rowGroups, validRows,
        outScales, accumulate, activation, config, outEncoding,
        outScales ? ScaleRoundingAttr::get(ctx, outRounding) : nullptr,
        outScales ? b.getF32FloatAttr(outMinAmax) : nullptr,
        b.getDenseBoolArrayAttr(inBounds));
  }
};

/// Where a wave's sub-tile sits: the workgroup tile's first row and column
/// (in the operands) and the wave's offsets inside it.
struct TilePosition {
  Value tileRow, tileCol, waveRow, waveCol;
};

/// The workgroup's and wave's position for a launch of `config`: tile
/// (block y, block x), wave w at (w / waves N, w % waves N).
TilePosition locateTile(IndexMath &im, gpu::LaunchOp launch,
                        ConfigAttr config, const ChipInfo &chip);

/// The K tiles one workgroup multiplies: `count` tiles from `first` (null:
/// from 0, the whole of K; else the workgroup's split-K range).
struct KTileRange {
  Value first;
  int64_t count;
};

/// The K loop of one workgroup tile, at the builder: the wave's
/// accumulators over the tiles of `range`, every K block's scales applied.
SmallVector<Value> buildTileProduct(OpBuilder &b, Location loc,
                                    const ChipInfo &chip, ConfigAttr config,
                                    const MatmulProblem &p,
                                    const TileOperands &ops,
                                    const TilePosition &at, KTileRange range);

/// Split-K in one kernel (TileMatmulSplitK.cpp): the launch of `gridRows`
/// rows of workgroups, `p.split` ranges of K along z, and its workspace
/// and arrival counters around it.
void buildSplitK(OpBuilder &b, Location loc, const ChipInfo &chip,
                 ConfigAttr config, const MatmulProblem &p,
                 const TileOperands &ops, Value gridRows);

} // namespace tiling
} // namespace qmm
} // namespace mlir

#endif // QMM_LIB_CONVERSION_AMDGPU_TILEMATMUL_H
