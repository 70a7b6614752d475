//===- KernelLayout.h - how a configured matmul sits on the chip -*- C++ -*-===//
//
// The facts the configuration, its checks and the kernel builder share:
// where each lane's MFMA operands sit along K, the LDS row padding, the LDS
// footprint, and whether a configuration fits a chip.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_AMDGPU_KERNELLAYOUT_H
#define QMM_CONVERSION_AMDGPU_KERNELLAYOUT_H

#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Target/Chip.h"

#include "mlir/IR/Diagnostics.h"

#include <algorithm>

namespace mlir {
namespace qmm {

/// The lane layout of the A (`forB` false) or B operand of `elementType`
/// under `config`: its instruction's row of the intrinsic table.
OperandLaneLayout getOperandLayout(ConfigAttr config, Type elementType,
                                   bool forB);

/// Bytes of one K tile row of `elementType` data in packed storage.
int64_t getTileRowBytes(ConfigAttr config, Type elementType);

/// Bytes added to every LDS row of the A (`forB` false) or B tile of
/// `elementType` so that the fragment reads of a wave spread over all banks
/// (a multiple of 8 bytes and of the fragment run, so LDS accesses stay
/// aligned). None when the config copies tiles directly (lds_copy =
/// direct): a wave's direct loads fill LDS contiguously, so rows are
/// swizzled instead (getLdsSwizzle).
int64_t getLdsRowPadding(const ChipInfo &chip, ConfigAttr config,
                         Type elementType, bool forB);

/// LDS bytes of a padded row of the A or B tile.
inline int64_t getLdsRowBytes(const ChipInfo &chip, ConfigAttr config,
                              Type elementType, bool forB) {
  return getTileRowBytes(config, elementType) +
         getLdsRowPadding(chip, config, elementType, forB);
}

/// Where a unit of `unitBytes` of an LDS tile row sits: byte column c of
/// row r at c ^ getXorBytes(r). The unit index is XORed with (r /
/// rowsPerStep) mod steps, and with flipUnits where (r / flipRows) is odd:
/// the second term lets the pattern spread both the rows one LDS phase
/// serves in lane order and those it serves in the hardware's order of
/// 128-bit reads (ChipInfo::getLdsReadB128LaneOrder). Identity (steps = 1,
/// no flip) for padded tiles; for tiles copied directly, chosen so that the
/// fragment reads are free of bank conflicts, with units of one fragment
/// run (at most 16 bytes, at least one direct load). The pattern repeats
/// every getPeriod() rows, which divides the MFMA's fragment rows, so a
/// lane's XOR follows from its row within the fragment.
struct LdsSwizzle {
  int64_t unitBytes = 16;
  int64_t rowsPerStep = 1, steps = 1;
  int64_t flipRows = 1, flipUnits = 0;

  int64_t getXorUnits(int64_t row) const {
    return ((row / rowsPerStep) % steps) ^ ((row / flipRows) % 2 * flipUnits);
  }
  int64_t getXorBytes(int64_t row) const {
    return getXorUnits(row) * unitBytes;
  }
  int64_t getPeriod() const {
    return std::max(rowsPerStep * steps, flipUnits ? 2 * flipRows : 1);
  }
  bool isIdentity() const { return steps == 1 && flipUnits == 0; }
};

/// The swizzle of the A (`forB` false) or B tile of `elementType`.
LdsSwizzle getLdsSwizzle(const ChipInfo &chip, ConfigAttr config,
                         Type elementType, bool forB);

/// Bytes one thread copies from global memory to LDS at once: 16, or 24
/// (32 values) for FP6, whose 16-byte runs do not end on a value.
inline int64_t getCopyChunkBytes(Type elementType) {
  return elementType.getIntOrFloatBitWidth() == 6 ? 24 : 16;
}

/// Values of `elementType` in one copy chunk: 16 for FP8, 32 for FP6 and
/// FP4. A K tile row is copied in whole chunks, so tile K is a multiple of
/// it (verifyConfigForChip checks this).
inline int64_t getCopyChunkValues(Type elementType) {
  return getCopyChunkBytes(elementType) * 8 /
         elementType.getIntOrFloatBitWidth();
}

/// Which LDS row and byte column each copy chunk of a tile goes to. The
/// chunks of one LDS phase (the lanes the banks serve at once) cover
/// `rowsPerPhase` rows; with a `rowStride`, phase p of a group of
/// rowsPerPhase * rowStride rows writes rows p, p + rowStride, ..., chosen
/// so that those rows fill the banks without conflicts. rowStride 0: row
/// after row.
struct LdsCopyMapping {
  int64_t chunksPerRow, chunkBytes;
  int64_t rowsPerPhase = 1, rowStride = 0;

  /// (chunk) -> (row, byte column): where thread `chunk` of the copy
  /// writes. Rows go one after another, or (rowStride > 0) in groups of
  /// rowsPerPhase * rowStride rows where consecutive phases of chunks take
  /// rows rowStride apart. The copy lowering applies this map and the
  /// bank-conflict search evaluates it, so the two cannot disagree.
  AffineMap getMap(MLIRContext *context) const;
};

/// (row, byte column) of `chunk` under a map from LdsCopyMapping::getMap.
std::pair<int64_t, int64_t> placeChunk(AffineMap copyMap, int64_t chunk);

/// The copy mapping of the A or B tile of `tileRows` rows: the
/// row stride with the fewest bank conflicts for the tile's writes
/// (evaluated against the chip's banks), row after row when that is free
/// of them.
LdsCopyMapping getLdsCopyMapping(const ChipInfo &chip, ConfigAttr config,
                                 Type elementType, bool forB,
                                 int64_t tileRows);

/// What the choice of instruction depends on: the operand element types and
/// whether they carry MX (E8M0, block-32) scales.
struct OperandTypes {
  Type a, b;
  bool mxScales = false;
};

/// What every tile K of the operands is a multiple of: 16 (16-byte rows
/// of FP8) and the values of a copy chunk of each (32 for FP4 and FP6).
inline int64_t getTileKMultiple(OperandTypes operands) {
  return std::max<int64_t>({16, getCopyChunkValues(operands.a),
                            getCopyChunkValues(operands.b)});
}

/// The instruction family that reads the operands on `chip`.
std::optional<MFMAKind> getMFMAKindFor(const ChipInfo &chip,
                                       OperandTypes operands);

/// LDS bytes of the A and B tiles (all stages, padded rows).
int64_t getLdsFootprint(const ChipInfo &chip, ConfigAttr config,
                        OperandTypes operands);

/// LDS bank-conflict cycles one wave spends per K tile under `config`
/// (the emulator's phase model on the compiler's layout): its fragment
/// reads of A and B, and its share of the tile copies' writes. The
/// performance model reads it from the kernel (see qmm-tile-matmul).
int64_t getLdsConflictCyclesPerTile(const ChipInfo &chip, ConfigAttr config,
                                    OperandTypes operands);

/// Checks that `config` runs on `chip` for the operands: the MFMA exists on
/// the chip and reads these types, tile K holds whole copy chunks of each
/// operand's rows, and the tiles fit in LDS. Every layout function above
/// may be called on a config that passed this check (none divides by zero
/// or overflows then).
LogicalResult verifyConfigForChip(ConfigAttr config, const ChipInfo &chip,
                                  OperandTypes operands,
                                  function_ref<InFlightDiagnostic()> emitError);

/// Checks the config's split-K factor against a matmul of depth `k` whose
/// scale blocks along K are `scaleBlockK` long (k or more: one block spans
/// K): the K tiles divide into `split` ranges of whole scale blocks (MX
/// scales applied by the instruction do not count), and no grouped matmul.
LogicalResult verifySplitK(ConfigAttr config, int64_t k, int64_t scaleBlockK,
                           bool grouped,
                           function_ref<InFlightDiagnostic()> emitError);

/// The documented heuristic of qmm-select-config (see Passes.td);
/// `outputBlockN` is the block width of an FP8 output's scales (0: none).
ConfigAttr selectConfig(MLIRContext *ctx, const ChipInfo &chip, int64_t m,
                        int64_t n, int64_t k, OperandTypes operands,
                        int64_t scaleBlockK, int64_t outputBlockN = 0);

} // namespace qmm
} // namespace mlir

#endif
