//===- HostProgram.cpp - the host side of a compiled qmm function ---------===//

#include "qmm/Runtime/HostProgram.h"

#include "qmm/Conversion/Utils.h"
#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "qmm/Dialect/QMM/IR/StorageSize.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cstring>

using namespace mlir;
using namespace mlir::qmm;

KernelLauncher::~KernelLauncher() = default;

static constexpr uint8_t kUninitializedByte = kUninitializedHostByte;

static std::string describeHostOp(Operation *op) {
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  return ("host program: '" + op->getName().getStringRef() + "' at " +
          location)
      .str();
}

static llvm::Error hostError(Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(describeHostOp(op) + ": " + message);
}

namespace {
/// A memref of the host code: elements of one of the run's buffers, from
/// `offset` on, `strides` apart (both counted in elements, as memref
/// layouts count them). Arguments, allocations and globals are row-major
/// from offset 0; memref.subview and reinterpret_cast make the others.
struct HostView {
  size_t buffer = 0;
  int64_t offset = 0;
  std::vector<int64_t> shape, strides;
};

/// Walks a host function: views of buffers (by index into the run's
/// storage), index and integer scalars, and the launches.
class HostInterpreter {
public:
  HostInterpreter(KernelLauncher &launcher, HostBuffers &storage)
      : launcher(launcher), storage(storage) {}

  llvm::Expected<HostResults>
  run(func::FuncOp func, llvm::ArrayRef<std::vector<int64_t>> shapes);

private:
  /// Runs `block` up to its terminator; a func.return sets `results`.
  llvm::Error runBlock(Block &block);
  llvm::Error runOp(Operation &op);
  llvm::Error defineScalarOp(Operation &op);
  llvm::Error defineSubView(memref::SubViewOp subview);
  /// memref.expand_shape, collapse_shape and cast.
  llvm::Error defineReshape(Operation &op);
  llvm::Error copy(memref::CopyOp copyOp);
  llvm::Error launch(gpu::LaunchFuncOp launchOp);
  llvm::Error defineTensorMap(nvgpu::TmaCreateDescriptorOp op);
  std::optional<uint64_t> scalar(Value v) const {
    auto it = scalars.find(v);
    if (it == scalars.end())
      return std::nullopt;
    return it->second;
  }
  /// The view `v` is; null when it is not a known one. (Valid until the
  /// next view is defined.)
  const HostView *lookupView(Value v) const {
    auto it = views.find(v);
    return it == views.end() ? nullptr : &it->second;
  }
  /// Mixed static and dynamic values of an op (extents, offsets, strides):
  /// the static ones, the dynamic ones from `dynamic` in order.
  std::optional<std::vector<int64_t>>
  resolveValues(llvm::ArrayRef<int64_t> statics, ValueRange dynamic) const {
    std::vector<int64_t> values;
    auto next = dynamic.begin();
    for (int64_t value : statics) {
      if (!ShapedType::isDynamic(value)) {
        values.push_back(value);
        continue;
      }
      if (next == dynamic.end())
        return std::nullopt;
      std::optional<uint64_t> known = scalar(*next++);
      if (!known)
        return std::nullopt;
      values.push_back(int64_t(*known));
    }
    return values;
  }
  /// Records `view` as `value` (`what`, for errors) once its type is seen
  /// to describe it and it stays within its buffer.
  llvm::Error defineView(Operation *op, Value value, HostView view,
                         const llvm::Twine &what = "the result");
  /// Whether `view` is all of its buffer, row-major from offset 0: what
  /// results and fills take.
  bool isWholeBuffer(const HostView &view, MemRefType type) const;

  KernelLauncher &launcher;
  HostBuffers &storage;
  llvm::DenseMap<Value, HostView> views;
  llvm::DenseMap<Value, uint64_t> scalars;
  llvm::DenseMap<Value, HostTensorMap> tensorMaps;
  std::optional<HostResults> results;
};
} // namespace

/// The bytes of a dense buffer of `type` with extents `shape`, as the
/// devices store it: rows of the last extent, each packed to whole bytes
/// (FP4/FP6; see host::getDeviceBytes).
static size_t getBufferBytes(MemRefType type, llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return getStorageBytes(1, type.getElementType());
  int64_t rows = 1;
  for (int64_t extent : shape.drop_back())
    rows *= extent;
  return rows * getStorageBytes(shape.back(), type.getElementType());
}

static std::vector<int64_t> getRowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Whether strides `have` address the elements of `shape` as `want` does:
/// a dimension of extent 0 or 1 never steps, so its stride is free, and a
/// dynamic stride in `want` admits any.
static bool stridesAgree(llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<int64_t> have,
                         llvm::ArrayRef<int64_t> want) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1 && !ShapedType::isDynamic(want[d]) && have[d] != want[d])
      return false;
  return true;
}

static std::string describeView(const HostView &view) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "extents [";
  llvm::interleaveComma(view.shape, os);
  os << "], strides [";
  llvm::interleaveComma(view.strides, os);
  os << "], offset " << view.offset;
  return text;
}

/// Checks that `type` describes `view`: its rank, its static extents and
/// its static strides and offset; with `staticLayout`, that all of the
/// layout is static (what a kernel given the buffer's base pointer needs).
static llvm::Error checkViewType(Operation *op, const llvm::Twine &what,
                                 MemRefType type, const HostView &view,
                                 bool staticLayout) {
  auto mismatch = [&](llvm::StringRef why) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " " << why << ": the view has " << describeView(view)
       << ", its type is " << type;
    return hostError(op, text);
  };
  if (type.getRank() != int64_t(view.shape.size()))
    return mismatch("has another rank");
  for (auto [d, extent] : llvm::enumerate(type.getShape()))
    if (!ShapedType::isDynamic(extent) && extent != view.shape[d])
      return mismatch("has other extents");
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  if (type.getLayout().isIdentity()) { // row-major on the actual extents
    std::vector<int64_t> rowMajor = getRowMajorStrides(view.shape);
    strides.assign(rowMajor.begin(), rowMajor.end());
  } else if (failed(type.getStridesAndOffset(strides, offset)))
    return mismatch("has a layout that is not strided");
  if (staticLayout && (ShapedType::isDynamic(offset) ||
                       llvm::any_of(strides, ShapedType::isDynamic)))
    return mismatch("needs a static layout (strides and offset)");
  if ((!ShapedType::isDynamic(offset) && offset != view.offset) ||
      !stridesAgree(view.shape, view.strides, strides))
    return mismatch("has another layout");
  return llvm::Error::success();
}

/// Whether `view` addresses only elements within `bytes` bytes (sub-byte
/// elements counted as a packed bit stream).
static bool fitsIn(const HostView &view, Type elementType, size_t bytes) {
  if (view.offset < 0)
    return false;
  std::optional<int64_t> last = view.offset; // the last element addressed
  for (auto [extent, stride] : llvm::zip(view.shape, view.strides)) {
    if (extent == 0)
      return true; // no element at all
    if (extent < 0 || (extent > 1 && stride < 0))
      return false;
    if (last && extent > 1)
      last = llvm::checkedMulAdd(extent - 1, stride, *last);
  }
  std::optional<int64_t> end =
      last ? llvm::checkedAdd(*last, int64_t(1)) : std::nullopt;
  std::optional<int64_t> bits =
      end ? llvm::checkedMul(*end, int64_t(getStorageBitWidth(elementType)))
          : std::nullopt;
  return bits && *bits <= int64_t(bytes) * 8;
}

llvm::Error HostInterpreter::defineView(Operation *op, Value value,
                                        HostView view,
                                        const llvm::Twine &what) {
  auto type = cast<MemRefType>(value.getType());
  if (llvm::Error error =
          checkViewType(op, what, type, view, /*staticLayout=*/false))
    return error;
  if (!fitsIn(view, type.getElementType(), storage[view.buffer].size()))
    return hostError(op, what + " views elements outside its buffer (" +
                             describeView(view) + ")");
  views[value] = std::move(view);
  return llvm::Error::success();
}

bool HostInterpreter::isWholeBuffer(const HostView &view,
                                    MemRefType type) const {
  return view.offset == 0 &&
         stridesAgree(view.shape, view.strides,
                      getRowMajorStrides(view.shape)) &&
         getBufferBytes(type, view.shape) == storage[view.buffer].size();
}

llvm::Expected<HostResults>
HostInterpreter::run(func::FuncOp func,
                     llvm::ArrayRef<std::vector<int64_t>> argumentShapes) {
  if (!func.getBody().hasOneBlock())
    return hostError(func, "the host function must be one block");
  if (storage.size() != func.getNumArguments() ||
      (!argumentShapes.empty() &&
       argumentShapes.size() != func.getNumArguments()))
    return hostError(func, "takes " + llvm::Twine(func.getNumArguments()) +
                               " arguments, got " +
                               llvm::Twine(storage.size()));
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      return hostError(func, "argument #" + llvm::Twine(i) +
                                 " is not a memref");
    std::vector<int64_t> shape(type.getShape());
    if (i < argumentShapes.size()) {
      // The caller's extents must match the function's static ones.
      const std::vector<int64_t> &given = argumentShapes[i];
      bool agrees = given.size() == shape.size();
      for (size_t d = 0; agrees && d < shape.size(); ++d)
        agrees = ShapedType::isDynamic(shape[d]) || shape[d] == given[d];
      if (!agrees) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "argument #" << i << " has shape [";
        llvm::interleaveComma(given, os);
        os << "], the function takes " << type;
        return hostError(func, text);
      }
      shape = given;
    } else if (!type.hasStaticShape()) {
      return hostError(func, "argument #" + llvm::Twine(i) +
                                 " has a dynamic shape and no extents were "
                                 "given");
    }
    if (storage[i].size() != getBufferBytes(type, shape))
      return hostError(func, "argument #" + llvm::Twine(i) + " has " +
                                 llvm::Twine(storage[i].size()) +
                                 " bytes, its shape needs " +
                                 llvm::Twine(getBufferBytes(type, shape)));
    std::vector<int64_t> strides = getRowMajorStrides(shape);
    if (llvm::Error error =
            defineView(func, arg, HostView{i, 0, shape, strides},
                       "argument #" + llvm::Twine(i)))
      return std::move(error);
  }
  if (llvm::Error error = runBlock(func.getBody().front()))
    return std::move(error);
  if (!results)
    return hostError(func, "no return");
  return *results;
}

llvm::Error HostInterpreter::runBlock(Block &block) {
  for (Operation &op : block) {
    if (llvm::Error error = runOp(op))
      return error;
    if (results)
      return llvm::Error::success();
  }
  return llvm::Error::success();
}

/// Index and integer arithmetic of the host code (the grid of a dynamic M,
/// its checks), evaluated by the ops' folders. Values are kept as 64-bit
/// patterns, zero-extended from narrower types (i1 as 0 / 1).
llvm::Error HostInterpreter::defineScalarOp(Operation &op) {
  SmallVector<APInt> operands;
  for (Value operand : op.getOperands()) {
    std::optional<uint64_t> value = scalar(operand);
    if (!value)
      return hostError(&op, "an operand is not a known scalar");
    operands.push_back(APInt(64, *value));
  }
  std::optional<APInt> value = foldHostScalarOp(&op, operands);
  if (!value)
    return hostError(&op, "does not evaluate (a division by zero, or an "
                          "operation host code does not use)");
  scalars[op.getResult(0)] = value->zextOrTrunc(64).getZExtValue();
  return llvm::Error::success();
}

/// A slice of a view (bufferization's tensor.extract_slice: one batch of a
/// batched matmul): offsets, sizes and steps per source dimension,
/// rank-reduced dimensions dropped.
llvm::Error HostInterpreter::defineSubView(memref::SubViewOp subview) {
  const HostView *found = lookupView(subview.getSource());
  std::optional<std::vector<int64_t>> offsets =
      resolveValues(subview.getStaticOffsets(), subview.getOffsets());
  std::optional<std::vector<int64_t>> sizes =
      resolveValues(subview.getStaticSizes(), subview.getSizes());
  std::optional<std::vector<int64_t>> steps =
      resolveValues(subview.getStaticStrides(), subview.getStrides());
  if (!found || !offsets || !sizes || !steps ||
      offsets->size() != found->shape.size() ||
      sizes->size() != found->shape.size() ||
      steps->size() != found->shape.size())
    return hostError(subview, "views a known buffer at known offsets, sizes "
                              "and strides only");
  const HostView &source = *found;
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  HostView view;
  view.buffer = source.buffer;
  std::optional<int64_t> offset = source.offset;
  for (size_t d = 0; d < source.shape.size(); ++d) {
    int64_t start = (*offsets)[d], size = (*sizes)[d], step = (*steps)[d],
            extent = source.shape[d];
    // The last element taken along d must lie within the source's extent.
    std::optional<int64_t> last =
        size > 0 ? llvm::checkedMulAdd(size - 1, step, start)
                 : std::optional<int64_t>(start);
    if (start < 0 || size < 0 || start > extent || (size > 1 && step < 1) ||
        !last || (size > 0 && *last >= extent))
      return hostError(subview,
                       "dimension " + llvm::Twine(d) + ": offset " +
                           llvm::Twine(start) + ", size " + llvm::Twine(size) +
                           ", stride " + llvm::Twine(step) +
                           " do not lie within the source's extent " +
                           llvm::Twine(extent));
    if (offset)
      offset = llvm::checkedMulAdd(start, source.strides[d], *offset);
    if (dropped.test(d))
      continue;
    view.shape.push_back(size);
    // A stride matters only where the extent is above 1 (the step is then
    // below the source's extent: no overflow).
    view.strides.push_back(size > 1 ? source.strides[d] * step
                                    : source.strides[d]);
  }
  if (!offset)
    return hostError(subview, "the view's offset overflows");
  view.offset = *offset;
  return defineView(subview, subview.getResult(), std::move(view));
}

llvm::Error HostInterpreter::defineReshape(Operation &op) {
  const HostView *found = lookupView(op.getOperand(0));
  if (!found)
    return hostError(&op, "reshapes an unknown buffer");
  const HostView &source = *found;
  auto type = dyn_cast<MemRefType>(op.getResult(0).getType());
  if (!type)
    return hostError(&op, "reshapes to ranked memrefs only");
  HostView view;
  view.buffer = source.buffer;
  view.offset = source.offset;
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
    // How the frontend lowering's scale vectors become [rows, 1]. A
    // dimension of stride s split into extents (..., e, f) takes strides
    // (..., s * f, s): any view splits.
    std::optional<std::vector<int64_t>> shape =
        resolveValues(type.getShape(), expand.getOutputShape());
    if (!shape)
      return hostError(&op, "the expanded extents are not known");
    view.shape = *shape;
    view.strides.assign(view.shape.size(), 1);
    for (auto [d, group] : llvm::enumerate(expand.getReassociationIndices())) {
      int64_t extent = 1, stride = source.strides[d];
      for (int64_t i : llvm::reverse(group)) {
        view.strides[i] = stride;
        stride *= view.shape[i];
        extent *= view.shape[i];
      }
      if (extent != source.shape[d])
        return hostError(&op, "splits extent " +
                                  llvm::Twine(source.shape[d]) +
                                  " into extents of product " +
                                  llvm::Twine(extent));
    }
  } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
    // A group merges into one dimension when each of its dimensions (of
    // extent above 1) steps over all of the next inner one; the merged
    // stride is the innermost one's.
    for (const ReassociationIndices &group :
         collapse.getReassociationIndices()) {
      int64_t extent = 1, stride = source.strides[group.back()];
      std::optional<int64_t> next; // the next outer dimension's stride
      bool contiguous = true;
      for (int64_t d : llvm::reverse(group)) {
        extent *= source.shape[d];
        if (source.shape[d] == 1)
          continue;
        if (!next)
          stride = source.strides[d];
        else if (source.strides[d] != *next)
          contiguous = false;
        next = source.strides[d] * source.shape[d];
      }
      if (!contiguous && extent != 0)
        return hostError(&op, "collapse_shape of dimensions that are not "
                              "contiguous in a strided view (" +
                                  describeView(source) +
                                  ") is not supported in host code");
      view.shape.push_back(extent);
      view.strides.push_back(stride);
    }
  } else {
    // A cast keeps the view; defineView checks that its type fits it.
    view.shape = source.shape;
    view.strides = source.strides;
  }
  return defineView(&op, op.getResult(0), std::move(view));
}

llvm::Error HostInterpreter::copy(memref::CopyOp copyOp) {
  if (llvm::Error error = launcher.beforeHostAccess(copyOp))
    return error;
  const HostView *from = lookupView(copyOp.getSource());
  const HostView *to = lookupView(copyOp.getTarget());
  auto fromType = dyn_cast<MemRefType>(copyOp.getSource().getType());
  auto toType = dyn_cast<MemRefType>(copyOp.getTarget().getType());
  if (!from || !to || !fromType || !toType || from->shape != to->shape ||
      fromType.getElementType() != toType.getElementType())
    return hostError(copyOp, "copies between known views of equal extents "
                             "and element types only");
  // Bufferization's tensor.insert_slice of a slice computed in place
  // copies a view onto itself.
  if (from->buffer == to->buffer && from->offset == to->offset &&
      from->strides == to->strides)
    return llvm::Error::success();
  if (isWholeBuffer(*from, fromType) && isWholeBuffer(*to, toType)) {
    storage[to->buffer] = storage[from->buffer];
    return llvm::Error::success();
  }
  unsigned bits = getStorageBitWidth(fromType.getElementType());
  if (bits % 8 != 0)
    return hostError(copyOp, "a copy of packed sub-byte elements between "
                             "strided views is not supported in host code "
                             "(whole dense buffers only)");
  // Element by element; the views are within their buffers.
  const std::vector<int64_t> &shape = from->shape;
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  if (count == 0)
    return llvm::Error::success();
  size_t width = bits / 8;
  // Two views of one buffer: the copy reads the source as it was.
  std::vector<uint8_t> snapshot;
  if (from->buffer == to->buffer)
    snapshot = storage[from->buffer];
  const std::vector<uint8_t> &source =
      from->buffer == to->buffer ? snapshot : storage[from->buffer];
  std::vector<uint8_t> &target = storage[to->buffer];
  std::vector<int64_t> index(shape.size(), 0);
  int64_t at = from->offset, into = to->offset; // in elements
  for (int64_t n = 0; n < count; ++n) {
    std::memcpy(target.data() + into * width, source.data() + at * width,
                width);
    for (size_t d = shape.size(); d-- > 0;) { // the last dimension fastest
      if (shape[d] == 1)
        continue;
      at += from->strides[d];
      into += to->strides[d];
      if (++index[d] < shape[d])
        break;
      at -= from->strides[d] * shape[d];
      into -= to->strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return llvm::Error::success();
}

llvm::Error HostInterpreter::launch(gpu::LaunchFuncOp launchOp) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launchOp, launchOp.getKernel());
  if (!kernel)
    return hostError(launchOp, "kernel not found");
  LaunchGeometry geometry;
  gpu::KernelDim3 g = launchOp.getGridSizeOperandValues(),
                  b = launchOp.getBlockSizeOperandValues();
  Value dims[] = {g.x, g.y, g.z, b.x, b.y, b.z};
  for (int i = 0; i < 6; ++i) {
    std::optional<uint64_t> e = scalar(dims[i]);
    if (!e)
      return hostError(launchOp, "grid and block sizes must be known "
                                 "scalars");
    (i < 3 ? geometry.grid[i] : geometry.block[i - 3]) = int64_t(*e);
  }
  if (launchOp.hasClusterSize()) {
    gpu::KernelDim3 c = launchOp.getClusterSizeOperandValues();
    Value clusterDims[] = {c.x, c.y, c.z};
    for (int i = 0; i < 3; ++i) {
      std::optional<uint64_t> e = scalar(clusterDims[i]);
      int64_t extent = e ? int64_t(*e) : 0;
      if (extent < 1 || geometry.grid[i] % extent != 0)
        return hostError(launchOp, "cluster sizes must be known positive "
                                   "scalars that divide the grid");
      geometry.cluster[i] = extent;
    }
  }
  if (Value size = launchOp.getDynamicSharedMemorySize()) {
    std::optional<uint64_t> bytes = scalar(size);
    if (!bytes)
      return hostError(launchOp, "the dynamic shared memory size must be a "
                                 "known scalar");
    geometry.dynamicSharedBytes = int64_t(*bytes);
  }
  llvm::ArrayRef<Type> parameters = kernel.getArgumentTypes();
  std::vector<HostKernelArgument> args;
  for (auto [i, operand] : llvm::enumerate(launchOp.getKernelOperands())) {
    HostKernelArgument arg;
    if (const HostView *view = lookupView(operand)) {
      // The code objects take the buffer's base pointer (bare-pointer
      // convention), the emulator the buffer; both apply the parameter
      // type's layout, which must then be the view's, and static.
      auto type = i < parameters.size() ? dyn_cast<MemRefType>(parameters[i])
                                        : MemRefType();
      if (!type)
        return hostError(launchOp, "kernel argument #" + llvm::Twine(i) +
                                       " is a buffer, the kernel's "
                                       "parameter is not a memref");
      if (llvm::Error error = checkViewType(
              launchOp, "kernel argument #" + llvm::Twine(i), type, *view,
              /*staticLayout=*/true))
        return error;
      arg.isBuffer = true;
      arg.buffer = view->buffer;
    } else if (auto map = tensorMaps.find(operand); map != tensorMaps.end()) {
      arg.tensorMap = map->second;
    } else if (std::optional<uint64_t> bits = scalar(operand)) {
      arg.scalarBits = *bits;
    } else {
      return hostError(launchOp, "a kernel operand is neither a buffer nor "
                                 "a known scalar");
    }
    args.push_back(arg);
  }
  return launcher.launch(kernel, geometry, args);
}

llvm::Error HostInterpreter::defineTensorMap(nvgpu::TmaCreateDescriptorOp op) {
  // The view must be the unranked cast of a known ranked view: its extents
  // and strides are the map's global dimensions.
  const HostView *view = lookupView(op.getTensor());
  std::optional<std::vector<int64_t>> box;
  {
    std::vector<int64_t> values;
    for (Value extent : op.getBoxDimensions()) {
      std::optional<uint64_t> known = scalar(extent);
      if (!known)
        return hostError(op, "the box extents must be known scalars");
      values.push_back(int64_t(*known));
    }
    box = values;
  }
  auto type = op.getTensorMap().getType();
  unsigned bits = cast<UnrankedMemRefType>(op.getTensor().getType())
                      .getElementTypeBitWidth();
  if (!view || view->shape.empty() || view->shape.size() != box->size() ||
      bits % 8 != 0)
    return hostError(op, "maps a known buffer of byte-sized elements with "
                         "one box extent per dimension only");
  if (view->strides.back() != 1)
    return hostError(op, "maps views whose innermost stride is 1 only (" +
                             describeView(*view) + ")");
  HostTensorMap map;
  map.buffer = view->buffer;
  map.elementBytes = bits / 8;
  map.byteOffset = view->offset * map.elementBytes;
  for (size_t d = view->shape.size(); d-- > 0;) {
    map.dims.push_back(view->shape[d]);
    map.box.push_back((*box)[d]);
    if (d + 1 < view->shape.size())
      map.byteStrides.push_back(view->strides[d] * map.elementBytes);
  }
  switch (type.getSwizzle()) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
    map.swizzleBytes = 0;
    break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
    map.swizzleBytes = 32;
    break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
    map.swizzleBytes = 64;
    break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
    map.swizzleBytes = 128;
    break;
  }
  // What the runtime encodes besides: element strides 1, no interleave,
  // zeros out of bounds, 256-byte L2 promotion.
  if (type.getInterleave() != nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE ||
      type.getOob() != nvgpu::TensorMapOOBKind::OOB_ZERO)
    return hostError(op, "maps without interleave, zero-filled out of "
                         "bounds, only");
  tensorMaps[op.getTensorMap()] = std::move(map);
  return llvm::Error::success();
}

llvm::Error HostInterpreter::runOp(Operation &op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto value = dyn_cast<IntegerAttr>(constant.getValue())) {
      scalars[constant] = value.getValue().getZExtValue();
      return llvm::Error::success();
    }
    if (auto value = dyn_cast<FloatAttr>(constant.getValue())) {
      scalars[constant] = value.getValue().bitcastToAPInt().getZExtValue();
      return llvm::Error::success();
    }
    return hostError(&op, "only scalar constants are supported");
  }
  if (isHostScalarOp(&op))
    return defineScalarOp(op);
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    const HostView *source = lookupView(dim.getSource());
    std::optional<uint64_t> index = scalar(dim.getIndex());
    if (!source || !index || *index >= source->shape.size())
      return hostError(&op, "reads an extent of an unknown buffer");
    scalars[dim] = uint64_t(source->shape[*index]);
    return llvm::Error::success();
  }
  if (auto check = dyn_cast<cf::AssertOp>(op)) {
    std::optional<uint64_t> holds = scalar(check.getArg());
    if (!holds)
      return hostError(&op, "the condition is not a known scalar");
    if (!*holds)
      return llvm::createStringError("host program: " +
                                     check.getMsg().str());
    return llvm::Error::success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    std::optional<uint64_t> condition = scalar(ifOp.getCondition());
    if (!condition || ifOp.getNumResults() != 0)
      return hostError(&op, "needs a known condition and no results");
    if (*condition)
      return runBlock(*ifOp.thenBlock());
    if (ifOp.elseBlock())
      return runBlock(*ifOp.elseBlock());
    return llvm::Error::success();
  }
  if (isa<scf::YieldOp>(op))
    return llvm::Error::success();
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    std::optional<std::vector<int64_t>> shape =
        resolveValues(alloc.getType().getShape(), alloc.getDynamicSizes());
    if (!shape || !alloc.getType().getLayout().isIdentity())
      return hostError(&op, "needs a dense buffer type of known extents");
    // memref.alloc leaves its contents undefined: a recognizable
    // pattern, not zeros, so that a program relying on them (instead of
    // gpu.memset) shows.
    storage.emplace_back(getBufferBytes(alloc.getType(), *shape),
                         kUninitializedByte);
    std::vector<int64_t> strides = getRowMajorStrides(*shape);
    return defineView(&op, alloc,
                      HostView{storage.size() - 1, 0, *shape, strides});
  }
  if (isa<memref::DeallocOp>(op))
    return llvm::Error::success();
  if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
    // A constant of the host code (a unit scale, say): its bytes, as
    // the GPU would read them (little-endian, densely stored).
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        get, get.getNameAttr());
    auto value = global ? dyn_cast_or_null<DenseElementsAttr>(
                              global.getInitialValueAttr())
                        : DenseElementsAttr();
    MemRefType type = get.getType();
    unsigned bits = type.getElementTypeBitWidth();
    if (!value || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        bits % 8 != 0)
      return hostError(&op, "reads dense constants of byte-sized "
                            "elements only");
    std::vector<uint8_t> bytes(getBufferBytes(type));
    ArrayRef<char> raw = value.getRawData();
    for (size_t at = 0; at < bytes.size(); ++at)
      bytes[at] = uint8_t(raw[value.isSplat() ? at % raw.size() : at]);
    storage.push_back(std::move(bytes));
    std::vector<int64_t> shape(type.getShape());
    std::vector<int64_t> strides = getRowMajorStrides(shape);
    return defineView(&op, get,
                      HostView{storage.size() - 1, 0, shape, strides});
  }
  if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
    if (llvm::Error error = launcher.beforeHostAccess(memset))
      return error;
    const HostView *to = lookupView(memset.getDst());
    std::optional<uint64_t> value = scalar(memset.getValue());
    auto type = cast<MemRefType>(memset.getDst().getType());
    unsigned bits = type.getElementTypeBitWidth();
    if (!to || !value || !memset.getAsyncDependencies().empty() ||
        memset.getAsyncToken() || bits % 8 != 0 || bits > 64)
      return hostError(&op, "fills whole buffers with a constant of a "
                            "byte-sized element type, synchronously, only");
    if (!isWholeBuffer(*to, type))
      return hostError(&op, "fills whole buffers only, not a view of part "
                            "of one (" +
                                describeView(*to) + ")");
    std::vector<uint8_t> &bytes = storage[to->buffer];
    size_t width = bits / 8;
    for (size_t at = 0; at + width <= bytes.size(); at += width)
      for (size_t i = 0; i < width; ++i) // little-endian, as the GPU
        bytes[at + i] = uint8_t(*value >> (8 * i));
    return llvm::Error::success();
  }
  if (auto subview = dyn_cast<memref::SubViewOp>(op))
    return defineSubView(subview);
  if (auto reinterpret = dyn_cast<memref::ReinterpretCastOp>(op)) {
    // A view of the source's buffer from its base, whatever the source's
    // own offset (as the op's semantics have it): the base of a dynamic
    // kernel operand (qmm-kernel-size-arguments).
    const HostView *source = lookupView(reinterpret.getSource());
    std::optional<std::vector<int64_t>> offsets = resolveValues(
        reinterpret.getStaticOffsets(), reinterpret.getOffsets());
    std::optional<std::vector<int64_t>> sizes = resolveValues(
        reinterpret.getStaticSizes(), reinterpret.getSizes());
    std::optional<std::vector<int64_t>> strides = resolveValues(
        reinterpret.getStaticStrides(), reinterpret.getStrides());
    if (!source || !offsets || offsets->size() != 1 || !sizes || !strides ||
        sizes->size() != strides->size())
      return hostError(&op, "views a known buffer at a known offset, "
                            "extents and strides only");
    return defineView(&op, reinterpret,
                      HostView{source->buffer, (*offsets)[0], *sizes,
                               *strides});
  }
  if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
    // The offset, extents and strides a kernel takes for an operand of
    // run-time layout (qmm-kernel-size-arguments); the base buffer as the
    // 0-d view of its first element.
    const HostView *found = lookupView(metadata.getSource());
    if (!found)
      return hostError(&op, "reads the layout of an unknown buffer");
    HostView source = *found;
    scalars[metadata.getOffset()] = uint64_t(source.offset);
    for (auto [size, extent] : llvm::zip(metadata.getSizes(), source.shape))
      scalars[size] = uint64_t(extent);
    for (auto [stride, step] : llvm::zip(metadata.getStrides(), source.strides))
      scalars[stride] = uint64_t(step);
    return defineView(&op, metadata.getBaseBuffer(),
                      HostView{source.buffer, 0, {}, {}}, "the base buffer");
  }
  if (auto cast = dyn_cast<memref::CastOp>(op);
      cast && isa<UnrankedMemRefType>(cast.getType())) {
    // The unranked view a tensor map is made from: the same view.
    const HostView *source = lookupView(cast.getSource());
    if (!source)
      return hostError(&op, "casts an unknown buffer");
    views[cast.getResult()] = *source;
    return llvm::Error::success();
  }
  if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
          op))
    return defineReshape(op);
  if (auto create = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op))
    return defineTensorMap(create);
  if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op)) {
    // A tensor map passed to a kernel as the pointer its ABI takes.
    auto map = cast.getNumOperands() == 1 && cast.getNumResults() == 1
                   ? tensorMaps.find(cast.getOperand(0))
                   : tensorMaps.end();
    if (map == tensorMaps.end())
      return hostError(&op, "casts only tensor maps");
    HostTensorMap value = map->second;
    tensorMaps[cast.getResult(0)] = std::move(value);
    return llvm::Error::success();
  }
  if (auto copyOp = dyn_cast<memref::CopyOp>(op))
    return copy(copyOp);
  if (auto launchOp = dyn_cast<gpu::LaunchFuncOp>(op))
    return launch(launchOp);
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    HostResults returned;
    for (Value v : ret.getOperands()) {
      const HostView *view = lookupView(v);
      if (!view)
        return hostError(&op, "returns a value that is not a buffer");
      if (!isWholeBuffer(*view, cast<MemRefType>(v.getType())))
        return hostError(&op, "returns a view that is not a whole buffer, "
                              "row-major from offset 0 (" +
                                  describeView(*view) + ")");
      returned.buffers.push_back(view->buffer);
      returned.shapes.push_back(view->shape);
    }
    results = std::move(returned);
    return llvm::Error::success();
  }
  if (op.getDialect() && op.getDialect()->getNamespace() == "qmm")
    return llvm::make_error<NotCompiledForGPUError>(
        describeHostOp(&op) +
        ": the AMD pipeline does not compile this op for GPUs yet");
  return hostError(&op, "not supported in host code (expected constants, "
                        "index arithmetic, cf.assert, scf.if, "
                        "memref.alloc/dealloc/copy/dim/subview/"
                        "extract_strided_metadata, reshapes "
                        "and casts, memref.get_global, gpu.memset, "
                        "gpu.launch_func, return)");
}

llvm::Expected<HostResults>
qmm::runHostProgram(func::FuncOp func, KernelLauncher &launcher,
                    HostBuffers &storage,
                    llvm::ArrayRef<std::vector<int64_t>> argumentShapes) {
  return HostInterpreter(launcher, storage).run(func, argumentShapes);
}

llvm::Expected<HostResults>
qmm::runHostProgram(func::FuncOp func, KernelLauncher &launcher,
                    HostBuffers &buffers,
                    llvm::ArrayRef<const host::HostTensor *> args) {
  std::vector<std::vector<int64_t>> shapes;
  for (const host::HostTensor *arg : args) {
    buffers.push_back(host::getDeviceBytes(*arg));
    shapes.push_back(arg->shape);
  }
  return runHostProgram(func, launcher, buffers, shapes);
}

llvm::Expected<OwningOpRef<ModuleOp>>
qmm::compileForGPUDevice(ModuleOp module, llvm::StringRef deviceName,
                         const ChipInfo &chip, llvm::StringRef config,
                         llvm::StringRef function, size_t numArguments,
                         size_t numResults) {
  OwningOpRef<ModuleOp> lowered = module.clone();
  AMDGPUPipelineOptions options{chip.name.str(), "gpu", config.str()};
  if (llvm::Error error = runAMDGPUPipeline(*lowered, options))
    return llvm::make_error<NotCompiledForGPUError>(
        (deviceName + " device: the AMD pipeline failed for " + chip.name +
         ": " + llvm::toString(std::move(error)))
            .str());
  auto func = lowered->lookupSymbol<func::FuncOp>(function);
  if (!func || func.getNumArguments() != numArguments ||
      func.getNumResults() != numResults)
    return llvm::createStringError(
        "no function @%s taking %zu buffers and returning %zu",
        function.str().c_str(), numArguments, numResults);
  return lowered;
}

llvm::Expected<std::vector<host::HostTensor>>
qmm::collectResults(const HostBuffers &buffers, const HostResults &returned,
                    llvm::ArrayRef<TensorSpec> results) {
  std::vector<host::HostTensor> tensors;
  for (auto [index, shape, spec] :
       llvm::zip(returned.buffers, returned.shapes, results)) {
    std::vector<int64_t> extents = spec.shape;
    if (extents.size() != shape.size())
      return llvm::createStringError(
          "a result has rank %zu, the caller expects rank %zu", shape.size(),
          extents.size());
    for (size_t d = 0; d < extents.size(); ++d) {
      if (ShapedType::isDynamic(extents[d]))
        extents[d] = shape[d];
      else if (extents[d] != shape[d])
        return llvm::createStringError(
            "a result has extent %lld along dimension %zu, the caller "
            "expects %lld",
            (long long)shape[d], d, (long long)extents[d]);
    }
    llvm::Expected<host::HostTensor> out =
        host::fromDeviceBytes(spec.elementType, extents, buffers[index]);
    if (!out)
      return out.takeError();
    tensors.push_back(std::move(*out));
  }
  return tensors;
}

llvm::Error
qmm::checkNoNvidiaLaunchFeatures(gpu::GPUFuncOp kernel,
                                 const LaunchGeometry &geometry,
                                 llvm::ArrayRef<HostKernelArgument> args) {
  bool tensorMaps = llvm::any_of(
      args, [](const HostKernelArgument &arg) { return arg.tensorMap; });
  const char *feature = tensorMaps                    ? "TMA tensor maps"
                        : geometry.hasCluster()       ? "a thread-block cluster"
                        : geometry.dynamicSharedBytes ? "dynamic shared memory"
                                                      : nullptr;
  if (!feature)
    return llvm::Error::success();
  return llvm::createStringError(
      "kernel @" + kernel.getName().str() + " takes " + feature +
      ": an NVIDIA kernel, which this device cannot launch");
}
