//===- PerfModel.h - a performance model of compiled kernels ----*- C++ -*-===//
//
// No AMD GPU exists where this project is built and tested, so the speed of
// what it emits is predicted from what it emits: the code object (read with
// LLVM's MC disassembler), the launch and the problem. Every figure this
// model produces is MODELED: it rests on the parameters below (sustained
// clock, latencies, bandwidths), whose defaults and sources are documented
// (docs/performance-model.md) and which anyone with
// hardware can override to calibrate it.
//
// The model, in short (docs/performance-model.md has the equations):
//  - the main loop is the natural loop (of the CFG's dominators) whose body
//    holds the most MFMAs; each branch in it gets a trip pattern from the
//    scalar code deciding it;
//  - the waves of a SIMD run from the entry along their own paths through
//    every trip (MFMA pipe, per-kind issue ports, LDS and global queues with
//    s_waitcnt, barriers counted by arrival, VALU dependencies on MFMA
//    results), issuing in the order they take under the nominal parameters;
//  - a round is bounded by that simulation and by W times each pipe's work
//    (MFMA, VALU issue), the CU's LDS bandwidth (bytes plus bank-conflict
//    cycles) and its share of L2 (the bytes that miss L1);
//  - the grid runs in rounds of CUs x resident workgroups, dispatched
//    round-robin over the XCDs; each XCD's L2 fetches the A/B panels its
//    co-resident tiles share once per round from the Infinity Cache; HBM
//    sees the compulsory bytes; launch overhead is added.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_PERFMODEL_PERFMODEL_H
#define QMM_PERFMODEL_PERFMODEL_H

#include "qmm/Target/Chip.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace mlir {
namespace qmm {
namespace perf {

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// The assumptions of the model, each a named parameter with a documented
/// default (getDefaultParameters), overridable as NAME=VALUE.
struct ModelParameters {
  /// Engine clock under sustained matrix load (GHz). MI300X 1.23 and
  /// MI325X 1.46 are published medians; MI355X has none (1.7 is what
  /// HipKittens' 8192^3 result implies at ~94% loop efficiency).
  double clockGHz = 0;
  /// Cycles from a global load's issue to its data (300-700 published
  /// ranges; no authoritative table).
  double globalLatencyCycles = 500;
  /// Cycles from an LDS instruction's issue to its data, before its share
  /// of the LDS bandwidth and bank conflicts.
  double ldsLatencyCycles = 64;
  /// Cycles a wave spends in s_barrier when all waves of its workgroup
  /// arrive together (synchronization, not imbalance).
  double barrierCycles = 16;
  /// Cycles a wave64 VALU instruction occupies its SIMD's issue (4;
  /// quarter-rate transcendentals 4 times as long); v_pk_fma_f32 counts once.
  double valuCycles = 4;
  /// Cycles an MFMA blocks its wave's issue before independent
  /// instructions co-execute (4, matrix instruction calculator).
  double mfmaIssueCycles = 4;
  /// Cycles to issue an LDS or global memory instruction, and a SALU one.
  double memoryIssueCycles = 4;
  double saluCycles = 1;
  /// Measured bandwidths (origami): L2 (all XCDs), Infinity Cache (MALL)
  /// and HBM, in TB/s.
  double l2TBps = 0, mallTBps = 0, hbmTBps = 0;
  /// Host-side launch overhead per kernel (microseconds).
  double launchMicroseconds = 3;
  /// Bytes per clock one CU can take from L2 however idle the others are
  /// (its L1 fill path).
  double cuL2BytesPerClock = 64;
};

/// The device `name` names (empty: the chip's default product), checked to
/// be built on `chip`; the error says what is wrong.
llvm::Expected<const DeviceInfo *> resolveDevice(const ChipInfo &chip,
                                                 llvm::StringRef name);

/// The defaults for `device` (clock and measured bandwidths depend on it).
ModelParameters getDefaultParameters(const DeviceInfo &device);

/// Applies "name=value" to `params`; the error names the known parameters.
llvm::Error setParameter(ModelParameters &params, llvm::StringRef assignment);

/// name -> (value, meaning), for reports and --help.
std::vector<std::pair<std::string, double>>
listParameters(const ModelParameters &params);

//===----------------------------------------------------------------------===//
// Code objects
//===----------------------------------------------------------------------===//

/// What one instruction does, for the model.
enum class InstructionClass {
  MFMA,
  VALU,
  SALU,
  LDS,         ///< ds_* (reads, writes, permutes)
  GlobalLoad,  ///< global_/buffer_/flat_ loads (also direct-to-LDS)
  GlobalStore, ///< global_/buffer_/flat_ stores and atomics
  ScalarLoad,  ///< s_load_* / s_buffer_load_*
  WaitCount,   ///< s_waitcnt
  Barrier,     ///< s_barrier
  Branch,
  Nop,         ///< s_nop and scheduling hints (cycles in `nopCycles`)
  Other,       ///< s_endpgm, s_setprio, ... (no cost)
};

/// A physical register range: VGPR (v), AGPR (a) or SGPR (s).
struct RegisterRange {
  char file = 'v';
  int first = 0, count = 1;
};

struct Instruction {
  uint64_t address = 0;
  unsigned size = 0;
  std::string mnemonic;
  std::string text; ///< as the disassembler prints it
  /// Its operands, split off `text` once (the simulator reads them on
  /// every issue), modifiers dropped: "v5 bitop3:0x6c" is "v5".
  std::vector<std::string> operands;
  InstructionClass kind = InstructionClass::Other;
  /// Branch target address (branches only).
  std::optional<uint64_t> target;
  bool conditional = false;
  /// Registers written (first operand) and read (the others).
  std::vector<RegisterRange> defs, uses;
  /// Bytes one lane moves (LDS and global memory instructions).
  int bytesPerLane = 0;
  /// s_waitcnt: the counts it waits for (-1: not waited on).
  int vmcnt = -1, lgkmcnt = -1;
  /// s_nop N: N + 1.
  int nopCycles = 0;
  /// MFMA: the target description's entry, and whether both operands are
  /// FP6/FP4 (f8f6f4 forms: cbsz/blgp >= 2).
  const MMAIntrinsicInfo *mfma = nullptr;
  bool narrowOperands = false;
};

/// Resources from the kernel descriptor (<kernel>.kd) in the code object.
struct KernelDescriptor {
  bool found = false;
  int64_t ldsBytes = 0, scratchBytes = 0;
  /// Registers per lane allocated (VGPRs and AGPRs, granule-rounded), and
  /// where the AGPRs start (the VGPRs below it).
  int registers = 0, accumOffset = 0;
};

struct DisassembledKernel {
  std::string name;
  std::vector<Instruction> instructions;
  KernelDescriptor descriptor;
};

/// Disassembles every kernel (function symbol with a <name>.kd descriptor,
/// or any function symbol when none has one) of an AMDGPU ELF code object
/// for `chip`.
llvm::Expected<std::vector<DisassembledKernel>>
disassembleCodeObject(llvm::StringRef elf, const ChipInfo &chip);

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

/// What the kernel computes and how it is launched. Fields left 0 are
/// unknown; the model says what it could not account for.
struct KernelWorkload {
  std::array<int64_t, 3> grid = {1, 1, 1}, block = {64, 1, 1};
  /// Trips of the main loop per workgroup as the source IR counts them, and
  /// the MFMAs one IR trip issues per wave: with both, the disassembled loop's
  /// trips follow even when LLVM unrolled it. Without, `loopTrips` is taken
  /// as the disassembled loop's trip count.
  int64_t loopTrips = 0, mfmasPerTrip = 0;
  /// Share of trips on which the loop's conditional blocks (those some
  /// iteration skips, e.g. the block-scale update) run.
  double conditionalShare = 1.0;
  /// The GEMM: useful FLOP (2 M N K summed over groups) and every buffer
  /// the kernel reads or writes, once (compulsory traffic).
  double usefulFlops = 0;
  int64_t compulsoryBytes = 0;
  /// Tiles for the L2 model: workgroup (x, y) computes the tile at column
  /// x * tileN and row y * tileM; the A panel of a tile row and the B panel
  /// of a tile column are `aPanelBytes` and `bPanelBytes` (K included).
  int64_t tileM = 0, tileN = 0;
  int64_t aPanelBytes = 0, bPanelBytes = 0;
  /// The #qmm.config<...> the kernel was built with (empty: unknown).
  std::string config;
  /// Operand widths for the device's peak (8, 6, 4; 16 for bf16).
  int aBits = 8, bBits = 8;
  /// LDS bank-conflict cycles per wave and trip, from the compiler's LDS
  /// layout (the emulator's phase model).
  double ldsConflictCyclesPerTrip = 0;
};

/// Per wave and per iteration of the disassembled main loop (conditional
/// blocks weighted by their share).
struct LoopCounts {
  uint64_t headerAddress = 0, latchAddress = 0;
  int instructions = 0, conditionalBlocks = 0;
  double mfmas = 0, mfmaCycles = 0, mfmaFlops = 0;
  /// "v_mfma_f32_16x16x32_fp8_fp8" / "..._f8f6f4 (fp4)" -> (count, cycles).
  std::map<std::string, std::pair<double, double>> mfmaByOpcode;
  double valu = 0, valuCycles = 0;
  /// VALU instructions that read an MFMA result of the same iteration.
  double valuOnMfmaResults = 0;
  double salu = 0;
  double ldsInstructions = 0, ldsBytes = 0;
  double globalLoads = 0, globalLoadBytes = 0;
  double globalStores = 0, globalStoreBytes = 0;
  /// Global loads that write LDS directly (their bytes pass through it).
  double directToLdsBytes = 0;
  /// LDS bank-conflict cycles per trip: from the lanes' addresses where the
  /// code gives them, else the workload's estimate.
  double ldsConflictCycles = 0;
  double barriers = 0, waits = 0;
};

/// The simulated steady-state iteration of the SIMD (cycles) and the
/// waits of its first wave.
struct WaveTimeline {
  double cycles = 0;
  /// Where the wave waited beyond issuing: on global data (vmcnt), on LDS
  /// data (lgkmcnt), on MFMA results (VALU dependencies), on the MFMA pipe
  /// (back-to-back MFMAs), in barriers.
  double globalWait = 0, ldsWait = 0, dependencyWait = 0, mfmaPipeWait = 0,
         barrierWait = 0;
  /// Smallest lead (in iterations and in cycles) of a global load over the
  /// s_waitcnt that first waits for it; -1 when no global load is waited on
  /// in the loop.
  int prefetchIterations = -1;
  double prefetchCycles = -1;
};

struct KernelPrediction {
  std::string kernel;
  const DeviceInfo *device = nullptr;
  ModelParameters params;
  KernelWorkload workload;

  // Code object.
  KernelDescriptor descriptor;
  int wavesPerWorkgroup = 1;
  /// Waves per SIMD the resources allow, and workgroups per CU.
  int occupancy = 0, workgroupsPerCU = 0;
  std::string occupancyLimit; ///< "registers", "LDS", "waves"
  bool spills = false;

  // Main loop.
  bool hasLoop = false;
  LoopCounts loop;
  int64_t loopTrips = 0;
  WaveTimeline wave;
  /// Waves per SIMD in a full round, and the SIMD's iteration time bounds
  /// (cycles for all of them to do one iteration each).
  int wavesPerSimd = 0;
  double mfmaBound = 0, valuBound = 0, ldsBound = 0, l2Bound = 0,
         latencyBound = 0;
  double iterationCycles = 0;
  double mfmaBusy = 0;
  std::string loopBound; ///< "MFMA", "VALU", "LDS", "L2", or the latency kind
  /// Share of the loop's global load bytes that miss L1 (1: no reuse
  /// known).
  double globalBytesToL2 = 1;
  double prologueCycles = 0, epilogueCycles = 0;

  // Grid.
  int64_t workgroups = 0, rounds = 0;
  double gridEfficiency = 0; ///< workgroups / (rounds x slots)
  double computeSeconds = 0;
  double mallBytes = 0, mallSeconds = 0, hbmBytes = 0, hbmSeconds = 0;
  double seconds = 0;
  std::string kernelBound; ///< "compute (<loop bound>)", "HBM", "MALL"
  double tflops = 0, peakTflops = 0, fractionOfPeak = 0;
  /// What the model could not account for, in words.
  std::vector<std::string> notes;

  std::string format() const;
  llvm::json::Object toJson() const;
};

/// Models `kernel` (from disassembleCodeObject) running `workload` on
/// `device`.
llvm::Expected<KernelPrediction> modelKernel(const DisassembledKernel &kernel,
                                             const KernelWorkload &workload,
                                             const DeviceInfo &device,
                                             const ModelParameters &params);

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

/// Models every kernel launched by the host functions of `gpuModule` (the
/// AMD pipeline's output in format `gpu`): compiles each gpu.module to a
/// code object, reads the launch and the workload from the IR (the main
/// loop's `qmm.kernel` attribute written by qmm-tile-matmul) and models it.
/// A program with a dynamic M, modeled at one M: that M (the matmuls'
/// problem size) and the extents of its host functions' arguments, by
/// function name.
struct DynamicExtents {
  int64_t m = 0;
  std::map<std::string, std::vector<std::vector<int64_t>>> shapes;
};

/// With `at`, a program with a dynamic M is modeled at `at->m` (its code
/// objects as they are; grids and operand bytes evaluated at the argument
/// extents); without it, such a program is an error.
llvm::Expected<std::vector<KernelPrediction>>
modelProgram(ModuleOp gpuModule, const ChipInfo &chip,
             const DeviceInfo &device, const ModelParameters &params,
             const DynamicExtents *at = nullptr);

/// The extents of the arguments of `program`'s functions (qmm level, before
/// the pipeline) when M = `m`: each qmm.matmul operand that is a function
/// argument takes the extents its role gives it at that M (A [M, K], scales
/// by their encoding, output and aux [M, N]).
DynamicExtents getDynamicExtentsAtM(ModuleOp program, int64_t m);

/// Compiles a qmm program (not modified) through the AMD pipeline for
/// `chip` (with `config` forced when not empty) and models its kernels (a
/// dynamic M at `dynamicM`, see modelProgram).
llvm::Expected<std::vector<KernelPrediction>>
modelQMMProgram(ModuleOp program, const ChipInfo &chip,
                const DeviceInfo &device, const ModelParameters &params,
                llvm::StringRef config = "",
                std::optional<int64_t> dynamicM = std::nullopt);

/// The text block fp8-run prints for a program.
std::string formatPredictions(llvm::ArrayRef<KernelPrediction> predictions);

} // namespace perf
} // namespace qmm
} // namespace mlir

#endif
