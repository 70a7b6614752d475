//===- Interpreter.cpp - waves, control flow and kernel launch ------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <thread>

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

//===----------------------------------------------------------------------===//
// WaveScheduler
//===----------------------------------------------------------------------===//

WaveScheduler::WaveScheduler(int numWaves)
    : states(numWaves, State::Running) {}

bool WaveScheduler::waitTurn(int w) {
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [&] { return aborted || current == w; });
  return !aborted;
}

void WaveScheduler::abort() {
  std::lock_guard<std::mutex> lock(mutex);
  aborted = true;
  cv.notify_all();
}

/// Hands the turn to the next running wave; when none is left, releases the
/// barrier (all waves there) or reports waves stuck at it (some returned).
void WaveScheduler::passBaton(std::string &error) {
  int n = states.size();
  for (int step = 1; step <= n; ++step) {
    int candidate = (current + step) % n;
    if (states[candidate] == State::Running) {
      current = candidate;
      cv.notify_all();
      return;
    }
  }
  bool anyAtBarrier = false, anyDone = false;
  for (State state : states) {
    anyAtBarrier |= state == State::AtBarrier;
    anyDone |= state == State::Done;
  }
  if (!anyAtBarrier) { // every wave returned
    current = -1;
    cv.notify_all();
    return;
  }
  if (anyDone) {
    if (error.empty())
      error = formatOpError(waitingAt,
                            "barrier not reached by every wave of the "
                            "workgroup: some waves returned while others "
                            "wait");
    aborted = true;
    cv.notify_all();
    return;
  }
  for (State &state : states)
    state = State::Running;
  ++epoch;
  current = 0;
  cv.notify_all();
}

bool WaveScheduler::barrier(int w, Operation *op, std::string &error) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    states[w] = State::AtBarrier;
    waitingAt = op;
    passBaton(error);
  }
  return waitTurn(w);
}

void WaveScheduler::finish(int w, std::string &error) {
  std::lock_guard<std::mutex> lock(mutex);
  states[w] = State::Done;
  passBaton(error);
}

//===----------------------------------------------------------------------===//
// WaveInterpreter
//===----------------------------------------------------------------------===//

WaveInterpreter::WaveInterpreter(KernelContext &kernel,
                                 WorkgroupContext &workgroup, int waveIndex)
    : kernel(kernel), workgroup(workgroup), waveIndex(waveIndex) {
  const auto &block = kernel.config.block;
  int64_t threads = block[0] * block[1] * block[2];
  int64_t first = int64_t(waveIndex) * kernel.chip.waveSize;
  activeLanes = int(std::min<int64_t>(kernel.chip.waveSize, threads - first));
  launchMask = activeLanes >= 64 ? ~ExecMask(0)
                                 : ((ExecMask(1) << activeLanes) - 1);
}

Lanes &WaveInterpreter::get(Value value) {
  auto it = values.find(value);
  assert(it != values.end() && "value used before definition");
  return it->second;
}

Lanes &WaveInterpreter::define(Value value, unsigned width) {
  Lanes &lanes = values[value];
  lanes.width = width;
  if (isa<MemRefType>(value.getType())) {
    lanes.views.resize(kMaxLanes);
    lanes.bits.clear();
  } else {
    lanes.bits.assign(size_t(kMaxLanes) * width, 0);
  }
  return lanes;
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

/// Copies lane `lane` of `from` into `to` (same shape).
static void copyLane(Lanes &to, const Lanes &from, int lane) {
  if (!from.views.empty()) {
    to.views[lane] = from.views[lane];
    return;
  }
  for (unsigned e = 0; e < from.width; ++e)
    to.at(lane, e) = from.at(lane, e);
}

static unsigned widthOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

LogicalResult WaveInterpreter::execBlock(Block &block, ExecMask mask,
                                         SmallVectorImpl<Lanes> *yielded) {
  for (Operation &op : block) {
    // Terminators count too: an empty loop body or an empty kernel over a
    // huge grid still reaches the limit.
    if (++kernel.executedOperations > kernel.maxOperations)
      return fail(&op, "the launch reached the limit of " +
                           llvm::Twine(kernel.maxOperations) +
                           " executed operations");
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (yielded)
        for (Value operand : op.getOperands())
          yielded->push_back(get(operand));
      return success();
    }
    if (failed(execOp(&op, mask)))
      return failure();
  }
  return success();
}

static LogicalResult execFor(WaveInterpreter &wave, scf::ForOp op,
                             ExecMask mask) {
  Lanes lower = wave.get(op.getLowerBound());
  Lanes upper = wave.get(op.getUpperBound());
  Lanes step = wave.get(op.getStep());
  Type ivType = op.getInductionVar().getType();
  unsigned ivWidth = getBitWidth(ivType);
  bool isSigned = !op.getUnsignedCmp();

  // Per-lane loop state: the induction variable and the iteration values.
  Lanes iv = lower;
  SmallVector<Lanes> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(wave.get(init));

  // Upstream scf.for requires a positive step (unsigned loops: non-zero);
  // any other step never reaches the upper bound.
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    uint64_t bits = truncateBits(step.at(lane, 0), ivWidth);
    bool positive = isSigned ? signExtend(bits, ivWidth) > 0 : bits != 0;
    if (!positive)
      return wave.fail(
          op, "scf.for step " +
                  (isSigned ? std::to_string(signExtend(bits, ivWidth))
                            : std::to_string(bits)) +
                  " on lane " + std::to_string(lane) + " is not positive");
  }

  Block &body = *op.getBody();
  while (true) {
    ExecMask active = 0;
    for (int lane = 0; lane < kMaxLanes; ++lane) {
      if (!laneActive(mask, lane))
        continue;
      bool continues =
          isSigned ? signExtend(iv.at(lane, 0), ivWidth) <
                         signExtend(upper.at(lane, 0), ivWidth)
                   : truncateBits(iv.at(lane, 0), ivWidth) <
                         truncateBits(upper.at(lane, 0), ivWidth);
      if (continues)
        active |= ExecMask(1) << lane;
    }
    if (!active)
      break;
    Lanes &ivValue = wave.define(op.getInductionVar(), 1);
    ivValue.bits = iv.bits;
    for (auto [arg, value] : llvm::zip(op.getRegionIterArgs(), carried))
      wave.define(arg, value.width) = value;
    SmallVector<Lanes> yielded;
    if (failed(wave.execBlock(body, active, &yielded)))
      return failure();
    for (int lane = 0; lane < kMaxLanes; ++lane) {
      if (!laneActive(active, lane))
        continue;
      for (auto [value, next] : llvm::zip(carried, yielded))
        copyLane(value, next, lane);
      iv.at(lane, 0) =
          truncateBits(iv.at(lane, 0) + step.at(lane, 0), ivWidth);
    }
  }
  for (auto [result, value] : llvm::zip(op.getResults(), carried))
    wave.define(result, value.width) = value;
  return success();
}

static LogicalResult execIf(WaveInterpreter &wave, scf::IfOp op,
                            ExecMask mask) {
  Lanes condition = wave.get(op.getCondition());
  ExecMask thenMask = 0;
  for (int lane = 0; lane < kMaxLanes; ++lane)
    if (laneActive(mask, lane) && (condition.at(lane, 0) & 1))
      thenMask |= ExecMask(1) << lane;
  ExecMask elseMask = mask & ~thenMask;

  SmallVector<Lanes> thenValues, elseValues;
  if (thenMask &&
      failed(wave.execBlock(op.getThenRegion().front(), thenMask, &thenValues)))
    return failure();
  if (elseMask && !op.getElseRegion().empty() &&
      failed(wave.execBlock(op.getElseRegion().front(), elseMask,
                            &elseValues)))
    return failure();
  for (auto [index, result] : llvm::enumerate(op.getResults())) {
    Lanes &merged = wave.define(result, widthOf(result.getType()));
    for (int lane = 0; lane < kMaxLanes; ++lane) {
      if (laneActive(thenMask, lane))
        copyLane(merged, thenValues[index], lane);
      else if (laneActive(elseMask, lane))
        copyLane(merged, elseValues[index], lane);
    }
  }
  return success();
}

static LogicalResult execBarrier(WaveInterpreter &wave, Operation *op) {
  ++wave.kernel.stats.barriers;
  if (!wave.workgroup.scheduler)
    return success();
  if (!wave.workgroup.scheduler->barrier(wave.waveIndex, op,
                                         wave.kernel.error)) {
    if (wave.kernel.error.empty())
      return wave.fail(op, "launch aborted");
    return failure();
  }
  return success();
}

/// gpu.shuffle across the lanes of the wave: lane l reads lane
/// src(l) (xor, idx, up, down of the offset) when src(l) is below `width`,
/// and keeps its own value (valid = false) otherwise. Reading a lane that
/// is not executing is an error: the hardware (ds_bpermute) would return
/// whatever that lane's register held.
static LogicalResult execShuffle(WaveInterpreter &wave, gpu::ShuffleOp shuffle,
                                 ExecMask mask) {
  // Copies: define() below may move the value map.
  Lanes value = wave.get(shuffle.getValue());
  Lanes offset = wave.get(shuffle.getOffset());
  Lanes width = wave.get(shuffle.getWidth());
  std::vector<uint64_t> result(size_t(kMaxLanes) * value.width, 0);
  std::vector<uint64_t> valid(kMaxLanes, 0);
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
      result[lane * value.width + e] = value.at(int(from), e);
    valid[lane] = inRange;
  }
  Lanes &out = wave.define(shuffle.getShuffleResult(), value.width);
  out.bits = std::move(result);
  Lanes &validOut = wave.define(shuffle.getValid(), 1);
  validOut.bits = std::move(valid);
  return success();
}

static LogicalResult execGpuOp(WaveInterpreter &wave, Operation *op,
                               ExecMask mask, bool &handled) {
  handled = true;
  auto dimIndex = [](gpu::Dimension dim) {
    return dim == gpu::Dimension::x ? 0u : dim == gpu::Dimension::y ? 1u : 2u;
  };
  auto uniform = [&](Value result, int64_t value) {
    Lanes &out = wave.define(result, 1);
    for (int lane = 0; lane < kMaxLanes; ++lane)
      out.at(lane, 0) = uint64_t(value);
  };
  const LaunchConfig &config = wave.kernel.config;
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](gpu::ThreadIdOp tid) {
        Lanes &out = wave.define(tid.getResult(), 1);
        for (int lane = 0; lane < kMaxLanes; ++lane)
          out.at(lane, 0) = uint64_t(wave.threadId(lane, dimIndex(tid.getDimension())));
        return success();
      })
      .Case([&](gpu::BlockIdOp bid) {
        uniform(bid.getResult(),
                wave.workgroup.blockId[dimIndex(bid.getDimension())]);
        return success();
      })
      .Case([&](gpu::BlockDimOp dim) {
        uniform(dim.getResult(), config.block[dimIndex(dim.getDimension())]);
        return success();
      })
      .Case([&](gpu::GridDimOp dim) {
        uniform(dim.getResult(), config.grid[dimIndex(dim.getDimension())]);
        return success();
      })
      .Case([&](gpu::LaneIdOp laneId) {
        Lanes &out = wave.define(laneId.getResult(), 1);
        for (int lane = 0; lane < kMaxLanes; ++lane)
          out.at(lane, 0) = uint64_t(lane);
        return success();
      })
      .Case([&](gpu::SubgroupIdOp id) {
        uniform(id.getResult(), wave.waveIndex);
        return success();
      })
      .Case([&](gpu::SubgroupSizeOp size) {
        uniform(size.getResult(), wave.kernel.chip.waveSize);
        return success();
      })
      .Case([&](gpu::NumSubgroupsOp count) {
        uniform(count.getResult(), wave.workgroup.numWaves);
        return success();
      })
      .Case([&](gpu::ShuffleOp shuffle) {
        return execShuffle(wave, shuffle, mask);
      })
      .Case([&](gpu::BarrierOp) { return execBarrier(wave, op); })
      .Case([&](amdgpu::LDSBarrierOp) { return execBarrier(wave, op); })
      .Case([&](amdgpu::SchedBarrierOp) { return success(); })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

LogicalResult WaveInterpreter::execOp(Operation *op, ExecMask mask) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return execFor(*this, forOp, mask);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return execIf(*this, ifOp, mask);
  bool handled = false;
  LogicalResult result = execGpuOp(*this, op, mask, handled);
  if (handled)
    return result;
  result = execArithOp(*this, op, mask, handled);
  if (handled)
    return result;
  result = execMemoryOp(*this, op, mask, handled);
  if (handled)
    return result;
  result = execVectorOp(*this, op, mask, handled);
  if (handled)
    return result;
  result = execMatrixOp(*this, op, mask, handled);
  if (handled)
    return result;
  return fail(op, "operation not supported by the emulator");
}

bool WaveInterpreter::run(gpu::GPUFuncOp func,
                          ArrayRef<KernelArgument> args) {
  Block &entry = func.getBody().front();
  unsigned numArgs = func.getNumArguments();
  for (unsigned i = 0; i < numArgs; ++i) {
    BlockArgument arg = entry.getArgument(i);
    const KernelArgument &value = args[i];
    if (value.isMemRef) {
      Lanes &lanes = define(arg, 1);
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
      for (int lane = 0; lane < kMaxLanes; ++lane)
        lanes.views[lane] = view;
    } else {
      Lanes &lanes = define(arg, 1);
      uint64_t bits =
          truncateBits(value.scalarBits, getBitWidth(arg.getType()));
      for (int lane = 0; lane < kMaxLanes; ++lane)
        lanes.at(lane, 0) = bits;
    }
  }
  // Workgroup memory attributions live in this workgroup's LDS.
  for (BlockArgument attribution : func.getWorkgroupAttributions()) {
    Lanes &lanes = define(attribution, 1);
    MemRefView view;
    std::string error;
    if (failed(makeView(attribution.getType(), workgroup.lds, view, error))) {
      kernel.error = "emulator: workgroup attribution: " + error;
      return false;
    }
    view.offset = kernel.ldsAttributionOffsets.lookup(attribution) /
                  getStorageBytes(view.elementType);
    for (int lane = 0; lane < kMaxLanes; ++lane)
      lanes.views[lane] = view;
  }
  if (!func.getPrivateAttributions().empty()) {
    kernel.error = "emulator: private memory attributions are not supported";
    return false;
  }
  return succeeded(execBlock(entry, launchMask, nullptr));
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

LogicalResult mlir::qmm::emu::makeView(Type type, int buffer, MemRefView &view,
                                       std::string &error) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref) {
    error = "not a memref";
    return failure();
  }
  if (!memref.hasStaticShape()) {
    error = "dynamic memref shapes are not supported";
    return failure();
  }
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  if (memref.getLayout().isIdentity()) {
    // Row-major; computed here because an empty shape's identity layout
    // does not fold to a strided form.
    strides.assign(memref.getRank(), 1);
    for (int64_t d = memref.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * memref.getDimSize(d + 1);
  } else if (failed(memref.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic)) {
    error = "memref layouts must be static and strided";
    return failure();
  }
  view.buffer = buffer;
  view.offset = offset;
  view.sizes.assign(memref.getShape().begin(), memref.getShape().end());
  view.strides.assign(strides.begin(), strides.end());
  view.elementType = memref.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

static std::atomic<int64_t> maxOperationsPerLaunch{kDefaultMaxOperations};

void mlir::qmm::emu::setMaxOperationsPerLaunch(int64_t limit) {
  assert(limit > 0 && "the operation limit must be positive");
  maxOperationsPerLaunch = limit;
}

int64_t mlir::qmm::emu::getMaxOperationsPerLaunch() {
  return maxOperationsPerLaunch;
}

bool mlir::qmm::emu::isSupportedElementType(Type type) {
  if (type.isIndex())
    return true;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 64;
  if (auto floating = dyn_cast<FloatType>(type))
    return floating.getWidth() <= 64;
  return false;
}

static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

llvm::Error
mlir::qmm::emu::verifyBlockExtents(const ChipInfo &chip,
                                   const std::array<int64_t, 3> &block) {
  std::string extents =
      llvm::formatv("{0},{1},{2}", block[0], block[1], block[2]);
  if (llvm::any_of(block, [](int64_t extent) { return extent <= 0; }))
    return llvm::createStringError("extents must be positive, got " + extents);
  std::optional<int64_t> threads = llvm::checkedMul(block[0], block[1]);
  if (threads)
    threads = llvm::checkedMul(*threads, block[2]);
  if (!threads || *threads > chip.maxThreadsPerWorkgroup)
    return llvm::createStringError(
        "at most " + std::to_string(chip.maxThreadsPerWorkgroup) +
        " threads per workgroup, got " +
        (threads ? std::to_string(*threads) : extents));
  for (unsigned d = 0; d < 3; ++d)
    if (block[d] > chip.maxWorkgroupExtents[d])
      return llvm::createStringError(llvm::formatv(
          "extent {0} = {1} is above {2}'s limit of {3}", "xyz"[d], block[d],
          chip.name, chip.maxWorkgroupExtents[d]));
  return llvm::Error::success();
}

llvm::Error
mlir::qmm::emu::verifyGridExtents(const ChipInfo &chip,
                                  const std::array<int64_t, 3> &grid,
                                  const std::array<int64_t, 3> &block) {
  for (unsigned d = 0; d < 3; ++d) {
    if (grid[d] <= 0)
      return llvm::createStringError(
          llvm::formatv("extents must be positive, got {0},{1},{2}", grid[0],
                        grid[1], grid[2]));
    std::optional<int64_t> workItems = llvm::checkedMul(grid[d], block[d]);
    if (!workItems || *workItems > chip.maxGridWorkItemsPerDimension)
      return llvm::createStringError(llvm::formatv(
          "{0}: {1} workgroups of {2} threads exceed the {3} work-items a "
          "grid dimension holds",
          "xyz"[d], grid[d], block[d], chip.maxGridWorkItemsPerDimension));
  }
  return llvm::Error::success();
}

/// Why the emulator cannot hold values of `type`, if it cannot.
static std::optional<std::string> getUnsupportedReason(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (!isSupportedElementType(memref.getElementType()))
      return typeText(type) + ": element type " +
             typeText(memref.getElementType()) +
             " is not supported by the emulator";
    return std::nullopt;
  }
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable() || !isSupportedElementType(vector.getElementType()))
      return typeText(type) + " is not supported by the emulator";
    std::optional<int64_t> count = getCheckedNumElements(vector.getShape());
    if (!count || *count > kMaxElementsPerLane)
      return typeText(type) + " is above the emulator's limit of " +
             std::to_string(kMaxElementsPerLane) + " elements per lane";
    return std::nullopt;
  }
  if (isSupportedElementType(type))
    return std::nullopt;
  return "values of type " + typeText(type) +
         " are not supported by the emulator";
}

/// Rejects, before anything runs, what the interpreter cannot hold: values
/// of unsupported types or above the per-lane size limit, and unstructured
/// control flow (the interpreter runs single-block regions).
static LogicalResult verifyKernel(KernelContext &kernel, gpu::GPUFuncOp func) {
  WalkResult walk = func.walk([&](Operation *op) {
    auto reject = [&](const llvm::Twine &message) {
      kernel.error = formatOpError(op, message);
      return WalkResult::interrupt();
    };
    if (op->getNumSuccessors() ||
        llvm::any_of(op->getRegions(), [](Region &region) {
          return !region.empty() && !region.hasOneBlock();
        }))
      return reject("unstructured control flow is not supported by the "
                    "emulator");
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (std::optional<std::string> reason =
                  getUnsupportedReason(arg.getType()))
            return reject(*reason);
    for (Type type : op->getResultTypes())
      if (std::optional<std::string> reason = getUnsupportedReason(type))
        return reject(*reason);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

static bool isWorkgroupSpace(Attribute memorySpace) {
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(memorySpace))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  if (auto integer = dyn_cast_or_null<IntegerAttr>(memorySpace))
    return integer.getInt() == 3;
  return false;
}

/// The bytes a static memref type occupies; nullopt when that overflows.
static std::optional<int64_t> getByteSize(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> elements = getCheckedNumElements(type.getShape());
  if (!elements)
    return std::nullopt;
  return llvm::checkedMul(*elements,
                          int64_t(getStorageBytes(type.getElementType())));
}

/// The emulator copies constant globals into host memory; this bounds one.
constexpr int64_t kMaxConstantGlobalBytes = int64_t(256) << 20;

/// Materializes a constant global (memref.global with a dense initializer)
/// as a buffer.
static LogicalResult materializeConstant(KernelContext &kernel,
                                         memref::GlobalOp global) {
  MemRefType type = global.getType();
  auto init = dyn_cast_or_null<DenseElementsAttr>(
      global.getInitialValue().value_or(Attribute()));
  if (!init) {
    kernel.error = formatOpError(global, "global @" + global.getSymName() +
                                             " has no dense initializer");
    return failure();
  }
  Type elementType = type.getElementType();
  std::optional<int64_t> bytes = getByteSize(type);
  if (!bytes || *bytes > kMaxConstantGlobalBytes) {
    kernel.error = formatOpError(
        global, "constant global of type " + typeText(type) +
                    " is above the emulator's limit of " +
                    std::to_string(kMaxConstantGlobalBytes) + " bytes");
    return failure();
  }
  auto storage = std::make_unique<std::vector<uint8_t>>(*bytes);
  unsigned elementBytes = getStorageBytes(elementType);
  int64_t i = 0;
  auto append = [&](const APInt &pattern) {
    uint64_t bits = pattern.getZExtValue();
    std::memcpy(storage->data() + i++ * elementBytes, &bits, elementBytes);
  };
  if (isa<FloatType>(elementType)) {
    for (APFloat value : init.getValues<APFloat>())
      append(value.bitcastToAPInt());
  } else {
    for (APInt value : init.getValues<APInt>())
      append(value);
  }
  kernel.constantBuffers[global] = kernel.buffers.size();
  kernel.buffers.push_back({AddressSpace::Constant, storage->data(),
                            int64_t(storage->size()),
                            "@" + global.getSymName().str()});
  kernel.ownedStorage.push_back(std::move(storage));
  return success();
}

/// Places workgroup attributions and workgroup-space globals in LDS (each
/// 16-byte aligned, within the chip's limit), and materializes constant
/// globals.
static LogicalResult planMemory(KernelContext &kernel, gpu::GPUFuncOp func) {
  // The end of LDS so far; nullopt once the sum overflows int64.
  std::optional<int64_t> ldsEnd = 0;
  auto reserve = [&](MemRefType type) -> int64_t {
    std::optional<int64_t> start =
        ldsEnd ? llvm::checkedAdd(*ldsEnd, int64_t(15)) : std::nullopt;
    if (start)
      *start &= ~int64_t(15);
    std::optional<int64_t> bytes = getByteSize(type);
    ldsEnd = start && bytes ? llvm::checkedAdd(*start, *bytes) : std::nullopt;
    return start.value_or(0);
  };
  for (BlockArgument attribution : func.getWorkgroupAttributions())
    kernel.ldsAttributionOffsets[attribution] =
        reserve(cast<MemRefType>(attribution.getType()));
  if (auto module = func->getParentOfType<gpu::GPUModuleOp>()) {
    for (auto global : module.getOps<memref::GlobalOp>()) {
      if (std::optional<std::string> reason =
              getUnsupportedReason(global.getType())) {
        kernel.error = formatOpError(global, *reason);
        return failure();
      }
      if (isWorkgroupSpace(global.getType().getMemorySpace()))
        kernel.ldsGlobalOffsets[global] = reserve(global.getType());
      else if (failed(materializeConstant(kernel, global)))
        return failure();
    }
  }
  const ChipInfo &chip = kernel.chip;
  if (!ldsEnd || *ldsEnd > chip.ldsBytesPerWorkgroup) {
    std::string allocated =
        ldsEnd ? std::to_string(*ldsEnd)
               : "more than " +
                     std::to_string(std::numeric_limits<int64_t>::max());
    kernel.error = "emulator: LDS above the chip's limit: the kernel "
                   "allocates " +
                   allocated + " bytes of workgroup memory, " +
                   chip.name.str() + " has " +
                   std::to_string(chip.ldsBytesPerWorkgroup);
    return failure();
  }
  kernel.ldsBytes = *ldsEnd;
  return success();
}

/// Checks the arguments against the kernel's signature.
static LogicalResult verifyArguments(KernelContext &kernel, gpu::GPUFuncOp func,
                                     ArrayRef<KernelArgument> args) {
  for (auto [index, arg] : llvm::enumerate(args)) {
    bool isMemRef = isa<MemRefType>(func.getArgumentTypes()[index]);
    if (arg.isMemRef != isMemRef || (isMemRef && !arg.buffer)) {
      kernel.error = "emulator: argument " + std::to_string(index) + " of @" +
                     func.getName().str() + " is " +
                     (isMemRef ? "a memref" : "a scalar") + ", given " +
                     (arg.isMemRef ? "a buffer" : "a scalar");
      return failure();
    }
  }
  return success();
}

llvm::Error mlir::qmm::emu::launchKernel(const ChipInfo &chip,
                                         gpu::GPUFuncOp kernelFunc,
                                         const LaunchConfig &config,
                                         ArrayRef<KernelArgument> args,
                                         KernelStats &stats) {
  if (args.size() != kernelFunc.getNumArguments())
    return llvm::createStringError(
        "kernel @%s takes %u arguments, %zu given",
        kernelFunc.getName().str().c_str(), kernelFunc.getNumArguments(),
        args.size());
  if (llvm::Error error = verifyBlockExtents(chip, config.block))
    return llvm::createStringError("emulator: launch block: " +
                                   llvm::toString(std::move(error)));
  if (llvm::Error error = verifyGridExtents(chip, config.grid, config.block))
    return llvm::createStringError("emulator: launch grid: " +
                                   llvm::toString(std::move(error)));

  KernelContext kernel(chip, config, stats);
  kernel.maxOperations = getMaxOperationsPerLaunch();
  if (failed(verifyKernel(kernel, kernelFunc)) ||
      failed(verifyArguments(kernel, kernelFunc, args)))
    return llvm::createStringError(kernel.error);
  for (const KernelArgument &arg : args)
    if (arg.isMemRef)
      kernel.buffers.push_back({AddressSpace::Global, arg.buffer->data(),
                                int64_t(arg.buffer->size()), "global"});
  if (failed(planMemory(kernel, kernelFunc)))
    return llvm::createStringError(kernel.error);
  stats.ldsBytesAllocated = kernel.ldsBytes;

  std::vector<uint8_t> lds(kernel.ldsBytes);
  int ldsBuffer = kernel.buffers.size();
  kernel.buffers.push_back(
      {AddressSpace::Workgroup, lds.data(), int64_t(lds.size()), "LDS"});

  int64_t threads = config.block[0] * config.block[1] * config.block[2];
  int numWaves = int((threads + chip.waveSize - 1) / chip.waveSize);
  // Counted into the stats however the launch ends.
  llvm::scope_exit countOperations(
      [&] { stats.operations += kernel.executedOperations; });
  for (int64_t z = 0; z < config.grid[2]; ++z)
    for (int64_t y = 0; y < config.grid[1]; ++y)
      for (int64_t x = 0; x < config.grid[0]; ++x) {
        WorkgroupContext workgroup;
        workgroup.blockId = {x, y, z};
        workgroup.lds = ldsBuffer;
        workgroup.numWaves = numWaves;
        std::fill(lds.begin(), lds.end(), 0);
        workgroup.shadowEpoch.assign(lds.size(), 0);
        workgroup.shadowWriter.assign(lds.size(), -1);
        workgroup.shadowReaders.assign(lds.size(), 0);
        ++stats.workgroups;
        stats.waves += numWaves;
        if (numWaves == 1) {
          WaveInterpreter wave(kernel, workgroup, 0);
          if (!wave.run(kernelFunc, args))
            return llvm::createStringError(kernel.error);
          continue;
        }
        WaveScheduler scheduler(numWaves);
        workgroup.scheduler = &scheduler;
        std::vector<std::thread> threadsOfWaves;
        for (int w = 0; w < numWaves; ++w)
          threadsOfWaves.emplace_back([&, w] {
            if (!scheduler.waitTurn(w))
              return;
            WaveInterpreter wave(kernel, workgroup, w);
            if (!wave.run(kernelFunc, args)) {
              scheduler.abort();
              return;
            }
            scheduler.finish(w, kernel.error);
          });
        for (std::thread &thread : threadsOfWaves)
          thread.join();
        if (!kernel.error.empty())
          return llvm::createStringError(kernel.error);
      }
  return llvm::Error::success();
}

std::string mlir::qmm::emu::formatStats(StringRef kernelName,
                                        const ChipInfo &chip,
                                        const KernelStats &stats) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "kernel @" << kernelName << " on " << chip.name << ": "
     << stats.workgroups << " workgroups, " << stats.waves << " waves, "
     << stats.operations << " operations\n";
  int64_t mfmas = 0;
  for (const auto &entry : stats.mfmaCounts)
    mfmas += entry.getValue();
  os << "  mfma: " << mfmas;
  std::vector<std::string> names;
  for (const auto &entry : stats.mfmaCounts)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  for (const std::string &name : names)
    os << "  " << name << " x" << stats.mfmaCounts.lookup(name);
  os << "\n";
  os << llvm::formatv("  global: {0} loads ({1} bytes), {2} stores ({3} bytes)\n",
                      stats.globalLoads, stats.globalBytesRead,
                      stats.globalStores, stats.globalBytesWritten);
  os << llvm::formatv("  lds: {0} bytes allocated, {1} loads ({2} bytes), {3} "
                      "stores ({4} bytes), {5} bank-conflict cycles ({6} "
                      "banks)\n",
                      stats.ldsBytesAllocated, stats.ldsLoads,
                      stats.ldsBytesRead, stats.ldsStores,
                      stats.ldsBytesWritten, stats.ldsBankConflictCycles,
                      chip.ldsBanks);
  os << "  barriers: " << stats.barriers << "\n";
  return text;
}
