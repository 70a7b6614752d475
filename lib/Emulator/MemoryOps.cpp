//===- MemoryOps.cpp - memrefs, loads and stores, LDS checks --------------===//
//
// Every access is checked: out-of-bounds global or LDS accesses are errors
// (fat raw buffers excepted, whose out-of-range reads give 0 and writes are
// dropped, as on hardware), and LDS bytes touched by two waves between two
// barriers with at least one write are reported as a race.
//
// Bank conflicts are counted by the target description's model
// (ChipInfo::countLdsBankConflictCycles), the one the compiler's LDS layout
// choices use.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "qmm/Dialect/QMM/IR/StorageSize.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::emu;

namespace {
/// Where one lane's access lands.
struct LaneAccess {
  int lane;
  int64_t byteAddress; ///< in the buffer
  unsigned bytes;
  bool dropped; ///< out of a fat buffer's range: read 0, write nothing
};
} // namespace

static std::string formatIndices(ArrayRef<int64_t> indices) {
  std::string text = "[";
  for (size_t i = 0; i < indices.size(); ++i)
    text += (i ? ", " : "") + std::to_string(indices[i]);
  return text + "]";
}

/// `offset + sum(indices[d] * strides[d])`, the element offset of `indices`
/// in a strided layout; nullopt when it overflows int64.
static std::optional<int64_t> getLinearOffset(int64_t offset,
                                              ArrayRef<int64_t> indices,
                                              ArrayRef<int64_t> strides) {
  std::optional<int64_t> linear = offset;
  for (size_t d = 0; d < indices.size() && linear; ++d)
    linear = emu::checkedMulAdd(indices[d], strides[d], *linear);
  return linear;
}

/// The bytes `view` spans from its offset (the largest size * stride): a
/// fat buffer's num_records. Saturates: an access beyond the buffer is
/// still caught by the buffer's own bounds.
static int64_t getSpanBytes(const MemRefView &view) {
  int64_t elements = 0;
  for (auto [size, stride] : llvm::zip(view.sizes, view.strides))
    elements =
        std::max(elements, emu::checkedMul(size, stride)
                               .value_or(std::numeric_limits<int64_t>::max()));
  return emu::checkedMul(elements, int64_t(getStorageBytes(view.elementType)))
      .value_or(std::numeric_limits<int64_t>::max());
}

namespace {
/// The sizes of the element type of the lanes' views (the same type in
/// every lane: type queries are kept out of the per-lane loops).
struct ElementSize {
  Type type;
  unsigned bits = 0, bytes = 0;
  void update(Type elementType) {
    if (elementType == type)
      return;
    type = elementType;
    bits = getBitWidth(type);
    bytes = getStorageBytes(type);
  }
};
} // namespace

/// Resolves element `indices` (plus `count` consecutive elements along the
/// innermost dimension) of `view` for one lane. Address arithmetic is
/// checked: an offset that overflows is out of bounds.
static LogicalResult resolve(WaveInterpreter &wave, Operation *op,
                             const MemRefView &view, const ElementSize &element,
                             ArrayRef<int64_t> indices, unsigned count,
                             unsigned bytes, int lane, LaneAccess &access) {
  const Buffer &buffer = wave.kernel.buffers[view.buffer];
  int64_t elementBytes = element.bytes;
  std::optional<int64_t> linear =
      getLinearOffset(view.offset, indices, view.strides);
  std::optional<int64_t> byteOffset =
      linear ? emu::checkedMul(*linear, elementBytes) : std::nullopt;
  auto overflows = [&] {
    return wave.fail(op, "out-of-bounds access to " + buffer.name +
                             " on lane " + std::to_string(lane) +
                             ": the byte offset of index " +
                             formatIndices(indices) + " overflows (offset " +
                             std::to_string(view.offset) + ", strides " +
                             formatIndices(view.strides) + ")");
  };
  access = {lane, 0, bytes, false};
  if (view.fatBuffer) {
    std::optional<int64_t> end =
        byteOffset ? emu::checkedAdd(*byteOffset, int64_t(bytes))
                   : std::nullopt;
    if (!end)
      return overflows();
    // The hardware's range check: out of [0, num_records) reads 0 and
    // drops writes.
    if (*byteOffset < 0 || *end > view.validBytes) {
      access.dropped = true;
      return success();
    }
    std::optional<int64_t> fromBase =
        emu::checkedAdd(view.baseElements, *linear);
    std::optional<int64_t> address =
        fromBase ? emu::checkedMul(*fromBase, elementBytes) : std::nullopt;
    if (!address)
      return overflows();
    access.byteAddress = *address;
  } else {
    // A packed sub-byte vector spans its bytes' element slots (slot = byte,
    // as LLVM lays out i4/i6 in memory).
    int64_t slots = element.bits < 8 ? bytes : count;
    for (size_t d = 0; d < indices.size(); ++d) {
      int64_t extent = d + 1 == indices.size() ? slots : 1;
      std::optional<int64_t> end = emu::checkedAdd(indices[d], extent);
      if (indices[d] < 0 || !end || *end > view.sizes[d])
        return wave.fail(op, "out-of-bounds " +
                                 std::string(buffer.space ==
                                                     AddressSpace::Workgroup
                                                 ? "LDS"
                                                 : "global") +
                                 " access at index " + formatIndices(indices) +
                                 (count > 1 ? " (+" + std::to_string(count) +
                                                  " elements)"
                                            : std::string()) +
                                 " on lane " + std::to_string(lane) +
                                 " of a memref of shape " +
                                 formatIndices(view.sizes));
    }
    if (!byteOffset)
      return overflows();
    access.byteAddress = *byteOffset;
  }
  if (access.byteAddress < 0 ||
      access.byteAddress + int64_t(bytes) > buffer.size)
    return wave.fail(op, "out-of-bounds access to " + buffer.name +
                             " at byte " + std::to_string(access.byteAddress) +
                             " on lane " + std::to_string(lane) + " (" +
                             std::to_string(buffer.size) + " bytes)");
  return success();
}

/// LDS race check, statistics and bank conflicts for one instruction.
static LogicalResult account(WaveInterpreter &wave, Operation *op,
                             const Buffer &buffer,
                             ArrayRef<LaneAccess> accesses, bool isWrite) {
  KernelStats &stats = wave.kernel.stats;
  int64_t bytes = 0;
  for (const LaneAccess &access : accesses)
    if (!access.dropped)
      bytes += access.bytes;
  if (buffer.space != AddressSpace::Workgroup) {
    (isWrite ? stats.globalStores : stats.globalLoads) += 1;
    (isWrite ? stats.globalBytesWritten : stats.globalBytesRead) += bytes;
    return success();
  }
  (isWrite ? stats.ldsStores : stats.ldsLoads) += 1;
  (isWrite ? stats.ldsBytesWritten : stats.ldsBytesRead) += bytes;

  // Races: another wave touched the byte since the last barrier (never
  // with one wave).
  WorkgroupContext &wg = wave.workgroup;
  uint32_t epoch = wg.epoch;
  int16_t me = int16_t(wave.waveIndex);
  for (const LaneAccess &access : wg.numWaves > 1 ? accesses
                                                  : ArrayRef<LaneAccess>()) {
    for (unsigned b = 0; b < access.bytes; ++b) {
      int64_t at = access.byteAddress + b;
      if (wg.shadowEpoch[at] != epoch) {
        wg.shadowEpoch[at] = epoch;
        wg.shadowWriter[at] = -1;
        wg.shadowReaders[at] = 0;
      }
      int16_t writer = wg.shadowWriter[at];
      uint32_t otherReaders = wg.shadowReaders[at] & ~(1u << me);
      if ((writer >= 0 && writer != me) || (isWrite && otherReaders)) {
        int other = writer >= 0 && writer != me
                        ? writer
                        : __builtin_ctz(otherReaders);
        return wave.fail(op, "LDS race: byte " + std::to_string(at) +
                                 " is " + (isWrite ? "written" : "read") +
                                 " by wave " + std::to_string(me) +
                                 " and " +
                                 (writer >= 0 && writer != me ? "written"
                                                              : "read") +
                                 " by wave " + std::to_string(other) +
                                 " with no barrier between");
      }
      if (isWrite)
        wg.shadowWriter[at] = me;
      else
        wg.shadowReaders[at] |= 1u << me;
    }
  }

  // Bank conflicts, by the target description's bank model.
  SmallVector<LdsLaneAccess, kMaxLanes> lanes;
  for (const LaneAccess &access : accesses)
    lanes.push_back({access.lane, access.byteAddress, access.bytes});
  stats.ldsBankConflictCycles +=
      wave.kernel.chip.countLdsBankConflictCycles(lanes);
  return success();
}

/// Resolves lane `lane`'s access to `count` consecutive elements: sub-byte
/// elements are packed, the others take whole bytes each.
static LogicalResult resolveLane(WaveInterpreter &wave, Operation *op,
                                 const MemRefView &view,
                                 const ElementSize &element,
                                 ArrayRef<int64_t> indices, unsigned count,
                                 int lane, LaneAccess &access) {
  unsigned bytes = qmm::getStorageBytes(count, element.bits);
  return resolve(wave, op, view, element, indices, count, bytes, lane,
                 access);
}

/// Fixed-size copies for the common sizes (a variable-size memcpy is a
/// call per element).
template <typename T> static uint64_t readWord(const uint8_t *memory) {
  T word;
  std::memcpy(&word, memory, sizeof(T));
  return word;
}

static uint64_t readBits(const uint8_t *memory, unsigned bytes) {
  switch (bytes) {
  case 1:
    return *memory;
  case 2:
    return readWord<uint16_t>(memory);
  case 4:
    return readWord<uint32_t>(memory);
  case 8:
    return readWord<uint64_t>(memory);
  }
  uint64_t bits = 0;
  std::memcpy(&bits, memory, bytes);
  return bits;
}

template <typename T> static void writeWord(uint8_t *memory, uint64_t bits) {
  T word = T(bits);
  std::memcpy(memory, &word, sizeof(T));
}

static void writeBits(uint8_t *memory, uint64_t bits, unsigned bytes) {
  switch (bytes) {
  case 1:
    *memory = uint8_t(bits);
    return;
  case 2:
    return writeWord<uint16_t>(memory, bits);
  case 4:
    return writeWord<uint32_t>(memory, bits);
  case 8:
    return writeWord<uint64_t>(memory, bits);
  }
  std::memcpy(memory, &bits, bytes);
}

/// Loads `count` elements of `elementType` per active lane starting at
/// `indices[lane]` of `views[lane]`, into `out` (width `count`).
static LogicalResult load(WaveInterpreter &wave, Operation *op,
                          const Lanes &memref,
                          const std::vector<SmallVector<int64_t, 4>> &indices,
                          unsigned count, ExecMask mask, Lanes &out) {
  SmallVector<LaneAccess, kMaxLanes> accesses;
  const Buffer *buffer = nullptr;
  ElementSize element;
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    const MemRefView &view = memref.view(lane);
    element.update(view.elementType);
    unsigned bits = element.bits;
    LaneAccess access;
    if (failed(resolveLane(wave, op, view, element, indices[lane], count, lane,
                           access)))
      return failure();
    accesses.push_back(access);
    buffer = &wave.kernel.buffers[view.buffer];
    if (access.dropped) {
      for (unsigned e = 0; e < count; ++e)
        out.at(lane, e) = 0;
      continue;
    }
    const uint8_t *base = buffer->data + access.byteAddress;
    if (bits < 8) { // sub-byte vectors are packed, little-endian
      for (unsigned e = 0; e < count; ++e) {
        uint64_t value = 0;
        for (unsigned b = 0; b < bits; ++b) {
          unsigned bit = e * bits + b;
          value |= uint64_t((base[bit / 8] >> (bit % 8)) & 1) << b;
        }
        out.at(lane, e) = value;
      }
    } else {
      unsigned elementBytes = element.bytes;
      for (unsigned e = 0; e < count; ++e)
        out.at(lane, e) = readBits(base + e * elementBytes, elementBytes);
    }
  }
  if (!buffer)
    return success();
  return account(wave, op, *buffer, accesses, /*isWrite=*/false);
}

static LogicalResult store(WaveInterpreter &wave, Operation *op,
                           const Lanes &value, const Lanes &memref,
                           const std::vector<SmallVector<int64_t, 4>> &indices,
                           unsigned count, ExecMask mask) {
  SmallVector<LaneAccess, kMaxLanes> accesses;
  const Buffer *buffer = nullptr;
  ElementSize element;
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    const MemRefView &view = memref.view(lane);
    buffer = &wave.kernel.buffers[view.buffer];
    if (buffer->space == AddressSpace::Constant)
      return wave.fail(op, "store to the constant global " + buffer->name);
    element.update(view.elementType);
    unsigned bits = element.bits;
    LaneAccess access;
    if (failed(resolveLane(wave, op, view, element, indices[lane], count, lane,
                           access)))
      return failure();
    accesses.push_back(access);
    if (access.dropped)
      continue;
    uint8_t *base = buffer->data + access.byteAddress;
    if (bits < 8) {
      for (unsigned e = 0; e < count; ++e)
        for (unsigned b = 0; b < bits; ++b) {
          unsigned bit = e * bits + b;
          uint8_t mask8 = uint8_t(1u << (bit % 8));
          if ((value.at(lane, e) >> b) & 1)
            base[bit / 8] |= mask8;
          else
            base[bit / 8] &= uint8_t(~mask8);
        }
    } else {
      unsigned elementBytes = element.bytes;
      for (unsigned e = 0; e < count; ++e)
        writeBits(base + e * elementBytes, value.at(lane, e), elementBytes);
    }
  }
  if (!buffer)
    return success();
  return account(wave, op, *buffer, accesses, /*isWrite=*/true);
}

static std::vector<SmallVector<int64_t, 4>>
gatherIndices(WaveInterpreter &wave, ValueRange indices);

/// vector.transfer_read / transfer_write with a minor-identity map: element
/// by element, reading `padding` (writing nothing) outside the memref where
/// the dimension is not declared in bounds.
static LogicalResult transfer(WaveInterpreter &wave, Operation *op,
                              VectorType vectorType, AffineMap map,
                              ArrayRef<bool> inBounds, const Lanes &memref,
                              const std::vector<SmallVector<int64_t, 4>> &base,
                              ExecMask mask, Lanes *readInto,
                              const Lanes *padding, const Lanes *toWrite) {
  if (!map.isMinorIdentity())
    return wave.fail(op, "only minor-identity transfer maps are supported");
  ArrayRef<int64_t> shape = vectorType.getShape();
  int64_t count = vectorType.getNumElements();
  SmallVector<LaneAccess, kMaxLanes> accesses;
  const Buffer *buffer = nullptr;
  ElementSize element;
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    const MemRefView &view = memref.view(lane);
    buffer = &wave.kernel.buffers[view.buffer];
    element.update(view.elementType);
    unsigned bytes = element.bytes;
    size_t lead = view.sizes.size() - shape.size();
    for (int64_t e = 0; e < count; ++e) {
      SmallVector<int64_t, 4> indices = base[lane];
      int64_t rest = e;
      bool outside = false;
      for (int d = int(shape.size()) - 1; d >= 0; --d) {
        int64_t position = rest % shape[d];
        rest /= shape[d];
        // An index that overflows is outside the memref.
        std::optional<int64_t> index =
            emu::checkedAdd(indices[lead + d], position);
        indices[lead + d] = index.value_or(-1);
        if (indices[lead + d] >= view.sizes[lead + d] || indices[lead + d] < 0) {
          if (inBounds[d])
            return wave.fail(op, "out-of-bounds access in a transfer "
                                 "declared in bounds on lane " +
                                     std::to_string(lane));
          outside = true;
        }
      }
      if (outside) {
        if (readInto)
          readInto->at(lane, e) = padding->at(lane, 0);
        continue;
      }
      LaneAccess access;
      if (failed(resolve(wave, op, view, element, indices, 1, bytes, lane,
                         access)))
        return failure();
      accesses.push_back(access);
      uint8_t *at = buffer->data + access.byteAddress;
      if (readInto)
        readInto->at(lane, e) = access.dropped ? 0 : readBits(at, bytes);
      else if (!access.dropped)
        writeBits(at, toWrite->at(lane, e), bytes);
    }
  }
  if (!buffer)
    return success();
  return account(wave, op, *buffer, accesses, /*isWrite=*/readInto == nullptr);
}

/// Per-lane index vectors from index operands.
static std::vector<SmallVector<int64_t, 4>>
gatherIndices(WaveInterpreter &wave, ValueRange indices) {
  std::vector<SmallVector<int64_t, 4>> result(kMaxLanes);
  for (Value index : indices) {
    const Lanes &lanes = wave.get(index);
    unsigned width = getBitWidth(index.getType());
    for (int lane = 0; lane < kMaxLanes; ++lane)
      result[lane].push_back(signExtend(lanes.at(lane, 0), width));
  }
  return result;
}

/// Are all operands of `inst` the same in every lane?
static bool allUniform(WaveInterpreter &wave, const Instr &inst) {
  for (unsigned i = 0; i < inst.operands.size(); ++i)
    if (!wave.operand(i).uniform)
      return false;
  return true;
}

/// Defines result 0 as a view per lane, or one view when `uniform`.
static Lanes &defineViews(WaveInterpreter &wave, bool uniform) {
  return uniform ? wave.defineUniform(0, 1) : wave.defineResult(0, 1);
}

/// Mixed static/dynamic values of one lane (subview offsets, sizes...).
static SmallVector<int64_t> mixedValues(WaveInterpreter &wave,
                                        ArrayRef<int64_t> statics,
                                        ValueRange dynamics, int lane) {
  SmallVector<int64_t> values;
  unsigned next = 0;
  for (int64_t value : statics) {
    if (ShapedType::isDynamic(value))
      values.push_back(int64_t(wave.get(dynamics[next++]).at(lane, 0)));
    else
      values.push_back(value);
  }
  return values;
}

static LogicalResult execSubview(WaveInterpreter &wave, const Instr &inst,
                                 ExecMask mask) {
  auto op = cast<memref::SubViewOp>(inst.op);
  const Lanes &source = wave.get(op.getSource());
  // Uniform operands: one view, checked on the first executing lane.
  bool uniform = allUniform(wave, inst);
  Lanes &out = defineViews(wave, uniform);
  llvm::SmallBitVector dropped = op.getDroppedDims();
  for (int lane = 0; lane < (uniform ? 1 : kMaxLanes); ++lane) {
    const MemRefView &from = source.view(lane);
    MemRefView view = from;
    SmallVector<int64_t> offsets =
        mixedValues(wave, op.getStaticOffsets(), op.getOffsets(), lane);
    SmallVector<int64_t> sizes =
        mixedValues(wave, op.getStaticSizes(), op.getSizes(), lane);
    SmallVector<int64_t> strides =
        mixedValues(wave, op.getStaticStrides(), op.getStrides(), lane);
    std::optional<int64_t> offset =
        getLinearOffset(from.offset, offsets, from.strides);
    view.sizes.clear();
    view.strides.clear();
    for (size_t d = 0; d < offsets.size(); ++d) {
      if (dropped.test(d))
        continue;
      std::optional<int64_t> stride =
          emu::checkedMul(from.strides[d], strides[d]);
      if (!stride)
        offset = std::nullopt;
      view.sizes.push_back(sizes[d]);
      view.strides.push_back(stride.value_or(0));
    }
    // Lanes outside the exec mask may hold anything.
    if (!offset && (uniform || laneActive(mask, lane)))
      return wave.fail(op, "the subview's offset or strides overflow on lane " +
                               std::to_string(uniform ? llvm::countr_zero(mask)
                                                      : lane));
    view.offset = offset.value_or(0);
    out.views[lane] = view;
  }
  return success();
}

/// A new view of the source's buffer with the given offset (from the
/// buffer's start), sizes and strides.
static LogicalResult execReinterpretCast(WaveInterpreter &wave,
                                         const Instr &inst) {
  auto op = cast<memref::ReinterpretCastOp>(inst.op);
  const Lanes &source = wave.get(op.getSource());
  bool uniform = allUniform(wave, inst);
  Lanes &out = defineViews(wave, uniform);
  for (int lane = 0; lane < (uniform ? 1 : kMaxLanes); ++lane) {
    MemRefView view = source.view(lane);
    view.offset =
        mixedValues(wave, op.getStaticOffsets(), op.getOffsets(), lane)[0];
    view.sizes = mixedValues(wave, op.getStaticSizes(), op.getSizes(), lane);
    view.strides =
        mixedValues(wave, op.getStaticStrides(), op.getStrides(), lane);
    out.views[lane] = view;
  }
  return success();
}

/// raw_buffer_load / store on a plain memref: the buffer spans the memref.
static void makeRawBufferViews(Lanes &memref) {
  for (MemRefView &view : memref.views)
    if (!view.fatBuffer && view.buffer >= 0) {
      view.fatBuffer = true;
      view.validBytes = getSpanBytes(view);
    }
}

/// Casts that keep the view: a copy, uniform or not.
static LogicalResult passThrough(WaveInterpreter &wave, const Instr &inst,
                                 ExecMask) {
  wave.defineResult(0, 1) = wave.operand(0);
  return success();
}

static LogicalResult execFatRawBufferCast(WaveInterpreter &wave,
                                          const Instr &inst, ExecMask mask) {
  auto castOp = cast<amdgpu::FatRawBufferCastOp>(inst.op);
  const Lanes &source = wave.get(castOp.getSource());
  bool uniform = allUniform(wave, inst);
  Lanes &out = defineViews(wave, uniform);
  for (int lane = 0; lane < (uniform ? 1 : kMaxLanes); ++lane) {
    MemRefView view = source.view(lane);
    if (castOp.getResetOffset()) {
      std::optional<int64_t> base =
          emu::checkedAdd(view.baseElements, view.offset);
      if (!base && (uniform || laneActive(mask, lane)))
        return wave.fail(
            inst.op,
            "the buffer's base offset overflows on lane " +
                std::to_string(uniform ? llvm::countr_zero(mask) : lane));
      view.baseElements = base.value_or(0);
      view.offset = 0;
    }
    view.validBytes = getSpanBytes(view);
    if (castOp.getValidBytes())
      view.validBytes = int64_t(wave.get(castOp.getValidBytes()).at(lane, 0));
    view.fatBuffer = true;
    out.views[lane] = view;
  }
  return success();
}

static LogicalResult execGatherToLDS(WaveInterpreter &wave, const Instr &inst,
                                     ExecMask mask) {
  Operation *op = inst.op;
  auto gather = cast<amdgpu::GatherToLDSOp>(op);
  Type transfer = gather.getTransferType();
  unsigned count = widthOf(transfer);
  Type element = getElementTypeOrSelf(transfer);
  // Packed sub-byte values (FP4) move as their bytes.
  unsigned bits = getBitWidth(element);
  unsigned bytes =
      bits < 8 ? count * bits / 8 : count * getStorageBytes(element);
  unsigned slot = std::max(4u, bytes == 12 ? 16u : bytes);
  Lanes loaded;
  loaded.width = count;
  loaded.bits.assign(size_t(kMaxLanes) * count, 0);
  const Lanes &source = wave.get(gather.getSrc());
  if (failed(load(wave, op, source, gatherIndices(wave, gather.getSrcIndices()),
                  count, mask, loaded)))
    return failure();
  // Lane 0's destination indices give the base; lanes follow in order.
  const Lanes &dest = wave.get(gather.getDst());
  std::vector<SmallVector<int64_t, 4>> dstIndices =
      gatherIndices(wave, gather.getDstIndices());
  const MemRefView &view = dest.view(0);
  LaneAccess baseAccess;
  ElementSize destElement;
  destElement.update(view.elementType);
  if (failed(resolve(wave, op, view, destElement, dstIndices[0], 1,
                     destElement.bytes, 0, baseAccess)))
    return failure();
  const Buffer &lds = wave.kernel.buffers[view.buffer];
  SmallVector<LaneAccess, kMaxLanes> accesses;
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    int64_t at = baseAccess.byteAddress + int64_t(lane) * slot;
    if (at + slot > lds.size)
      return wave.fail(op, "out-of-bounds LDS write by lane " +
                               std::to_string(lane));
    std::memset(lds.data + at, 0, slot);
    if (bits < 8) { // little-endian packing, as load() reads it
      for (unsigned e = 0; e < count; ++e)
        for (unsigned b = 0; b < bits; ++b) {
          unsigned bit = e * bits + b;
          if ((loaded.at(lane, e) >> b) & 1)
            lds.data[at + bit / 8] |= uint8_t(1u << (bit % 8));
        }
    } else {
      unsigned elementBytes = getStorageBytes(element);
      for (unsigned e = 0; e < count; ++e)
        writeBits(lds.data + at + e * elementBytes, loaded.at(lane, e),
                  elementBytes);
    }
    accesses.push_back({lane, at, slot, false});
  }
  return account(wave, op, lds, accesses, /*isWrite=*/true);
}

static LogicalResult execGetGlobal(WaveInterpreter &wave, const Instr &inst,
                                   ExecMask) {
  Operation *op = inst.op;
  auto get = cast<memref::GetGlobalOp>(op);
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  Operation *global =
      module ? SymbolTable::lookupSymbolIn(module, get.getNameAttr()) : nullptr;
  if (!global)
    return wave.fail(op, "unknown global @" + get.getName().str());
  MemRefView view;
  std::string error;
  int buffer;
  int64_t byteOffset = 0;
  auto it = wave.kernel.ldsGlobalOffsets.find(global);
  if (it != wave.kernel.ldsGlobalOffsets.end()) {
    buffer = wave.workgroup.lds;
    byteOffset = it->second;
  } else {
    buffer = wave.kernel.constantBuffers.lookup(global);
  }
  if (failed(makeView(get.getType(), buffer, view, error)))
    return wave.fail(op, error);
  view.offset += byteOffset / getStorageBytes(view.elementType);
  wave.defineUniform(0, 1).views[0] = view;
  return success();
}

static LogicalResult execTransferRead(WaveInterpreter &wave, const Instr &inst,
                                      ExecMask mask) {
  auto read = cast<vector::TransferReadOp>(inst.op);
  if (read.getMask())
    return wave.fail(inst.op, "masked transfers are not supported");
  VectorType type = read.getVectorType();
  Lanes &out = wave.define(read.getResult(), type.getNumElements());
  const Lanes &memref = wave.get(read.getBase());
  const Lanes &padding = wave.get(read.getPadding());
  SmallVector<bool> inBounds = read.getInBoundsValues();
  return transfer(wave, inst.op, type, read.getPermutationMap(), inBounds,
                  memref, gatherIndices(wave, read.getIndices()), mask, &out,
                  &padding, nullptr);
}

static LogicalResult execTransferWrite(WaveInterpreter &wave, const Instr &inst,
                                       ExecMask mask) {
  auto write = cast<vector::TransferWriteOp>(inst.op);
  if (write.getMask())
    return wave.fail(inst.op, "masked transfers are not supported");
  if (!isa<MemRefType>(write.getBase().getType()))
    return wave.fail(inst.op, "transfers to tensors are not supported");
  const Lanes &value = wave.get(write.getValueToStore());
  const Lanes &memref = wave.get(write.getBase());
  SmallVector<bool> inBounds = write.getInBoundsValues();
  return transfer(wave, inst.op, write.getVectorType(),
                  write.getPermutationMap(), inBounds, memref,
                  gatherIndices(wave, write.getIndices()), mask, nullptr,
                  nullptr, &value);
}

/// memref.atomic_rmw on integers: lane by lane in lane order (hardware
/// leaves the order of one wave's atomics to one address unspecified; lane
/// order is one it may take), each reading the element, combining and
/// writing it back; the result is the value read.
static LogicalResult execAtomicRMW(WaveInterpreter &wave, const Instr &inst,
                                   ExecMask mask) {
  auto rmw = cast<memref::AtomicRMWOp>(inst.op);
  auto type = dyn_cast<IntegerType>(rmw.getValue().getType());
  if (!type || (type.getWidth() != 32 && type.getWidth() != 64))
    return wave.fail(inst.op, "memref.atomic_rmw: only i32 and i64 are "
                              "supported");
  unsigned bits = type.getWidth();
  uint64_t valueMask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  auto toSigned = [&](uint64_t v) {
    return bits == 64 ? int64_t(v) : int64_t(int32_t(uint32_t(v)));
  };
  const Lanes &value = wave.operand(0);
  const Lanes &memref = wave.operand(1);
  std::vector<SmallVector<int64_t, 4>> indices =
      gatherIndices(wave, rmw.getIndices());
  Lanes &out = wave.defineResult(0, 1);
  Lanes read, written;
  read.bits.assign(kMaxLanes, 0);
  written.bits.assign(kMaxLanes, 0);
  for (int lane = 0; lane < kMaxLanes; ++lane) {
    if (!laneActive(mask, lane))
      continue;
    ExecMask only = ExecMask(1) << lane;
    if (failed(load(wave, inst.op, memref, indices, 1, only, read)))
      return failure();
    uint64_t old = read.at(lane, 0) & valueMask;
    uint64_t operand = value.at(lane, 0) & valueMask;
    uint64_t result;
    switch (rmw.getKind()) {
    case arith::AtomicRMWKind::addi:
      result = old + operand;
      break;
    case arith::AtomicRMWKind::assign:
      result = operand;
      break;
    case arith::AtomicRMWKind::andi:
      result = old & operand;
      break;
    case arith::AtomicRMWKind::ori:
      result = old | operand;
      break;
    case arith::AtomicRMWKind::maxs:
      result = toSigned(old) >= toSigned(operand) ? old : operand;
      break;
    case arith::AtomicRMWKind::mins:
      result = toSigned(old) <= toSigned(operand) ? old : operand;
      break;
    case arith::AtomicRMWKind::maxu:
      result = std::max(old, operand);
      break;
    case arith::AtomicRMWKind::minu:
      result = std::min(old, operand);
      break;
    default:
      return wave.fail(inst.op, "memref.atomic_rmw: kind " +
                                    arith::stringifyAtomicRMWKind(
                                        rmw.getKind()) +
                                    " is not supported");
    }
    written.at(lane, 0) = result & valueMask;
    if (failed(store(wave, inst.op, written, memref, indices, 1, only)))
      return failure();
    out.at(lane, 0) = old;
  }
  return success();
}

void mlir::qmm::emu::registerMemoryHandlers(Registry &r) {
  r.add<memref::AtomicRMWOp>(execAtomicRMW);
  // Loads and stores: the memref is operand 0 (stores: 1, after the value),
  // the indices follow it.
  r.add<memref::LoadOp, vector::LoadOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask mask) {
        unsigned count = widthOf(inst.op->getResult(0).getType());
        Lanes &out = wave.defineResult(0, count);
        return load(wave, inst.op, wave.operand(0),
                    gatherIndices(wave, inst.op->getOperands().drop_front(1)),
                    count, mask, out);
      });
  r.add<memref::StoreOp, vector::StoreOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask mask) {
        unsigned count = widthOf(inst.op->getOperand(0).getType());
        return store(wave, inst.op, wave.operand(0), wave.operand(1),
                     gatherIndices(wave, inst.op->getOperands().drop_front(2)),
                     count, mask);
      });
  r.add<vector::TransferReadOp>(execTransferRead);
  r.add<vector::TransferWriteOp>(execTransferWrite);
  r.add<amdgpu::RawBufferLoadOp>([](WaveInterpreter &wave, const Instr &inst,
                                    ExecMask mask) {
    auto load_ = cast<amdgpu::RawBufferLoadOp>(inst.op);
    if (load_.getSgprOffset() || load_.getIndexOffset())
      return wave.fail(inst.op, "raw_buffer_load offsets are not supported");
    unsigned count = widthOf(load_.getType());
    Lanes &out = wave.define(load_.getResult(), count);
    Lanes memref = wave.get(load_.getMemref());
    makeRawBufferViews(memref);
    return load(wave, inst.op, memref, gatherIndices(wave, load_.getIndices()),
                count, mask, out);
  });
  r.add<amdgpu::RawBufferStoreOp>([](WaveInterpreter &wave, const Instr &inst,
                                     ExecMask mask) {
    auto store_ = cast<amdgpu::RawBufferStoreOp>(inst.op);
    if (store_.getSgprOffset() || store_.getIndexOffset())
      return wave.fail(inst.op, "raw_buffer_store offsets are not supported");
    unsigned count = widthOf(store_.getValue().getType());
    Lanes memref = wave.get(store_.getMemref());
    makeRawBufferViews(memref);
    return store(wave, inst.op, wave.get(store_.getValue()), memref,
                 gatherIndices(wave, store_.getIndices()), count, mask);
  });
  r.add<amdgpu::FatRawBufferCastOp>(execFatRawBufferCast);
  r.add<amdgpu::GatherToLDSOp>(execGatherToLDS);
  r.add<memref::SubViewOp>(execSubview);
  r.add<memref::ReinterpretCastOp>(
      [](WaveInterpreter &wave, const Instr &inst, ExecMask) {
        return execReinterpretCast(wave, inst);
      });
  r.add<memref::CastOp, memref::MemorySpaceCastOp, memref::AssumeAlignmentOp>(
      passThrough);
  r.add<memref::DimOp>([](WaveInterpreter &wave, const Instr &inst, ExecMask) {
    const Lanes &memref = wave.operand(0);
    const Lanes &index = wave.operand(1);
    Lanes &out = wave.defineResult(0, 1);
    for (int lane = 0; lane < kMaxLanes; ++lane) {
      int64_t d = int64_t(index.at(lane, 0));
      const MemRefView &view = memref.view(lane);
      out.at(lane, 0) =
          d >= 0 && d < int64_t(view.sizes.size()) ? view.sizes[d] : 0;
    }
    return success();
  });
  r.add<memref::GetGlobalOp>(execGetGlobal);
}
