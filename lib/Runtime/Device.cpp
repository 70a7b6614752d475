//===- Device.cpp - device selection --------------------------------------===//

#include "qmm/Runtime/Device.h"

using namespace mlir;
using namespace mlir::qmm;

Device::~Device() = default;

llvm::Expected<std::unique_ptr<Device>>
qmm::createDevice(llvm::StringRef name, llvm::StringRef chip) {
  // Until the emulator and the HIP runtime land, `auto` means the CPU.
  if (name == "cpu" || name == "auto")
    return createCPUDevice();
  if (name == "emu" || name == "hip")
    return llvm::createStringError(
        "device '%s' is not available in this build yet; use --device cpu",
        name.str().c_str());
  return llvm::createStringError(
      "unknown device '%s' (expected cpu, emu, hip or auto)",
      name.str().c_str());
}
