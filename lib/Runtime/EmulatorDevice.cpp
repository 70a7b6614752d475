//===- EmulatorDevice.cpp - qmm programs on the kernel emulator -----------===//
//
// Compiles through the AMD pipeline to GPU-level IR and runs the host
// program, launching each kernel on the emulator.
//
//===----------------------------------------------------------------------===//

#include "qmm/Emulator/Emulator.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/HostProgram.h"
#include "qmm/Runtime/KernelResources.h"

#include "llvm/ADT/Statistic.h"

#include <chrono>

using namespace mlir;
using namespace mlir::qmm;
using host::HostTensor;

namespace {

class EmulatorLauncher : public KernelLauncher {
public:
  EmulatorLauncher(const ChipInfo &chip, HostBuffers &buffers)
      : chip(chip), buffers(buffers) {}

  llvm::Error launch(gpu::GPUFuncOp kernel, const LaunchGeometry &geometry,
                     llvm::ArrayRef<HostKernelArgument> args) override {
    if (llvm::Error error =
            checkNoNvidiaLaunchFeatures(kernel, geometry, args))
      return error;
    const std::array<int64_t, 3> &grid = geometry.grid, &block = geometry.block;
    std::vector<emu::KernelArgument> kernelArgs;
    for (const HostKernelArgument &arg : args) {
      emu::KernelArgument k;
      k.isMemRef = arg.isBuffer;
      if (arg.isBuffer)
        k.buffer = &buffers[arg.buffer];
      k.scalarBits = arg.scalarBits;
      kernelArgs.push_back(k);
    }
    emu::LaunchConfig config;
    config.grid = grid;
    config.block = block;
    emu::KernelStats kernelStats;
    if (llvm::Error error =
            emu::launchKernel(chip, kernel, config, kernelArgs, kernelStats))
      return error;
    auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
    stats.emplace_back((module.getName() + "::" + kernel.getName()).str(),
                       kernelStats);
    return llvm::Error::success();
  }

  const ChipInfo &chip;
  HostBuffers &buffers;
  std::vector<std::pair<std::string, emu::KernelStats>> stats;
};

/// The host program and its kernels at the GPU level, run on the emulator.
class EmulatorProgram : public CompiledProgram {
public:
  EmulatorProgram(const ChipInfo &chip, OwningOpRef<ModuleOp> lowered,
                  llvm::StringRef function)
      : chip(chip), lowered(std::move(lowered)), function(function.str()) {}

  llvm::Expected<RunResult> run(llvm::ArrayRef<const HostTensor *> args,
                                llvm::ArrayRef<TensorSpec> results,
                                int iterations) override {
    auto func = lowered->lookupSymbol<func::FuncOp>(function);
    RunResult result;
    double totalSeconds = 0;
    std::vector<std::pair<std::string, emu::KernelStats>> lastStats;
    for (int run = 0; run <= iterations; ++run) {
      // Fresh inputs every call: the function writes `init` in place.
      HostBuffers buffers;
      EmulatorLauncher launcher(chip, buffers);
      auto start = std::chrono::steady_clock::now();
      llvm::Expected<HostResults> returned =
          runHostProgram(func, launcher, buffers, args);
      if (!returned)
        return returned.takeError();
      auto stop = std::chrono::steady_clock::now();
      if (run > 0)
        totalSeconds += std::chrono::duration<double>(stop - start).count();
      if (run == iterations) {
        auto tensors = collectResults(buffers, *returned, results);
        if (!tensors)
          return tensors.takeError();
        result.results = std::move(*tensors);
        lastStats = std::move(launcher.stats);
      }
    }
    if (llvm::AreStatisticsEnabled()) {
      // What the code object of each kernel uses, next to what the emulator
      // saw it do.
      auto resources = getKernelResources(*lowered, chip);
      if (!resources)
        return resources.takeError();
      for (auto &[name, stats] : lastStats) {
        llvm::outs() << emu::formatStats(name, chip, stats);
        auto it = resources->find(name);
        if (it != resources->end())
          llvm::outs() << it->second.format();
      }
    }
    result.iterations = iterations;
    result.secondsPerIteration = iterations ? totalSeconds / iterations : 0;
    return result;
  }

private:
  const ChipInfo &chip;
  OwningOpRef<ModuleOp> lowered;
  std::string function;
};

class EmulatorDevice : public Device {
public:
  EmulatorDevice(const ChipInfo &chip, llvm::StringRef config)
      : chip(chip), config(config.str()) {}
  llvm::StringRef getName() const override { return "emu"; }

  llvm::Expected<std::unique_ptr<CompiledProgram>>
  compile(ModuleOp module, llvm::StringRef function, size_t numArguments,
          size_t numResults) override {
    llvm::Expected<OwningOpRef<ModuleOp>> lowered =
        compileForGPUDevice(module, getName(), chip, config, function,
                            numArguments, numResults);
    if (!lowered)
      return lowered.takeError();
    return std::make_unique<EmulatorProgram>(chip, std::move(*lowered),
                                             function);
  }


private:
  const ChipInfo &chip;
  std::string config;
};
} // namespace

std::unique_ptr<Device> qmm::createEmulatorDevice(const ChipInfo &chip,
                                                  llvm::StringRef config) {
  return std::make_unique<EmulatorDevice>(chip, config);
}
