//===- WgmmaDefaults.h - defaults of the wgmma kernels' options -*- C++ -*-===//
//
// The defaults that qmm-lower-matmul-to-wgmma's options, the NVVM
// pipeline's and fp8-run's share (Passes.td reads them by name), in a
// header light enough for each of them to include.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_NVVM_WGMMADEFAULTS_H
#define QMM_CONVERSION_NVVM_WGMMADEFAULTS_H

#include <cstdint>

namespace mlir {
namespace qmm {

/// Shared-memory stages of the TMA ring of 128 x 128 tiles (32 KiB each);
/// other tiles scale them (getRingStages, docs/wgmma-kernel.md "Ring
/// depth").
constexpr int64_t kDefaultWgmmaStages = 4;

/// K tiles wgmma sums between promotions for per-tensor and per-row
/// scales by default (qmm-lower-matmul-to-wgmma's promotion-k-tiles): 4,
/// 512 products; promoting every K tile cost 5-6% on an H100. That sits
/// between cuBLASLt's two FP8 modes: its default promotes every 128
/// products (inferred from Nsight Compute's count of its f32
/// instructions), "fast accumulation" never (docs/nvidia.md);
/// promotion-k-tiles=1 matches the former.
constexpr int64_t kDefaultWgmmaPromotionKTiles = 4;

} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_NVVM_WGMMADEFAULTS_H
