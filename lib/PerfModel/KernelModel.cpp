//===- KernelModel.cpp - one kernel on one device, modeled ----------------===//
//
// Equations (README "Performance model" has them with their sources):
//   W     = waves per SIMD in a round (occupancy, workgroups on the CU)
//   T_it  = max(W * mfma, W * (valu + mfmaIssue * mfmas),
//               waves_CU * (ldsBytes / ldsBW + conflicts),
//               waves_CU * globalBytes / L2share, wave critical path)
//   T_wg  = prologue + trips * T_it + epilogue        (per round)
//   T     = launch + max(sum over rounds of T_wg, MALL->L2 bytes / MALL BW,
//                        compulsory bytes / HBM BW)
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

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
  // 8192^3 implies at ~94% loop efficiency (../shared/perf.md).
  p.clockGHz = device.name == "mi325x" ? 1.46 : cdna4 ? 1.7 : 1.23;
  // Measured bandwidths (ROCm origami): L2 17 TB/s on both; MALL 7.31 /
  // 8.53 TB/s; HBM 4 / 6 TB/s (MI325X: 6.0 peak scaled like MI300X's
  // 4 / 5.3).
  p.l2TBps = 17;
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
/// (B) once per XCD and round. Workgroup i runs on XCD i % xcds.
static double modelL2Fills(const KernelWorkload &w, int64_t workgroups,
                           int xcds, int64_t slotsPerXcd) {
  std::map<std::pair<int64_t, int64_t>, std::pair<llvm::DenseSet<int64_t>,
                                                  llvm::DenseSet<int64_t>>>
      panels; // (xcd, round) -> (A rows, B columns)
  int64_t gx = w.grid[0], gy = w.grid[1];
  for (int64_t i = 0; i < workgroups; ++i) {
    int64_t x = i % gx, y = (i / gx) % gy, z = i / (gx * gy);
    int64_t xcd = i % xcds, round = (i / xcds) / slotsPerXcd;
    auto &[rows, cols] = panels[{xcd, round}];
    rows.insert(z * gy + y);
    cols.insert(z * gx + x);
  }
  double bytes = 0;
  for (auto &[key, sets] : panels)
    bytes += double(sets.first.size()) * w.aPanelBytes +
             double(sets.second.size()) * w.bPanelBytes;
  return bytes;
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

  // Occupancy from the code object's descriptor.
  int64_t threads = workload.block[0] * workload.block[1] * workload.block[2];
  p.wavesPerWorkgroup = int(std::max<int64_t>(
      1, (threads + chip.waveSize - 1) / chip.waveSize));
  const KernelDescriptor &kd = kernel.descriptor;
  p.spills = kd.scratchBytes > 0;
  int registers = std::max(kd.vgprs + kd.agprs, chip.registerGranule);
  int byRegisters =
      std::min(chip.maxWavesPerSimd, chip.registersPerSimdLane / registers);
  int wavesPerSimdPerWorkgroup =
      (p.wavesPerWorkgroup + chip.simdsPerCU - 1) / chip.simdsPerCU;
  int64_t byLds = kd.ldsBytes > 0 ? chip.ldsBytesPerCU / kd.ldsBytes : 64;
  int64_t byWaves = int64_t(chip.maxWavesPerSimd) * chip.simdsPerCU /
                    p.wavesPerWorkgroup;
  int64_t byRegs = byRegisters / wavesPerSimdPerWorkgroup;
  p.workgroupsPerCU = int(std::min({byRegs, byLds, byWaves}));
  p.occupancyLimit = p.workgroupsPerCU == byRegs   ? "registers"
                     : p.workgroupsPerCU == byLds ? "LDS"
                                                   : "waves per CU";
  if (p.workgroupsPerCU < 1)
    return llvm::createStringError(
        "kernel %s does not fit on a %s CU (%d registers per lane, %lld "
        "bytes of LDS, %d waves)",
        kernel.name.c_str(), chip.name.str().c_str(), registers,
        (long long)kd.ldsBytes, p.wavesPerWorkgroup);
  p.occupancy = std::min(chip.maxWavesPerSimd,
                         p.workgroupsPerCU * wavesPerSimdPerWorkgroup);

  double clockHz = params.clockGHz * 1e9;
  double l2BytesPerClockPerCU =
      params.l2TBps * 1e12 / clockHz / device.computeUnits;
  TimelineCosts costs;
  costs.waveSize = chip.waveSize;
  costs.ldsBytesPerClock = double(chip.getLdsBytesPerClock());
  costs.memoryBytesPerClock = l2BytesPerClockPerCU;
  costs.simdsSharingMemory = chip.simdsPerCU;

  // The main loop.
  std::optional<LoopRegion> loop = findMainLoop(kernel);
  int lastInstruction = int(kernel.instructions.size()) - 1;
  if (loop) {
    p.hasLoop = true;
    double share = std::clamp(workload.conditionalShare, 0.0, 1.0);
    p.loop = countLoop(kernel, *loop, share, params, chip.waveSize);
    if (p.loop.ldsInstructions > 0)
      costs.ldsConflictCyclesPerInstruction =
          workload.ldsConflictCyclesPerTrip / p.loop.ldsInstructions;
    // Trips of the disassembled loop: the IR's trips times its MFMAs per
    // trip over the loop's (LLVM may have unrolled it).
    double unweightedMfmas = 0;
    for (int i = loop->header; i <= loop->latch; ++i)
      if (kernel.instructions[i].kind == InstructionClass::MFMA &&
          loop->weight(i, 1.0) == 1.0)
        unweightedMfmas += 1;
    if (workload.loopTrips > 0 && workload.mfmasPerTrip > 0 &&
        unweightedMfmas > 0) {
      p.loopTrips = std::max<int64_t>(
          1, std::llround(double(workload.loopTrips) * workload.mfmasPerTrip /
                          unweightedMfmas));
    } else if (workload.loopTrips > 0) {
      p.loopTrips = workload.loopTrips;
    } else {
      p.loopTrips = 1;
      p.notes.push_back("main-loop trip count unknown: 1 assumed");
    }
    if (p.loop.conditionalBlocks && workload.conditionalShare >= 1.0)
      p.notes.push_back("the loop's conditional blocks are counted on every "
                        "iteration (no share given)");
    p.prologueCycles =
        simulateStraightLine(kernel, 0, loop->header - 1, params, costs);
    p.epilogueCycles = simulateStraightLine(kernel, loop->latch + 1,
                                            lastInstruction, params, costs);
  } else {
    p.notes.push_back("no loop with MFMAs: the kernel is modeled as "
                      "straight-line code run once per wave");
    p.prologueCycles =
        simulateStraightLine(kernel, 0, lastInstruction, params, costs);
  }

  // The grid in rounds, on the busiest XCD.
  p.workgroups = workload.grid[0] * workload.grid[1] * workload.grid[2];
  int64_t cusPerXcd = device.computeUnits / device.xcds;
  int64_t slotsPerXcd = cusPerXcd * p.workgroupsPerCU;
  int64_t onBusiestXcd = (p.workgroups + device.xcds - 1) / device.xcds;
  p.rounds = (onBusiestXcd + slotsPerXcd - 1) / slotsPerXcd;
  p.gridEfficiency = double(p.workgroups) /
                     double(p.rounds * slotsPerXcd * device.xcds);

  const LoopCounts &c = p.loop;
  double share = std::clamp(workload.conditionalShare, 0.0, 1.0);
  // One wave alone: its own critical path.
  if (p.hasLoop)
    p.wave = simulateLoop(kernel, *loop, share, 1, 1, params, costs).wave;
  std::map<int, double> simulated; // waves per SIMD -> cycles per iteration
  auto simulateSimd = [&](int waves) {
    auto it = simulated.find(waves);
    if (it != simulated.end())
      return it->second;
    double cycles = simulateLoop(kernel, *loop, share, waves,
                                 wavesPerSimdPerWorkgroup, params, costs)
                        .iterationCycles;
    simulated[waves] = cycles;
    return cycles;
  }; 
  double computeCycles = 0;
  for (int64_t round = 0; round < p.rounds; ++round) {
    int64_t here = std::min(slotsPerXcd, onBusiestXcd - round * slotsPerXcd);
    int64_t perCU = (here + cusPerXcd - 1) / cusPerXcd;
    int wavesPerSimd = int(std::min<int64_t>(
        p.occupancy, perCU * wavesPerSimdPerWorkgroup));
    double wavesOnCU = double(perCU * p.wavesPerWorkgroup);
    double iteration = 0;
    if (p.hasLoop) {
      double mfma = wavesPerSimd * c.mfmaCycles;
      double valu = wavesPerSimd *
                    (c.valuCycles + params.mfmaIssueCycles * c.mfmas);
      double lds = wavesOnCU * (c.ldsBytes / costs.ldsBytesPerClock +
                                workload.ldsConflictCyclesPerTrip);
      double l2 = wavesOnCU * (c.globalLoadBytes + c.globalStoreBytes) /
                  l2BytesPerClockPerCU;
      double latency = simulateSimd(wavesPerSimd);
      iteration = std::max({mfma, valu, lds, l2, latency});
      if (round == 0) {
        p.wavesPerSimd = wavesPerSimd;
        p.mfmaBound = mfma;
        p.valuBound = valu;
        p.ldsBound = lds;
        p.l2Bound = l2;
        p.latencyBound = latency;
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
          // The wave's own path: name its largest wait.
          std::pair<double, const char *> waits[] = {
              {p.wave.globalWait, "latency: global loads"},
              {p.wave.ldsWait, "latency: LDS"},
              {p.wave.dependencyWait, "latency: VALU on MFMA results"},
              {p.wave.barrierWait, "latency: barriers"},
              {p.wave.mfmaPipeWait, "issue: one wave"}};
          auto *largest = std::max_element(
              std::begin(waits), std::end(waits),
              [](auto &a, auto &b) { return a.first < b.first; });
          p.loopBound = largest->first > 0 ? largest->second
                                           : "issue: one wave";
        }
      }
    }
    computeCycles +=
        p.prologueCycles + double(p.loopTrips) * iteration + p.epilogueCycles;
  }
  p.computeSeconds = computeCycles / clockHz;

  // Memory beyond the CUs.
  double compulsory = double(workload.compulsoryBytes);
  if (workload.tileM > 0 && workload.tileN > 0 &&
      (workload.aPanelBytes > 0 || workload.bPanelBytes > 0)) {
    p.mallBytes = modelL2Fills(workload, p.workgroups, device.xcds,
                               slotsPerXcd);
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
  // Working sets beyond the Infinity Cache stream from HBM as often as the
  // L2s fetch them.
  double hbmBytes = compulsory > double(device.infinityCacheBytes)
                        ? std::max(compulsory, p.mallBytes)
                        : compulsory;
  p.hbmSeconds = hbmBytes / (params.hbmTBps * 1e12);
  double body = std::max({p.computeSeconds, p.mallSeconds, p.hbmSeconds});
  p.kernelBound = body == p.computeSeconds
                      ? "compute (" + (p.hasLoop ? p.loopBound : "no loop") +
                            ")"
                  : body == p.hbmSeconds ? "HBM"
                                         : "Infinity Cache -> L2";
  p.seconds = body + params.launchMicroseconds * 1e-6;

  double flops = workload.usefulFlops;
  if (flops <= 0) {
    flops = double(p.workgroups) * p.wavesPerWorkgroup * p.loopTrips *
            c.mfmaFlops;
    if (flops > 0)
      p.notes.push_back("useful FLOP unknown: the MFMAs' FLOP counted "
                        "(padding included)");
  }
  p.tflops = flops / p.seconds * 1e-12;
  p.peakTflops = device.getPeakTflops(workload.aBits, workload.bBits);
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
  os << llvm::formatv("  occupancy: {0} VGPR + {1} AGPR, LDS {2} B, scratch "
                      "{3} B{4} -> {5} waves/SIMD, {6} workgroups/CU ({7} "
                      "limit), {8} waves/workgroup\n",
                      descriptor.vgprs, descriptor.agprs, descriptor.ldsBytes,
                      descriptor.scratchBytes, spills ? " (SPILLING)" : "",
                      occupancy, workgroupsPerCU, occupancyLimit,
                      wavesPerWorkgroup);
  os << llvm::formatv("  grid: {0} workgroups in {1} round(s) of {2} CUs x "
                      "{3} ({4:f0}% of the slots used), {5} XCDs "
                      "round-robin\n",
                      workgroups, rounds, device->computeUnits,
                      workgroupsPerCU, 100 * gridEfficiency, device->xcds);
  if (hasLoop) {
    os << llvm::formatv("  main loop @{0:x}-{1:x}: {2} trips per workgroup; "
                        "per wave and trip:\n",
                        loop.headerAddress, loop.latchAddress, loopTrips);
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
        workload.ldsConflictCyclesPerTrip, loop.globalLoads,
        formatBytes(loop.globalLoadBytes), loop.globalStores,
        formatBytes(loop.globalStoreBytes), loop.barriers,
        loop.conditionalBlocks
            ? llvm::formatv(" ({0} conditional block(s) at share {1:f3})",
                            loop.conditionalBlocks, workload.conditionalShare)
                  .str()
            : std::string());
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
    os << llvm::formatv(
        "    SIMD with {0} wave(s): MFMA {1:f0}, VALU issue {2:f0}, LDS "
        "{3:f0}, L2 {4:f0}, simulated {5:f0} -> {6:f0} cycles per "
        "iteration, MFMA busy {7:f1}%, bound: {8}\n",
        wavesPerSimd, mfmaBound, valuBound, ldsBound, l2Bound, latencyBound,
        iterationCycles, 100 * mfmaBusy, loopBound);
  }
  os << llvm::formatv(
      "  prologue {0:f0} + epilogue {1:f0} cycles per workgroup; compute "
      "{2:f1} us, Infinity Cache -> L2 {3} ({4:f1} us), HBM compulsory {5} "
      "({6:f1} us), launch {7:f1} us\n",
      prologueCycles, epilogueCycles, computeSeconds * 1e6,
      formatBytes(mallBytes), mallSeconds * 1e6,
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
      {"config", workload.config.empty() ? llvm::json::Value(nullptr)
                                         : llvm::json::Value(workload.config)},
      {"vgprs", descriptor.vgprs},
      {"agprs", descriptor.agprs},
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
                     {"lds_conflict_cycles", workload.ldsConflictCyclesPerTrip},
                     {"global_loads", loop.globalLoads},
                     {"global_load_bytes", loop.globalLoadBytes},
                     {"global_stores", loop.globalStores},
                     {"barriers", loop.barriers},
                     {"conditional_blocks", loop.conditionalBlocks},
                     {"wave_cycles", wave.cycles},
                     {"global_wait", wave.globalWait},
                     {"lds_wait", wave.ldsWait},
                     {"dependency_wait", wave.dependencyWait},
                     {"barrier_wait", wave.barrierWait},
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
