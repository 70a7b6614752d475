//===- HostProgram.h - the host side of a compiled qmm function -*- C++ -*-===//
//
// After the AMD pipeline a qmm function is a host function of buffer
// allocations and gpu.launch_func ops. Walking it is the same for every GPU
// device; only launching a kernel differs. The emu and hip devices share
// this walker, so which kernels run, with which grids and which arguments in
// which order, is decided in one place.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_HOSTPROGRAM_H
#define QMM_RUNTIME_HOSTPROGRAM_H

#include "qmm/Runtime/Device.h"
#include "qmm/Target/Chip.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Error.h"

#include <array>
#include <deque>
#include <optional>
#include <cstdint>
#include <vector>

namespace mlir {
namespace qmm {

/// The bytes of a memref.alloc before anything writes them: a recognizable
/// pattern, not zeros, so that a program relying on them shows.
constexpr uint8_t kUninitializedHostByte = 0xA5;

/// A TMA tensor map of a buffer (nvgpu.tma.create.descriptor): what
/// cuTensorMapEncodeTiled takes. Dimensions innermost first, as the driver
/// counts them.
struct HostTensorMap {
  size_t buffer = 0;
  int64_t byteOffset = 0;
  unsigned elementBytes = 1;
  std::vector<int64_t> dims;        ///< in elements
  std::vector<int64_t> byteStrides; ///< of dims 1, 2, ...
  std::vector<int64_t> box;         ///< the box copied, in elements
  int64_t swizzleBytes = 0;         ///< 0 (none), 32, 64 or 128
};

/// One kernel argument: a device buffer (by index into the program's
/// buffers), a scalar's bits, or a tensor map (passed as a pointer to the
/// encoded map in device memory).
struct HostKernelArgument {
  bool isBuffer = false;
  size_t buffer = 0;
  uint64_t scalarBits = 0;
  std::optional<HostTensorMap> tensorMap;
};

/// How a kernel is launched (gpu.launch_func): grid and block extents, the
/// thread-block cluster's (NVIDIA; 1 x 1 x 1 without clusters) and the
/// bytes of dynamic shared memory.
struct LaunchGeometry {
  std::array<int64_t, 3> grid{}, block{}, cluster{1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  bool hasCluster() const { return cluster != std::array<int64_t, 3>{1, 1, 1}; }
};

class KernelLauncher {
public:
  virtual ~KernelLauncher();
  virtual llvm::Error launch(gpu::GPUFuncOp kernel,
                             const LaunchGeometry &geometry,
                             llvm::ArrayRef<HostKernelArgument> args) = 0;
  /// Called before host code reads or writes buffers itself (memref.copy,
  /// gpu.memset): a launcher that only records the launches (a saved
  /// plan) cannot replay such work between them.
  virtual llvm::Error beforeHostAccess(Operation *op) {
    return llvm::Error::success();
  }
};

/// For launchers of AMD kernels: an error when a launch needs what only the
/// NVIDIA pipeline emits (dynamic shared memory, clusters, tensor maps).
llvm::Error checkNoNvidiaLaunchFeatures(gpu::GPUFuncOp kernel,
                                        const LaunchGeometry &geometry,
                                        llvm::ArrayRef<HostKernelArgument> args);

/// The buffers of one run of a host program, on the host: a deque, so that
/// appending keeps the earlier buffers where kernels point at them.
using HostBuffers = std::deque<std::vector<uint8_t>>;

/// What a host program returns: per function result, the index of the
/// buffer it is and its extents.
struct HostResults {
  std::vector<size_t> buffers;
  std::vector<std::vector<int64_t>> shapes;
};

/// Runs host function `func`: `buffers` holds its arguments on entry, of
/// extents `argumentShapes` (checked against the function's types; may be
/// left empty for static types only); memref.alloc appends a buffer of
/// 0xA5 bytes, memref.copy copies one buffer into another; cf.assert stops
/// the run with its message.
llvm::Expected<HostResults>
runHostProgram(func::FuncOp func, KernelLauncher &launcher,
               HostBuffers &buffers,
               llvm::ArrayRef<std::vector<int64_t>> argumentShapes = {});

/// runHostProgram on a fresh `buffers`: the device bytes of `args` (with
/// their shapes), then what the program allocates.
llvm::Expected<HostResults>
runHostProgram(func::FuncOp func, KernelLauncher &launcher,
               HostBuffers &buffers,
               llvm::ArrayRef<const host::HostTensor *> args);

/// The AMD pipeline (format gpu) on a copy of `module` for `chip` (with
/// `config` forced when not empty), for GPU device `deviceName`; checks that
/// `function` takes `numArguments` and returns `numResults` buffers.
llvm::Expected<OwningOpRef<ModuleOp>>
compileForGPUDevice(ModuleOp module, llvm::StringRef deviceName,
                    const ChipInfo &chip, llvm::StringRef config,
                    llvm::StringRef function, size_t numArguments,
                    size_t numResults);

/// The buffers `returned` by a run, as tensors of the `results` specs (a
/// dynamic extent in a spec takes the returned buffer's).
llvm::Expected<std::vector<host::HostTensor>>
collectResults(const HostBuffers &buffers, const HostResults &returned,
               llvm::ArrayRef<TensorSpec> results);


} // namespace qmm
} // namespace mlir

#endif
