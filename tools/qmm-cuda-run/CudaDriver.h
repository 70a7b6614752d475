//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// qmm-cuda-run builds without the CUDA toolkit: the few driver types and
// entry points it needs are declared here and looked up in libcuda.so.1
// with dlsym. The names are the versioned symbols that cuda.h maps the
// plain names to (cuMemAlloc -> cuMemAlloc_v2, ...).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_CUDADRIVER_H
#define QMM_CUDA_RUN_CUDADRIVER_H

#include "Support.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace qmmcuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctxOpaque *;
using CUmodule = struct CUmodOpaque *;
using CUfunction = struct CUfuncOpaque *;
using CUevent = struct CUeventOpaque *;
using CUstream = struct CUstreamOpaque *;
using CUgraph = struct CUgraphOpaque *;
using CUgraphExec = struct CUgraphExecOpaque *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;

constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
/// CUstreamCaptureMode: only this thread's calls are checked during a
/// capture.
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;

/// The driver's opaque TMA descriptor, laid out as cuda.h declares it.
struct CUtensorMap {
  alignas(64) uint64_t opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");

// CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle,
// CUtensorMapL2promotion and CUtensorMapFloatOOBfill (int-sized enums).
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;
constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_32B = 1;
constexpr int CU_TENSOR_MAP_SWIZZLE_64B = 2;
constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;

/// CUlaunchAttributeID, of which the runner sets one (an enum without a
/// fixed type in cuda.h, which GCC and Clang make unsigned int).
enum CUlaunchAttributeID : unsigned {
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
};

/// One attribute of cuLaunchKernelEx, laid out as cuda.h declares it: the
/// id padded to 8 bytes, then CUlaunchAttributeValue, a 64-byte union of
/// which only clusterDim is declared here (its other members hold
/// pointers, hence the alignment).
struct CUlaunchAttribute {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  union alignas(8) Value {
    char pad[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};

/// cuLaunchKernelEx's configuration, laid out as cuda.h declares it.
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

// The layouts of the driver's 64-bit ABI (the only one it has now).
static_assert(sizeof(CUlaunchAttributeID) == 4, "an int-sized enum");
static_assert(offsetof(CUlaunchAttribute, value) == 8, "value at 8");
static_assert(sizeof(CUlaunchAttribute::Value) == 64, "a 64-byte union");
static_assert(sizeof(CUlaunchAttribute) == 72 &&
                  alignof(CUlaunchAttribute) == 8,
              "CUlaunchAttribute is 72 bytes, 8-aligned");
static_assert(offsetof(CUlaunchConfig, sharedMemBytes) == 24 &&
                  offsetof(CUlaunchConfig, hStream) == 32 &&
                  offsetof(CUlaunchConfig, attrs) == 40 &&
                  offsetof(CUlaunchConfig, numAttrs) == 48 &&
                  sizeof(CUlaunchConfig) == 56,
              "CUlaunchConfig's 64-bit layout");

/// The entry points, resolved by open().
class CudaDriver {
public:
  /// dlopens libcuda.so.1 and resolves every entry point. A missing library
  /// is Skipped (no driver on this machine); a missing symbol is an Error.
  Status open();

  /// Resolves cuTensorMapEncodeTiled (CUDA 12.0 drivers on). Called after
  /// cuInit, and only for plans with tensor maps, so that an older driver
  /// still runs the others. A missing entry point is an Error.
  Status openTensorMaps();

  /// Resolves cuLaunchKernelEx, which launches with a cluster shape. Called
  /// after cuInit, and only for plans with cluster launches, likewise. A
  /// missing entry point is an Error.
  Status openClusterLaunch();

  /// Resolves the stream and graph entry points the timing uses (streams
  /// to capture, cuGraphInstantiateWithFlags from CUDA 11.4 on). Called
  /// only when the plan is timed. A missing entry point is an Error.
  Status openGraphs();

  /// Ok for CUDA_SUCCESS, else "<call>: <error name>: <error string>".
  Status check(CUresult result, const std::string &call) const;

  /// The name of a CUresult, e.g. CUDA_ERROR_NO_DEVICE.
  std::string getErrorName(CUresult result) const;

  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context,
                                       CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr destination, const void *source,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *destination, CUdeviceptr source,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoD)(CUdeviceptr destination, CUdeviceptr source,
                           size_t bytes) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr destination, unsigned char value,
                         size_t count) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, int *options,
                                 void **optionValues) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute,
                                 int value) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **kernelParams, void **extra) = nullptr;
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char **text) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char **text) = nullptr;
  /// Null until openTensorMaps().
  CUresult (*cuTensorMapEncodeTiled)(
      CUtensorMap *tensorMap, int dataType, uint32_t rank,
      void *globalAddress, const uint64_t *globalDim,
      const uint64_t *globalStrides, const uint32_t *boxDim,
      const uint32_t *elementStrides, int interleave, int swizzle,
      int l2Promotion, int oobFill) = nullptr;
  /// Null until openClusterLaunch().
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config,
                               CUfunction function, void **kernelParams,
                               void **extra) = nullptr;

  /// Null until openGraphs().
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph graph) = nullptr;

private:
  void *library = nullptr; // never closed: the process exits with it loaded
  bool graphsOpen = false;
};

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_CUDADRIVER_H
