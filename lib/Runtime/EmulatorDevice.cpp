//===- EmulatorDevice.cpp - qmm programs on the kernel emulator -----------===//
//
// Compiles through the AMD pipeline to GPU-level IR and runs the host
// program, launching each kernel on the emulator.
//
//===----------------------------------------------------------------------===//

#include "qmm/Emulator/Emulator.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/HostProgram.h"
#include "qmm/Runtime/KernelResources.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Debug.h"
#include "llvm/ADT/Statistic.h"

#include <chrono>
#include <deque>

using namespace mlir;
using namespace mlir::qmm;
using host::HostTensor;

namespace {

class EmulatorLauncher : public KernelLauncher {
public:
  EmulatorLauncher(const ChipInfo &chip, std::deque<emu::GlobalBuffer> &buffers)
      : chip(chip), buffers(buffers) {}

  llvm::Error launch(gpu::GPUFuncOp kernel, std::array<int64_t, 3> grid,
                     std::array<int64_t, 3> block,
                     llvm::ArrayRef<HostKernelArgument> args) override {
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
  std::deque<emu::GlobalBuffer> &buffers;
  std::vector<std::pair<std::string, emu::KernelStats>> stats;
};

class EmulatorDevice : public Device {
public:
  EmulatorDevice(const ChipInfo &chip, llvm::StringRef config)
      : chip(chip), config(config.str()) {}
  llvm::StringRef getName() const override { return "emu"; }

  llvm::Expected<RunResult> run(ModuleOp module, llvm::StringRef function,
                                llvm::ArrayRef<const HostTensor *> args,
                                llvm::ArrayRef<TensorSpec> results,
                                int iterations) override {
    OwningOpRef<ModuleOp> lowered = module.clone();
    std::string diagnostics;
    {
      llvm::raw_string_ostream os(diagnostics);
      ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
        os << d.getLocation() << ": " << d << "\n";
        return success();
      });
      PassManager pm(module.getContext());
      AMDGPUPipelineOptions options;
      options.chip = chip.name.str();
      options.format = "gpu";
      options.config = config;
      if (failed(buildAMDGPUPipeline(pm, options)) ||
          failed(pm.run(*lowered)))
        return llvm::createStringError("emu device: the AMD pipeline failed "
                                       "for %s: %s",
                                       chip.name.str().c_str(),
                                       diagnostics.c_str());
    }
    auto func = lowered->lookupSymbol<func::FuncOp>(function);
    if (!func)
      return llvm::createStringError("no function @%s in the module",
                                     function.str().c_str());
    if (func.getNumArguments() != args.size() ||
        func.getNumResults() != results.size())
      return llvm::createStringError("@%s's signature does not match the "
                                     "caller's arguments and results",
                                     function.str().c_str());

    RunResult result;
    double totalSeconds = 0;
    std::vector<std::pair<std::string, emu::KernelStats>> lastStats;
    for (int run = 0; run <= iterations; ++run) {
      // Fresh inputs every call: the function writes `init` in place.
      std::deque<emu::GlobalBuffer> buffers;
      for (const HostTensor *arg : args)
        buffers.push_back(emu::GlobalBuffer{arg->bytes});
      EmulatorLauncher launcher(chip, buffers);
      auto start = std::chrono::steady_clock::now();
      llvm::Expected<std::vector<size_t>> returned = runHostProgram(
          func, launcher, [&](MemRefType type) {
            buffers.push_back(emu::GlobalBuffer{
                std::vector<uint8_t>(getBufferBytes(type), 0)});
            return buffers.size() - 1;
          },
          [&](size_t from, size_t to) {
            buffers[to].bytes = buffers[from].bytes;
          });
      if (!returned)
        return returned.takeError();
      auto stop = std::chrono::steady_clock::now();
      if (run > 0)
        totalSeconds += std::chrono::duration<double>(stop - start).count();
      if (run == iterations) {
        for (size_t i = 0; i < results.size(); ++i) {
          HostTensor out(results[i].elementType, results[i].shape);
          const std::vector<uint8_t> &bytes = buffers[(*returned)[i]].bytes;
          if (bytes.size() != out.bytes.size())
            return llvm::createStringError("result %zu has %zu bytes, "
                                           "expected %zu",
                                           i, bytes.size(), out.bytes.size());
          out.bytes = bytes;
          result.results.push_back(std::move(out));
        }
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
  std::string config;
};
} // namespace

std::unique_ptr<Device> qmm::createEmulatorDevice(const ChipInfo &chip,
                                                  llvm::StringRef config) {
  return std::make_unique<EmulatorDevice>(chip, config);
}
