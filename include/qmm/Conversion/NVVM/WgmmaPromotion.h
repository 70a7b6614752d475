//===- WgmmaPromotion.h - how often the wgmma kernels promote ---*- C++ -*-===//
//
// FP8 wgmma sums its products with about 14 bits (NvidiaChipInfo::
// wgmmaFP8AccumulatorBits). The sm_90a kernels therefore add wgmma's
// partial sums into f32 registers ("promote") every few K tiles; the
// kernels (qmm-lower-matmul-to-wgmma) and the exact tier of a launch plan
// (fp8-run) read the interval here.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_NVVM_WGMMAPROMOTION_H
#define QMM_CONVERSION_NVVM_WGMMAPROMOTION_H

#include "qmm/Conversion/NVVM/WgmmaDefaults.h"

#include <cstdint>

namespace mlir {
namespace qmm {

/// K tiles (of NvidiaChipInfo::getWgmmaKTile() products) wgmma sums
/// before the kernel promotes them into f32. Block scales change every K
/// tile, so block-scaled matmuls promote each one (DeepGEMM's method);
/// per-tensor and per-row scales apply in the epilogue, and wgmma sums
/// `epilogueScaleKTiles` K tiles between promotions.
inline int64_t getWgmmaPromotionKTiles(
    bool perKTileScales,
    int64_t epilogueScaleKTiles = kDefaultWgmmaPromotionKTiles) {
  return perKTileScales ? 1 : epilogueScaleKTiles;
}

} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_NVVM_WGMMAPROMOTION_H
