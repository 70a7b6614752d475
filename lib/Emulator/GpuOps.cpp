//===- GpuOps.cpp - gpu and amdgpu ids, shuffles and barriers -------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::emu;

/// gpu.shuffle across the lanes of the wave: lane l reads lane
/// src(l) (xor, idx, up, down of the offset) when src(l) is below `width`,
/// and keeps its own value (valid = false) otherwise. Reading a lane that
/// is not executing is an error: the hardware (ds_bpermute) would return
/// whatever that lane's register held.
static LogicalResult execShuffle(WaveInterpreter &wave, const Instr &inst,
                                 ExecMask mask) {
  auto shuffle = cast<gpu::ShuffleOp>(inst.op);
  const Lanes &value = wave.operand(0);
  const Lanes &offset = wave.operand(1);
  const Lanes &width = wave.operand(2);
  // The result slots differ from the operands', so they can be written as
  // the operands are read.
  Lanes &out = wave.defineResult(0, value.width);
  Lanes &validOut = wave.defineResult(1, 1);
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    int64_t delta = int64_t(int32_t(offset.at(lane, 0)));
    int64_t limit = int64_t(int32_t(width.at(lane, 0)));
    int64_t source = lane;
    switch (shuffle.getMode()) {
    case gpu::ShuffleMode::XOR:
      source = lane ^ delta;
      break;
    case gpu::ShuffleMode::IDX:
      source = delta;
      break;
    case gpu::ShuffleMode::UP:
      source = lane - delta;
      break;
    case gpu::ShuffleMode::DOWN:
      source = lane + delta;
      break;
    }
    bool inRange = source >= 0 && source < limit && source < kMaxLanes;
    if (inRange && !laneActive(mask, int(source)))
      return wave.fail(shuffle, "gpu.shuffle: lane " + llvm::Twine(lane) +
                                    " reads lane " + llvm::Twine(source) +
                                    ", which is not executing");
    int64_t from = inRange ? source : lane;
    for (unsigned e = 0; e < value.width; ++e)
      out.at(lane, e) = value.at(int(from), e);
    validOut.at(lane, 0) = inRange;
  }
  return success();
}

/// rocdl.readfirstlane: the first executing lane's value, in every lane.
static LogicalResult execReadFirstLane(WaveInterpreter &wave,
                                       const Instr &inst, ExecMask mask) {
  const Lanes &value = wave.operand(0);
  int first = 0;
  while (first < kMaxLanes && !laneActive(mask, first))
    ++first;
  if (first == kMaxLanes)
    return wave.fail(inst.op, "rocdl.readfirstlane with no lane executing");
  SmallVector<uint64_t, 4> bits;
  for (unsigned e = 0; e < value.width; ++e)
    bits.push_back(value.at(first, e));
  Lanes &out = wave.defineUniform(0, bits.size());
  for (unsigned e = 0; e < bits.size(); ++e)
    out.at(0, e) = bits[e];
  return success();
}

static unsigned dimIndex(gpu::Dimension dim) {
  return dim == gpu::Dimension::x ? 0u : dim == gpu::Dimension::y ? 1u : 2u;
}

/// The dimension an id op names, from its `dimension` attribute.
template <typename OpTy> static unsigned dimensionOf(const Instr &inst) {
  return dimIndex(cast<OpTy>(inst.op).getDimension());
}

static LogicalResult defineUniform(WaveInterpreter &wave, int64_t value) {
  wave.defineUniform(0, 1).bits[0] = uint64_t(value);
  return success();
}

void mlir::qmm::emu::registerGpuHandlers(Registry &registry) {
  registry.add<gpu::ThreadIdOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        unsigned dim = dimensionOf<gpu::ThreadIdOp>(inst);
        Lanes &out = wave.defineResult(0, 1);
        for (int lane = 0; lane < kMaxLanes; ++lane)
          out.at(lane, 0) = uint64_t(wave.threadId(lane, dim));
        return success();
      });
  registry.add<gpu::BlockIdOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        return defineUniform(
            wave, wave.workgroup.blockId[dimensionOf<gpu::BlockIdOp>(inst)]);
      });
  registry.add<gpu::BlockDimOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        return defineUniform(
            wave, wave.kernel.config.block[dimensionOf<gpu::BlockDimOp>(inst)]);
      });
  registry.add<gpu::GridDimOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        return defineUniform(
            wave, wave.kernel.config.grid[dimensionOf<gpu::GridDimOp>(inst)]);
      });
  registry.add<gpu::LaneIdOp>(
      [](WaveInterpreter &wave, const Instr &, ExecMask) {
        Lanes &out = wave.defineResult(0, 1);
        for (int lane = 0; lane < kMaxLanes; ++lane)
          out.at(lane, 0) = uint64_t(lane);
        return success();
      });
  registry.add<gpu::SubgroupIdOp>(
      [](WaveInterpreter &wave, const Instr &, ExecMask) {
        return defineUniform(wave, wave.waveIndex);
      });
  registry.add<gpu::SubgroupSizeOp>(
      [](WaveInterpreter &wave, const Instr &, ExecMask) {
        return defineUniform(wave, wave.kernel.chip.waveSize);
      });
  registry.add<gpu::NumSubgroupsOp>(
      [](WaveInterpreter &wave, const Instr &, ExecMask) {
        return defineUniform(wave, wave.workgroup.numWaves);
      });
  registry.add<gpu::ShuffleOp>(execShuffle);
  registry.add<ROCDL::ReadfirstlaneOp>(execReadFirstLane);
  registry.add<gpu::BarrierOp, amdgpu::LDSBarrierOp>(nullptr, nullptr,
                                                     InstrKind::Barrier);
  registry.add<amdgpu::SchedBarrierOp>(
      [](WaveInterpreter &, const Instr &, ExecMask) { return success(); });
  // Memory fences order a thread's accesses for other agents. Here every
  // access is complete and visible when its operation returns (workgroups
  // run one at a time, waves interleave only at barriers), so a fence has
  // nothing left to order.
  registry.add<LLVM::FenceOp>(
      [](WaveInterpreter &, const Instr &, ExecMask) { return success(); });
}
