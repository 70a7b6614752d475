//===- Interpreter.h - the emulator's wave interpreter ----------*- C++ -*-===//
//
// A launch decodes its gpu.func once (Decode.cpp): every SSA value gets a
// numbered slot, and each op becomes an Instr holding its operand and result
// slots and the handler that the op registry (one registration function per
// op family) maps its name to. Blocks are flat arrays of Instrs; scf.for and
// scf.if refer to the blocks of their regions.
//
// One WaveInterpreter runs one wave64 of one workgroup over those Instrs:
// every slot holds its 64 lanes at once (or one copy when the value is the
// same in every lane: constants, arguments, block ids and what is computed
// from them only), and ops run for all lanes under an exec mask (a bit per
// lane). A wave keeps its position as an explicit stack of frames (block,
// program counter, exec mask; a loop's state lives in the slots of its body's
// arguments), so it can stop at a barrier and resume later: the waves of a
// workgroup run one at a time on the launching thread, switching at barriers
// (Launch.cpp). They share a WorkgroupContext (LDS, the race shadow, the
// barrier epoch); all workgroups share a KernelContext, and one set of waves
// (with their slots' storage) serves them in turn.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_EMULATOR_INTERPRETER_H
#define QMM_LIB_EMULATOR_INTERPRETER_H

#include "qmm/Emulator/Emulator.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>

namespace mlir {
namespace qmm {
namespace emu {

constexpr int kMaxLanes = 64;
using ExecMask = uint64_t;
constexpr ExecMask kAllLanes = ~ExecMask(0);

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
/// flattened row-major) as bit patterns, or memref views. A uniform value
/// stores lane 0 only; at() and view() read it for any lane.
struct Lanes {
  unsigned width = 1;
  bool uniform = false;
  std::vector<uint64_t> bits;
  std::vector<MemRefView> views;

  size_t index(int lane, unsigned element) const {
    return uniform ? element : size_t(lane) * width + element;
  }
  /// Writing needs a value that is not uniform (define() or expand()).
  uint64_t &at(int lane, unsigned element) { return bits[index(lane, element)]; }
  uint64_t at(int lane, unsigned element) const {
    return bits[index(lane, element)];
  }
  MemRefView &view(int lane) { return views[uniform ? 0 : lane]; }
  const MemRefView &view(int lane) const { return views[uniform ? 0 : lane]; }
  bool isMemRef() const { return !views.empty(); }
  /// Stores every lane separately (before lanes are written one by one).
  void expand();
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
  /// Operations executed so far and the launch's limit (one thread runs the
  /// whole launch).
  int64_t executedOperations = 0;
  /// Work counted against the limit besides the executed operations: the
  /// clearing of each workgroup's LDS as it starts.
  int64_t chargedOperations = 0;
  int64_t maxOperations = kDefaultMaxOperations;
  std::string error;

  KernelContext(const ChipInfo &chip, const LaunchConfig &config,
                KernelStats &stats)
      : chip(chip), config(config), stats(stats) {}
};

struct WorkgroupContext {
  std::array<int64_t, 3> blockId;
  int lds = -1; ///< buffer index
  int numWaves = 1;
  /// Barriers completed so far plus one (the LDS race epoch).
  uint32_t epoch = 1;
  /// Race shadow, one entry per LDS byte.
  std::vector<uint32_t> shadowEpoch;
  std::vector<int16_t> shadowWriter;
  std::vector<uint32_t> shadowReaders;
};

//===----------------------------------------------------------------------===//
// Decoded kernels and the op registry
//===----------------------------------------------------------------------===//

class WaveInterpreter;
struct Instr;
struct DecodedKernel;

/// Runs one op for the lanes of `mask`; failure() after wave.fail().
using Handler = LogicalResult (*)(WaveInterpreter &wave, const Instr &inst,
                                  ExecMask mask);
/// Precomputes what a handler needs from the op (attributes, shapes) into
/// inst.data, once per launch.
using Decoder = void (*)(DecodedKernel &kernel, Instr &inst);

/// How the wave's control loop treats an op: most call their handler, the
/// rest change the frame stack or stop the wave.
enum class InstrKind : uint8_t { Op, For, If, Barrier, Terminator };

struct Instr {
  Operation *op = nullptr;
  Handler handler = nullptr;
  InstrKind kind = InstrKind::Op;
  /// Slots of the op's operands and results, in order.
  llvm::SmallVector<int32_t, 4> operands;
  llvm::SmallVector<int32_t, 2> results;
  /// scf.for: the body block; scf.if: the then and else blocks (-1: none).
  int32_t regions[2] = {-1, -1};
  /// The element bit width of the first result (or of the first operand
  /// for ops without results), as most handlers need it.
  unsigned bitWidth = 0;
  /// What the op's decoder precomputed; owned by the DecodedKernel (and
  /// mutable: a launch runs on one thread).
  void *data = nullptr;
};

struct DecodedBlock {
  llvm::SmallVector<int32_t, 4> arguments; ///< slots of the block arguments
  std::vector<Instr> instrs;               ///< ends with the terminator
};

struct DecodedKernel {
  const ChipInfo *chip = nullptr;
  std::vector<DecodedBlock> blocks; ///< blocks[0] is the kernel body
  /// Per slot: does it hold memref views?
  std::vector<uint8_t> slotIsMemRef;

  size_t getNumSlots() const { return slotIsMemRef.size(); }
  /// Storage for decoders' data, freed with the kernel.
  template <typename T> T &allocate() {
    auto owned = std::make_shared<T>();
    T &result = *owned;
    ownedData.push_back(std::move(owned));
    return result;
  }

private:
  std::vector<std::shared_ptr<void>> ownedData;
};

class Registry {
public:
  struct Entry {
    Handler handler = nullptr;
    Decoder decoder = nullptr;
    InstrKind kind = InstrKind::Op;
  };
  template <typename... OpTys>
  void add(Handler handler, Decoder decoder = nullptr,
           InstrKind kind = InstrKind::Op) {
    (entries.insert({TypeID::get<OpTys>(), Entry{handler, decoder, kind}}),
     ...);
  }
  const Entry *lookup(OperationName name) const {
    auto it = entries.find(name.getTypeID());
    return it == entries.end() ? nullptr : &it->second;
  }

private:
  llvm::DenseMap<TypeID, Entry> entries;
};

// The op families, each in its own file.
void registerArithHandlers(Registry &registry);
void registerVectorHandlers(Registry &registry);
void registerMemoryHandlers(Registry &registry);
void registerMatrixHandlers(Registry &registry);
void registerGpuHandlers(Registry &registry);
void registerControlFlowHandlers(Registry &registry);

/// The registry of every family, built once per process.
const Registry &getRegistry();

/// Numbers the values of `func` and decodes its ops.
std::unique_ptr<DecodedKernel> decodeKernel(gpu::GPUFuncOp func,
                                            const ChipInfo &chip);

//===----------------------------------------------------------------------===//
// Waves
//===----------------------------------------------------------------------===//

enum class WaveStatus { Done, AtBarrier, Failed };

class WaveInterpreter {
public:
  WaveInterpreter(KernelContext &kernel, WorkgroupContext &workgroup,
                  const DecodedKernel &code, int waveIndex);

  /// Runs until the wave returns, reaches a barrier (getBarrier() says
  /// which; the next call goes on after it) or fails (message in
  /// kernel.error).
  WaveStatus resume(gpu::GPUFuncOp func, llvm::ArrayRef<KernelArgument> args);
  /// Prepares the wave to run the kernel again, for the next workgroup.
  void reset() {
    frames.clear();
    started = false;
    barrier = nullptr;
  }
  Operation *getBarrier() const { return barrier; }

  // --- used by the op handlers ---
  KernelContext &kernel;
  WorkgroupContext &workgroup;
  int waveIndex;
  int activeLanes; ///< lanes that hold a thread of the workgroup
  ExecMask launchMask;

  Lanes &slot(int32_t index) { return slots[index]; }
  /// Operand `i` of the running instruction.
  Lanes &operand(unsigned i) { return slots[current->operands[i]]; }
  /// An operand of the running op by value (a scan of its few operands).
  Lanes &get(Value value);
  /// Result `i` of the running instruction, all lanes zero.
  Lanes &defineResult(unsigned i, unsigned width) {
    return defineLanes(i, width, kMaxLanes);
  }
  /// Result `i`, one copy for every lane (zero).
  Lanes &defineUniform(unsigned i, unsigned width) {
    return defineLanes(i, width, 1);
  }
  /// A result of the running op by value.
  Lanes &define(Value value, unsigned width);
  /// Records an error at `op`; always returns failure.
  LogicalResult fail(Operation *op, const llvm::Twine &message);

  /// Thread id of lane `lane` along dimension `dim`.
  int64_t threadId(int lane, unsigned dim) const;

private:
  /// A block being executed, with what its terminator needs.
  struct Frame {
    enum Kind : uint8_t { Body, ForBody, Then, Else };
    int32_t block;
    uint32_t pc = 0;
    ExecMask mask;
    Kind kind = Body;
    const Instr *owner = nullptr; ///< the scf.for / scf.if
    /// ForBody: the mask the loop was entered with; Then: the else mask.
    ExecMask other = 0;
  };

  Lanes &defineLanes(unsigned i, unsigned width, int lanes);
  bool start(gpu::GPUFuncOp func, llvm::ArrayRef<KernelArgument> args);
  LogicalResult enterFor(const Instr &inst, ExecMask mask);
  LogicalResult enterIf(const Instr &inst, ExecMask mask);
  /// Runs the terminator `inst` of the innermost frame.
  void endBlock(const Instr &inst);
  void nextIteration(const Instr &forInst, const Instr &yield);
  /// Copies `from` into `to` on the lanes of `mask`.
  void copyLanes(Lanes &to, const Lanes &from, ExecMask mask);

  const DecodedKernel &code;
  std::vector<Lanes> slots;
  llvm::SmallVector<Frame, 8> frames;
  llvm::SmallVector<Lanes, 4> scratch;
  const Instr *current = nullptr;
  Operation *barrier = nullptr;
  bool started = false;
};

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

/// Elements per lane of a value of `type` (vectors flattened).
inline unsigned widthOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

} // namespace emu
} // namespace qmm
} // namespace mlir

#endif
