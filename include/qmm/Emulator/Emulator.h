//===- Emulator.h - lane-accurate emulation of GPU-level kernels -*- C++ -*-===//
//
// Executes the GPU-level IR this project hands to the ROCDL conversion
// (gpu.module / gpu.func with scf, arith, math, vector, memref, affine and
// amdgpu ops) the way an AMD Instinct GPU would: workgroups of wave64 waves,
// lanes in lockstep under an exec mask, LDS per workgroup, barriers across the
// waves of a workgroup, and MFMA / scaled MFMA as wave-collective operations
// with the register layouts of the CDNA3 / CDNA4 ISA guides.
//
// It also checks what hardware would not: out-of-bounds accesses, LDS over
// the chip's limit, barriers not reached by every wave, LDS races between two
// barriers, and what LLVM leaves undefined (integer division by zero or
// overflowing, scf.for steps that are not positive). Each is reported as an
// error naming the op and its location. Work is bounded: a launch stops
// with an error after a set number of executed operations.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_EMULATOR_EMULATOR_H
#define QMM_EMULATOR_EMULATOR_H

#include "qmm/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace qmm {
namespace emu {

/// One kernel argument: a global buffer (memref arguments: dense bytes in
/// the memref's row-major layout, elements of 8 bits or fewer one byte
/// each) or a scalar bit pattern (integer, index and float arguments).
struct KernelArgument {
  bool isMemRef = false;
  std::vector<uint8_t> *buffer = nullptr; ///< isMemRef
  uint64_t scalarBits = 0;        ///< !isMemRef
};

/// What one launch did, per kernel.
struct KernelStats {
  int64_t workgroups = 0, waves = 0;
  llvm::StringMap<int64_t> mfmaCounts; ///< by instruction name
  int64_t globalLoads = 0, globalStores = 0;
  int64_t globalBytesRead = 0, globalBytesWritten = 0;
  int64_t ldsLoads = 0, ldsStores = 0;
  int64_t ldsBytesRead = 0, ldsBytesWritten = 0;
  /// Extra LDS cycles from bank conflicts, computed from the per-lane
  /// addresses of each LDS instruction (see Memory.cpp for the model).
  int64_t ldsBankConflictCycles = 0;
  int64_t barriers = 0;
  int64_t ldsBytesAllocated = 0;
  /// Operations the waves executed (one per op per wave, terminators
  /// included): what the launch limit counts.
  int64_t operations = 0;
};

struct LaunchConfig {
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {64, 1, 1};
};

/// The default bound on the operations one launch executes (KernelStats::
/// operations, plus one per 64 bytes of LDS each workgroup clears as it
/// starts): about 5 times the largest launch of the project's benchmarks
/// (benchmarks/emulator_shapes.sh: the 4096x7168x512 blockwise GEMM
/// executes 1.4e7 on gfx942, in half a minute), while a loop of simple ops
/// that never ends, or a grid of billions of small workgroups, stops within
/// seconds. --emu-max-ops raises it for larger launches.
constexpr int64_t kDefaultMaxOperations = int64_t(1) << 26;

/// The bound every launch of this process runs under (fp8-run sets it from
/// --emu-max-ops); it must be positive.
void setMaxOperationsPerLaunch(int64_t limit);
int64_t getMaxOperationsPerLaunch();

/// The order workgroups run in, one at a time: by increasing (z, y, x),
/// x fastest (forward), or the opposite (reverse). Hardware promises no
/// order; a kernel whose result depends on it (workgroups communicating
/// through memory) can be run both ways. Process-wide (fp8-run sets it
/// from --emu-workgroup-order).
enum class WorkgroupOrder { Forward, Reverse };
void setWorkgroupOrder(WorkgroupOrder order);

/// Element types the emulator holds (in memrefs, vectors and scalars):
/// integers and floats of at most 64 bits, and index.
bool isSupportedElementType(Type type);

/// Runs `kernel` over the grid. Errors (unsupported ops, safety checks, the
/// operation limit) come back as one message naming the op and its location.
llvm::Error launchKernel(const ChipInfo &chip, gpu::GPUFuncOp kernel,
                         const LaunchConfig &config,
                         llvm::ArrayRef<KernelArgument> args,
                         KernelStats &stats);

/// A human-readable block of statistics (fp8-run --stats).
std::string formatStats(llvm::StringRef kernelName, const ChipInfo &chip,
                        const KernelStats &stats);

} // namespace emu
} // namespace qmm
} // namespace mlir

#endif
