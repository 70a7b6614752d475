//===- Launch.cpp - kernel launch: checks, memory plan, workgroups --------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "qmm/Target/LaunchLimits.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::emu;

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

static std::atomic<WorkgroupOrder> workgroupOrder{WorkgroupOrder::Forward};

void mlir::qmm::emu::setWorkgroupOrder(WorkgroupOrder order) {
  workgroupOrder = order;
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

/// Runs the waves of one workgroup on this thread, one at a time: a wave
/// runs until it returns or reaches a barrier, then the next wave that can
/// run does. When every wave waits at the barrier, it is released (the race
/// epoch advances) and wave 0 goes first again; when some returned while
/// others wait, the barrier can never complete.
static LogicalResult runWorkgroup(KernelContext &kernel,
                                  WorkgroupContext &workgroup,
                                  MutableArrayRef<WaveInterpreter> waves,
                                  gpu::GPUFuncOp func,
                                  ArrayRef<KernelArgument> args) {
  enum class State { Running, AtBarrier, Done };
  int n = workgroup.numWaves;
  for (WaveInterpreter &wave : waves)
    wave.reset();
  std::vector<State> states(n, State::Running);
  Operation *waitingAt = nullptr;
  int current = 0;
  while (true) {
    WaveStatus status = waves[current].resume(func, args);
    if (status == WaveStatus::Failed)
      return failure();
    if (status == WaveStatus::AtBarrier) {
      states[current] = State::AtBarrier;
      waitingAt = waves[current].getBarrier();
    } else {
      states[current] = State::Done;
    }
    int next = -1;
    for (int step = 1; step <= n && next < 0; ++step)
      if (states[(current + step) % n] == State::Running)
        next = (current + step) % n;
    if (next >= 0) {
      current = next;
      continue;
    }
    bool anyAtBarrier = llvm::is_contained(states, State::AtBarrier);
    if (!anyAtBarrier) // every wave returned
      return success();
    if (llvm::is_contained(states, State::Done)) {
      kernel.error = formatOpError(waitingAt,
                                   "barrier not reached by every wave of the "
                                   "workgroup: some waves returned while "
                                   "others wait");
      return failure();
    }
    std::fill(states.begin(), states.end(), State::Running);
    ++workgroup.epoch;
    current = 0;
  }
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

  std::unique_ptr<DecodedKernel> code = decodeKernel(kernelFunc, chip);
  int64_t threads = config.block[0] * config.block[1] * config.block[2];
  int numWaves = int((threads + chip.waveSize - 1) / chip.waveSize);
  // Counted into the stats however the launch ends.
  llvm::scope_exit countOperations(
      [&] { stats.operations += kernel.executedOperations; });
  // One set of waves serves every workgroup in turn: their slots keep their
  // storage (a value is always defined before it is read).
  WorkgroupContext workgroup;
  workgroup.lds = ldsBuffer;
  workgroup.numWaves = numWaves;
  std::vector<WaveInterpreter> waves;
  waves.reserve(numWaves);
  for (int w = 0; w < numWaves; ++w)
    waves.emplace_back(kernel, workgroup, *code, w);
  int64_t count = config.grid[0] * config.grid[1] * config.grid[2];
  // Every wave executes at least its return: a grid whose waves alone pass
  // the limit is refused before it starts (it would run for hours).
  if (count > kernel.maxOperations / numWaves)
    return llvm::createStringError(llvm::formatv(
        "emulator: the launch's {0} workgroups of {1} waves execute at "
        "least {0} x {1} operations, above the limit of {2} executed "
        "operations (--emu-max-ops)",
        count, numWaves, kernel.maxOperations));
  // Clearing a workgroup's LDS and its shadow state costs about as much
  // as one simple operation per 64 bytes.
  int64_t clearingCharge = int64_t(lds.size()) / 64;
  bool reverse = workgroupOrder == WorkgroupOrder::Reverse;
  for (int64_t step = 0; step < count; ++step) {
    int64_t i = reverse ? count - 1 - step : step;
    int64_t x = i % config.grid[0];
    int64_t y = i / config.grid[0] % config.grid[1];
    int64_t z = i / (config.grid[0] * config.grid[1]);
    workgroup.blockId = {x, y, z};
    kernel.chargedOperations += clearingCharge;
    workgroup.epoch = 1;
    std::fill(lds.begin(), lds.end(), 0);
    workgroup.shadowEpoch.assign(lds.size(), 0);
    workgroup.shadowWriter.assign(lds.size(), -1);
    workgroup.shadowReaders.assign(lds.size(), 0);
    ++stats.workgroups;
    stats.waves += numWaves;
    if (failed(runWorkgroup(kernel, workgroup, waves, kernelFunc, args)))
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
