//===- HIPRuntime.cpp - the HIP runtime, loaded at run time ---------------===//

#include "qmm/Runtime/HIPRuntime.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

using namespace mlir;
using namespace mlir::qmm;

namespace {
// The C ABI of the HIP entry points used here (hip_runtime_api.h).
using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipEvent_t = void *;
constexpr hipError_t hipSuccess = 0;
constexpr int hipMemcpyHostToDevice = 1;
constexpr int hipMemcpyDeviceToHost = 2;
} // namespace

struct HIPRuntime::Symbols {
  const char *(*getErrorString)(hipError_t);
  hipError_t (*getDeviceCount)(int *);
  hipError_t (*setDevice)(int);
  hipError_t (*getDeviceProperties)(void *, int);
  hipError_t (*moduleLoadData)(hipModule_t *, const void *);
  hipError_t (*moduleUnload)(hipModule_t);
  hipError_t (*moduleGetFunction)(hipFunction_t *, hipModule_t, const char *);
  hipError_t (*malloc)(void **, size_t);
  hipError_t (*free)(void *);
  hipError_t (*memcpy)(void *, const void *, size_t, int);
  hipError_t (*moduleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, unsigned,
                                   unsigned, void *, void **, void **);
  hipError_t (*deviceSynchronize)();
  hipError_t (*eventCreate)(hipEvent_t *);
  hipError_t (*eventRecord)(hipEvent_t, void *);
  hipError_t (*eventSynchronize)(hipEvent_t);
  hipError_t (*eventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  hipError_t (*eventDestroy)(hipEvent_t);
};

HIPRuntime::~HIPRuntime() {
  if (handle)
    dlclose(handle);
}

llvm::Expected<std::unique_ptr<HIPRuntime>> HIPRuntime::load() {
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("QMM_HIP_LIBRARY"))
    candidates.push_back(path);
  else
    candidates = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5",
                  "/opt/rocm/lib/libamdhip64.so"};
  std::string lastError;
  void *handle = nullptr;
  for (const std::string &candidate : candidates) {
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle)
      break;
    const char *error = dlerror();
    lastError = error ? error : candidate + ": not found";
  }
  if (!handle)
    return llvm::createStringError("HIP runtime not found (%s)",
                                   lastError.c_str());
  std::unique_ptr<HIPRuntime> runtime(new HIPRuntime);
  runtime->handle = handle;
  runtime->symbols = std::make_unique<Symbols>();
  Symbols &s = *runtime->symbols;
  std::string missing;
  auto bind = [&](auto &slot, std::initializer_list<const char *> names) {
    for (const char *name : names)
      if (void *symbol = dlsym(handle, name)) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
        return;
      }
    missing += std::string(missing.empty() ? "" : ", ") + *names.begin();
  };
  bind(s.getErrorString, {"hipGetErrorString"});
  bind(s.getDeviceCount, {"hipGetDeviceCount"});
  bind(s.setDevice, {"hipSetDevice"});
  bind(s.getDeviceProperties,
       {"hipGetDevicePropertiesR0600", "hipGetDeviceProperties"});
  bind(s.moduleLoadData, {"hipModuleLoadData"});
  bind(s.moduleUnload, {"hipModuleUnload"});
  bind(s.moduleGetFunction, {"hipModuleGetFunction"});
  bind(s.malloc, {"hipMalloc"});
  bind(s.free, {"hipFree"});
  bind(s.memcpy, {"hipMemcpy"});
  bind(s.moduleLaunchKernel, {"hipModuleLaunchKernel"});
  bind(s.deviceSynchronize, {"hipDeviceSynchronize"});
  bind(s.eventCreate, {"hipEventCreate"});
  bind(s.eventRecord, {"hipEventRecord"});
  bind(s.eventSynchronize, {"hipEventSynchronize"});
  bind(s.eventElapsedTime, {"hipEventElapsedTime"});
  bind(s.eventDestroy, {"hipEventDestroy"});
  if (!missing.empty())
    return llvm::createStringError("HIP runtime lacks %s", missing.c_str());
  return runtime;
}

llvm::Expected<int> HIPRuntime::findDevice(llvm::StringRef chip) {
  Symbols &s = *symbols;
  int count = 0;
  if (hipError_t error = s.getDeviceCount(&count); error != hipSuccess)
    return llvm::createStringError("no HIP device: %s (HIP error %d)",
                                   s.getErrorString(error), error);
  std::vector<std::string> seen;
  for (int device = 0; device < count; ++device) {
    // hipDeviceProp_t's layout differs between ROCm releases; its
    // gcnArchName ("gfx942:sramecc+:xnack-") is found by content instead.
    std::vector<char> properties(1 << 16, 0);
    if (s.getDeviceProperties(properties.data(), device) != hipSuccess)
      continue;
    llvm::StringRef raw(properties.data(), properties.size());
    size_t at = raw.find("gfx");
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef arch = raw.drop_front(at).split('\0').first;
    llvm::StringRef name = arch.split(':').first;
    seen.push_back(name.str());
    if (name == chip)
      return device;
  }
  return llvm::createStringError(
      "no %s device (the HIP runtime sees %d device(s)%s%s)",
      chip.str().c_str(), count, seen.empty() ? "" : ": ",
      llvm::join(seen, ", ").c_str());
}

llvm::Expected<double>
HIPRuntime::launch(int device, llvm::StringRef codeObject,
                   llvm::StringRef kernel, std::array<int64_t, 3> grid,
                   std::array<int64_t, 3> block, llvm::ArrayRef<Argument> args,
                   int iterations) {
  Symbols &s = *symbols;
  auto check = [&](hipError_t error, const char *what) -> llvm::Error {
    if (error == hipSuccess)
      return llvm::Error::success();
    return llvm::createStringError("%s failed: %s (HIP error %d)", what,
                                   s.getErrorString(error), error);
  };
  if (auto error = check(s.setDevice(device), "hipSetDevice"))
    return std::move(error);
  hipModule_t module = nullptr;
  if (auto error = check(s.moduleLoadData(&module, codeObject.data()),
                         "hipModuleLoadData"))
    return std::move(error);
  std::string name = kernel.str();
  hipFunction_t function = nullptr;
  std::vector<void *> devicePointers(args.size(), nullptr);
  auto release = [&] {
    for (void *pointer : devicePointers)
      if (pointer)
        s.free(pointer);
    s.moduleUnload(module);
  };
  if (auto error = check(s.moduleGetFunction(&function, module, name.c_str()),
                         "hipModuleGetFunction")) {
    release();
    return std::move(error);
  }
  // Bare-pointer calling convention: one pointer per memref, scalars by value.
  std::vector<uint64_t> values(args.size());
  std::vector<void *> params(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].buffer) {
      std::vector<uint8_t> &bytes = *args[i].buffer;
      if (auto error = check(s.malloc(&devicePointers[i], bytes.size()),
                             "hipMalloc")) {
        release();
        return std::move(error);
      }
      if (auto error = check(s.memcpy(devicePointers[i], bytes.data(),
                                      bytes.size(), hipMemcpyHostToDevice),
                             "hipMemcpy")) {
        release();
        return std::move(error);
      }
      params[i] = &devicePointers[i];
    } else {
      values[i] = args[i].scalar;
      params[i] = &values[i];
    }
  }
  hipEvent_t start = nullptr, stop = nullptr;
  s.eventCreate(&start);
  s.eventCreate(&stop);
  float totalMs = 0;
  for (int run = 0; run <= iterations; ++run) {
    if (run == 1)
      s.eventRecord(start, nullptr);
    if (auto error = check(
            s.moduleLaunchKernel(function, unsigned(grid[0]), unsigned(grid[1]),
                                 unsigned(grid[2]), unsigned(block[0]),
                                 unsigned(block[1]), unsigned(block[2]),
                                 /*sharedMemBytes=*/0, /*stream=*/nullptr,
                                 params.data(), nullptr),
            "hipModuleLaunchKernel")) {
      release();
      return std::move(error);
    }
  }
  if (iterations > 0) {
    s.eventRecord(stop, nullptr);
    s.eventSynchronize(stop);
    s.eventElapsedTime(&totalMs, start, stop);
  }
  if (auto error = check(s.deviceSynchronize(), "hipDeviceSynchronize")) {
    release();
    return std::move(error);
  }
  s.eventDestroy(start);
  s.eventDestroy(stop);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].buffer)
      continue;
    std::vector<uint8_t> &bytes = *args[i].buffer;
    if (auto error = check(s.memcpy(bytes.data(), devicePointers[i],
                                    bytes.size(), hipMemcpyDeviceToHost),
                           "hipMemcpy")) {
      release();
      return std::move(error);
    }
  }
  release();
  return iterations > 0 ? double(totalMs) / iterations : 0.0;
}
