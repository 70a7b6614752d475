//===- HIPDevice.cpp - qmm programs on an MI300 / MI350 GPU ---------------===//
//
// The same AMD pipeline and host-program walk as the emu device; each
// kernel's gpu.module becomes a code object that HIP loads and launches.
//
//===----------------------------------------------------------------------===//

#include "qmm/Dialect/QMM/IR/StorageSize.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/HIPRuntime.h"
#include "qmm/Runtime/HostProgram.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::qmm;
using host::HostTensor;

namespace {

class HIPLauncher : public KernelLauncher {
public:
  HIPLauncher(HIPRuntime &runtime, int device, const ChipInfo &chip,
              ModuleOp module, HostBuffers &buffers,
              llvm::StringMap<std::string> &codeObjects)
      : runtime(runtime), device(device), chip(chip), module(module),
        buffers(buffers), codeObjects(codeObjects) {}

  llvm::Error launch(gpu::GPUFuncOp kernel, const LaunchGeometry &geometry,
                     llvm::ArrayRef<HostKernelArgument> args) override {
    if (llvm::Error error =
            checkNoNvidiaLaunchFeatures(kernel, geometry, args))
      return error;
    const std::array<int64_t, 3> &grid = geometry.grid, &block = geometry.block;
    auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
    std::string key = (gpuModule.getName() + "::" + kernel.getName()).str();
    auto cached = codeObjects.find(key);
    if (cached == codeObjects.end()) {
      llvm::Expected<std::string> object = compileKernelModule(
          module, kernel.getName(), chip.name, "bin", gpuModule.getName());
      if (!object)
        return object.takeError();
      cached = codeObjects.insert({key, std::move(*object)}).first;
    }
    std::vector<HIPRuntime::Argument> hipArgs;
    for (auto [arg, type] : llvm::zip(args, kernel.getArgumentTypes())) {
      HIPRuntime::Argument a;
      if (arg.isBuffer) {
        a.buffer = &buffers[arg.buffer];
      } else {
        a.scalar = arg.scalarBits;
        a.bytes = getStorageBytes(1, type);
      }
      hipArgs.push_back(a);
    }
    llvm::Expected<double> ms =
        runtime.launch(device, cached->second, kernel.getName(), grid, block,
                       hipArgs, /*iterations=*/1);
    if (!ms)
      return ms.takeError();
    milliseconds += *ms;
    return llvm::Error::success();
  }

  double milliseconds = 0;

private:
  HIPRuntime &runtime;
  int device;
  const ChipInfo &chip;
  ModuleOp module;
  HostBuffers &buffers;
  llvm::StringMap<std::string> &codeObjects;
};

class HIPDevice : public Device {
public:
  HIPDevice(std::unique_ptr<HIPRuntime> runtime, int device,
            const ChipInfo &chip, llvm::StringRef config)
      : runtime(std::move(runtime)), device(device), chip(chip),
        config(config.str()) {}
  llvm::StringRef getName() const override { return "hip"; }

  llvm::Expected<std::unique_ptr<CompiledProgram>>
  compile(ModuleOp module, llvm::StringRef function, size_t numArguments,
          size_t numResults) override;


private:
  std::unique_ptr<HIPRuntime> runtime;
  int device;
  const ChipInfo &chip;
  std::string config;
};
/// The host program with its kernels' code objects (compiled at their
/// first launch, kept for the later calls).
class HIPProgram : public CompiledProgram {
public:
  HIPProgram(HIPRuntime &runtime, int device, const ChipInfo &chip,
             OwningOpRef<ModuleOp> lowered, llvm::StringRef function)
      : runtime(runtime), device(device), chip(chip),
        lowered(std::move(lowered)), function(function.str()) {}

  llvm::Expected<RunResult> run(llvm::ArrayRef<const HostTensor *> args,
                                llvm::ArrayRef<TensorSpec> results,
                                int iterations) override {
    auto func = lowered->lookupSymbol<func::FuncOp>(function);
    RunResult result;
    double totalMs = 0;
    for (int run = 0; run <= iterations; ++run) {
      HostBuffers buffers;
      HIPLauncher launcher(runtime, device, chip, *lowered, buffers,
                           codeObjects);
      llvm::Expected<HostResults> returned =
          runHostProgram(func, launcher, buffers, args);
      if (!returned)
        return returned.takeError();
      if (run > 0)
        totalMs += launcher.milliseconds;
      if (run == iterations) {
        auto tensors = collectResults(buffers, *returned, results);
        if (!tensors)
          return tensors.takeError();
        result.results = std::move(*tensors);
      }
    }
    result.iterations = iterations;
    result.secondsPerIteration = iterations ? totalMs / iterations / 1e3 : 0;
    return result;
  }

private:
  HIPRuntime &runtime;
  int device;
  const ChipInfo &chip;
  OwningOpRef<ModuleOp> lowered;
  std::string function;
  llvm::StringMap<std::string> codeObjects;
};

llvm::Expected<std::unique_ptr<CompiledProgram>>
HIPDevice::compile(ModuleOp module, llvm::StringRef function,
                   size_t numArguments, size_t numResults) {
  llvm::Expected<OwningOpRef<ModuleOp>> lowered = compileForGPUDevice(
      module, getName(), chip, config, function, numArguments, numResults);
  if (!lowered)
    return lowered.takeError();
  return std::make_unique<HIPProgram>(*runtime, device, chip,
                                      std::move(*lowered), function);
}
} // namespace

llvm::Expected<std::unique_ptr<Device>>
qmm::createHIPDevice(const ChipInfo &chip, llvm::StringRef config) {
  auto runtime = HIPRuntime::load();
  if (!runtime)
    return llvm::createStringError("--device hip: " +
                                   llvm::toString(runtime.takeError()));
  llvm::Expected<int> device = (*runtime)->findDevice(chip.name);
  if (!device)
    return llvm::createStringError("--device hip: " +
                                   llvm::toString(device.takeError()));
  return std::make_unique<HIPDevice>(std::move(*runtime), *device, chip,
                                     config);
}
