//===- Interpreter.cpp - waves: slots, frames and structured control flow -===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::emu;

std::string mlir::qmm::emu::formatLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    loc.print(os);
  return text;
}

std::string mlir::qmm::emu::formatOpError(Operation *op,
                                          const llvm::Twine &message) {
  return ("emulator: " + message + " ('" + op->getName().getStringRef() +
          "' at " + formatLocation(op->getLoc()) + ")")
      .str();
}

std::optional<int64_t>
mlir::qmm::emu::getCheckedNumElements(ArrayRef<int64_t> shape) {
  std::optional<int64_t> count = 1;
  for (int64_t extent : shape) {
    if (!count || extent < 0)
      return std::nullopt;
    count = llvm::checkedMul(*count, extent);
  }
  return count;
}

void Lanes::expand() {
  if (!uniform)
    return;
  uniform = false;
  if (isMemRef()) {
    views.resize(kMaxLanes, views[0]);
    return;
  }
  std::vector<uint64_t> all(size_t(kMaxLanes) * width);
  for (int lane = 0; lane < kMaxLanes; ++lane)
    std::copy(bits.begin(), bits.begin() + width, all.begin() + lane * width);
  bits = std::move(all);
}

//===----------------------------------------------------------------------===//
// WaveInterpreter: values
//===----------------------------------------------------------------------===//

WaveInterpreter::WaveInterpreter(KernelContext &kernel,
                                 WorkgroupContext &workgroup,
                                 const DecodedKernel &code, int waveIndex)
    : kernel(kernel), workgroup(workgroup), waveIndex(waveIndex), code(code),
      slots(code.getNumSlots()) {
  const auto &block = kernel.config.block;
  int64_t threads = block[0] * block[1] * block[2];
  int64_t first = int64_t(waveIndex) * kernel.chip.waveSize;
  activeLanes = int(std::min<int64_t>(kernel.chip.waveSize, threads - first));
  launchMask =
      activeLanes >= 64 ? kAllLanes : ((ExecMask(1) << activeLanes) - 1);
}

Lanes &WaveInterpreter::get(Value value) {
  Operation *op = current->op;
  for (unsigned i = 0, e = current->operands.size(); i < e; ++i)
    if (op->getOperand(i) == value)
      return slots[current->operands[i]];
  llvm_unreachable("not an operand of the running op");
}

/// Result `i` of the running instruction, zero, with `lanes` copies (1 or
/// 64).
Lanes &WaveInterpreter::defineLanes(unsigned i, unsigned width, int lanes) {
  int32_t index = current->results[i];
  Lanes &value = slots[index];
  value.width = width;
  value.uniform = lanes == 1;
  if (code.slotIsMemRef[index]) {
    value.views.resize(lanes);
    value.bits.clear();
  } else {
    value.bits.assign(size_t(lanes) * width, 0);
  }
  return value;
}

Lanes &WaveInterpreter::define(Value value, unsigned width) {
  return defineResult(cast<OpResult>(value).getResultNumber(), width);
}

LogicalResult WaveInterpreter::fail(Operation *op, const llvm::Twine &message) {
  if (kernel.error.empty())
    kernel.error = formatOpError(op, message);
  return failure();
}

int64_t WaveInterpreter::threadId(int lane, unsigned dim) const {
  const auto &block = kernel.config.block;
  int64_t linear = int64_t(waveIndex) * kernel.chip.waveSize + lane;
  if (dim == 0)
    return linear % block[0];
  if (dim == 1)
    return (linear / block[0]) % block[1];
  return linear / (block[0] * block[1]);
}

void WaveInterpreter::copyLanes(Lanes &to, const Lanes &from, ExecMask mask) {
  if (&to == &from)
    return;
  if (mask == kAllLanes) { // the whole value, uniform or not
    to = from;
    return;
  }
  to.expand();
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    if (from.isMemRef()) {
      to.views[lane] = from.view(lane);
      continue;
    }
    for (unsigned e = 0; e < from.width; ++e)
      to.at(lane, e) = from.at(lane, e);
  }
}

//===----------------------------------------------------------------------===//
// WaveInterpreter: running
//===----------------------------------------------------------------------===//

/// Binds the kernel arguments and workgroup attributions (the same in every
/// lane) and enters the kernel body.
bool WaveInterpreter::start(gpu::GPUFuncOp func,
                            ArrayRef<KernelArgument> args) {
  Block &entry = func.getBody().front();
  const DecodedBlock &body = code.blocks[0];
  unsigned numArgs = func.getNumArguments();
  for (unsigned i = 0; i < numArgs; ++i) {
    BlockArgument arg = entry.getArgument(i);
    const KernelArgument &value = args[i];
    Lanes &lanes = slots[body.arguments[i]];
    lanes.width = 1;
    lanes.uniform = true;
    if (value.isMemRef) {
      MemRefView view;
      std::string error;
      int buffer = -1;
      for (auto [index, candidate] : llvm::enumerate(kernel.buffers))
        if (candidate.data == value.buffer->data())
          buffer = int(index);
      if (failed(makeView(arg.getType(), buffer, view, error))) {
        kernel.error = "emulator: argument " + std::to_string(i) + ": " + error;
        return false;
      }
      lanes.views.assign(1, view);
    } else {
      lanes.bits.assign(
          1, truncateBits(value.scalarBits, getBitWidth(arg.getType())));
    }
  }
  // Workgroup memory attributions live in this workgroup's LDS.
  for (auto [i, attribution] :
       llvm::enumerate(func.getWorkgroupAttributions())) {
    Lanes &lanes = slots[body.arguments[numArgs + i]];
    MemRefView view;
    std::string error;
    if (failed(makeView(attribution.getType(), workgroup.lds, view, error))) {
      kernel.error = "emulator: workgroup attribution: " + error;
      return false;
    }
    view.offset = kernel.ldsAttributionOffsets.lookup(attribution) /
                  getStorageBytes(view.elementType);
    lanes.width = 1;
    lanes.uniform = true;
    lanes.views.assign(1, view);
  }
  if (!func.getPrivateAttributions().empty()) {
    kernel.error = "emulator: private memory attributions are not supported";
    return false;
  }
  frames.push_back(Frame{0, 0, launchMask});
  return true;
}

WaveStatus WaveInterpreter::resume(gpu::GPUFuncOp func,
                                   ArrayRef<KernelArgument> args) {
  if (!started) {
    started = true;
    if (!start(func, args))
      return WaveStatus::Failed;
  }
  while (!frames.empty()) {
    Frame &frame = frames.back();
    const Instr &inst = code.blocks[frame.block].instrs[frame.pc++];
    ExecMask mask = frame.mask;
    // Terminators count too: an empty loop body or an empty kernel over a
    // huge grid still reaches the limit.
    if (++kernel.executedOperations + kernel.chargedOperations >
        kernel.maxOperations) {
      (void)fail(inst.op, "the launch reached the limit of " +
                              llvm::Twine(kernel.maxOperations) +
                              " executed operations");
      return WaveStatus::Failed;
    }
    current = &inst;
    switch (inst.kind) {
    case InstrKind::Op:
      if (failed(inst.handler(*this, inst, mask)))
        return WaveStatus::Failed;
      break;
    case InstrKind::For:
      if (failed(enterFor(inst, mask)))
        return WaveStatus::Failed;
      break;
    case InstrKind::If:
      if (failed(enterIf(inst, mask)))
        return WaveStatus::Failed;
      break;
    case InstrKind::Barrier:
      ++kernel.stats.barriers;
      if (workgroup.numWaves > 1) {
        barrier = inst.op;
        return WaveStatus::AtBarrier;
      }
      break;
    case InstrKind::Terminator:
      endBlock(inst);
      break;
    }
  }
  return WaveStatus::Done;
}

//===----------------------------------------------------------------------===//
// scf.for and scf.if
//===----------------------------------------------------------------------===//

namespace {
/// What scf.for's handlers need from the op.
struct ForInfo {
  unsigned ivWidth;
  bool isSigned;
  /// The yield names a block argument of the body at another position, so
  /// its values are copied before the arguments are overwritten.
  bool yieldReadsArguments;
};
} // namespace

static void decodeFor(DecodedKernel &kernel, Instr &inst) {
  auto op = cast<scf::ForOp>(inst.op);
  ForInfo &info = kernel.allocate<ForInfo>();
  info.ivWidth = getBitWidth(op.getInductionVar().getType());
  info.isSigned = !op.getUnsignedCmp();
  info.yieldReadsArguments = false;
  const DecodedBlock &body = kernel.blocks[inst.regions[0]];
  const Instr &yield = body.instrs.back();
  for (auto [i, operand] : llvm::enumerate(yield.operands))
    for (auto [j, argument] : llvm::enumerate(body.arguments))
      if (operand == argument && i + 1 != j)
        info.yieldReadsArguments = true;
  inst.data = &info;
}

/// The lanes of `mask` whose induction variable is below the upper bound.
static ExecMask continuingLanes(const Lanes &iv, const Lanes &upper,
                                ExecMask mask, const ForInfo &info) {
  auto continues = [&](int lane) {
    return info.isSigned ? signExtend(iv.at(lane, 0), info.ivWidth) <
                               signExtend(upper.at(lane, 0), info.ivWidth)
                         : truncateBits(iv.at(lane, 0), info.ivWidth) <
                               truncateBits(upper.at(lane, 0), info.ivWidth);
  };
  if (iv.uniform && upper.uniform)
    return continues(0) ? mask : 0;
  ExecMask active = 0;
  for (int lane = 0; lane < kMaxLanes; ++lane)
    if (laneActive(mask, lane) && continues(lane))
      active |= ExecMask(1) << lane;
  return active;
}

LogicalResult WaveInterpreter::enterFor(const Instr &inst, ExecMask mask) {
  const ForInfo &info = *static_cast<const ForInfo *>(inst.data);
  const Lanes &step = slots[inst.operands[2]];
  // Upstream scf.for requires a positive step (unsigned loops: non-zero);
  // any other step never reaches the upper bound.
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    uint64_t bits = truncateBits(step.at(lane, 0), info.ivWidth);
    bool positive =
        info.isSigned ? signExtend(bits, info.ivWidth) > 0 : bits != 0;
    if (!positive)
      return fail(inst.op,
                  "scf.for step " +
                      (info.isSigned
                           ? std::to_string(signExtend(bits, info.ivWidth))
                           : std::to_string(bits)) +
                      " on lane " + std::to_string(lane) + " is not positive");
  }
  // The body's arguments hold the loop state: the induction variable and
  // the iteration values.
  const DecodedBlock &body = code.blocks[inst.regions[0]];
  Lanes &iv = slots[body.arguments[0]];
  iv = slots[inst.operands[0]];
  for (size_t i = 1; i < body.arguments.size(); ++i)
    slots[body.arguments[i]] = slots[inst.operands[2 + i]];
  ExecMask active = continuingLanes(iv, slots[inst.operands[1]], mask, info);
  if (!active) {
    for (size_t i = 0; i < inst.results.size(); ++i)
      slots[inst.results[i]] = slots[body.arguments[i + 1]];
    return success();
  }
  Frame frame{inst.regions[0], 0, active, Frame::ForBody, &inst};
  frame.other = mask;
  frames.push_back(frame);
  return success();
}

void WaveInterpreter::nextIteration(const Instr &forInst, const Instr &yield) {
  const ForInfo &info = *static_cast<const ForInfo *>(forInst.data);
  const DecodedBlock &body = code.blocks[forInst.regions[0]];
  Frame &frame = frames.back();
  ExecMask active = frame.mask;
  if (info.yieldReadsArguments) {
    scratch.resize(yield.operands.size());
    for (size_t i = 0; i < yield.operands.size(); ++i)
      scratch[i] = slots[yield.operands[i]];
    for (size_t i = 0; i < yield.operands.size(); ++i)
      copyLanes(slots[body.arguments[i + 1]], scratch[i], active);
  } else {
    for (size_t i = 0; i < yield.operands.size(); ++i)
      copyLanes(slots[body.arguments[i + 1]], slots[yield.operands[i]], active);
  }
  Lanes &iv = slots[body.arguments[0]];
  const Lanes &step = slots[forInst.operands[2]];
  if (iv.uniform && step.uniform && active == kAllLanes) {
    iv.bits[0] = truncateBits(iv.bits[0] + step.bits[0], info.ivWidth);
  } else {
    iv.expand();
    for (int lane = 0; lane < kMaxLanes; ++lane)
      if (laneActive(active, lane))
        iv.at(lane, 0) =
            truncateBits(iv.at(lane, 0) + step.at(lane, 0), info.ivWidth);
  }
  active = continuingLanes(iv, slots[forInst.operands[1]], frame.other, info);
  if (active) {
    frame.mask = active;
    frame.pc = 0;
    return;
  }
  for (size_t i = 0; i < forInst.results.size(); ++i)
    slots[forInst.results[i]] = slots[body.arguments[i + 1]];
  frames.pop_back();
}

LogicalResult WaveInterpreter::enterIf(const Instr &inst, ExecMask mask) {
  const Lanes &condition = slots[inst.operands[0]];
  ExecMask thenMask = 0;
  if (condition.uniform) {
    thenMask = (condition.bits[0] & 1) ? mask : 0;
  } else {
    for (int lane = 0; lane < kMaxLanes; ++lane)
      if (laneActive(mask, lane) && (condition.at(lane, 0) & 1))
        thenMask |= ExecMask(1) << lane;
  }
  ExecMask elseMask = mask & ~thenMask;
  // The results are not visible inside the regions: define them now and
  // fill in each branch's lanes at its yield.
  for (size_t i = 0; i < inst.results.size(); ++i)
    defineResult(i, widthOf(inst.op->getResult(i).getType()));
  if (thenMask) {
    Frame frame{inst.regions[0], 0, thenMask, Frame::Then, &inst};
    frame.other = elseMask;
    frames.push_back(frame);
  } else if (elseMask && inst.regions[1] >= 0) {
    frames.push_back(Frame{inst.regions[1], 0, elseMask, Frame::Else, &inst});
  }
  return success();
}

void WaveInterpreter::endBlock(const Instr &inst) {
  Frame &frame = frames.back();
  switch (frame.kind) {
  case Frame::Body:
    frames.pop_back();
    return;
  case Frame::ForBody:
    nextIteration(*frame.owner, inst);
    return;
  case Frame::Then:
  case Frame::Else: {
    const Instr &owner = *frame.owner;
    for (size_t i = 0; i < owner.results.size(); ++i)
      copyLanes(slots[owner.results[i]], slots[inst.operands[i]], frame.mask);
    ExecMask elseMask = frame.kind == Frame::Then ? frame.other : 0;
    frames.pop_back();
    if (elseMask && owner.regions[1] >= 0)
      frames.push_back(
          Frame{owner.regions[1], 0, elseMask, Frame::Else, &owner});
    return;
  }
  }
}

void mlir::qmm::emu::registerControlFlowHandlers(Registry &registry) {
  registry.add<scf::ForOp>(nullptr, decodeFor, InstrKind::For);
  registry.add<scf::IfOp>(nullptr, nullptr, InstrKind::If);
}
