//===- Interpreter.h - the emulator's wave interpreter ----------*- C++ -*-===//
//
// One WaveInterpreter runs one wave64 of one workgroup: every SSA value holds
// its 64 lanes at once, and ops run for all lanes under an exec mask (a bit
// per lane). The waves of a workgroup share a WorkgroupContext (LDS, the race
// shadow, the barrier scheduler); all workgroups share a KernelContext.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_EMULATOR_INTERPRETER_H
#define QMM_LIB_EMULATOR_INTERPRETER_H

#include "qmm/Emulator/Emulator.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <condition_variable>
#include <mutex>
#include <optional>

namespace mlir {
namespace qmm {
namespace emu {

constexpr int kMaxLanes = 64;
using ExecMask = uint64_t;

/// The most elements a value holds per lane. A lane's register file holds 512
/// dwords; this leaves room for IR before register allocation while bounding
/// one value at 2 MiB of host memory (64 lanes of 64-bit patterns).
constexpr int64_t kMaxElementsPerLane = 4096;

enum class AddressSpace { Global, Workgroup, Private, Constant };

/// A memref as one lane sees it.
struct MemRefView {
  int buffer = -1;
  int64_t offset = 0; ///< in elements
  llvm::SmallVector<int64_t, 4> sizes, strides;
  Type elementType;
  /// A fat raw buffer: out-of-range reads give 0, writes are dropped.
  bool fatBuffer = false;
  int64_t validBytes = 0;   ///< the buffer's num_records
  int64_t baseElements = 0; ///< elements between the V# base and offset 0
};

/// One SSA value for all lanes of a wave: `width` elements per lane (vectors
/// flattened row-major) as bit patterns, or memref views.
struct Lanes {
  unsigned width = 1;
  std::vector<uint64_t> bits;
  std::vector<MemRefView> views;

  uint64_t &at(int lane, unsigned element) { return bits[lane * width + element]; }
  uint64_t at(int lane, unsigned element) const {
    return bits[lane * width + element];
  }
};

struct Buffer {
  AddressSpace space;
  uint8_t *data;
  int64_t size;
  std::string name;
};

/// State shared by all workgroups of a launch.
struct KernelContext {
  const ChipInfo &chip;
  LaunchConfig config;
  KernelStats &stats;
  std::vector<Buffer> buffers;
  /// Constant globals (memref.global with an initializer), by symbol.
  llvm::DenseMap<Operation *, int> constantBuffers;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> ownedStorage;
  /// LDS placement of workgroup attributions and workgroup globals.
  llvm::DenseMap<Operation *, int64_t> ldsGlobalOffsets;
  llvm::DenseMap<Value, int64_t> ldsAttributionOffsets;
  int64_t ldsBytes = 0;
  /// Operations executed so far and the launch's limit. Waves of a workgroup
  /// run one at a time (the scheduler's baton), so the count needs no lock.
  int64_t executedOperations = 0;
  int64_t maxOperations = kDefaultMaxOperations;
  std::string error;

  KernelContext(const ChipInfo &chip, const LaunchConfig &config,
                KernelStats &stats)
      : chip(chip), config(config), stats(stats) {}
};

/// Runs the waves of one workgroup one at a time, switching at barriers.
class WaveScheduler {
public:
  explicit WaveScheduler(int numWaves);
  /// Blocks until wave `w` may run; false when the launch was aborted.
  bool waitTurn(int w);
  /// Wave `w` reached a barrier; returns when it may go on (false: abort).
  bool barrier(int w, Operation *op, std::string &error);
  /// Wave `w` returned from the kernel.
  void finish(int w, std::string &error);
  void abort();
  /// Barriers completed so far (the LDS race epoch).
  uint32_t getEpoch() const { return epoch; }

private:
  enum class State { Running, AtBarrier, Done };
  void passBaton(std::string &error);

  std::mutex mutex;
  std::condition_variable cv;
  std::vector<State> states;
  int current = 0;
  bool aborted = false;
  uint32_t epoch = 1;
  Operation *waitingAt = nullptr;
};

struct WorkgroupContext {
  std::array<int64_t, 3> blockId;
  int lds = -1; ///< buffer index
  int numWaves = 1;
  WaveScheduler *scheduler = nullptr;
  /// Race shadow, one entry per LDS byte.
  std::vector<uint32_t> shadowEpoch;
  std::vector<int16_t> shadowWriter;
  std::vector<uint32_t> shadowReaders;
};

class WaveInterpreter {
public:
  WaveInterpreter(KernelContext &kernel, WorkgroupContext &workgroup,
                  int waveIndex);

  /// Runs the kernel body; false on error (message in kernel.error).
  bool run(gpu::GPUFuncOp func, llvm::ArrayRef<KernelArgument> args);

  // --- used by the op handlers ---
  KernelContext &kernel;
  WorkgroupContext &workgroup;
  int waveIndex;
  int activeLanes; ///< lanes that hold a thread of the workgroup
  ExecMask launchMask;

  Lanes &get(Value value);
  Lanes &define(Value value, unsigned width);
  /// Records an error at `op`; always returns failure.
  LogicalResult fail(Operation *op, const llvm::Twine &message);

  /// Executes the ops of `block` under `mask`; the terminator's operands
  /// are copied into `yielded`.
  LogicalResult execBlock(Block &block, ExecMask mask,
                          llvm::SmallVectorImpl<Lanes> *yielded);

  /// Thread id of lane `lane` along dimension `dim`.
  int64_t threadId(int lane, unsigned dim) const;

private:
  LogicalResult execOp(Operation *op, ExecMask mask);
  llvm::DenseMap<Value, Lanes> values;
};

// Op families, each in its own file. Each returns failure() when `op` does
// not belong to it with `handled` false.
LogicalResult execArithOp(WaveInterpreter &wave, Operation *op, ExecMask mask,
                          bool &handled);
LogicalResult execVectorOp(WaveInterpreter &wave, Operation *op,
                           ExecMask mask, bool &handled);
LogicalResult execMemoryOp(WaveInterpreter &wave, Operation *op,
                           ExecMask mask, bool &handled);
LogicalResult execMatrixOp(WaveInterpreter &wave, Operation *op,
                           ExecMask mask, bool &handled);

/// The view a memref type describes over `buffer` (static layouts only).
LogicalResult makeView(Type memrefType, int buffer, MemRefView &view,
                       std::string &error);

/// "file:line:col" for file locations.
std::string formatLocation(Location loc);

/// The emulator's error for `op`: "emulator: MESSAGE ('NAME' at LOCATION)".
std::string formatOpError(Operation *op, const llvm::Twine &message);

/// The number of elements of `shape`, or nullopt when it overflows int64.
std::optional<int64_t> getCheckedNumElements(llvm::ArrayRef<int64_t> shape);

inline bool laneActive(ExecMask mask, int lane) { return (mask >> lane) & 1; }

} // namespace emu
} // namespace qmm
} // namespace mlir

#endif
