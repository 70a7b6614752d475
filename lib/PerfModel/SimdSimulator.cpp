//===- SimdSimulator.cpp - the waves of one SIMD through the main loop ----===//
//
// Each wave runs from the kernel's entry along its own path through the
// control-flow graph: into the main loop and round it (each conditional
// branch of the loop as its pattern says, ControlFlow.cpp), branches on
// exec as the wave's own exec says (WaveValues), elsewhere towards the loop.
// The wave whose clock is earliest issues its next instruction (higher
// s_setprio priority, then the oldest, first on ties), claiming what it
// needs. The SIMD issues one instruction of each kind per slot from
// different waves (CDNA3 ISA, "Instruction issue"), so the ports are per
// kind:
//  - MFMA: the SIMD's matrix pipe for its cycles, its sources (the
//    accumulator chain), and the VALU port for mfmaIssueCycles, after which
//    independent instructions of any wave co-execute;
//  - VALU: the VALU port for valuCycles, after the MFMA results it reads;
//  - LDS / global accesses: their port's issue cycles, then the SIMD's
//    share of the CU's LDS bandwidth (bytes, plus the bank-conflict cycles
//    of the lanes' addresses where the wave's values give them) or of L2
//    bandwidth (the bytes that miss L1), then the latency; they enter the
//    lgkmcnt / vmcnt queues, and s_waitcnt waits for the oldest ones in
//    order, as the counters do;
//  - s_barrier: the waves of one workgroup on this SIMD meet, whichever
//    barrier instruction each is at (the hardware counts arrivals; the
//    other SIMDs run the same schedule), plus barrierCycles. A barrier only
//    some waves execute (ping-pong's offset) thus shifts them by a phase.
// Shares of trips run deterministically (trip i takes a share-s branch when
// floor((i + 1) s) > floor(i s)); the loop runs long enough for that share
// to show, and the steady state is measured over the second half of the
// trips.
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include <cmath>
#include <tuple>
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
  double mfmaFree = 0, valuIssueFree = 0, vmemIssueFree = 0,
         ldsIssueFree = 0, ldsFree = 0, memoryFree = 0;
};

enum class Phase { Prologue, Loop, Straight, Done };

struct Wave {
  Wave(int waveInWorkgroup, const TimelineCosts &costs)
      : values(waveInWorkgroup, costs.block, costs.chip->waveSize) {}
  double t = 0;
  int pc = 0, iteration = 0, steps = 0, priority = 0;
  Phase phase = Phase::Prologue;
  bool atBarrier = false;
  std::array<double, 512> vgprReady{}, agprReady{};
  std::deque<PendingAccess> vm, lgkm;
  std::vector<double> iterationStarts;
  WaveValues values;
  double conflictCycles = 0;
};

class SimdSimulator {
public:
  SimdSimulator(const DisassembledKernel &kernel, const SimdWorkload &work,
                const ModelParameters &params, const TimelineCosts &costs,
                int iterations)
      : kernel(kernel), insts(kernel.instructions), work(work),
        params(params), costs(costs), iterations(iterations),
        measuredFrom(iterations / 2) {
    int perGroup = std::max(1, work.wavesPerSimdPerWorkgroup);
    for (int j = 0; j < work.waves; ++j) {
      // Waves of a workgroup go round-robin over the SIMDs: this SIMD (0)
      // holds waves 0, S, 2S, ... of each.
      Wave w(j % perGroup * costs.chip->simdsPerCU, costs);
      w.pc = work.start;
      if (!work.workgroupStarts.empty())
        w.t = work.workgroupStarts[std::min<size_t>(
            j / perGroup, work.workgroupStarts.size() - 1)];
      w.phase = work.loop ? Phase::Prologue : Phase::Straight;
      if (work.loop && w.pc == work.loop->header) {
        w.phase = Phase::Loop;
        w.iterationStarts.push_back(w.t);
      }
      waves.push_back(std::move(w));
    }
    maxSteps = int64_t(insts.size()) * 4 + 64;
    if (work.loop) {
      // Prologue branches go towards the loop: blocks that reach it.
      const ControlFlowGraph &cfg = *work.cfg;
      reachesLoop.assign(cfg.blocks.size(), false);
      reachesLoop[work.loop->headerBlock] = true;
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t b = 0; b < cfg.blocks.size(); ++b)
          if (!reachesLoop[b])
            for (int s : cfg.blocks[b].successors)
              if (reachesLoop[s]) {
                reachesLoop[b] = changed = true;
                break;
              }
      }
    }
  }

  /// Runs every wave to the end; `record` collects wave 0's waits in the
  /// measured iterations. With `replay`, the waves issue in that order (the
  /// order of another run of the same program), else the earliest clock
  /// issues first; `order` receives the order taken.
  void run(WaveTimeline *record, const std::vector<int> *replay,
           std::vector<int> *order) {
    this->record = record;
    for (size_t k = 0;; ++k) {
      Wave *next = nullptr;
      if (replay && k < replay->size()) {
        Wave &w = waves[(*replay)[k]];
        if (w.phase != Phase::Done && !w.atBarrier)
          next = &w;
      }
      if (!next)
        for (Wave &w : waves)
          if (w.phase != Phase::Done && !w.atBarrier &&
              (!next || w.t < next->t ||
               (w.t == next->t && w.priority > next->priority)))
            next = &w;
      if (!next)
        break;
      if (order)
        order->push_back(int(next - waves.data()));
      step(*next);
    }
  }

  /// When every wave has finished its trips (or the program).
  double loopEnd() const {
    double end = 0;
    for (const Wave &w : waves)
      if (!w.iterationStarts.empty())
        end = std::max(end, w.iterationStarts.back());
    return end;
  }

  /// Mean cycles per iteration over the measured iterations.
  double steadyIterationCycles() const {
    double sum = 0;
    int counted = 0;
    for (const Wave &w : waves)
      if (int(w.iterationStarts.size()) > iterations) {
        sum += (w.iterationStarts[iterations] -
                w.iterationStarts[measuredFrom]) /
               double(iterations - measuredFrom);
        ++counted;
      }
    return counted ? sum / counted : 0;
  }
  double loopEntry() const {
    double entry = 0;
    for (const Wave &w : waves)
      if (!w.iterationStarts.empty())
        entry = std::max(entry, w.iterationStarts.front());
    return entry;
  }
  int measuredIterations() const { return iterations - measuredFrom; }
  double firstWaveConflicts() const { return waves.front().conflictCycles; }

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
    return record && &w == &waves.front() && w.phase == Phase::Loop &&
           w.iteration >= measuredFrom;
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

  /// Starts a memory access: its port's issue, a share of the bandwidth,
  /// latency.
  void access(Wave &w, double &issueFree, double serviceCycles,
              double &pipeFree, double latency,
              std::deque<PendingAccess> &queue) {
    double start = std::max(w.t, issueFree);
    w.t = start + params.memoryIssueCycles;
    issueFree = w.t;
    double served = std::max(w.t, pipeFree) + serviceCycles;
    pipeFree = served;
    queue.push_back({served + latency, w.t, w.iteration});
  }

  void arriveAtBarrier(Wave &w) {
    w.atBarrier = true;
    releaseBarrier(w);
  }

  /// Lets the waves of `w`'s workgroup go when none is still on its way.
  void releaseBarrier(Wave &w) {
    size_t perGroup = std::max(1, work.wavesPerSimdPerWorkgroup);
    size_t index = &w - waves.data();
    size_t begin = index / perGroup * perGroup;
    size_t end = std::min(waves.size(), begin + perGroup);
    double meet = 0;
    bool waiting = false;
    for (size_t i = begin; i < end; ++i) {
      if (!waves[i].atBarrier && waves[i].phase != Phase::Done)
        return; // the others are still on their way
      if (waves[i].phase != Phase::Done) {
        waiting = true;
        meet = std::max(meet, waves[i].t);
      }
    }
    if (!waiting)
      return;
    for (size_t i = begin; i < end; ++i) {
      Wave &peer = waves[i];
      if (peer.phase == Phase::Done)
        continue;
      if (recording(peer))
        record->barrierWait += meet - peer.t + params.barrierCycles;
      peer.t = meet + params.barrierCycles;
      peer.atBarrier = false;
    }
  }

  bool execBranchTaken(const Wave &w, const Instruction &inst) const {
    std::optional<uint64_t> exec = w.values.getExec();
    bool execnz = inst.mnemonic == "s_cbranch_execnz";
    if (!exec)
      return execnz; // full waves
    return execnz ? *exec != 0 : *exec == 0;
  }

  /// Where wave `w` goes after instruction `pc`.
  int successor(const Wave &w, int pc) const {
    const Instruction &inst = insts[pc];
    if (inst.kind != InstructionClass::Branch)
      return pc + 1;
    int target = getBranchTarget(kernel, pc);
    if (!inst.conditional)
      return target >= 0 ? target : int(insts.size());
    bool isExec = inst.mnemonic == "s_cbranch_execz" ||
                  inst.mnemonic == "s_cbranch_execnz";
    bool taken = false;
    const LoopRegion *loop = work.loop;
    if (w.phase == Phase::Loop && loop && loop->inLoop[pc]) {
      auto it = loop->branches.find(pc);
      BranchPattern p =
          it == loop->branches.end() ? BranchPattern::Never : it->second;
      taken = p == BranchPattern::Exec
                  ? execBranchTaken(w, inst)
                  : takesBranch(p, w.iteration, work.conditionalShare);
    } else if (isExec) {
      taken = execBranchTaken(w, inst);
    } else if (target >= 0 && target > pc && w.phase == Phase::Prologue) {
      const ControlFlowGraph &cfg = *work.cfg;
      bool viaTarget = reachesLoop[cfg.blockOf[target]];
      bool viaNext = pc + 1 < int(insts.size()) &&
                     reachesLoop[cfg.blockOf[pc + 1]];
      taken = viaTarget && !viaNext;
    }
    // Outside the loop, backward branches fall through: each pass once.
    if (taken && target >= 0 && target <= pc &&
        !(w.phase == Phase::Loop && loop && loop->inLoop[pc]))
      taken = false;
    return taken && target >= 0 ? target : pc + 1;
  }

  /// Moves `w` to `next`, counting trips at the loop header.
  void finishWave(Wave &w) {
    w.phase = Phase::Done;
    w.atBarrier = false;
    releaseBarrier(w);
  }

  void moveTo(Wave &w, int next) {
    w.pc = next;
    if (++w.steps > maxSteps || next >= int(insts.size())) {
      finishWave(w);
      return;
    }
    const LoopRegion *loop = work.loop;
    if (!loop || w.phase == Phase::Straight)
      return;
    if (w.phase == Phase::Loop && !loop->inLoop[next])
      next = w.pc = loop->header; // an exit in the steady state: go round
    if (next != loop->header)
      return;
    if (w.phase == Phase::Prologue) {
      w.phase = Phase::Loop;
      w.iteration = 0;
      w.iterationStarts.push_back(w.t);
      w.steps = 0;
      return;
    }
    ++w.iteration;
    w.steps = 0;
    w.iterationStarts.push_back(w.t);
    if (w.iteration == iterations)
      finishWave(w);
  }

  double ldsConflicts(Wave &w, const Instruction &inst) {
    auto ops = getOperands(inst);
    llvm::StringRef m = inst.mnemonic;
    bool simple = (m.starts_with("ds_read_b") || m.starts_with("ds_write_b") ||
                   m.starts_with("ds_load_b") || m.starts_with("ds_store_b"));
    llvm::StringRef address =
        ops.empty() ? "" : (m.starts_with("ds_read") || m.starts_with("ds_load"))
                               ? (ops.size() > 1 ? ops[1] : "")
                               : ops[0];
    std::optional<std::vector<int64_t>> lanes;
    if (simple && !address.empty())
      lanes = w.values.getLaneAddresses(address);
    if (!lanes)
      return costs.ldsConflictCyclesPerInstruction;
    int offset = 0;
    size_t at = inst.text.find("offset:");
    if (at != std::string::npos)
      llvm::StringRef(inst.text).drop_front(at + 7).consumeInteger(0, offset);
    std::vector<LdsLaneAccess> accesses;
    bool readB128 = inst.bytesPerLane == 16 && (m.starts_with("ds_read") ||
                                                m.starts_with("ds_load"));
    for (size_t lane = 0; lane < lanes->size(); ++lane)
      accesses.push_back(
          {readB128 ? ChipInfo::getLdsReadB128LaneOrder(int64_t(lane))
                    : int64_t(lane),
           (*lanes)[lane] + offset, int64_t(inst.bytesPerLane)});
    llvm::sort(accesses, [](const LdsLaneAccess &a, const LdsLaneAccess &b) {
      return a.lane < b.lane;
    });
    return double(costs.chip->countLdsBankConflictCycles(accesses));
  }

  void step(Wave &w) {
    const Instruction &inst = insts[w.pc];
    WaveTimeline scratch;
    WaveTimeline &r = recording(w) ? *record : scratch;
    w.values.execute(inst);
    switch (inst.kind) {
    case InstructionClass::MFMA: {
      double start = std::max(
          {w.t, readyTime(w, inst.uses), res.mfmaFree, res.valuIssueFree});
      r.mfmaPipeWait += start - w.t;
      res.mfmaFree = start + getMFMACycles(inst);
      define(w, inst.defs, res.mfmaFree);
      w.t = start + params.mfmaIssueCycles;
      res.valuIssueFree = w.t;
      break;
    }
    case InstructionClass::VALU: {
      double operands = readyTime(w, inst.uses);
      if (operands > w.t)
        r.dependencyWait += operands - w.t;
      double start = std::max({w.t, operands, res.valuIssueFree});
      w.t = start + getValuCycles(inst, params);
      res.valuIssueFree = w.t;
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
      double conflicts = ldsConflicts(w, inst);
      if (w.phase == Phase::Loop && w.iteration >= measuredFrom)
        w.conflictCycles += conflicts;
      double service = (inst.bytesPerLane * double(costs.chip->waveSize) /
                            costs.ldsBytesPerClock +
                        conflicts) *
                       costs.simdsSharingMemory;
      access(w, res.ldsIssueFree, service, res.ldsFree,
             params.ldsLatencyCycles, w.lgkm);
      break;
    }
    case InstructionClass::ScalarLoad:
      w.t += params.saluCycles;
      w.lgkm.push_back({w.t + params.ldsLatencyCycles, w.t, w.iteration});
      break;
    case InstructionClass::GlobalLoad:
    case InstructionClass::GlobalStore: {
      double bytes = inst.bytesPerLane * double(costs.chip->waveSize);
      if (inst.kind == InstructionClass::GlobalLoad)
        bytes *= costs.globalBytesToL2;
      double service = costs.memoryBytesPerClock > 0
                           ? bytes / costs.memoryBytesPerClock *
                                 costs.simdsSharingMemory
                           : 0;
      access(w, res.vmemIssueFree, service, res.memoryFree,
             params.globalLatencyCycles, w.vm);
      break;
    }
    case InstructionClass::WaitCount:
      if (inst.vmcnt >= 0)
        waitFor(w, w.vm, inst.vmcnt, r.globalWait, true);
      if (inst.lgkmcnt >= 0)
        waitFor(w, w.lgkm, inst.lgkmcnt, r.ldsWait, false);
      break;
    case InstructionClass::Barrier:
      moveTo(w, w.pc + 1);
      if (w.phase != Phase::Done)
        arriveAtBarrier(w);
      return;
    case InstructionClass::Other:
      if (llvm::StringRef(inst.mnemonic).starts_with("s_setprio")) {
        auto ops = getOperands(inst);
        if (!ops.empty())
          if (auto level = parseImmediate(ops[0]))
            w.priority = int(*level);
      }
      if (inst.mnemonic == "s_endpgm") {
        finishWave(w);
        return;
      }
      break;
    }
    moveTo(w, successor(w, w.pc));
  }

  const DisassembledKernel &kernel;
  const std::vector<Instruction> &insts;
  const SimdWorkload &work;
  const ModelParameters &params;
  const TimelineCosts &costs;
  int iterations, measuredFrom;
  int64_t maxSteps = 0;
  std::vector<Wave> waves;
  std::vector<bool> reachesLoop;
  SimdResources res;
  WaveTimeline *record = nullptr;
};
} // namespace

SimdTimeline perf::simulateSimd(const DisassembledKernel &kernel,
                                const SimdWorkload &work,
                                const ModelParameters &params,
                                const TimelineCosts &costs,
                                const ModelParameters *referenceParams,
                                const TimelineCosts *referenceCosts) {
  SimdTimeline result;
  int iterations = std::max(1, work.iterations);
  // The issue order: the arbiter's (earliest clock first) under the
  // reference parameters, replayed under `params`.
  std::vector<int> order;
  const std::vector<int> *replay = nullptr;
  // Under the reference parameters themselves (the default figures), the
  // replay would repeat the arbiter's run issue for issue: skip it.
  auto sameAsReference = [&] {
    const ModelParameters &r = *referenceParams;
    const TimelineCosts &c = *referenceCosts;
    return std::tie(r.clockGHz, r.globalLatencyCycles, r.ldsLatencyCycles,
                    r.barrierCycles, r.valuCycles, r.mfmaIssueCycles,
                    r.memoryIssueCycles, r.saluCycles, r.l2TBps, r.mallTBps,
                    r.hbmTBps, r.launchMicroseconds, r.cuL2BytesPerClock) ==
               std::tie(params.clockGHz, params.globalLatencyCycles,
                        params.ldsLatencyCycles, params.barrierCycles,
                        params.valuCycles, params.mfmaIssueCycles,
                        params.memoryIssueCycles, params.saluCycles,
                        params.l2TBps, params.mallTBps, params.hbmTBps,
                        params.launchMicroseconds, params.cuL2BytesPerClock) &&
           std::tie(c.chip, c.block, c.ldsBytesPerClock,
                    c.memoryBytesPerClock, c.simdsSharingMemory,
                    c.ldsConflictCyclesPerInstruction, c.globalBytesToL2) ==
               std::tie(costs.chip, costs.block, costs.ldsBytesPerClock,
                        costs.memoryBytesPerClock, costs.simdsSharingMemory,
                        costs.ldsConflictCyclesPerInstruction,
                        costs.globalBytesToL2);
  };
  if (referenceParams && referenceCosts && !sameAsReference()) {
    SimdSimulator reference(kernel, work, *referenceParams, *referenceCosts,
                            iterations);
    reference.run(nullptr, nullptr, &order);
    replay = &order;
  }
  SimdSimulator sim(kernel, work, params, costs, iterations);
  sim.run(&result.wave, replay, nullptr);
  if (!work.loop) {
    result.prologueCycles = result.totalCycles = sim.finish();
    return result;
  }
  result.totalCycles = sim.loopEnd();
  result.iterationCycles = sim.steadyIterationCycles();
  result.prologueCycles = sim.loopEntry();
  // The first wave's waits, per iteration.
  WaveTimeline &w = result.wave;
  double n = sim.measuredIterations();
  for (double *wait : {&w.globalWait, &w.ldsWait, &w.dependencyWait,
                       &w.mfmaPipeWait, &w.barrierWait})
    *wait /= n;
  w.cycles = result.iterationCycles;
  result.ldsConflictCycles = sim.firstWaveConflicts() / n;
  return result;
}

int perf::getLoopExit(const DisassembledKernel &kernel,
                      const ControlFlowGraph &cfg, const LoopRegion &loop) {
  int exit = -1;
  for (int i : loop.body) {
    if (i != cfg.blocks[cfg.blockOf[i]].last)
      continue;
    for (int s : cfg.blocks[cfg.blockOf[i]].successors)
      if (!loop.blockInLoop[s]) {
        int candidate = cfg.blocks[s].first;
        // The latch's exit first (the loop's natural end).
        if (i == loop.latch)
          return candidate;
        if (exit < 0)
          exit = candidate;
      }
  }
  return exit < 0 ? loop.latch + 1 : exit;
}
