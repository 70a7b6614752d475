//===- MainLoop.cpp - what one trip of the main loop executes -------------===//
//
// Counts per wave and trip, each instruction weighted by the share of trips
// that run it (computeLoopWeights, ControlFlow.cpp). Direct-to-LDS loads
// count as LDS writes too: their bytes pass through the LDS.
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include <bitset>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

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
                           const LoopRegion &loop,
                           const std::vector<double> &weights,
                           const ModelParameters &params, int waveSize) {
  LoopCounts counts;
  const auto &insts = kernel.instructions;
  counts.headerAddress = insts[loop.header].address;
  counts.latchAddress = insts[loop.latch].address;
  counts.instructions = int(loop.body.size());
  RegisterSet mfmaResults;
  for (int i : loop.body)
    if (insts[i].kind == InstructionClass::MFMA)
      for (const RegisterRange &r : insts[i].defs)
        mfmaResults.add(r);
  for (int i : loop.body) {
    const Instruction &inst = insts[i];
    double w = weights[i];
    // Runs of instructions that not every trip runs.
    if (w < 1.0 && (i == 0 || weights[i - 1] != w || !loop.inLoop[i - 1]))
      ++counts.conditionalBlocks;
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
      if (inst.text.find(" lds") != std::string::npos)
        counts.directToLdsBytes += bytes;
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


