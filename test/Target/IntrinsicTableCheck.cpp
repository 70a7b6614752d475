//===- IntrinsicTableCheck.cpp - the intrinsic table against the ISA ------===//
//
// Compares every row of the compiler's intrinsic table (QMMIntrinsics.def)
// with the emulator's own lane formulas, written from AMD's ISA guides, on
// every chip that executes the row: where each lane's A and B items sit
// (FP8, and FP6/FP4 where the row reads them), where its accumulator items
// sit, and which E8M0 scale each lane supplies. Also the wave lowerings'
// accumulator map (AccumulatorLayout::getItemMap, the transpose of D since
// B goes first), evaluated for every lane and item. Prints one line per
// (instruction, chip) and exits non-zero on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.h"
#include "qmm/Emulator/IsaLayouts.h"
#include "qmm/Target/Chip.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir::qmm;

namespace {
struct Checker {
  const MMAIntrinsicInfo &info;
  emu::IsaMatrixShape shape;
  int mismatches = 0;

  void expect(bool same, llvm::StringRef what, int lane, int item) {
    if (same)
      return;
    if (mismatches++ < 5)
      llvm::outs() << "  mismatch: " << info.spelling << " " << what
                   << " lane " << lane << " item " << item << "\n";
  }

  /// A (`forB` false) or B items of `bits`-bit data: (row, k).
  void checkOperand(unsigned bits, bool forB) {
    OperandLaneLayout layout = info.getOperandLayout(bits, forB);
    // Narrow data the row does not read natively is converted to FP8
    // before it reaches the instruction.
    unsigned isaBits = info.readsNatively(bits) ? bits : 8;
    for (int lane = 0; lane < MMAIntrinsicInfo::kWaveSize; ++lane)
      for (int item = 0; item < layout.getItems(); ++item) {
        auto [row, k] = layout.getPosition(lane, item);
        int isaRow, isaK, isaBlock;
        emu::getIsaOperandPosition(shape, isaBits, lane, item, isaRow, isaK,
                                   isaBlock);
        expect(row == isaRow && k == isaK && isaBlock == 0,
               forB ? "B" : "A", lane, item);
      }
  }

  void checkAccumulator() {
    for (int lane = 0; lane < MMAIntrinsicInfo::kWaveSize; ++lane)
      for (int item = 0; item < info.getAccumulatorItems(); ++item) {
        auto [i, j] = info.getAccumulatorPosition(lane, item);
        int block, row, col;
        emu::getIsaOutputPosition(shape, lane, item, block, row, col);
        expect(i == row && j == col && block == 0, "D", lane, item);
      }
  }

  /// The map the stores and scale lowerings apply: item i of lane l of
  /// tile (rm, rn) at output (rm * N + D's column, rn * M + D's row).
  void checkAccumulatorMap(mlir::MLIRContext &context) {
    AccumulatorLayout layout(info, /*repeatsN=*/2);
    for (int64_t rm = 0; rm < 2; ++rm)
      for (int64_t rn = 0; rn < 2; ++rn)
        for (int item = 0; item < info.getAccumulatorItems(); ++item) {
          mlir::AffineMap map = layout.getItemMap(&context, rm, rn, item);
          for (int lane = 0; lane < MMAIntrinsicInfo::kWaveSize; ++lane) {
            llvm::SmallVector<int64_t, 2> place =
                map.compose(llvm::ArrayRef<int64_t>{lane});
            int block, row, col;
            emu::getIsaOutputPosition(shape, lane, item, block, row, col);
            expect(place[0] == rm * info.n + col &&
                       place[1] == rn * info.m + row && block == 0,
                   "accumulator map", lane, item);
          }
        }
  }

  void checkScales() {
    for (bool forB : {false, true})
      for (int lane = 0; lane < MMAIntrinsicInfo::kWaveSize; ++lane) {
        auto [index, kBlock] = info.getScalePosition(lane, forB);
        int isaIndex, isaBlock;
        emu::getIsaScalePosition(shape, forB, lane, isaIndex, isaBlock);
        expect(index == isaIndex && kBlock == isaBlock,
               forB ? "B scale" : "A scale", lane, 0);
      }
    // One scale per 32 K (ISA 7.2): K / 32 blocks, one per lane group.
    expect(info.scaleBlockK * (MMAIntrinsicInfo::kWaveSize / info.m) ==
               info.k,
           "scale block", 0, 0);
  }
};
} // namespace

int main() {
  mlir::MLIRContext context;
  int failed = 0;
  for (const ChipInfo &chip : getSupportedChips()) {
    for (const MMAIntrinsicInfo *info : chip.getIntrinsics()) {
      // The emulator decodes the instruction from what the op gives it:
      // its shape and the width of its A operand.
      unsigned aBits = info->readsNatively(16) ? 16 : 8;
      Checker check{*info, emu::decodeIsaMatrixShape(info->m, info->n, info->k,
                                                     info->blocks, aBits)};
      // Every width: rows that do not read FP6/FP4 natively get them
      // converted to FP8 in registers, placed as FP8.
      for (unsigned bits : {8u, 6u, 4u}) {
        check.checkOperand(bits, /*forB=*/false);
        check.checkOperand(bits, /*forB=*/true);
      }
      check.checkAccumulator();
      check.checkAccumulatorMap(context);
      if (info->hasBlockScales())
        check.checkScales();
      llvm::outs() << info->spelling << " on " << chip.name << ": "
                   << (check.mismatches ? "MISMATCH" : "matches the ISA")
                   << "\n";
      failed += check.mismatches != 0;
    }
  }
  llvm::outs() << failed << " mismatching\n";
  return failed ? 1 : 0;
}
