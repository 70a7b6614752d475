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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mlir {
namespace qmm {

/// One kernel argument: a device buffer (by index into the program's
/// buffers) or a scalar's bits.
struct HostKernelArgument {
  bool isBuffer = false;
  size_t buffer = 0;
  uint64_t scalarBits = 0;
};

class KernelLauncher {
public:
  virtual ~KernelLauncher();
  virtual llvm::Error launch(gpu::GPUFuncOp kernel,
                             std::array<int64_t, 3> grid,
                             std::array<int64_t, 3> block,
                             llvm::ArrayRef<HostKernelArgument> args) = 0;
};

/// Runs host function `func`: buffers [0, numArguments) are its arguments;
/// memref.alloc appends a zero-filled buffer of `getBufferBytes` bytes
/// (through `allocate`); memref.copy copies one buffer into another
/// (through `copy(from, to)`). Returns, per function result, the index of
/// the buffer it is.
llvm::Expected<std::vector<size_t>>
runHostProgram(func::FuncOp func, KernelLauncher &launcher,
               llvm::function_ref<size_t(MemRefType)> allocate,
               llvm::function_ref<void(size_t, size_t)> copy);

/// Bytes of a dense buffer of `type` (static shape).
int64_t getBufferBytes(MemRefType type);

} // namespace qmm
} // namespace mlir

#endif
