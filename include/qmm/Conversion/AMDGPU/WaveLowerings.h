//===- WaveLowerings.h - the wave-level ops to AMDGPU ops --------*- C++ -*-===//
//
// The lowerings of the wave-level ops (stages 5-7 of the AMD pipeline) as
// rewrite patterns, for the passes and for other pipelines to reuse. Each
// pattern expects what its pass checks first (and reports when it does not
// hold): operands in LDS and a config the chip runs for qmm.wave_mma, non-MX
// scales for qmm.wave_scale_accumulate, a static output for qmm.wave_store.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_AMDGPU_WAVELOWERINGS_H
#define QMM_CONVERSION_AMDGPU_WAVELOWERINGS_H

#include "qmm/Target/Chip.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace qmm {

/// qmm.wave_mma -> LDS fragment reads and amdgpu.mfma / amdgpu.scaled_mfma.
void populateWaveMmaToMFMAPatterns(RewritePatternSet &patterns,
                                   const ChipInfo &chip);

/// qmm.wave_scale_accumulate -> scale loads and vector FMAs.
void populateWaveScalesPatterns(RewritePatternSet &patterns,
                                const ChipInfo &chip);

/// qmm.wave_store -> the epilogue and the output's stores.
void populateWaveStorePatterns(RewritePatternSet &patterns,
                               const ChipInfo &chip);

} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_AMDGPU_WAVELOWERINGS_H
