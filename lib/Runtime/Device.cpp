//===- Device.cpp - device selection --------------------------------------===//

#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/HIPRuntime.h"

using namespace mlir;
using namespace mlir::qmm;

Device::~Device() = default;

llvm::Expected<std::unique_ptr<Device>>
qmm::createDevice(llvm::StringRef name, llvm::StringRef chip,
                  llvm::StringRef config) {
  const ChipInfo *target = lookupChip(chip);
  if (!target)
    return llvm::createStringError("unknown chip '%s'", chip.str().c_str());
  // `auto` stays on the CPU until the AMD pipeline covers every type and
  // scale kind the runner generates (MX and FP4/FP6 do not yet).
  if (name == "cpu" || name == "auto")
    return createCPUDevice();
  if (name == "emu")
    return createEmulatorDevice(*target, config);
  if (name == "hip")
    return createHIPDevice(*target, config);
  return llvm::createStringError(
      "unknown device '%s' (expected cpu, emu, hip or auto)",
      name.str().c_str());
}
