//===- IsaLayouts.h - matrix-instruction lane layouts from the ISA guides -*- C++ -*-===//
//
// The emulator's own register layouts of the MFMA instructions, written from
// AMD's CDNA3 / CDNA4 ISA guides and deliberately independent of the
// compiler's intrinsic table (QMMIntrinsics.def): a test compares the two
// lane by lane (test/Target/intrinsic-table-vs-isa.test).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_EMULATOR_ISALAYOUTS_H
#define QMM_EMULATOR_ISALAYOUTS_H

namespace mlir {
namespace qmm {
namespace emu {

/// An MFMA as the emulator decodes it from an amdgpu.mfma or
/// amdgpu.scaled_mfma op.
struct IsaMatrixShape {
  int m, n, k, blocks;
  bool f8f6f4; ///< the gfx950 16x16x128 / 32x32x64 family
};

/// The shape of an MFMA of extents m x n x k over `blocks` blocks whose A
/// operand has `aBits`-bit elements: the f8f6f4 family is 16x16x128, or
/// 32x32x64 with 8-bit or narrower data.
IsaMatrixShape decodeIsaMatrixShape(int m, int n, int k, int blocks,
                                    unsigned aBits);

/// Logical (row or column, k, block) of item `item` of lane `lane` of the A
/// (or B) operand of `elementBits`-bit elements:
/// * Section 7.1.4 (general layout): with K_L = K / (64 / (M * B)),
///   A[b,i,k] is item k % K_L of lane i + M * (b + B * (k / K_L)).
/// * Section 7.1.5.1 (F8F6F4 tables): FP4 and FP6 operands hold 32
///   consecutive K per lane (k = 32 * g + item, g = lane / M), FP8 operands
///   items 0-15 at k = 16 * g + item and items 16-31 at
///   k = K / 2 + 16 * g + (item - 16).
void getIsaOperandPosition(const IsaMatrixShape &shape, unsigned elementBits,
                           int lane, int item, int &index, int &k, int &block);

/// Logical (block, row, column) of item `item` of lane `lane` of C / D
/// (section 7.1.4): H = 4, B_I = ceil(64 / (N * M / H)), M_I = (64 / B_I) / N,
/// G = M / (H * M_I); D[b,i,j] is item (i % H) + H * (i / (H * M_I) +
/// G * (b / B_I)) of lane j + N * ((i / H) % M_I + M_I * (b % B_I)).
void getIsaOutputPosition(const IsaMatrixShape &shape, int lane, int item,
                          int &block, int &row, int &col);

/// Section 7.2 (block scales): lane l supplies the E8M0 scale of row (of A;
/// column of B) l % M (N) for K block l / M (N) of 32 values.
void getIsaScalePosition(const IsaMatrixShape &shape, bool forB, int lane,
                         int &index, int &kBlock);

} // namespace emu
} // namespace qmm
} // namespace mlir

#endif // QMM_EMULATOR_ISALAYOUTS_H
