//===- SimdSimulator.cpp - the waves of one SIMD through the main loop ----===//
//
// Each wave runs the loop in order. The wave whose clock is earliest issues
// its next instruction (oldest first on ties), claiming what it needs:
//  - MFMA: the SIMD's matrix pipe for its cycles, its sources (the
//    accumulator chain), and the issue port for mfmaIssueCycles, after which
//    independent instructions of any wave co-execute;
//  - VALU: the issue port for valuCycles, after the MFMA results it reads;
//  - LDS / global accesses: issue cycles, then the SIMD's share of the
//    CU's LDS bandwidth (bytes, plus bank-conflict cycles) or of L2
//    bandwidth, then the latency; they enter the lgkmcnt / vmcnt queues,
//    and s_waitcnt waits for the oldest ones in order, as the counters do;
//  - s_barrier: the waves of one workgroup on this SIMD meet (the other
//    SIMDs run the same schedule), plus barrierCycles.
// Blocks some trips skip run on a deterministic share of the iterations
// (iteration i runs them when floor((i + 1) s) > floor(i s)); the loop runs
// long enough for that share to show, and the steady state is measured over
// the second half of the iterations.
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include <cmath>
#include <deque>
#include <functional>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

namespace {
struct PendingAccess {
  double completion, issue;
  int iteration;
};

/// What the waves of a SIMD share.
struct SimdResources {
  double mfmaFree = 0, issueFree = 0, ldsFree = 0, memoryFree = 0;
};

struct Wave {
  double t = 0;
  int pc = 0, iteration = 0;
  bool done = false, atBarrier = false;
  std::array<double, 512> vgprReady{}, agprReady{};
  std::deque<PendingAccess> vm, lgkm;
  std::vector<double> iterationStarts;
};

class SimdSimulator {
public:
  /// `executes(i, iteration)`: whether instruction i runs in that
  /// iteration.
  SimdSimulator(const DisassembledKernel &kernel, int first, int last,
                std::function<bool(int, int)> executes,
                const ModelParameters &params, const TimelineCosts &costs,
                int waves, int wavesPerWorkgroup, int iterations)
      : insts(kernel.instructions), first(first), last(last),
        executes(std::move(executes)), params(params), costs(costs),
        wavesPerWorkgroup(std::max(1, wavesPerWorkgroup)),
        iterations(iterations), measuredFrom(iterations / 2),
        waves(waves) {}

  /// Runs every wave to the end; `record` collects wave 0's waits in its
  /// last iteration.
  void run(WaveTimeline *record) {
    this->record = record;
    for (Wave &w : waves)
      w.iterationStarts.push_back(0);
    while (true) {
      Wave *next = nullptr;
      for (Wave &w : waves)
        if (!w.done && !w.atBarrier && (!next || w.t < next->t))
          next = &w;
      if (!next)
        break;
      step(*next);
    }
  }

  /// Mean cycles per iteration over the measured iterations.
  double steadyIterationCycles() const {
    double sum = 0;
    for (const Wave &w : waves)
      sum += (w.iterationStarts[iterations] -
              w.iterationStarts[measuredFrom]) /
             double(iterations - measuredFrom);
    return sum / double(waves.size());
  }

  int measuredIterations() const { return iterations - measuredFrom; }

  /// The time every wave has finished, its accesses and MFMAs included.
  double finish() const {
    double end = res.mfmaFree;
    for (const Wave &w : waves) {
      end = std::max(end, w.t);
      for (const PendingAccess &p : w.vm)
        end = std::max(end, p.completion);
      for (const PendingAccess &p : w.lgkm)
        end = std::max(end, p.completion);
    }
    return end;
  }

private:
  static double readyTime(const Wave &w,
                          const std::vector<RegisterRange> &uses) {
    double ready = 0;
    for (const RegisterRange &r : uses) {
      if (r.file == 's')
        continue;
      const auto &file = r.file == 'a' ? w.agprReady : w.vgprReady;
      for (int i = r.first; i < r.first + r.count && i < 512; ++i)
        ready = std::max(ready, file[i]);
    }
    return ready;
  }
  static void define(Wave &w, const std::vector<RegisterRange> &defs,
                     double when) {
    for (const RegisterRange &r : defs) {
      if (r.file == 's')
        continue;
      auto &file = r.file == 'a' ? w.agprReady : w.vgprReady;
      for (int i = r.first; i < r.first + r.count && i < 512; ++i)
        file[i] = when;
    }
  }

  bool recording(const Wave &w) const {
    return record && &w == &waves.front() && w.iteration >= measuredFrom;
  }

  /// Waits until at most `count` accesses of `queue` are outstanding.
  void waitFor(Wave &w, std::deque<PendingAccess> &queue, int count,
               double &waited, bool global) {
    double until = w.t;
    while (int(queue.size()) > count) {
      PendingAccess p = queue.front();
      queue.pop_front();
      until = std::max(until, p.completion);
      if (recording(w) && global) {
        int lead = w.iteration - p.iteration;
        double cycles = w.t - p.issue;
        if (record->prefetchIterations < 0 ||
            lead < record->prefetchIterations)
          record->prefetchIterations = lead;
        if (record->prefetchCycles < 0 || cycles < record->prefetchCycles)
          record->prefetchCycles = cycles;
      }
    }
    if (recording(w))
      waited += until - w.t;
    w.t = until;
  }

  /// Starts a memory access: issue, a share of the bandwidth, latency.
  void access(Wave &w, double serviceCycles, double &pipeFree, double latency,
              std::deque<PendingAccess> &queue) {
    double start = std::max(w.t, res.issueFree);
    w.t = start + params.memoryIssueCycles;
    res.issueFree = w.t;
    double served = std::max(w.t, pipeFree) + serviceCycles;
    pipeFree = served;
    queue.push_back({served + latency, w.t, w.iteration});
  }

  void arriveAtBarrier(Wave &w) {
    w.atBarrier = true;
    size_t index = &w - waves.data();
    size_t group = index / wavesPerWorkgroup;
    size_t begin = group * wavesPerWorkgroup;
    size_t end = std::min(waves.size(), begin + wavesPerWorkgroup);
    double meet = 0;
    for (size_t i = begin; i < end; ++i) {
      if (!waves[i].atBarrier && !waves[i].done)
        return; // the others are still on their way
      meet = std::max(meet, waves[i].t);
    }
    for (size_t i = begin; i < end; ++i) {
      Wave &peer = waves[i];
      if (recording(peer))
        record->barrierWait += meet - peer.t + params.barrierCycles;
      peer.t = meet + params.barrierCycles;
      peer.atBarrier = false;
    }
  }

  void advance(Wave &w) {
    if (++w.pc <= last)
      return;
    w.pc = first;
    ++w.iteration;
    w.iterationStarts.push_back(w.t);
    if (w.iteration == iterations)
      w.done = true;
  }

  void step(Wave &w) {
    if (w.pc < first)
      w.pc = first;
    const Instruction &inst = insts[w.pc];
    if (!executes(w.pc, w.iteration)) {
      advance(w);
      return;
    }
    WaveTimeline scratch;
    WaveTimeline &r = recording(w) ? *record : scratch;
    switch (inst.kind) {
    case InstructionClass::MFMA: {
      double start =
          std::max({w.t, readyTime(w, inst.uses), res.mfmaFree, res.issueFree});
      r.mfmaPipeWait += start - w.t;
      res.mfmaFree = start + getMFMACycles(inst);
      define(w, inst.defs, res.mfmaFree);
      w.t = start + params.mfmaIssueCycles;
      res.issueFree = w.t;
      break;
    }
    case InstructionClass::VALU: {
      double operands = readyTime(w, inst.uses);
      if (operands > w.t)
        r.dependencyWait += operands - w.t;
      double start = std::max({w.t, operands, res.issueFree});
      w.t = start + getValuCycles(inst, params);
      res.issueFree = w.t;
      define(w, inst.defs, w.t);
      break;
    }
    case InstructionClass::SALU:
    case InstructionClass::Branch:
      w.t += params.saluCycles;
      break;
    case InstructionClass::Nop:
      w.t += inst.nopCycles;
      break;
    case InstructionClass::LDS: {
      // The CU's LDS serves its busy SIMDs: this SIMD's share of it.
      double service = (inst.bytesPerLane * double(costs.waveSize) /
                            costs.ldsBytesPerClock +
                        costs.ldsConflictCyclesPerInstruction) *
                       costs.simdsSharingMemory;
      access(w, service, res.ldsFree, params.ldsLatencyCycles, w.lgkm);
      break;
    }
    case InstructionClass::ScalarLoad:
      w.t += params.saluCycles;
      w.lgkm.push_back({w.t + params.ldsLatencyCycles, w.t, w.iteration});
      break;
    case InstructionClass::GlobalLoad:
    case InstructionClass::GlobalStore: {
      double service =
          costs.memoryBytesPerClock > 0
              ? inst.bytesPerLane * double(costs.waveSize) /
                    costs.memoryBytesPerClock * costs.simdsSharingMemory
              : 0;
      access(w, service, res.memoryFree, params.globalLatencyCycles, w.vm);
      break;
    }
    case InstructionClass::WaitCount:
      if (inst.vmcnt >= 0)
        waitFor(w, w.vm, inst.vmcnt, r.globalWait, true);
      if (inst.lgkmcnt >= 0)
        waitFor(w, w.lgkm, inst.lgkmcnt, r.ldsWait, false);
      break;
    case InstructionClass::Barrier:
      advance(w);
      arriveAtBarrier(w);
      return;
    case InstructionClass::Other:
      break;
    }
    advance(w);
  }

  const std::vector<Instruction> &insts;
  int first, last;
  std::function<bool(int, int)> executes;
  const ModelParameters &params;
  const TimelineCosts &costs;
  size_t wavesPerWorkgroup;
  int iterations, measuredFrom;
  std::vector<Wave> waves;
  SimdResources res;
  WaveTimeline *record = nullptr;
};
} // namespace

/// Iterations enough for a conditional share `share` to show in the
/// measured half (16 runs of the conditional blocks), within [8, 1024].
static int iterationsFor(double share) {
  if (share <= 0 || share >= 1)
    return 8;
  return int(std::clamp(std::ceil(32.0 / share), 8.0, 1024.0));
}

SimdTimeline perf::simulateLoop(const DisassembledKernel &kernel,
                                const LoopRegion &loop,
                                double conditionalShare, int waves,
                                int wavesPerWorkgroup,
                                const ModelParameters &params,
                                const TimelineCosts &costs) {
  double share = std::clamp(conditionalShare, 0.0, 1.0);
  int iterations = loop.conditionalBlocks ? iterationsFor(share) : 8;
  auto executes = [&](int i, int iteration) {
    if (loop.weight(i, 1.0) == 1.0)
      return true;
    return std::floor((iteration + 1) * share) > std::floor(iteration * share);
  };
  SimdSimulator sim(kernel, loop.header, loop.latch, executes, params, costs,
                    waves, wavesPerWorkgroup, iterations);
  SimdTimeline result;
  sim.run(&result.wave);
  result.iterationCycles = sim.steadyIterationCycles();
  // The first wave's waits, per iteration.
  WaveTimeline &w = result.wave;
  double n = sim.measuredIterations();
  for (double *wait : {&w.globalWait, &w.ldsWait, &w.dependencyWait,
                       &w.mfmaPipeWait, &w.barrierWait})
    *wait /= n;
  w.cycles = result.iterationCycles;
  return result;
}

double perf::simulateStraightLine(const DisassembledKernel &kernel, int first,
                                  int last, int waves, int wavesPerWorkgroup,
                                  const ModelParameters &params,
                                  const TimelineCosts &costs) {
  if (first > last)
    return 0;
  SimdSimulator sim(
      kernel, first, last, [](int, int) { return true; }, params, costs,
      waves, wavesPerWorkgroup, /*iterations=*/1);
  sim.run(nullptr);
  return sim.finish();
}
