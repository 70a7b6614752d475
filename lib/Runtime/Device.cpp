//===- Device.cpp - device selection --------------------------------------===//

#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/HIPRuntime.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::qmm;

Device::~Device() = default;
CompiledProgram::~CompiledProgram() = default;

namespace {
/// Device::compile's default: the module, run through Device::run.
class RecompiledProgram : public CompiledProgram {
public:
  RecompiledProgram(Device &device, ModuleOp module, llvm::StringRef function)
      : device(device), module(module.clone()), function(function.str()) {}
  llvm::Expected<RunResult> run(llvm::ArrayRef<const host::HostTensor *> args,
                                llvm::ArrayRef<TensorSpec> results,
                                int iterations) override {
    return device.run(*module, function, args, results, iterations);
  }

private:
  Device &device;
  OwningOpRef<ModuleOp> module;
  std::string function;
};
} // namespace

llvm::Expected<std::unique_ptr<CompiledProgram>>
Device::compile(ModuleOp module, llvm::StringRef function, size_t, size_t) {
  return std::make_unique<RecompiledProgram>(*this, module, function);
}

llvm::Expected<RunResult>
Device::run(ModuleOp module, llvm::StringRef function,
            llvm::ArrayRef<const host::HostTensor *> args,
            llvm::ArrayRef<TensorSpec> results, int iterations) {
  auto program = compile(module, function, args.size(), results.size());
  if (!program)
    return program.takeError();
  return (*program)->run(args, results, iterations);
}

char NotCompiledForGPUError::ID = 0;

namespace {
class AutoDevice;
/// The auto device's program compiled for the GPU; a call the GPU device
/// cannot make (a qmm op left in the host code) runs on the CPU instead.
class AutoProgram : public CompiledProgram {
public:
  AutoProgram(AutoDevice &device, std::unique_ptr<CompiledProgram> gpu,
              ModuleOp module, llvm::StringRef function)
      : device(device), gpu(std::move(gpu)), module(module.clone()),
        function(function.str()) {}
  llvm::Expected<RunResult> run(llvm::ArrayRef<const host::HostTensor *> args,
                                llvm::ArrayRef<TensorSpec> results,
                                int iterations) override;

private:
  AutoDevice &device;
  std::unique_ptr<CompiledProgram> gpu;
  OwningOpRef<ModuleOp> module;
  std::string function;
};

/// A GPU of the chip through HIP when there is one, else the emulator; a
/// program the AMD pipeline does not compile yet (MX scales, FP4/FP6, ...)
/// runs on the CPU, with a note saying why.
class AutoDevice : public Device {
public:
  AutoDevice(std::unique_ptr<Device> gpu, std::unique_ptr<Device> cpu)
      : gpu(std::move(gpu)), cpu(std::move(cpu)) {}
  llvm::StringRef getName() const override {
    return last ? last->getName() : llvm::StringRef("auto");
  }
  llvm::Expected<RunResult> run(ModuleOp module, llvm::StringRef function,
                                llvm::ArrayRef<const host::HostTensor *> args,
                                llvm::ArrayRef<TensorSpec> results,
                                int iterations) override {
    llvm::Expected<RunResult> result =
        gpu->run(module, function, args, results, iterations);
    if (result) {
      last = gpu.get();
      return result;
    }
    if (llvm::Error other = fallBackToCPU(result.takeError(), function))
      return std::move(other);
    return cpu->run(module, function, args, results, iterations);
  }

  llvm::Expected<std::unique_ptr<CompiledProgram>>
  compile(ModuleOp module, llvm::StringRef function, size_t numArguments,
          size_t numResults) override {
    auto program = gpu->compile(module, function, numArguments, numResults);
    if (program) {
      last = gpu.get();
      return std::unique_ptr<CompiledProgram>(std::make_unique<AutoProgram>(
          *this, std::move(*program), module, function));
    }
    if (llvm::Error other = fallBackToCPU(program.takeError(), function))
      return std::move(other);
    return cpu->compile(module, function, numArguments, numResults);
  }

private:
  /// A program the AMD pipeline does not compile yet goes to the cpu
  /// device, with a note; any other error stays.
  llvm::Error fallBackToCPU(llvm::Error error, llvm::StringRef function) {
    std::string message;
    if (llvm::Error other = llvm::handleErrors(
            std::move(error), [&](const NotCompiledForGPUError &notCompiled) {
              message = notCompiled.getMessage();
            }))
      return other;
    llvm::StringRef reason = llvm::StringRef(message).split('\n').first;
    llvm::errs() << "fp8-run: note: device auto: " << reason
                 << "; running @" << function << " on the cpu device\n";
    last = cpu.get();
    return llvm::Error::success();
  }

  std::unique_ptr<Device> gpu, cpu;
  Device *last = nullptr;
  friend class AutoProgram;
};

llvm::Expected<RunResult>
AutoProgram::run(llvm::ArrayRef<const host::HostTensor *> args,
                 llvm::ArrayRef<TensorSpec> results, int iterations) {
  llvm::Expected<RunResult> result = gpu->run(args, results, iterations);
  if (result)
    return result;
  if (llvm::Error other = device.fallBackToCPU(result.takeError(), function))
    return std::move(other);
  return device.cpu->run(*module, function, args, results, iterations);
}
} // namespace

llvm::Expected<std::unique_ptr<Device>>
qmm::createAutoDevice(const ChipInfo &chip, llvm::StringRef config) {
  std::unique_ptr<Device> gpu;
  if (auto hip = createHIPDevice(chip, config))
    gpu = std::move(*hip);
  else {
    llvm::consumeError(hip.takeError());
    gpu = createEmulatorDevice(chip, config);
  }
  return std::make_unique<AutoDevice>(std::move(gpu), createCPUDevice());
}

/// In the enum's order.
static constexpr llvm::StringLiteral kDeviceKindNames[] = {"cpu", "emu", "hip",
                                                           "auto"};

llvm::StringRef qmm::getDeviceKindName(DeviceKind kind) {
  return kDeviceKindNames[unsigned(kind)];
}

std::optional<DeviceKind> qmm::parseDeviceKind(llvm::StringRef name) {
  for (auto [i, spelling] : llvm::enumerate(kDeviceKindNames))
    if (spelling == name)
      return DeviceKind(i);
  return std::nullopt;
}

llvm::Expected<std::unique_ptr<Device>>
qmm::createDevice(DeviceKind kind, const ChipInfo &chip,
                  llvm::StringRef config) {
  switch (kind) {
  case DeviceKind::CPU:
    return createCPUDevice();
  case DeviceKind::Auto:
    return createAutoDevice(chip, config);
  case DeviceKind::Emulator:
    return createEmulatorDevice(chip, config);
  case DeviceKind::HIP:
    return createHIPDevice(chip, config);
  }
  llvm_unreachable("unknown device kind");
}

llvm::Expected<std::unique_ptr<Device>>
qmm::createDevice(llvm::StringRef name, llvm::StringRef chip,
                  llvm::StringRef config) {
  const ChipInfo *target = lookupChip(chip);
  if (!target)
    return llvm::createStringError("unknown chip '%s'", chip.str().c_str());
  std::optional<DeviceKind> kind = parseDeviceKind(name);
  if (!kind)
    return llvm::createStringError(
        "unknown device '%s' (expected cpu, emu, hip or auto)",
        name.str().c_str());
  return createDevice(*kind, *target, config);
}
