//===- MainLoop.cpp - the main loop of a kernel and one wave's iteration --===//
//
// The main loop is the backward branch whose body holds the most MFMAs
// (several latches to one header make one loop). Blocks of the body that
// some iteration skips (the latch before them jumps back to the header) are
// weighted by the share of iterations that run them.
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include <bitset>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

//===----------------------------------------------------------------------===//
// Finding the loop
//===----------------------------------------------------------------------===//

/// Index of the instruction at `address`, or -1.
static int indexAt(const DisassembledKernel &kernel, uint64_t address) {
  auto it = llvm::lower_bound(kernel.instructions, address,
                              [](const Instruction &inst, uint64_t a) {
                                return inst.address < a;
                              });
  if (it == kernel.instructions.end() || it->address != address)
    return -1;
  return int(it - kernel.instructions.begin());
}

std::optional<LoopRegion> perf::findMainLoop(const DisassembledKernel &kernel) {
  // header -> last latch.
  std::map<int, int> loops;
  const auto &insts = kernel.instructions;
  for (int i = 0, e = int(insts.size()); i < e; ++i) {
    const Instruction &inst = insts[i];
    if (inst.kind != InstructionClass::Branch || !inst.target ||
        *inst.target > inst.address)
      continue;
    int header = indexAt(kernel, *inst.target);
    if (header < 0)
      continue;
    loops[header] = std::max(loops[header], i);
  }
  // The main loop: of the loops that hold MFMAs and no inner loop holding
  // MFMAs (a nest runs its inner loop's body most often), the one with the
  // most; without MFMAs anywhere, the longest loop.
  auto mfmasIn = [&](int header, int latch) {
    int mfmas = 0;
    for (int i = header; i <= latch; ++i)
      mfmas += insts[i].kind == InstructionClass::MFMA;
    return mfmas;
  };
  auto hasInnerMfmaLoop = [&](int header, int latch) {
    for (auto [h, l] : loops)
      if ((h != header || l != latch) && h >= header && l <= latch &&
          mfmasIn(h, l) > 0)
        return true;
    return false;
  };
  std::optional<LoopRegion> best;
  int bestMfmas = 0, bestLength = 0;
  bool nested = false;
  for (auto [header, latch] : loops) {
    int mfmas = mfmasIn(header, latch);
    if (mfmas > 0 && hasInnerMfmaLoop(header, latch)) {
      nested = true;
      continue;
    }
    int length = latch - header + 1;
    if (mfmas > bestMfmas || (bestMfmas == 0 && mfmas == 0 &&
                              length > bestLength)) {
      bestMfmas = mfmas;
      bestLength = length;
      best = LoopRegion{header, latch, {}};
    }
  }
  if (!best)
    return std::nullopt;
  best->nested = nested;
  // Blocks: split at branch targets inside the loop and after branches.
  int header = best->header, latch = best->latch;
  std::vector<int> starts = {header};
  for (int i = header; i <= latch; ++i) {
    const Instruction &inst = insts[i];
    if (inst.kind != InstructionClass::Branch)
      continue;
    if (i + 1 <= latch)
      starts.push_back(i + 1);
    if (inst.target) {
      int target = indexAt(kernel, *inst.target);
      if (target > header && target <= latch)
        starts.push_back(target);
    }
  }
  llvm::sort(starts);
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  int numBlocks = int(starts.size());
  auto blockOf = [&](int index) {
    return int(std::upper_bound(starts.begin(), starts.end(), index) -
               starts.begin()) - 1;
  };
  auto blockEnd = [&](int b) {
    return b + 1 < numBlocks ? starts[b + 1] - 1 : latch;
  };
  // Successors inside the loop; `reachesHeader`: an edge back to it.
  std::vector<std::vector<int>> successors(numBlocks);
  std::vector<bool> backEdge(numBlocks, false);
  for (int b = 0; b < numBlocks; ++b) {
    const Instruction &last = insts[blockEnd(b)];
    bool fallsThrough = last.kind != InstructionClass::Branch ||
                        last.conditional;
    if (last.kind == InstructionClass::Branch && last.target) {
      int target = indexAt(kernel, *last.target);
      if (target == header)
        backEdge[b] = true;
      else if (target > header && target <= latch)
        successors[b].push_back(blockOf(target));
    }
    if (fallsThrough && b + 1 < numBlocks)
      successors[b].push_back(b + 1);
  }
  // A block runs on every iteration when no path from the header back to
  // it avoids it.
  std::vector<double> weights(numBlocks, 0);
  for (int skip = 0; skip < numBlocks; ++skip) {
    if (skip == 0) {
      weights[0] = 1;
      continue;
    }
    std::vector<bool> seen(numBlocks, false);
    std::vector<int> work = {0};
    seen[0] = true;
    bool avoidable = false;
    while (!work.empty() && !avoidable) {
      int b = work.back();
      work.pop_back();
      if (backEdge[b]) {
        avoidable = true;
        break;
      }
      for (int s : successors[b])
        if (s != skip && !seen[s]) {
          seen[s] = true;
          work.push_back(s);
        }
    }
    weights[skip] = avoidable ? -1 : 1; // -1: conditional
  }
  best->weights.assign(latch - header + 1, 1.0);
  for (int b = 0; b < numBlocks; ++b)
    for (int i = starts[b]; i <= blockEnd(b); ++i)
      best->weights[i - header] = weights[b];
  best->conditionalBlocks = int(llvm::count(weights, -1.0));
  return best;
}

//===----------------------------------------------------------------------===//
// Counting
//===----------------------------------------------------------------------===//

namespace {
/// VGPRs and AGPRs as bit sets.
struct RegisterSet {
  std::bitset<512> v, a;
  void add(const RegisterRange &r) {
    for (int i = r.first; i < r.first + r.count && i < 512; ++i)
      (r.file == 'a' ? a : v).set(i);
  }
  bool intersects(const RegisterRange &r) const {
    if (r.file == 's')
      return false;
    for (int i = r.first; i < r.first + r.count && i < 512; ++i)
      if ((r.file == 'a' ? a : v).test(i))
        return true;
    return false;
  }
};
} // namespace

bool perf::isQuarterRate(llvm::StringRef mnemonic) {
  for (llvm::StringRef op : {"v_exp_", "v_log_", "v_rcp_", "v_rsq_",
                             "v_sqrt_", "v_sin_", "v_cos_"})
    if (mnemonic.starts_with(op))
      return true;
  return false;
}

int perf::getMFMACycles(const Instruction &inst) {
  if (!inst.mfma)
    return 0;
  return inst.narrowOperands ? inst.mfma->narrowCycles : inst.mfma->cycles;
}

double perf::getValuCycles(const Instruction &inst,
                           const ModelParameters &params) {
  return params.valuCycles * (isQuarterRate(inst.mnemonic) ? 4 : 1);
}

LoopCounts perf::countLoop(const DisassembledKernel &kernel,
                           const LoopRegion &loop, double conditionalShare,
                           const ModelParameters &params, int waveSize) {
  LoopCounts counts;
  const auto &insts = kernel.instructions;
  counts.headerAddress = insts[loop.header].address;
  counts.latchAddress = insts[loop.latch].address;
  counts.instructions = loop.latch - loop.header + 1;
  counts.conditionalBlocks = loop.conditionalBlocks;
  RegisterSet mfmaResults;
  for (int i = loop.header; i <= loop.latch; ++i)
    if (insts[i].kind == InstructionClass::MFMA)
      for (const RegisterRange &r : insts[i].defs)
        mfmaResults.add(r);
  for (int i = loop.header; i <= loop.latch; ++i) {
    const Instruction &inst = insts[i];
    double w = loop.weight(i, conditionalShare);
    double bytes = double(inst.bytesPerLane) * waveSize * w;
    switch (inst.kind) {
    case InstructionClass::MFMA: {
      int cycles = getMFMACycles(inst);
      counts.mfmas += w;
      counts.mfmaCycles += w * cycles;
      counts.mfmaFlops += w * (inst.mfma ? inst.mfma->getFlops() : 0);
      std::string key = inst.mnemonic;
      if (inst.narrowOperands)
        key += " (FP6/FP4 operands)";
      counts.mfmaByOpcode[key].first += w;
      counts.mfmaByOpcode[key].second += w * cycles;
      break;
    }
    case InstructionClass::VALU:
      counts.valu += w;
      counts.valuCycles += w * getValuCycles(inst, params);
      if (llvm::any_of(inst.uses, [&](const RegisterRange &r) {
            return mfmaResults.intersects(r);
          }))
        counts.valuOnMfmaResults += w;
      break;
    case InstructionClass::SALU:
      counts.salu += w;
      break;
    case InstructionClass::LDS:
      counts.ldsInstructions += w;
      counts.ldsBytes += bytes;
      break;
    case InstructionClass::GlobalLoad:
      counts.globalLoads += w;
      counts.globalLoadBytes += bytes;
      break;
    case InstructionClass::GlobalStore:
      counts.globalStores += w;
      counts.globalStoreBytes += bytes;
      break;
    case InstructionClass::Barrier:
      counts.barriers += w;
      break;
    case InstructionClass::WaitCount:
      counts.waits += w;
      break;
    default:
      break;
    }
  }
  return counts;
}


