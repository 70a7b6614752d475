//===- PerfModelInternal.h - pieces of the performance model ----*- C++ -*-===//

#ifndef QMM_LIB_PERFMODEL_PERFMODELINTERNAL_H
#define QMM_LIB_PERFMODEL_PERFMODELINTERNAL_H

#include "qmm/PerfModel/PerfModel.h"

namespace mlir {
namespace qmm {
namespace perf {

/// Basic blocks: a block ends at a branch or s_endpgm, or before a branch
/// target.
struct ControlFlowGraph {
  struct Block {
    int first = 0, last = 0;
    llvm::SmallVector<int, 2> successors;
  };
  std::vector<Block> blocks;
  std::vector<int> blockOf; ///< per instruction
};
ControlFlowGraph buildControlFlowGraph(const DisassembledKernel &kernel);

/// The instruction a branch jumps to, or -1.
int getBranchTarget(const DisassembledKernel &kernel, int index);

/// How a conditional branch of the main loop goes from trip to trip
/// (ControlFlow.cpp says how each is recognized).
enum class BranchPattern {
  Never,         ///< an exit, or an inner loop's back edge
  Always,
  Alternates,    ///< every other trip (a toggle)
  OnceOnly,      ///< one trip of all (a counter reaching its bound)
  AllButOnce,    ///< every trip but one
  ShareTaken,    ///< on the conditional share of trips
  ShareNotTaken, ///< on the rest
  Exec,          ///< on the wave's exec (full waves: execnz taken)
  Unknown,
};

/// The main loop: a natural loop of the CFG.
struct LoopRegion {
  int header = 0;      ///< first instruction of the header block
  int headerBlock = 0; ///< its block
  int latch = 0;       ///< the last instruction branching back to the header
  std::vector<int> body;       ///< its instructions, in address order
  std::vector<bool> inLoop;    ///< per instruction
  std::vector<bool> blockInLoop;
  std::map<int, BranchPattern> branches; ///< conditional branches in it
  std::vector<int> innerBackEdges;       ///< of inner loops without MFMAs
  /// An outer loop holding it was passed over.
  bool nested = false;
};

std::optional<LoopRegion> findMainLoop(const DisassembledKernel &kernel,
                                       const ControlFlowGraph &cfg);

/// Share of trips on which a branch of `pattern` is taken, and whether it is
/// taken on trip `iteration` in the simulated steady state.
double getTakenShare(BranchPattern pattern, double share, int64_t trips);
bool takesBranch(BranchPattern pattern, int iteration, double share);

/// Executions per trip of each instruction (0 outside the loop).
std::vector<double> computeLoopWeights(const DisassembledKernel &kernel,
                                       const ControlFlowGraph &cfg,
                                       const LoopRegion &loop, double share,
                                       int64_t trips);

/// Operands as printed (modifiers dropped: parsed once into
/// Instruction::operands, read as references), an immediate's value, and
/// the first SGPR of "s7" / "s[4:5]".
std::vector<std::string> parseOperands(llvm::StringRef text);
llvm::SmallVector<llvm::StringRef, 6> getOperands(const Instruction &inst);
std::optional<int64_t> parseImmediate(llvm::StringRef operand);
std::optional<int> parseScalarRegister(llvm::StringRef operand);

/// Known integer values of one wave (per lane), from the work-item id and
/// constants through the integer VALU/SALU instructions it executes.
class WaveValues {
public:
  using Lanes = std::array<uint32_t, 64>;
  WaveValues(int waveInWorkgroup, std::array<int64_t, 3> block, int waveSize);
  void execute(const Instruction &inst);
  /// exec, when known.
  std::optional<uint64_t> getExec() const { return exec; }
  /// The active lanes' values of a VGPR operand, when known.
  std::optional<std::vector<int64_t>>
  getLaneAddresses(llvm::StringRef operand) const;

private:
  std::optional<Lanes> read(llvm::StringRef operand) const;
  /// A 64-bit lane mask operand (exec, vcc, an SGPR pair, an immediate).
  std::optional<uint64_t> readMask(llvm::StringRef operand) const;
  void writeMask(llvm::StringRef operand, std::optional<uint64_t> value);
  void forgetDefinitions(const Instruction &inst);

  int waveSize;
  std::map<int, Lanes> vgprs;
  std::map<int, uint32_t> sgprs;
  std::optional<uint64_t> exec, vcc;
};

/// Classifies one instruction from its printed form.
void classifyInstruction(Instruction &inst, const ChipInfo &chip);

std::optional<LoopRegion> findMainLoop(const DisassembledKernel &kernel);

/// Per-trip counts of the loop's instructions under `weights`
/// (computeLoopWeights).
LoopCounts countLoop(const DisassembledKernel &kernel, const LoopRegion &loop,
                     const std::vector<double> &weights,
                     const ModelParameters &params, int waveSize);

/// What the timeline needs beyond the parameters.
struct TimelineCosts {
  const ChipInfo *chip = nullptr;
  /// The workgroup's shape (work-item ids) and the CU's SIMDs.
  std::array<int64_t, 3> block = {64, 1, 1};
  /// The LDS and L2 bandwidth of the CU (bytes per clock; 0: unbounded),
  /// shared by `simdsSharingMemory` busy SIMDs running the same schedule.
  double ldsBytesPerClock = 128, memoryBytesPerClock = 0;
  int simdsSharingMemory = 4;
  /// Bank-conflict cycles of an LDS instruction whose addresses the wave's
  /// values do not give (the compiler's estimate, spread evenly).
  double ldsConflictCyclesPerInstruction = 0;
  /// Share of global load bytes that reach L2 (the rest hit in L1: waves of
  /// a workgroup loading the same panel).
  double globalBytesToL2 = 1;
};

/// `waves` waves on one SIMD, `wavesPerSimdPerWorkgroup` of each workgroup
/// among them (they meet at barriers), from the kernel's entry through
/// `iterations` trips of the main loop (or, without a loop, to the end).
/// With reference parameters and costs, the waves issue in the order they
/// do under those (a fixed order makes every time a max-plus expression of
/// the costs, hence monotone in each; re-picking the order per parameter
/// set is not, Graham's anomalies).
struct SimdTimeline {
  /// Cycles until every wave finished its trips (or the program, without a
  /// loop), from the kernel's entry.
  double totalCycles = 0;
  /// Cycles per iteration (each wave does one) over the second half of the
  /// trips (for reports: the model uses totalCycles).
  double iterationCycles = 0;
  /// Cycles until every wave reached the loop (or finished, without one).
  double prologueCycles = 0;
  /// The first wave's waits, per iteration of the measured half.
  WaveTimeline wave;
  /// Bank-conflict cycles of the first wave per iteration.
  double ldsConflictCycles = 0;
};
struct SimdWorkload {
  const ControlFlowGraph *cfg = nullptr;
  const LoopRegion *loop = nullptr; ///< null: run to the end once
  double conditionalShare = 1;
  int waves = 1, wavesPerSimdPerWorkgroup = 1;
  /// Trips of the main loop to run.
  int iterations = 12;
  /// Start here instead of the entry (the epilogue: the loop's exit).
  int start = 0;
  /// The cycle each workgroup on the SIMD starts at (by the order of its
  /// waves; empty: all at 0).
  std::vector<double> workgroupStarts;
};
SimdTimeline simulateSimd(const DisassembledKernel &kernel,
                          const SimdWorkload &work,
                          const ModelParameters &params,
                          const TimelineCosts &costs,
                          const ModelParameters *referenceParams = nullptr,
                          const TimelineCosts *referenceCosts = nullptr);

/// The instruction the main loop exits to.
int getLoopExit(const DisassembledKernel &kernel, const ControlFlowGraph &cfg,
                const LoopRegion &loop);

bool isQuarterRate(llvm::StringRef mnemonic);
int getMFMACycles(const Instruction &inst);
double getValuCycles(const Instruction &inst, const ModelParameters &params);

} // namespace perf
} // namespace qmm
} // namespace mlir

#endif
