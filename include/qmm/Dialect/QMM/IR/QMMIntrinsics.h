//===- QMMIntrinsics.h - one description per matrix instruction -*- C++ -*-===//
//
// The matrix-core instructions qmm targets, one MMAIntrinsicInfo each, built
// from the rows of QMMIntrinsics.def. The config selector, the wave-level
// lowerings, the verifiers, the performance model and the runtime query
// their shapes, cycles and lane layouts here; the emulator keeps its own
// formulas from the ISA guides and a test compares the two.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_DIALECT_QMM_IR_QMMINTRINSICS_H
#define QMM_DIALECT_QMM_IR_QMMINTRINSICS_H

#include "qmm/Dialect/QMM/IR/QMMDialect.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <utility>

namespace mlir {
namespace qmm {

/// The chip generations a matrix instruction exists on, as bits: a chip's
/// target description names its generation, a row of the table the
/// generations that execute it.
enum MatrixISA : unsigned {
  CDNA3 = 1u << 0, ///< gfx942
  CDNA4 = 1u << 1, ///< gfx950
  HOPPER = 1u << 2, ///< sm_90a
};

/// Operand element widths an instruction reads natively, as bits.
enum OperandWidths : unsigned {
  W4 = 1u << 4,
  W6 = 1u << 6,
  W8 = 1u << 8,
  W16 = 1u << 16,
};

enum class MMAIntrinsic : uint8_t {
#define QMM_MMA_INTRINSIC(ID, ...) ID,
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.def"
};

/// Where a lane's items of the A (or B) operand sit: lane l holds row
/// (column) l % rows; its K items come in `runs` runs of `runLength`
/// consecutive values, run r starting at k = (l / rows) * runLength +
/// r * runStrideK.
struct OperandLaneLayout {
  int64_t rows;
  int64_t runs, runLength, runStrideK;
  /// Bits of one element as stored in memory (8, or 6 and 4 for packed
  /// FP6/FP4), whatever the instruction reads after conversion.
  int64_t elementBits;

  int64_t getItems() const { return runs * runLength; }
  /// Bytes of one run in packed storage.
  int64_t getRunBytes() const { return runLength * elementBits / 8; }
  /// (row, k) of item `item` of lane `lane`.
  std::pair<int64_t, int64_t> getPosition(int64_t lane, int64_t item) const {
    return {lane % rows, (lane / rows) * runLength +
                             (item / runLength) * runStrideK +
                             item % runLength};
  }
};

struct MMAIntrinsicInfo {
  MMAIntrinsic id;
  llvm::StringRef spelling; ///< "mfma_f32_16x16x32_fp8"
  MFMAKind kind;            ///< the family configs name
  unsigned isa;             ///< MatrixISA bits
  int m, n, k, blocks;
  /// Cycles the SIMD's matrix pipe is busy: with FP8 (bf16) operands, and
  /// with both operands FP6/FP4 (0: the form reads no such operands).
  int cycles, narrowCycles;
  /// Element widths read natively (OperandWidths bits).
  unsigned operandBits;
  int runs8Bit, runLength8Bit, runsNarrow, runLengthNarrow;
  int accumulatorRunLength;
  int scaleBlockK; ///< 0: no block scales
  llvm::StringRef upstreamOp;
  llvm::StringRef mnemonic;

  /// Lanes of the wave the instruction runs on (every form here: wave64).
  static constexpr int kWaveSize = 64;

  int64_t getFlops() const { return int64_t(2) * m * n * k * blocks; }
  /// f32 items of D each lane holds.
  int64_t getAccumulatorItems() const { return int64_t(m) * n / kWaveSize; }
  bool readsNatively(unsigned elementBits) const {
    return elementBits < 32 && (operandBits & (1u << elementBits));
  }
  bool hasBlockScales() const { return scaleBlockK != 0; }

  /// The lane layout of A (`forB` false) or B for elements stored with
  /// `elementBits` bits (narrow data a form does not read natively is
  /// converted in registers and placed as FP8).
  OperandLaneLayout getOperandLayout(unsigned elementBits, bool forB) const;

  /// (i, j) of D held in item `item` of lane `lane`.
  std::pair<int64_t, int64_t> getAccumulatorPosition(int64_t lane,
                                                     int64_t item) const;

  /// (row or column, K block) whose E8M0 scale lane `lane` supplies.
  std::pair<int64_t, int64_t> getScalePosition(int64_t lane,
                                               bool forB) const {
    int rows = forB ? n : m;
    return {lane % rows, lane / rows};
  }
};

enum class WgmmaIntrinsic : uint8_t {
#define QMM_WGMMA_INTRINSIC(ID, ...) ID,
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.def"
};

/// A warpgroup-level matrix instruction (Hopper's wgmma.mma_async), from
/// its row of QMMIntrinsics.def.
struct WgmmaIntrinsicInfo {
  WgmmaIntrinsic id;
  llvm::StringRef spelling;
  unsigned isa; ///< MatrixISA bits
  int m, k, minN, maxN, nStep;
  /// Threads of the warpgroup that issues it.
  int threads;
  /// The accumulator layout (QMMIntrinsics.def says how to read it).
  int rowsPerWarp, lanesPerRow, secondRow, groupColumns, columnsPerLane;
  llvm::StringRef upstreamOp;
  llvm::StringRef mnemonic;

  /// f32 elements of the accumulator each thread holds for an N-wide tile.
  int64_t getAccumulatorElements(int64_t n) const {
    return int64_t(m) * n / threads;
  }
  /// Elements of one thread per group of `groupColumns` columns (its two
  /// rows' columns).
  int64_t getElementsPerGroup() const { return 2 * columnsPerLane; }
  /// (row, column) of the M x N tile held in element `element` of thread
  /// `thread` (0 .. threads - 1).
  std::pair<int64_t, int64_t> getAccumulatorPosition(int64_t thread,
                                                     int64_t element) const {
    int64_t warp = thread / 32, lane = thread % 32;
    int64_t group = element / getElementsPerGroup();
    int64_t half = element % getElementsPerGroup() / columnsPerLane;
    return {rowsPerWarp * warp + lane / lanesPerRow + secondRow * half,
            groupColumns * group + columnsPerLane * (lane % lanesPerRow) +
                element % columnsPerLane};
  }
};

/// Every warpgroup instruction of the table.
llvm::ArrayRef<WgmmaIntrinsicInfo> getWgmmaIntrinsics();
/// The warpgroup instruction chips of generation `isa` (a MatrixISA bit)
/// run on FP8 operands; null when none.
const WgmmaIntrinsicInfo *lookupWgmmaIntrinsic(unsigned isa);

/// Every instruction of the table.
llvm::ArrayRef<MMAIntrinsicInfo> getMMAIntrinsics();
const MMAIntrinsicInfo &getMMAIntrinsicInfo(MMAIntrinsic id);
/// The instruction a config names (family and shape); null when the table
/// has none.
const MMAIntrinsicInfo *lookupMMAIntrinsic(MFMAKind kind, int64_t m, int64_t n,
                                           int64_t k);
/// The instruction an ISA mnemonic names ("v_mfma_f32_16x16x32_bf8_fp8",
/// "v_mfma_scale_f32_32x32x64_f8f6f4"); null for anything else.
const MMAIntrinsicInfo *lookupMMAIntrinsicByMnemonic(llvm::StringRef mnemonic);

} // namespace qmm
} // namespace mlir

#endif // QMM_DIALECT_QMM_IR_QMMINTRINSICS_H
