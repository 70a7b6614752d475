//===- PerfModelInternal.h - pieces of the performance model ----*- C++ -*-===//

#ifndef QMM_LIB_PERFMODEL_PERFMODELINTERNAL_H
#define QMM_LIB_PERFMODEL_PERFMODELINTERNAL_H

#include "qmm/PerfModel/PerfModel.h"

namespace mlir {
namespace qmm {
namespace perf {

/// The main loop: instructions [header, latch]; each one's weight is 1
/// (runs every iteration) or -1 (in a block some iteration skips: weighted
/// by the conditional share).
struct LoopRegion {
  int header = 0, latch = 0;
  std::vector<double> weights;
  int conditionalBlocks = 0;
  /// An outer loop holding it was passed over.
  bool nested = false;

  double weight(int index, double conditionalShare) const {
    double w = weights[index - header];
    return w < 0 ? conditionalShare : w;
  }
};

/// Classifies one instruction from its printed form.
void classifyInstruction(Instruction &inst, const ChipInfo &chip);

std::optional<LoopRegion> findMainLoop(const DisassembledKernel &kernel);

LoopCounts countLoop(const DisassembledKernel &kernel, const LoopRegion &loop,
                     double conditionalShare, const ModelParameters &params,
                     int waveSize);

/// What the timeline needs beyond the parameters.
struct TimelineCosts {
  int waveSize = 64;
  /// The LDS and L2 bandwidth of the CU (bytes per clock; 0: unbounded),
  /// shared by `simdsSharingMemory` busy SIMDs running the same schedule.
  double ldsBytesPerClock = 128, memoryBytesPerClock = 0;
  int simdsSharingMemory = 4;
  double ldsConflictCyclesPerInstruction = 0;
};

/// `waves` waves on one SIMD, `wavesPerWorkgroup` of each workgroup among
/// them (they meet at barriers), through the main loop.
struct SimdTimeline {
  /// Cycles per iteration (each wave does one) in the steady state.
  double iterationCycles = 0;
  /// The first wave's waits, per iteration of the measured half.
  WaveTimeline wave;
};
SimdTimeline simulateLoop(const DisassembledKernel &kernel,
                          const LoopRegion &loop, double conditionalShare,
                          int waves, int wavesPerWorkgroup,
                          const ModelParameters &params,
                          const TimelineCosts &costs);

/// Cycles `waves` waves of one SIMD take through instructions [first, last]
/// once, until their MFMAs and memory accesses complete.
double simulateStraightLine(const DisassembledKernel &kernel, int first,
                            int last, int waves, int wavesPerWorkgroup,
                            const ModelParameters &params,
                            const TimelineCosts &costs);

bool isQuarterRate(llvm::StringRef mnemonic);
int getMFMACycles(const Instruction &inst);
double getValuCycles(const Instruction &inst, const ModelParameters &params);

} // namespace perf
} // namespace qmm
} // namespace mlir

#endif
