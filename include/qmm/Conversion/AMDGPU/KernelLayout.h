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

namespace mlir {
namespace qmm {

/// Operand and result placement of one MFMA instruction (AMD CDNA3/CDNA4
/// ISA guides). Lane l holds row l % m of A (column l % n of B); its K items
/// come in `pieces` runs of `itemsPerPiece` consecutive values, run p
/// starting at k = (l / m) * itemsPerPiece + p * pieceStrideK.
struct MFMAOperandLayout {
  int64_t m, n, k;
  int64_t pieces, itemsPerPiece, pieceStrideK;
  /// f32 result items per lane (m * n / 64).
  int64_t accElements;
};

MFMAOperandLayout getMFMAOperandLayout(ConfigAttr config);

/// Bytes added to every LDS row of the A and B tiles so that the fragment
/// reads of a wave spread over all banks.
int64_t getLdsRowPadding(const ChipInfo &chip, ConfigAttr config);

/// LDS bytes of the A and B tiles (all stages, padded rows; 8-bit data).
int64_t getLdsFootprint(const ChipInfo &chip, ConfigAttr config);

/// What the choice of instruction depends on: the operand element types and
/// whether they carry MX (E8M0, block-32) scales.
struct OperandTypes {
  Type a, b;
  bool mxScales = false;
};

/// The instruction family that reads the operands on `chip`.
std::optional<MFMAKind> getMFMAKindFor(const ChipInfo &chip,
                                       OperandTypes operands);

/// Checks that `config` runs on `chip` for the operands: the MFMA exists on
/// the chip and reads these types, and the tiles fit in LDS.
LogicalResult verifyConfigForChip(ConfigAttr config, const ChipInfo &chip,
                                  OperandTypes operands,
                                  function_ref<InFlightDiagnostic()> emitError);

/// The documented heuristic of qmm-select-config (see Passes.td).
ConfigAttr selectConfig(MLIRContext *ctx, const ChipInfo &chip, int64_t m,
                        int64_t n, int64_t k, OperandTypes operands,
                        int64_t scaleBlockK);

} // namespace qmm
} // namespace mlir

#endif
