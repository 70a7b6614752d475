//===- LaunchPlan.cpp - a host program saved for a GPU elsewhere ----------===//

#include "qmm/Runtime/LaunchPlan.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/HostProgram.h"
#include "qmm/Target/NvidiaChip.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;

namespace {
/// Records each launch: the kernel's gpu.module compiled once, the
/// arguments as buffer indices and sized scalars.
class PlanRecorder : public KernelLauncher {
public:
  PlanRecorder(ModuleOp lowered, const NVVMPipelineOptions &options,
               LaunchPlan &plan)
      : lowered(lowered), options(options), plan(plan) {}

  llvm::Error launch(gpu::GPUFuncOp kernel, const LaunchGeometry &geometry,
                     llvm::ArrayRef<HostKernelArgument> args) override {
    const std::array<int64_t, 3> &grid = geometry.grid, &block = geometry.block,
                                 &cluster = geometry.cluster;
    int64_t dynamicSharedBytes = geometry.dynamicSharedBytes;
    auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
    std::string key = (gpuModule.getName() + "::" + kernel.getName()).str();
    auto known = kernelIndices.find(key);
    if (known == kernelIndices.end()) {
      auto module = moduleIndices.find(gpuModule.getName());
      if (module == moduleIndices.end()) {
        llvm::Expected<std::string> ptx =
            compileNvidiaKernelModule(lowered, gpuModule.getName(), options);
        if (!ptx)
          return ptx.takeError();
        plan.modules.push_back(std::move(*ptx));
        module = moduleIndices
                     .insert({gpuModule.getName(), plan.modules.size() - 1})
                     .first;
      }
      plan.kernels.push_back({module->second, kernel.getName().str()});
      known = kernelIndices.insert({key, plan.kernels.size() - 1}).first;
    }
    // The chip's launch limits, checked here rather than by the driver
    // on the other machine.
    const NvidiaChipInfo *chip = lookupNvidiaChip(options.chip);
    if (!chip)
      return llvm::createStringError("unknown NVIDIA chip '" + options.chip +
                                     "'");
    int64_t threads = block[0] * block[1] * block[2];
    bool gridFits = true;
    for (int d = 0; d < 3; ++d)
      gridFits = gridFits && grid[d] >= 1 && grid[d] <= chip->maxGridExtents[d];
    if (threads < 1 || threads > chip->maxThreadsPerBlock || !gridFits ||
        dynamicSharedBytes < 0 ||
        dynamicSharedBytes > chip->maxSharedBytesPerBlock)
      return llvm::createStringError(llvm::formatv(
          "kernel @{0}: a grid of ({1}, {2}, {3}) blocks of ({4}, {5}, {6}) "
          "threads with {7} bytes of dynamic shared memory exceeds {8}'s "
          "limits",
          kernel.getName(), grid[0], grid[1], grid[2], block[0], block[1],
          block[2], dynamicSharedBytes, chip->name));
    if (llvm::any_of(cluster, [](int64_t extent) { return extent < 1; }) ||
        cluster[0] * cluster[1] * cluster[2] > chip->maxPortableClusterBlocks)
      return llvm::createStringError(llvm::formatv(
          "kernel @{0}: a cluster of ({1}, {2}, {3}) blocks exceeds {4}'s "
          "portable cluster size ({5} blocks)",
          kernel.getName(), cluster[0], cluster[1], cluster[2], chip->name,
          chip->maxPortableClusterBlocks));
    LaunchPlan::Launch launch;
    launch.kernel = known->second;
    launch.grid = grid;
    launch.block = block;
    launch.dynamicSharedBytes = dynamicSharedBytes;
    launch.cluster = cluster;
    for (auto [arg, type] : llvm::zip(args, kernel.getArgumentTypes())) {
      LaunchPlan::Argument recorded;
      if (arg.isBuffer) {
        recorded.value = arg.buffer;
      } else if (arg.tensorMap) {
        recorded.kind = LaunchPlan::Argument::Kind::TensorMap;
        recorded.value = plan.tensorMaps.size();
        plan.tensorMaps.push_back(*arg.tensorMap);
      } else if (type.isIndex() || type.isInteger(64) || type.isF64()) {
        // index is 64-bit in the NVVM lowering.
        recorded.kind = LaunchPlan::Argument::Kind::U64;
        recorded.value = arg.scalarBits;
      } else if (type.isInteger(32) || type.isF32()) {
        recorded.kind = LaunchPlan::Argument::Kind::U32;
        recorded.value = arg.scalarBits & 0xFFFFFFFFu;
      } else {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "a launch plan passes 32- and 64-bit scalars only; kernel @"
           << kernel.getName() << " takes " << type;
        return llvm::createStringError(text);
      }
      launch.args.push_back(recorded);
    }
    plan.launches.push_back(std::move(launch));
    return llvm::Error::success();
  }

  llvm::Error beforeHostAccess(Operation *op) override {
    if (plan.launches.empty())
      return llvm::Error::success(); // replayed here, before the plan
    return llvm::createStringError(
        "a launch plan replays kernel launches only; the host program "
        "accesses buffers itself after a launch ('" +
        op->getName().getStringRef().str() + "'), which it cannot replay");
  }

private:
  ModuleOp lowered;
  const NVVMPipelineOptions &options;
  LaunchPlan &plan;
  llvm::StringMap<size_t> moduleIndices, kernelIndices;
};
} // namespace

/// The runner's random fill for inputs of `type`; empty when it has none.
static std::string getRandomFill(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return "fp8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "fp8e5m2";
  if (type.isF32())
    return "scale";
  if (type.isBF16())
    return "bf16";
  return "";
}

llvm::Expected<LaunchPlan>
qmm::recordLaunchPlan(ModuleOp lowered, llvm::StringRef function,
                      llvm::ArrayRef<const HostTensor *> args,
                      const NVVMPipelineOptions &options, bool withData) {
  auto func = lowered.lookupSymbol<func::FuncOp>(function);
  if (!func)
    return llvm::createStringError("no function @" + function.str());
  LaunchPlan plan;
  plan.chip = options.chip;
  plan.program = function.str();
  PlanRecorder recorder(lowered, options, plan);
  HostBuffers buffers;
  llvm::Expected<HostResults> returned =
      runHostProgram(func, recorder, buffers, args);
  if (!returned)
    return returned.takeError();
  plan.results = returned->buffers;
  for (auto [index, bytes] : llvm::enumerate(buffers)) {
    LaunchPlan::Buffer buffer;
    buffer.bytes = bytes.size();
    bool isArgument = index < args.size();
    bool uninitialized =
        !isArgument && llvm::all_of(bytes, [](uint8_t byte) {
          return byte == kUninitializedHostByte;
        });
    Type element =
        isArgument
            ? cast<MemRefType>(func.getArgumentTypes()[index]).getElementType()
            : Type();
    if (uninitialized) {
      buffer.fill = "poison";
    } else if (isArgument && !withData && !isa<IntegerType>(element)) {
      // (Integer arguments, a grouped matmul's row groups, always travel:
      // random values would be no layout.)
      buffer.fill = getRandomFill(element);
      if (buffer.fill.empty()) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "argument #" << index << " of @" << function
           << ": the runner draws no random " << element
           << " values; save the plan with data";
        return llvm::createStringError(text);
      }
    } else {
      buffer.fill = "file";
      buffer.data = bytes;
    }
    plan.buffers.push_back(std::move(buffer));
  }
  return plan;
}

static llvm::Error writeFile(llvm::StringRef dir, llvm::StringRef name,
                             llvm::StringRef bytes) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + path.str().str() +
                                   "': " + ec.message());
  os << bytes;
  return llvm::Error::success();
}

static llvm::StringRef asText(llvm::ArrayRef<uint8_t> bytes) {
  return {reinterpret_cast<const char *>(bytes.data()), bytes.size()};
}

llvm::Error qmm::writeLaunchPlan(const LaunchPlan &plan, llvm::StringRef dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError("cannot create '" + dir.str() +
                                   "': " + ec.message());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "qmm-launch-plan 1\n"
     << "# Written by fp8-run; run with qmm-cuda-run on a GPU of the chip.\n"
     << "chip " << plan.chip << "\n"
     << "program " << plan.program << "\n";
  if (plan.flops > 0)
    os << llvm::formatv("flops {0:f0}\n", plan.flops);
  for (auto [i, ptx] : llvm::enumerate(plan.modules)) {
    std::string name = llvm::formatv("kernel{0}.ptx", i).str();
    if (llvm::Error error = writeFile(dir, name, ptx))
      return error;
    os << "module " << i << " " << name << "\n";
  }
  for (auto [i, kernel] : llvm::enumerate(plan.kernels))
    os << "kernel " << i << " " << kernel.first << " " << kernel.second
       << "\n";
  for (auto [i, buffer] : llvm::enumerate(plan.buffers)) {
    os << "buffer " << i << " " << buffer.bytes << " " << buffer.fill;
    if (buffer.fill == "file") {
      std::string name = llvm::formatv("buffer{0}.bin", i).str();
      if (llvm::Error error = writeFile(dir, name, asText(buffer.data)))
        return error;
      os << " " << name;
    }
    os << "\n";
  }
  for (auto [i, map] : llvm::enumerate(plan.tensorMaps)) {
    const char *element = map.elementBytes == 1   ? "u8"
                          : map.elementBytes == 2 ? "u16"
                                                  : "u32";
    os << "tensormap " << i << " " << map.buffer << " " << map.byteOffset
       << " " << element << " " << map.dims.size();
    for (int64_t extent : map.dims)
      os << " " << extent;
    for (int64_t stride : map.byteStrides)
      os << " " << stride;
    for (int64_t extent : map.box)
      os << " " << extent;
    if (map.swizzleBytes)
      os << " " << map.swizzleBytes << "\n";
    else
      os << " none\n";
  }
  for (const LaunchPlan::Launch &launch : plan.launches) {
    os << "launch " << launch.kernel;
    for (int64_t extent : launch.grid)
      os << " " << extent;
    for (int64_t extent : launch.block)
      os << " " << extent;
    os << " " << launch.dynamicSharedBytes << " " << launch.args.size();
    for (const LaunchPlan::Argument &arg : launch.args) {
      switch (arg.kind) {
      case LaunchPlan::Argument::Kind::Buffer:
        os << " b" << arg.value;
        break;
      case LaunchPlan::Argument::Kind::U32:
        os << " u32:" << arg.value;
        break;
      case LaunchPlan::Argument::Kind::U64:
        os << " u64:" << arg.value;
        break;
      case LaunchPlan::Argument::Kind::TensorMap:
        os << " t" << arg.value;
        break;
      }
    }
    if (launch.cluster != std::array<int64_t, 3>{1, 1, 1})
      os << " cluster " << launch.cluster[0] << " " << launch.cluster[1] << " "
         << launch.cluster[2];
    os << "\n";
  }
  for (const LaunchPlan::Scaling &scaling : plan.scalings)
    os << "scaled " << scaling.buffer << " " << scaling.scalesBuffer << " "
       << scaling.scaleElement << " " << scaling.rows << " "
       << scaling.columns << " " << scaling.blockColumns << "\n";
  for (auto [i, check] : llvm::enumerate(plan.checks)) {
    std::string name = llvm::formatv("check{0}.f64", i).str();
    llvm::ArrayRef<uint8_t> bytes(
        reinterpret_cast<const uint8_t *>(check.data.data()),
        check.data.size() * sizeof(double)); // little-endian hosts only
    if (llvm::Error error = writeFile(dir, name, asText(bytes)))
      return error;
    os << "check " << check.buffer << " " << check.element << " "
       << check.count << " " << check.tier << " " << check.kind << " "
       << llvm::formatv("{0:e6}", check.threshold) << " " << name << " "
       << check.label << "\n";
  }
  return writeFile(dir, "plan.txt", text);
}
