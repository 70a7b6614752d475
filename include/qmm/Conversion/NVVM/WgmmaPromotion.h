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

#include <cstdint>

namespace mlir {
namespace qmm {

/// K tiles (of NvidiaChipInfo::getWgmmaKTile() products) wgmma sums
/// before the kernel promotes them into f32. Block scales change every K
/// tile, so block-scaled matmuls promote each one (DeepGEMM's method);
/// per-tensor and per-row scales apply in the epilogue, and wgmma sums 4
/// K tiles (512 products) between promotions: the waits for every K tile
/// and the additions of 3 in 4 cost 5-6% on an H100. That sits between
/// cuBLASLt's two FP8 modes: its default promotes every 128 products (by
/// Nsight Compute's count of its f32 additions), "fast accumulation"
/// never (README, "NVIDIA Hopper").
inline int64_t getWgmmaPromotionKTiles(bool perKTileScales) {
  return perKTileScales ? 1 : 4;
}

} // namespace qmm
} // namespace mlir

#endif // QMM_CONVERSION_NVVM_WGMMAPROMOTION_H
