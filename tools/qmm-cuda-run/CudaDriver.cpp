//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include <cstring>
#include <dlfcn.h>

namespace qmmcuda {

namespace {

/// Stores a symbol's address into a typed function pointer (a plain cast
/// from void * to a function pointer is only conditionally supported by
/// C++).
template <typename Function> void store(void *symbol, Function &function) {
  static_assert(sizeof(symbol) == sizeof(function), "function pointer size");
  std::memcpy(&function, &symbol, sizeof(function));
}

template <typename Function>
bool resolve(void *library, const char *name, Function &function) {
  void *symbol = dlsym(library, name);
  if (!symbol)
    return false;
  store(symbol, function);
  return true;
}

/// Resolves an entry point that not every driver has (\p version is the
/// CUDA version of its signature, e.g. 12000 for 12.0). libcuda.so.1
/// exports it by name; cuGetProcAddress, the driver API's own lookup, is
/// the fallback. cuda.h 12.x maps cuGetProcAddress to _v2, which adds a
/// last argument (why a symbol was not found); a driver without _v2 has the
/// 4-argument original.
template <typename Function>
bool resolveLate(void *library, const char *name, int version, uint64_t flags,
                 Function &function) {
  if (resolve(library, name, function))
    return true;
  void *symbol = nullptr;
  CUresult (*getProcAddressV2)(const char *, void **, int, uint64_t,
                               int *) = nullptr;
  CUresult (*getProcAddressV1)(const char *, void **, int, uint64_t) = nullptr;
  if (resolve(library, "cuGetProcAddress_v2", getProcAddressV2)) {
    int symbolStatus = 0;
    if (getProcAddressV2(name, &symbol, version, flags, &symbolStatus) !=
        CUDA_SUCCESS)
      symbol = nullptr;
  } else if (resolve(library, "cuGetProcAddress", getProcAddressV1)) {
    if (getProcAddressV1(name, &symbol, version, flags) != CUDA_SUCCESS)
      symbol = nullptr;
  }
  if (!symbol)
    return false;
  store(symbol, function);
  return true;
}

/// Resolves entry points in order and remembers the first one missing
/// (each call after that does nothing).
class Resolver {
public:
  explicit Resolver(void *library) : library(library) {}
  template <typename Function>
  void need(const char *name, Function &function) {
    if (!missing && !resolve(library, name, function))
      missing = name;
  }
  const char *missing = nullptr;

private:
  void *library;
};

} // namespace

Status CudaDriver::open() {
  library = dlopen("libcuda.so.1", RTLD_NOW);
  if (!library) {
    const char *reason = dlerror();
    return Status::skipped(formatString("no CUDA driver (%s)",
                                        reason ? reason : "dlopen failed"));
  }
  Resolver resolver(library);
  auto need = [&](const char *name, auto &function) {
    resolver.need(name, function);
  };
  need("cuInit", cuInit);
  need("cuDriverGetVersion", cuDriverGetVersion);
  need("cuDeviceGetCount", cuDeviceGetCount);
  need("cuDeviceGet", cuDeviceGet);
  need("cuDeviceGetName", cuDeviceGetName);
  need("cuDeviceGetAttribute", cuDeviceGetAttribute);
  need("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain);
  need("cuCtxSetCurrent", cuCtxSetCurrent);
  need("cuCtxSynchronize", cuCtxSynchronize);
  need("cuMemAlloc_v2", cuMemAlloc);
  need("cuMemFree_v2", cuMemFree);
  need("cuMemcpyHtoD_v2", cuMemcpyHtoD);
  need("cuMemcpyDtoH_v2", cuMemcpyDtoH);
  need("cuMemcpyDtoD_v2", cuMemcpyDtoD);
  need("cuMemsetD8_v2", cuMemsetD8);
  need("cuModuleLoadDataEx", cuModuleLoadDataEx);
  need("cuModuleUnload", cuModuleUnload);
  need("cuModuleGetFunction", cuModuleGetFunction);
  need("cuFuncSetAttribute", cuFuncSetAttribute);
  need("cuLaunchKernel", cuLaunchKernel);
  need("cuEventCreate", cuEventCreate);
  need("cuEventRecord", cuEventRecord);
  need("cuEventSynchronize", cuEventSynchronize);
  // cuda.h maps cuEventElapsedTime to _v2 from CUDA 12.8 on (same
  // signature); older drivers only have the plain name.
  if (!resolve(library, "cuEventElapsedTime_v2", cuEventElapsedTime))
    need("cuEventElapsedTime", cuEventElapsedTime);
  need("cuEventDestroy_v2", cuEventDestroy);
  need("cuGetErrorString", cuGetErrorString);
  need("cuGetErrorName", cuGetErrorName);
  if (const char *missing = resolver.missing)
    return Status::error(formatString(
        "libcuda.so.1 has no '%s' (a driver older than this runner needs?)",
        missing));
  return Status::ok();
}

Status CudaDriver::openTensorMaps() {
  if (cuTensorMapEncodeTiled)
    return Status::ok();
  if (!library)
    return Status::error("openTensorMaps before open");
  constexpr int kFirstTensorMapVersion = 12000; // CUDA 12.0
  constexpr uint64_t kDefaultFlags = 0;         // CU_GET_PROC_ADDRESS_DEFAULT
  if (!resolveLate(library, "cuTensorMapEncodeTiled", kFirstTensorMapVersion,
                   kDefaultFlags, cuTensorMapEncodeTiled))
    return Status::error("libcuda.so.1 has no 'cuTensorMapEncodeTiled' (the "
                         "plan's tensor maps need a CUDA 12.0 driver or "
                         "later)");
  return Status::ok();
}

Status CudaDriver::openClusterLaunch() {
  if (cuLaunchKernelEx)
    return Status::ok();
  if (!library)
    return Status::error("openClusterLaunch before open");
  // The legacy-stream version (CU_GET_PROC_ADDRESS_LEGACY_STREAM), as the
  // exported name is: the null stream then means what it means to
  // cuLaunchKernel.
  constexpr int kFirstLaunchExVersion = 11060; // its signature's, CUDA 11.6
  constexpr uint64_t kLegacyStreamFlags = 1;
  if (!resolveLate(library, "cuLaunchKernelEx", kFirstLaunchExVersion,
                   kLegacyStreamFlags, cuLaunchKernelEx))
    return Status::error("libcuda.so.1 has no 'cuLaunchKernelEx' (the plan's "
                         "cluster launches need a CUDA 11.8 driver or later, "
                         "the first for Hopper)");
  return Status::ok();
}

Status CudaDriver::openGraphs() {
  if (graphsOpen)
    return Status::ok();
  if (!library)
    return Status::error("openGraphs before open");
  // The names cuda.h maps the plain ones to (cuStreamBeginCapture ->
  // _v2, cuStreamDestroy -> _v2).
  Resolver resolver(library);
  auto need = [&](const char *name, auto &function) {
    resolver.need(name, function);
  };
  need("cuStreamCreate", cuStreamCreate);
  need("cuStreamDestroy_v2", cuStreamDestroy);
  need("cuStreamSynchronize", cuStreamSynchronize);
  need("cuStreamBeginCapture_v2", cuStreamBeginCapture);
  need("cuStreamEndCapture", cuStreamEndCapture);
  need("cuGraphInstantiateWithFlags", cuGraphInstantiateWithFlags);
  need("cuGraphLaunch", cuGraphLaunch);
  need("cuGraphExecDestroy", cuGraphExecDestroy);
  need("cuGraphDestroy", cuGraphDestroy);
  if (resolver.missing)
    return Status::error(formatString(
        "libcuda.so.1 has no '%s' (timing needs a CUDA 11.4 driver or later)",
        resolver.missing));
  graphsOpen = true;
  return Status::ok();
}

std::string CudaDriver::getErrorName(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return formatString("CUDA error %d", result);
}

Status CudaDriver::check(CUresult result, const std::string &call) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  const char *text = nullptr;
  if (!cuGetErrorString || cuGetErrorString(result, &text) != CUDA_SUCCESS ||
      !text)
    text = "unknown error";
  return Status::error(formatString("%s: %s: %s", call.c_str(),
                                    getErrorName(result).c_str(), text));
}

} // namespace qmmcuda
