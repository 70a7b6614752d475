//===- KernelModel.cpp - one kernel on one device, modeled ----------------===//
//
// Equations (docs/performance-model.md has them with their sources):
//   W     = waves per SIMD in a round (occupancy, workgroups on the CU)
//   B_it  = max(W * mfma, W * (valu + mfmaIssue * mfmas),
//               waves_CU * ((ldsBytes + directToLds) / ldsBW + conflicts),
//               waves_CU * globalBytes * missL1 / L2share)
//   T_wg  = max(simulated SIMD over every trip, prologue + trips * B_it)
//           + epilogue                                (per round)
//   T     = launch + max(sum over rounds of T_wg, MALL->L2 bytes / MALL BW,
//                        compulsory bytes / HBM BW)
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

llvm::Expected<const DeviceInfo *>
perf::resolveDevice(const ChipInfo &chip, llvm::StringRef name) {
  const DeviceInfo *device =
      name.empty() ? getDefaultDevice(chip) : lookupDevice(name);
  if (!device)
    return llvm::createStringError("unknown device '" + name.str() +
                                   "' (expected " + getSupportedDeviceNames() +
                                   ")");
  if (device->chip != chip.name)
    return llvm::createStringError(device->name.str() + " is a " +
                                   device->chip.str() + ", but the chip is " +
                                   chip.name.str());
  return device;
}

ModelParameters perf::getDefaultParameters(const DeviceInfo &device) {
  ModelParameters p;
  bool cdna4 = device.getChip().name == "gfx950";
  // Sustained clocks under dense FP8 load (rocm-blogs "measuring max
  // achievable FLOPs" part 2): MI300X 1.23 GHz median, MI325X 1.46 GHz.
  // MI355X: none published; 1.7 GHz is what HipKittens' 3327 TFLOP/s at
  // 8192^3 implies at ~94% loop efficiency.
  p.clockGHz = device.nominalClockGHz;
  // Measured bandwidths (ROCm origami): L2 17 TB/s on both; MALL 7.31 /
  // 8.53 TB/s; HBM 4 / 6 TB/s (MI325X: 6.0 peak scaled like MI300X's
  // 4 / 5.3).
  // L2: origami's 17 TB/s on gfx942. On gfx950 the calibration set
  // (docs/performance-model.md, "Calibration") needs more: the
  // tutorial's double-buffered 64x64 kernel (k3) ran at 1166 TFLOP/s, which
  // moves >= 18.2 TB/s from L2 to the CUs; 24 TB/s puts k2-k6 within +-15%
  // of their published figures.
  p.l2TBps = device.nominalL2TBps;
  p.mallTBps = cdna4 ? 8.53 : 7.31;
  p.hbmTBps = cdna4 ? 6.0 : device.name == "mi325x" ? 4.5 : 4.0;
  return p;
}

namespace {
struct ParameterField {
  const char *name;
  double ModelParameters::*field;
};
} // namespace

static const ParameterField kParameterFields[] = {
    {"clock", &ModelParameters::clockGHz},
    {"global-latency", &ModelParameters::globalLatencyCycles},
    {"lds-latency", &ModelParameters::ldsLatencyCycles},
    {"barrier", &ModelParameters::barrierCycles},
    {"valu", &ModelParameters::valuCycles},
    {"mfma-issue", &ModelParameters::mfmaIssueCycles},
    {"memory-issue", &ModelParameters::memoryIssueCycles},
    {"salu", &ModelParameters::saluCycles},
    {"l2-bw", &ModelParameters::l2TBps},
    {"mall-bw", &ModelParameters::mallTBps},
    {"hbm-bw", &ModelParameters::hbmTBps},
    {"launch", &ModelParameters::launchMicroseconds},
    {"cu-l2-bw", &ModelParameters::cuL2BytesPerClock},
};

llvm::Error perf::setParameter(ModelParameters &params,
                               llvm::StringRef assignment) {
  auto [name, text] = assignment.split('=');
  std::string known;
  for (const ParameterField &f : kParameterFields)
    known += (known.empty() ? "" : ", ") + std::string(f.name);
  for (const ParameterField &f : kParameterFields) {
    if (name.trim() != f.name)
      continue;
    double value;
    if (text.trim().getAsDouble(value) || !std::isfinite(value) ||
        value < 0 || (value == 0 && (f.field == &ModelParameters::clockGHz ||
                                     f.field == &ModelParameters::l2TBps ||
                                     f.field == &ModelParameters::mallTBps ||
                                     f.field == &ModelParameters::hbmTBps ||
                                     f.field == &ModelParameters::valuCycles)))
      return llvm::createStringError(
          "model parameter '%s': expected a %s number, got '%s'", f.name,
          "non-negative (positive for clock, bandwidths and valu)",
          text.str().c_str());
    params.*f.field = value;
    return llvm::Error::success();
  }
  return llvm::createStringError(
      "unknown model parameter '%s' in '%s' (expected NAME=VALUE with NAME "
      "one of %s)",
      name.str().c_str(), assignment.str().c_str(), known.c_str());
}

std::vector<std::pair<std::string, double>>
perf::listParameters(const ModelParameters &params) {
  std::vector<std::pair<std::string, double>> list;
  for (const ParameterField &f : kParameterFields)
    list.push_back({f.name, params.*f.field});
  return list;
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

/// Bytes the A/B panels that workgroups sharing an XCD's L2 in one round
/// fetch from the Infinity Cache: each distinct tile row (A) and column
/// (B) once per XCD and round. Workgroup i runs on XCD i % xcds and is
/// tile (x, y, z) = (i % gx, i / gx % gy, i / (gx gy)); an XCD's round holds
/// its workgroups j = i / xcds in [r S, (r + 1) S), so the rows it touches
/// are the span of i / gx and its columns the residues of xcds j mod gx.
/// Closed form: O(rounds x XCDs) for any grid.
static double modelL2Fills(const KernelWorkload &w, int64_t workgroups,
                           int64_t xcds, int64_t slotsPerXcd) {
  int64_t gx = w.grid[0], gy = w.grid[1];
  int64_t period = gx / std::gcd(gx, xcds); // distinct columns in a row
  double bytes = 0;
  for (int64_t xcd = 0; xcd < std::min(xcds, workgroups); ++xcd) {
    int64_t onXcd = (workgroups - xcd + xcds - 1) / xcds;
    for (int64_t first = 0; first < onXcd; first += slotsPerXcd) {
      int64_t count = std::min(slotsPerXcd, onXcd - first);
      int64_t iFirst = first * xcds + xcd;
      int64_t iLast = (first + count - 1) * xcds + xcd;
      // Rows: every row the range spans when a row has at least `xcds`
      // workgroups, else one per workgroup.
      int64_t rows = gx >= xcds ? iLast / gx - iFirst / gx + 1 : count;
      int64_t slabs = iLast / (gx * gy) - iFirst / (gx * gy) + 1;
      int64_t columns = std::min(count, period) * slabs;
      bytes += double(rows) * double(w.aPanelBytes) +
               double(std::min(columns, count)) * double(w.bPanelBytes);
    }
  }
  return bytes;
}

/// FLOP of the MFMAs outside the loop (peeled trips, prologue).
static double outsideMfmaFlops(const DisassembledKernel &kernel,
                               const LoopRegion &loop) {
  double flops = 0;
  for (int i = 0, e = int(kernel.instructions.size()); i < e; ++i) {
    const Instruction &inst = kernel.instructions[i];
    if (inst.kind == InstructionClass::MFMA && inst.mfma && !loop.inLoop[i])
      flops += double(inst.mfma->getFlops());
  }
  return flops;
}

/// The instructions of a kernel with no loop, as one "iteration".
static LoopRegion wholeKernel(const DisassembledKernel &kernel) {
  LoopRegion region;
  int n = int(kernel.instructions.size());
  region.header = 0;
  region.latch = n - 1;
  region.inLoop.assign(n, true);
  for (int i = 0; i < n; ++i)
    region.body.push_back(i);
  return region;
}

/// The SIMD of one round, averaged over the relative phase of the
/// workgroups sharing it. Those start whenever the dispatcher fills a slot,
/// at phases the model cannot know, and a deterministic simulation locks
/// onto whichever its start gives: with all of them starting at 0, the
/// steady trip of one gfx942 kernel moved by +-5% with the order of a few
/// prologue instructions. Workgroup g of case k starts at
/// frac(g k / kPhases) of `period` cycles; each case's time counts from
/// its latest start.
static SimdTimeline simulatePhasedSimd(const DisassembledKernel &kernel,
                                       const SimdWorkload &simd,
                                       const ModelParameters &params,
                                       const TimelineCosts &costs,
                                       const ModelParameters &reference,
                                       const TimelineCosts &referenceCosts,
                                       double period) {
  int perWorkgroup = std::max(1, simd.wavesPerSimdPerWorkgroup);
  int workgroups = (simd.waves + perWorkgroup - 1) / perWorkgroup;
  if (!simd.loop || workgroups < 2 || period <= 0)
    return simulateSimd(kernel, simd, params, costs, &reference,
                        &referenceCosts);
  constexpr int kPhases = 4;
  SimdTimeline mean;
  for (int k = 0; k < kPhases; ++k) {
    SimdWorkload phased = simd;
    double latest = 0;
    for (int g = 0; g < workgroups; ++g) {
      double start = double(g * k % kPhases) / kPhases * period;
      phased.workgroupStarts.push_back(start);
      latest = std::max(latest, start);
    }
    SimdTimeline t = simulateSimd(kernel, phased, params, costs, &reference,
                                  &referenceCosts);
    if (k == 0)
      mean.wave = t.wave; // its prefetch leads; the waits are averaged
    auto add = [&](double &into, double value) {
      into = (k == 0 ? 0 : into) + value / kPhases;
    };
    add(mean.totalCycles, t.totalCycles - latest);
    add(mean.iterationCycles, t.iterationCycles);
    add(mean.prologueCycles, t.prologueCycles - latest);
    add(mean.ldsConflictCycles, t.ldsConflictCycles);
    add(mean.wave.cycles, t.wave.cycles);
    add(mean.wave.globalWait, t.wave.globalWait);
    add(mean.wave.ldsWait, t.wave.ldsWait);
    add(mean.wave.dependencyWait, t.wave.dependencyWait);
    add(mean.wave.mfmaPipeWait, t.wave.mfmaPipeWait);
    add(mean.wave.barrierWait, t.wave.barrierWait);
  }
  return mean;
}

/// Share of a workgroup's global load bytes that miss L1: waves of one
/// workgroup loading the same A/B panel rows hit in L1 after the first
/// (the L1 holds a trip's panels). Per trip, a workgroup needs at least the
/// panels' share of its K range: unique = (A + B panels) x the trip's share
/// of the workgroup's MFMA work.
static double getGlobalBytesToL2(const KernelWorkload &w,
                                 const LoopCounts &c, int wavesPerWorkgroup) {
  if (w.tileM <= 0 || w.tileN <= 0 || w.aPanelBytes <= 0 ||
      w.bPanelBytes <= 0 || w.aBits <= 0 || c.globalLoadBytes <= 0)
    return 1;
  double k = double(w.aPanelBytes) * 8 / (double(w.tileM) * w.aBits);
  double workgroupFlops = 2.0 * double(w.tileM) * double(w.tileN) * k;
  double tripShare = wavesPerWorkgroup * c.mfmaFlops / workgroupFlops;
  if (!(tripShare > 0))
    return 1;
  double unique = double(w.aPanelBytes + w.bPanelBytes) * tripShare;
  double loaded = wavesPerWorkgroup * c.globalLoadBytes;
  return std::clamp(unique / loaded, 0.0, 1.0);
}

llvm::Expected<KernelPrediction>
perf::modelKernel(const DisassembledKernel &kernel,
                  const KernelWorkload &workload, const DeviceInfo &device,
                  const ModelParameters &params) {
  const ChipInfo &chip = device.getChip();
  KernelPrediction p;
  p.kernel = kernel.name;
  p.device = &device;
  p.params = params;
  p.workload = workload;
  p.descriptor = kernel.descriptor;
  if (params.clockGHz <= 0)
    return llvm::createStringError("model parameter clock must be positive");
  // Callers of the library may fill these in directly (setParameter checks
  // what it sets): NaN passes every comparison below it and a NaN share
  // keeps the loop simulator from finishing.
  for (auto [name, value] : listParameters(params))
    if (!std::isfinite(value))
      return llvm::createStringError("model parameter %s is not finite",
                                     name.c_str());
  if (!(workload.conditionalShare >= 0 && workload.conditionalShare <= 1))
    return llvm::createStringError("the conditional share %g is not in [0, 1]",
                                   workload.conditionalShare);
  if (!(workload.usefulFlops >= 0) || !std::isfinite(workload.usefulFlops))
    return llvm::createStringError("useful FLOP %g: expected a finite number "
                                   ">= 0",
                                   workload.usefulFlops);
  if (kernel.instructions.empty())
    return llvm::createStringError("kernel %s has no instructions",
                                   kernel.name.c_str());
  for (const Instruction &inst : kernel.instructions)
    if (inst.kind == InstructionClass::MFMA && !inst.mfma)
      return llvm::createStringError(
          "kernel %s: the target description has no cycle count for %s on "
          "%s",
          kernel.name.c_str(), inst.mnemonic.c_str(), chip.name.str().c_str());

  // The launch, checked as HIP would.
  int64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (workload.grid[d] <= 0 || workload.block[d] <= 0 ||
        workload.block[d] > chip.maxWorkgroupExtents[d] ||
        workload.grid[d] * workload.block[d] >
            chip.maxGridWorkItemsPerDimension)
      return llvm::createStringError(
          "grid %lld,%lld,%lld x block %lld,%lld,%lld is not a valid launch "
          "on %s",
          (long long)workload.grid[0], (long long)workload.grid[1],
          (long long)workload.grid[2], (long long)workload.block[0],
          (long long)workload.block[1], (long long)workload.block[2],
          chip.name.str().c_str());
    threads *= workload.block[d];
  }
  if (threads > chip.maxThreadsPerWorkgroup)
    return llvm::createStringError("%lld threads per workgroup: at most %lld "
                                   "on %s",
                                   (long long)threads,
                                   (long long)chip.maxThreadsPerWorkgroup,
                                   chip.name.str().c_str());

  // Occupancy from the code object's descriptor.
  p.wavesPerWorkgroup = int((threads + chip.waveSize - 1) / chip.waveSize);
  const KernelDescriptor &kd = kernel.descriptor;
  if (!kd.found)
    p.notes.push_back("no kernel descriptor: registers, LDS and scratch "
                      "unknown (none assumed)");
  p.spills = kd.scratchBytes > 0;
  int registers = std::max(kd.registers, chip.registerGranule);
  int wavesPerSimdPerWorkgroup =
      (p.wavesPerWorkgroup + chip.simdsPerCU - 1) / chip.simdsPerCU;
  ChipInfo::Residency residency =
      chip.getResidency(registers, kd.ldsBytes, p.wavesPerWorkgroup);
  p.workgroupsPerCU = residency.workgroupsPerCU;
  p.occupancyLimit = residency.limit.str();
  p.occupancy = residency.wavesPerSimd;
  if (p.workgroupsPerCU < 1)
    return llvm::createStringError(
        "kernel %s does not fit on a %s CU (%d registers per lane, %lld "
        "bytes of LDS, %d waves)",
        kernel.name.c_str(), chip.name.str().c_str(), registers,
        (long long)kd.ldsBytes, p.wavesPerWorkgroup);

  // The main loop, or the whole kernel run once.
  double share = std::clamp(workload.conditionalShare, 0.0, 1.0);
  ControlFlowGraph cfg = buildControlFlowGraph(kernel);
  std::optional<LoopRegion> found = findMainLoop(kernel, cfg);
  p.hasLoop = found.has_value();
  LoopRegion loop = found ? *found : wholeKernel(kernel);
  auto weightsFor = [&](int64_t trips) {
    return p.hasLoop ? computeLoopWeights(kernel, cfg, loop, share, trips)
                     : std::vector<double>(kernel.instructions.size(), 1.0);
  };
  std::vector<double> weights = weightsFor(workload.loopTrips);
  double loopMfmas = 0, outsideMfmas = 0; // every-trip MFMAs; the others
  for (int i = 0, e = int(kernel.instructions.size()); i < e; ++i) {
    if (kernel.instructions[i].kind != InstructionClass::MFMA)
      continue;
    if (loop.inLoop[i] && weights[i] >= 1.0)
      loopMfmas += 1;
    else if (!loop.inLoop[i])
      outsideMfmas += 1;
  }
  // Disassembled trips from the IR's: LLVM may unroll the loop and peel
  // MFMAs out of it.
  double unroll = 1;
  if (!p.hasLoop) {
    p.loopTrips = 1;
    p.notes.push_back("no loop: the kernel is modeled as one pass of its "
                      "waves");
  } else if (workload.loopTrips > 0 && workload.mfmasPerTrip > 0 &&
             loopMfmas > 0) {
    double irMfmas = double(workload.loopTrips) * workload.mfmasPerTrip;
    p.loopTrips =
        std::max<int64_t>(1, std::llround((irMfmas - outsideMfmas) /
                                          loopMfmas));
    unroll = loopMfmas / double(workload.mfmasPerTrip);
  } else if (workload.loopTrips > 0) {
    p.loopTrips = workload.loopTrips;
  } else {
    p.loopTrips = 1;
    p.notes.push_back("main-loop trip count unknown: 1 assumed");
  }
  if (p.hasLoop && p.loopTrips != workload.loopTrips)
    weights = weightsFor(p.loopTrips);
  p.loop = countLoop(kernel, loop, weights, params, chip.waveSize);
  if (loop.nested)
    p.notes.push_back("nested loops: the innermost loop holding MFMAs is the "
                      "main loop; the outer ones count as prologue and "
                      "epilogue, once");
  bool usesShare = false;
  for (auto &[index, pattern] : loop.branches)
    usesShare |= pattern == BranchPattern::ShareTaken ||
                 pattern == BranchPattern::ShareNotTaken;
  if (p.hasLoop && usesShare && workload.conditionalShare >= 1.0)
    p.notes.push_back("the loop's conditional blocks are counted on every "
                      "iteration (no share given)");

  double clockHz = params.clockGHz * 1e9;
  TimelineCosts costs;
  costs.chip = &chip;
  costs.block = workload.block;
  costs.ldsBytesPerClock = double(chip.getLdsBytesPerClock());
  if (p.loop.ldsInstructions > 0)
    costs.ldsConflictCyclesPerInstruction =
        workload.ldsConflictCyclesPerTrip * unroll / p.loop.ldsInstructions;
  costs.globalBytesToL2 =
      getGlobalBytesToL2(workload, p.loop, p.wavesPerWorkgroup);
  p.globalBytesToL2 = costs.globalBytesToL2;

  // The grid in rounds, on the busiest XCD.
  p.workgroups = workload.grid[0] * workload.grid[1] * workload.grid[2];
  int64_t cusPerXcd = device.computeUnits / device.xcds;
  int64_t slotsPerXcd = cusPerXcd * p.workgroupsPerCU;
  int64_t onBusiestXcd = (p.workgroups + device.xcds - 1) / device.xcds;
  p.rounds = (onBusiestXcd + slotsPerXcd - 1) / slotsPerXcd;
  p.gridEfficiency = double(p.workgroups) /
                     double(p.rounds * slotsPerXcd * device.xcds);

  // The waves' issue order comes from the device's nominal parameters and
  // is replayed under `params` (simulateSimd): the figures are then
  // monotone in every parameter.
  ModelParameters reference = getDefaultParameters(device);
  // Trips simulated: all of them up to kMaxSimulatedTrips, else that many,
  // scaled (a positive factor keeps the time monotone).
  constexpr int64_t kMaxSimulatedTrips = 256;
  int simulatedTrips =
      int(std::min<int64_t>(std::max<int64_t>(p.loopTrips, 1),
                            kMaxSimulatedTrips));
  double tripScale = double(std::max<int64_t>(p.loopTrips, 1)) /
                     double(simulatedTrips);
  auto memoryShare = [&](const ModelParameters &pr, int64_t busyCUs) {
    return std::min(pr.l2TBps * 1e12 / (pr.clockGHz * 1e9) / double(busyCUs),
                    pr.cuL2BytesPerClock);
  };

  // One wave alone: its critical path, the prologue and the epilogue, and
  // the bank conflicts of its LDS accesses.
  double phasePeriod = 0;
  if (p.hasLoop) {
    TimelineCosts alone = costs;
    alone.memoryBytesPerClock = memoryShare(params, device.computeUnits);
    SimdWorkload one;
    one.cfg = &cfg;
    one.loop = &loop;
    one.conditionalShare = share;
    one.iterations = simulatedTrips;
    SimdTimeline single = simulateSimd(kernel, one, params, alone);
    p.wave = single.wave;
    p.prologueCycles = single.prologueCycles;
    p.loop.ldsConflictCycles = single.ldsConflictCycles;
    SimdWorkload tail;
    tail.cfg = &cfg;
    tail.start = getLoopExit(kernel, cfg, loop);
    p.epilogueCycles = simulateSimd(kernel, tail, params, alone).totalCycles;
    // The period over which workgroups sharing a SIMD are phased: a trip of
    // one wave alone under the reference parameters (fixed by the code, so
    // the figures stay monotone in `params`).
    TimelineCosts aloneReference = alone;
    aloneReference.memoryBytesPerClock =
        memoryShare(reference, device.computeUnits);
    phasePeriod =
        simulateSimd(kernel, one, reference, aloneReference).iterationCycles;
  } else {
    p.loop.ldsConflictCycles = workload.ldsConflictCyclesPerTrip;
  }

  // One round: `perCU` workgroups on each busy CU. Its time is the larger
  // of the simulated SIMD (prologue and every trip) and the throughput
  // bounds over the trips, plus the epilogue.
  const LoopCounts &c = p.loop;
  std::map<std::tuple<int, int, int64_t>, SimdTimeline> simulated;
  auto roundCycles = [&](int64_t perCU, bool first) {
    int wavesPerSimd = int(std::min<int64_t>(
        p.occupancy, perCU * wavesPerSimdPerWorkgroup));
    double wavesOnCU = double(perCU * p.wavesPerWorkgroup);
    // L2 bandwidth is shared by the CUs at work, each capped.
    int64_t busyCUs = std::min<int64_t>(
        device.computeUnits,
        (std::min(p.workgroups, perCU * device.computeUnits) + perCU - 1) /
            perCU);
    double l2PerCU = memoryShare(params, busyCUs);
    TimelineCosts roundCosts = costs;
    roundCosts.memoryBytesPerClock = l2PerCU;
    roundCosts.simdsSharingMemory = int(std::min<int64_t>(
        chip.simdsPerCU, perCU * p.wavesPerWorkgroup));
    TimelineCosts referenceCosts = roundCosts;
    referenceCosts.memoryBytesPerClock = memoryShare(reference, busyCUs);
    auto key = std::make_tuple(wavesPerSimd, roundCosts.simdsSharingMemory,
                               busyCUs);
    auto it = simulated.find(key);
    if (it == simulated.end()) {
      SimdWorkload simd;
      simd.cfg = &cfg;
      simd.loop = p.hasLoop ? &loop : nullptr;
      simd.conditionalShare = share;
      simd.waves = wavesPerSimd;
      simd.wavesPerSimdPerWorkgroup = wavesPerSimdPerWorkgroup;
      simd.iterations = simulatedTrips;
      it = simulated
               .emplace(key, simulatePhasedSimd(kernel, simd, params,
                                                roundCosts, reference,
                                                referenceCosts, phasePeriod))
               .first;
    }
    const SimdTimeline &timeline = it->second;
    double mfma = wavesPerSimd * c.mfmaCycles;
    double valu =
        wavesPerSimd * (c.valuCycles + params.mfmaIssueCycles * c.mfmas);
    double lds = wavesOnCU * ((c.ldsBytes + c.directToLdsBytes) /
                                  costs.ldsBytesPerClock +
                              c.ldsConflictCycles);
    double l2 = wavesOnCU *
                (c.globalLoadBytes * costs.globalBytesToL2 +
                 c.globalStoreBytes) /
                l2PerCU;
    double throughput = std::max({mfma, valu, lds, l2});
    double trips = double(std::max<int64_t>(p.loopTrips, 1));
    double simulatedRound = timeline.totalCycles * (p.hasLoop ? tripScale : 1);
    double boundRound =
        p.hasLoop ? p.prologueCycles + trips * throughput : throughput;
    // Per trip, for the report: the simulated loop past its prologue (the
    // whole pass, without a loop).
    double simulatedTrip =
        p.hasLoop
            ? std::max(0.0, simulatedRound - timeline.prologueCycles) / trips
            : simulatedRound;
    double iteration = std::max(throughput, simulatedTrip);
    if (first) {
      p.wavesPerSimd = wavesPerSimd;
      p.mfmaBound = mfma;
      p.valuBound = valu;
      p.ldsBound = lds;
      p.l2Bound = l2;
      p.latencyBound = simulatedTrip;
      p.iterationCycles = iteration;
      p.mfmaBusy = iteration > 0 ? mfma / iteration : 0;
      if (iteration == mfma)
        p.loopBound = "MFMA";
      else if (iteration == valu)
        p.loopBound = "VALU";
      else if (iteration == lds)
        p.loopBound = "LDS";
      else if (iteration == l2)
        p.loopBound = "L2";
      else {
        // The simulated schedule: name the largest wait of its first wave.
        std::pair<double, const char *> waits[] = {
            {p.wave.globalWait, "latency: global loads"},
            {p.wave.ldsWait, "latency: LDS"},
            {p.wave.dependencyWait, "latency: VALU on MFMA results"},
            {p.wave.barrierWait, "latency: barriers"},
            {p.wave.mfmaPipeWait, "issue: MFMA chains"}};
        auto *largest = std::max_element(
            std::begin(waits), std::end(waits),
            [](auto &a, auto &b) { return a.first < b.first; });
        p.loopBound = !p.hasLoop              ? "one pass: latency and issue"
                      : largest->first > 0 ? largest->second
                                           : "issue";
      }
    }
    return std::max(simulatedRound, boundRound) +
           (p.hasLoop ? p.epilogueCycles : 0);
  };
  // Full rounds are alike: model one and the last, partial one.
  int64_t fullRounds = onBusiestXcd / slotsPerXcd;
  int64_t remainder = onBusiestXcd % slotsPerXcd;
  double computeCycles = 0;
  if (fullRounds > 0)
    computeCycles += double(fullRounds) * roundCycles(p.workgroupsPerCU, true);
  if (remainder > 0)
    computeCycles += roundCycles((remainder + cusPerXcd - 1) / cusPerXcd,
                                 fullRounds == 0);
  p.computeSeconds = computeCycles / clockHz;

  // Memory beyond the CUs.
  double compulsory = double(workload.compulsoryBytes);
  if (workload.tileM > 0 && workload.tileN > 0 &&
      (workload.aPanelBytes > 0 || workload.bPanelBytes > 0)) {
    p.mallBytes =
        modelL2Fills(workload, p.workgroups, device.xcds, slotsPerXcd);
  } else {
    p.mallBytes = compulsory;
    if (p.hasLoop)
      p.notes.push_back("tiles unknown: L2 reuse across workgroups not "
                        "modeled (Infinity Cache traffic = compulsory bytes)");
  }
  if (workload.compulsoryBytes == 0)
    p.notes.push_back("buffers unknown: no HBM or Infinity Cache traffic "
                      "modeled");
  p.mallSeconds = p.mallBytes / (params.mallTBps * 1e12);
  // A working set beyond the Infinity Cache: the share of the L2 fills it
  // cannot hold come from HBM as well.
  p.hbmBytes = compulsory;
  double cache = double(device.infinityCacheBytes);
  if (compulsory > cache)
    p.hbmBytes += std::max(0.0, p.mallBytes - compulsory) *
                  (1.0 - cache / compulsory);
  p.hbmSeconds = p.hbmBytes / (params.hbmTBps * 1e12);
  double body = std::max({p.computeSeconds, p.mallSeconds, p.hbmSeconds});
  p.kernelBound = body == p.computeSeconds
                      ? "compute (" + p.loopBound + ")"
                  : body == p.hbmSeconds ? "HBM"
                                         : "Infinity Cache -> L2";
  p.seconds = body + params.launchMicroseconds * 1e-6;

  double flops = workload.usefulFlops;
  if (flops <= 0) {
    flops = double(p.workgroups) * p.wavesPerWorkgroup *
            (double(p.loopTrips) * c.mfmaFlops +
             (p.hasLoop ? outsideMfmaFlops(kernel, loop) : 0));
    p.notes.push_back(flops > 0 ? "useful FLOP unknown: the MFMAs' FLOP "
                                  "counted (padding included)"
                                : "no MFMAs: 0 FLOP");
  }
  p.tflops = p.seconds > 0 ? flops / p.seconds * 1e-12 : 0;
  p.peakTflops = device.getPeakTflops(workload.aBits, workload.bBits);
  if (p.peakTflops == 0) {
    p.peakTflops = device.getPeakTflops(8, 8);
    p.notes.push_back(llvm::formatv("no {0}x{1}-bit MFMA on {2}: operands "
                                    "are converted; fraction of the FP8 "
                                    "peak",
                                    workload.aBits, workload.bBits, chip.name)
                          .str());
  }
  p.fractionOfPeak = p.peakTflops > 0 ? p.tflops / p.peakTflops : 0;
  return p;
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

static std::string formatBytes(double bytes) {
  if (bytes >= 1e9)
    return llvm::formatv("{0:f2} GB", bytes * 1e-9).str();
  if (bytes >= 1e6)
    return llvm::formatv("{0:f1} MB", bytes * 1e-6).str();
  if (bytes >= 1e3)
    return llvm::formatv("{0:f1} KB", bytes * 1e-3).str();
  return llvm::formatv("{0:f0} B", bytes).str();
}

std::string KernelPrediction::format() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  const ModelParameters &pr = params;
  os << llvm::formatv(
      "model {0} on {1} ({2}), MODELED at a sustained {3:f2} GHz "
      "(+-15%):\n",
      kernel, device->name, device->getChip().name, pr.clockGHz);
  os << llvm::formatv("  predicted {0:f1} us, {1:f1} TFLOP/s = {2:f1}% of "
                      "the {3:f0} TFLOP/s peak ({4}x{5}-bit operands at "
                      "{6:f1} GHz); bound: {7}\n",
                      seconds * 1e6, tflops, 100 * fractionOfPeak, peakTflops,
                      workload.aBits, workload.bBits, device->peakClockGHz,
                      kernelBound);
  if (!workload.config.empty())
    os << "  config: " << workload.config << "\n";
  os << llvm::formatv("  occupancy: {0} registers (AGPRs from {1}), LDS {2} "
                      "B, scratch {3} B{4} -> {5} waves/SIMD, {6} "
                      "workgroups/CU ({7} limit), {8} waves/workgroup\n",
                      descriptor.registers, descriptor.accumOffset,
                      descriptor.ldsBytes,
                      descriptor.scratchBytes, spills ? " (SPILLING)" : "",
                      occupancy, workgroupsPerCU, occupancyLimit,
                      wavesPerWorkgroup);
  os << llvm::formatv("  grid: {0} workgroups in {1} round(s) of {2} CUs x "
                      "{3} ({4:f0}% of the slots used), {5} XCDs "
                      "round-robin\n",
                      workgroups, rounds, device->computeUnits,
                      workgroupsPerCU, 100 * gridEfficiency, device->xcds);
  if (hasLoop)
    os << llvm::formatv("  main loop @{0:x}-{1:x}: {2} trips per workgroup; "
                        "per wave and trip:\n",
                        loop.headerAddress, loop.latchAddress, loopTrips);
  else
    os << "  no loop: the whole kernel, once per wave:\n";
  {
    for (const auto &[name, countCycles] : loop.mfmaByOpcode)
      os << llvm::formatv("    {0} x{1:f2}: {2:f0} MFMA-pipe cycles\n", name,
                          countCycles.first, countCycles.second);
    os << llvm::formatv(
        "    VALU {0:f1} ({1:f0} cycles; {2:f1} read MFMA results), SALU "
        "{3:f1}, LDS {4:f1} instr {5} (+{6:f1} bank-conflict cycles), "
        "global loads {7:f1} ({8}), stores {9:f1} ({10}), barriers {11:f1}"
        "{12}\n",
        loop.valu, loop.valuCycles, loop.valuOnMfmaResults, loop.salu,
        loop.ldsInstructions, formatBytes(loop.ldsBytes),
        loop.ldsConflictCycles, loop.globalLoads,
        formatBytes(loop.globalLoadBytes), loop.globalStores,
        formatBytes(loop.globalStoreBytes), loop.barriers,
        loop.conditionalBlocks
            ? llvm::formatv(" ({0} conditional block(s) at share {1:f3})",
                            loop.conditionalBlocks, workload.conditionalShare)
                  .str()
            : std::string());
    if (loop.directToLdsBytes > 0 || globalBytesToL2 < 1)
      os << llvm::formatv("    direct-to-LDS {0} of the loads; {1:f0}% of "
                          "the load bytes miss L1 (workgroup panels: the "
                          "rest are re-reads)\n",
                          formatBytes(loop.directToLdsBytes),
                          100 * globalBytesToL2);
    if (hasLoop) {
      os << llvm::formatv(
          "    one wave alone: {0:f0} cycles (waits: global {1:f0}, LDS "
          "{2:f0}, MFMA results {3:f0}, MFMA pipe {4:f0}, barriers {5:f0}); ",
          wave.cycles, wave.globalWait, wave.ldsWait, wave.dependencyWait,
          wave.mfmaPipeWait, wave.barrierWait);
      if (wave.prefetchIterations < 0)
        os << "no global load waited on in the loop\n";
      else
        os << llvm::formatv("global loads issued {0} iteration(s), {1:f0} "
                            "cycles ahead of their wait\n",
                            wave.prefetchIterations, wave.prefetchCycles);
    }
    os << llvm::formatv(
        "    SIMD with {0} wave(s): MFMA {1:f0}, VALU issue {2:f0}, LDS "
        "{3:f0}, L2 {4:f0}, simulated {5:f0} -> {6:f0} cycles per "
        "{9}, MFMA busy {7:f1}%, bound: {8}\n",
        wavesPerSimd, mfmaBound, valuBound, ldsBound, l2Bound, latencyBound,
        iterationCycles, 100 * mfmaBusy, loopBound,
        hasLoop ? "iteration" : "pass");
  }
  os << llvm::formatv(
      "  prologue {0:f0} + epilogue {1:f0} cycles per workgroup; compute "
      "{2:f1} us, Infinity Cache -> L2 {3} ({4:f1} us), HBM {5} of which "
      "compulsory {6} ({7:f1} us), launch {8:f1} us\n",
      prologueCycles, epilogueCycles, computeSeconds * 1e6,
      formatBytes(mallBytes), mallSeconds * 1e6, formatBytes(hbmBytes),
      formatBytes(double(workload.compulsoryBytes)), hbmSeconds * 1e6,
      pr.launchMicroseconds);
  for (const std::string &note : notes)
    os << "  note: " << note << "\n";
  return s;
}

llvm::json::Object KernelPrediction::toJson() const {
  llvm::json::Object mfmas;
  for (const auto &[name, countCycles] : loop.mfmaByOpcode)
    mfmas[name] = llvm::json::Object{{"count", countCycles.first},
                                     {"cycles", countCycles.second}};
  llvm::json::Object parameters;
  for (const auto &[name, value] : listParameters(params))
    parameters[name] = value;
  llvm::json::Array noteArray;
  for (const std::string &note : notes)
    noteArray.push_back(note);
  return llvm::json::Object{
      {"kernel", kernel},
      {"modeled", true},
      {"device", device->name},
      {"chip", device->getChip().name},
      {"parameters", std::move(parameters)},
      {"seconds", seconds},
      {"tflops", tflops},
      {"peak_tflops", peakTflops},
      {"fraction_of_peak", fractionOfPeak},
      {"bound", kernelBound},
      {"workload",
       llvm::json::Object{
           {"loop_trips", workload.loopTrips},
           {"mfmas_per_trip", workload.mfmasPerTrip},
           {"conditional_share", workload.conditionalShare},
           {"tile_m", workload.tileM},
           {"tile_n", workload.tileN},
           {"a_panel_bytes", workload.aPanelBytes},
           {"b_panel_bytes", workload.bPanelBytes},
           {"lds_conflict_cycles_per_trip",
            workload.ldsConflictCyclesPerTrip}}},
      {"config", workload.config.empty() ? llvm::json::Value(nullptr)
                                         : llvm::json::Value(workload.config)},
      {"registers", descriptor.registers},
      {"accum_offset", descriptor.accumOffset},
      {"lds_bytes", descriptor.ldsBytes},
      {"scratch_bytes", descriptor.scratchBytes},
      {"spills", spills},
      {"occupancy", occupancy},
      {"occupancy_limit", occupancyLimit},
      {"workgroups_per_cu", workgroupsPerCU},
      {"waves_per_workgroup", wavesPerWorkgroup},
      {"workgroups", workgroups},
      {"rounds", rounds},
      {"grid_efficiency", gridEfficiency},
      {"main_loop",
       hasLoop ? llvm::json::Value(llvm::json::Object{
                     {"trips", loopTrips},
                     {"mfma", std::move(mfmas)},
                     {"mfma_cycles", loop.mfmaCycles},
                     {"mfma_flops", loop.mfmaFlops},
                     {"valu", loop.valu},
                     {"valu_cycles", loop.valuCycles},
                     {"valu_on_mfma_results", loop.valuOnMfmaResults},
                     {"salu", loop.salu},
                     {"lds_instructions", loop.ldsInstructions},
                     {"lds_bytes", loop.ldsBytes},
                     {"lds_conflict_cycles", loop.ldsConflictCycles},
                     {"direct_to_lds_bytes", loop.directToLdsBytes},
                     {"global_bytes_to_l2", globalBytesToL2},
                     {"global_loads", loop.globalLoads},
                     {"global_load_bytes", loop.globalLoadBytes},
                     {"global_stores", loop.globalStores},
                     {"global_store_bytes", loop.globalStoreBytes},
                     {"barriers", loop.barriers},
                     {"conditional_blocks", loop.conditionalBlocks},
                     {"wave_cycles", wave.cycles},
                     {"global_wait", wave.globalWait},
                     {"lds_wait", wave.ldsWait},
                     {"dependency_wait", wave.dependencyWait},
                     {"barrier_wait", wave.barrierWait},
                     {"mfma_pipe_wait", wave.mfmaPipeWait},
                     {"prefetch_iterations", wave.prefetchIterations},
                     {"prefetch_cycles", wave.prefetchCycles},
                     {"waves_per_simd", wavesPerSimd},
                     {"mfma_bound", mfmaBound},
                     {"valu_bound", valuBound},
                     {"lds_bound", ldsBound},
                     {"l2_bound", l2Bound},
                     {"simulated_cycles", latencyBound},
                     {"iteration_cycles", iterationCycles},
                     {"mfma_busy", mfmaBusy},
                     {"bound", loopBound}})
               : llvm::json::Value(nullptr)},
      {"prologue_cycles", prologueCycles},
      {"epilogue_cycles", epilogueCycles},
      {"compute_seconds", computeSeconds},
      {"mall_bytes", mallBytes},
      {"mall_seconds", mallSeconds},
      {"compulsory_bytes", workload.compulsoryBytes},
      {"hbm_bytes", hbmBytes},
      {"hbm_seconds", hbmSeconds},
      {"notes", std::move(noteArray)}};
}

std::string
perf::formatPredictions(llvm::ArrayRef<KernelPrediction> predictions) {
  std::string s;
  for (const KernelPrediction &p : predictions)
    s += p.format();
  if (predictions.size() > 1) {
    double total = 0;
    for (const KernelPrediction &p : predictions)
      total += p.seconds;
    s += llvm::formatv("model total: {0:f1} us over {1} kernels (MODELED)\n",
                       total * 1e6, predictions.size())
             .str();
  }
  return s;
}
