//===- Device.cpp - device selection --------------------------------------===//

#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/HIPRuntime.h"

using namespace mlir;
using namespace mlir::qmm;

Device::~Device() = default;

llvm::Expected<std::unique_ptr<Device>>
qmm::createDevice(llvm::StringRef name, llvm::StringRef chip) {
  // qmm programs reach the emulator and GPUs through the AMD pipeline, which
  // is not built yet: until then `auto` means the CPU, and emu and hip run
  // GPU-level kernels in launch mode (--module).
  if (name == "cpu" || name == "auto")
    return createCPUDevice();
  if (name == "emu")
    return llvm::createStringError(
        "device 'emu' runs qmm programs once the AMD pipeline lands; it "
        "runs GPU-level kernels now (--module); use --device cpu");
  if (name == "hip") {
    auto runtime = HIPRuntime::load();
    if (!runtime)
      return llvm::createStringError("--device hip: " +
                                     llvm::toString(runtime.takeError()));
    llvm::Expected<int> device = (*runtime)->findDevice(chip);
    if (!device)
      return llvm::createStringError("--device hip: " +
                                     llvm::toString(device.takeError()));
    return llvm::createStringError(
        "device 'hip' runs qmm programs once the AMD pipeline lands; it "
        "runs GPU-level kernels now (--module)");
  }
  return llvm::createStringError(
      "unknown device '%s' (expected cpu, emu, hip or auto)",
      name.str().c_str());
}
