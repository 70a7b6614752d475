//===- ConfigCost.h - what a #qmm.config costs, from its shape alone ------===//
//
// An analytic cost of a configuration, computed from the matmul's shape, the
// configuration and the target description without compiling anything:
// the MFMA, LDS and L2 work of the busiest CU. Two uses:
//  - a lower bound of the performance model's time (qmm/PerfModel), with
//    which `fp8-run --tune` skips configurations that cannot beat the best
//    one modeled so far (branch and bound: the ranking stays exact);
//  - an estimate that ranks configurations, with which fp8-run picks the
//    few candidates it models when no tuning table has the matmul.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_AMDGPU_CONFIGCOST_H
#define QMM_CONVERSION_AMDGPU_CONFIGCOST_H

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"

namespace mlir {
namespace qmm {

/// The cost of one configuration on one device, in cycles of the device's
/// nominal clock (DeviceInfo::nominalClockGHz).
struct ConfigCost {
  int64_t workgroups = 0;
  /// Workgroups the busiest CU runs: round-robin over the XCDs, then over
  /// the XCD's CUs.
  int64_t workgroupsOnBusiestCU = 0;
  /// K tiles one workgroup multiplies (its split-K range).
  int64_t tilesPerWorkgroup = 0;
  /// Registers per lane the kernel is expected to allocate (accumulators,
  /// fragments, staged copies and addressing), and the residency they give.
  int estimatedRegisters = 0;
  int workgroupsPerCU = 0;
  int wavesPerSimd = 0;
  /// Per workgroup and K tile: cycles of one SIMD's MFMA pipe (the waves of
  /// the workgroup on that SIMD), of the CU's LDS (every wave's fragment
  /// reads and the tile copies' writes), of the CU's share of L2 bandwidth
  /// (the tiles' bytes), and of one SIMD's VALU for block-scale promotion.
  double mfmaCycles = 0, ldsCycles = 0, l2Cycles = 0, valuCycles = 0;
  /// A lower bound of the busiest SIMD's time that the performance model
  /// cannot undercut: the MFMA and LDS work of its workgroups alone, less
  /// two K tiles' worth for the trips LLVM may peel out of the loop.
  double boundCycles = 0;
  /// The estimate: rounds of resident workgroups, each K tile at the
  /// largest of the terms above (MFMA derated by how well the resident
  /// waves hide latency) plus 5% of the others, plus a per-workgroup
  /// prologue and epilogue.
  double estimateCycles = 0;
};

/// The cost of `config` for `query` on `device` (whose chip must be the
/// config's). Grouped matmuls are costed as one matmul of their rows.
ConfigCost estimateConfigCost(const DeviceInfo &device,
                              const ConfigQuery &query, ConfigAttr config);

/// The legal configurations (enumerateConfigs, plus the rule's choice
/// where it lies outside them) ordered by estimated cost, cheapest first;
/// ties keep the enumeration's order.
std::vector<ConfigAttr> rankConfigsByCost(MLIRContext *ctx,
                                          const ChipInfo &chip,
                                          const ConfigQuery &query);

} // namespace qmm
} // namespace mlir

#endif
