//===- HostOps.cpp - the host ops of a compiled qmm function --------------===//
//
// One handler per host op (registered by op type in HostProgram.cpp):
// index arithmetic, buffers and their views, tensor maps, copies, fills,
// launches and the return.
//
//===----------------------------------------------------------------------===//

#include "HostInterpreter.h"

#include "qmm/Conversion/Utils.h"
#include "qmm/Dialect/QMM/IR/StorageSize.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::hostprog;

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

llvm::Error HostInterpreter::defineConstant(arith::ConstantOp op) {
  if (auto value = dyn_cast<IntegerAttr>(op.getValue())) {
    scalars[op] = value.getValue().getZExtValue();
    return llvm::Error::success();
  }
  if (auto value = dyn_cast<FloatAttr>(op.getValue())) {
    scalars[op] = value.getValue().bitcastToAPInt().getZExtValue();
    return llvm::Error::success();
  }
  return hostError(op, "only scalar constants are supported");
}

llvm::Error HostInterpreter::defineDim(memref::DimOp op) {
  const HostView *source = lookupView(op.getSource());
  std::optional<uint64_t> index = scalar(op.getIndex());
  if (!source || !index || *index >= source->shape.size())
    return hostError(op, "reads an extent of an unknown buffer");
  scalars[op] = uint64_t(source->shape[*index]);
  return llvm::Error::success();
}

llvm::Error HostInterpreter::check(cf::AssertOp op) {
  std::optional<uint64_t> holds = scalar(op.getArg());
  if (!holds)
    return hostError(op, "the condition is not a known scalar");
  if (!*holds)
    return llvm::createStringError("host program: " + op.getMsg().str());
  return llvm::Error::success();
}

llvm::Error HostInterpreter::runIf(scf::IfOp op) {
  std::optional<uint64_t> condition = scalar(op.getCondition());
  if (!condition || op.getNumResults() != 0)
    return hostError(op, "needs a known condition and no results");
  if (*condition)
    return runBlock(*op.thenBlock());
  if (op.elseBlock())
    return runBlock(*op.elseBlock());
  return llvm::Error::success();
}

llvm::Error HostInterpreter::allocate(memref::AllocOp op) {
  std::optional<std::vector<int64_t>> shape =
      resolveValues(op.getType().getShape(), op.getDynamicSizes());
  if (!shape || !op.getType().getLayout().isIdentity())
    return hostError(op, "needs a dense buffer type of known extents");
  // memref.alloc leaves its contents undefined: a recognizable pattern, not
  // zeros, so that a program relying on them (instead of gpu.memset) shows.
  storage.emplace_back(getShapedBufferBytes(op.getType(), *shape),
                       kUninitializedByte);
  std::vector<int64_t> strides = getRowMajorStrides(*shape);
  return defineView(op, op, HostView{storage.size() - 1, 0, *shape, strides});
}

llvm::Error HostInterpreter::defineGlobal(memref::GetGlobalOp op) {
  // A constant of the host code (a unit scale, say): its bytes, as the GPU
  // would read them (little-endian, densely stored).
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      op, op.getNameAttr());
  auto value = global ? dyn_cast_or_null<DenseElementsAttr>(
                            global.getInitialValueAttr())
                      : DenseElementsAttr();
  MemRefType type = op.getType();
  unsigned bits = type.getElementTypeBitWidth();
  if (!value || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      bits % 8 != 0)
    return hostError(op, "reads dense constants of byte-sized elements only");
  std::vector<uint8_t> bytes(getBufferBytes(type));
  ArrayRef<char> raw = value.getRawData();
  for (size_t at = 0; at < bytes.size(); ++at)
    bytes[at] = uint8_t(raw[value.isSplat() ? at % raw.size() : at]);
  storage.push_back(std::move(bytes));
  std::vector<int64_t> shape(type.getShape());
  std::vector<int64_t> strides = getRowMajorStrides(shape);
  return defineView(op, op, HostView{storage.size() - 1, 0, shape, strides});
}

llvm::Error HostInterpreter::fill(gpu::MemsetOp op) {
  if (llvm::Error error = launcher.beforeHostAccess(op))
    return error;
  const HostView *to = lookupView(op.getDst());
  std::optional<uint64_t> value = scalar(op.getValue());
  auto type = cast<MemRefType>(op.getDst().getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (!to || !value || !op.getAsyncDependencies().empty() ||
      op.getAsyncToken() || bits % 8 != 0 || bits > 64)
    return hostError(op, "fills whole buffers with a constant of a "
                         "byte-sized element type, synchronously, only");
  if (!isWholeBuffer(*to, type))
    return hostError(op, "fills whole buffers only, not a view of part of "
                         "one (" +
                             describeView(*to) + ")");
  std::vector<uint8_t> &bytes = storage[to->buffer];
  size_t width = bits / 8;
  for (size_t at = 0; at + width <= bytes.size(); at += width)
    for (size_t i = 0; i < width; ++i) // little-endian, as the GPU
      bytes[at + i] = uint8_t(*value >> (8 * i));
  return llvm::Error::success();
}

llvm::Error
HostInterpreter::defineReinterpretCast(memref::ReinterpretCastOp op) {
  // A view of the source's buffer from its base, whatever the source's own
  // offset (as the op's semantics have it): the base of a dynamic kernel
  // operand (qmm-kernel-size-arguments).
  const HostView *source = lookupView(op.getSource());
  std::optional<std::vector<int64_t>> offsets =
      resolveValues(op.getStaticOffsets(), op.getOffsets());
  std::optional<std::vector<int64_t>> sizes =
      resolveValues(op.getStaticSizes(), op.getSizes());
  std::optional<std::vector<int64_t>> strides =
      resolveValues(op.getStaticStrides(), op.getStrides());
  if (!source || !offsets || offsets->size() != 1 || !sizes || !strides ||
      sizes->size() != strides->size())
    return hostError(op, "views a known buffer at a known offset, extents "
                         "and strides only");
  return defineView(op, op,
                    HostView{source->buffer, (*offsets)[0], *sizes, *strides});
}

llvm::Error
HostInterpreter::defineStridedMetadata(memref::ExtractStridedMetadataOp op) {
  // The offset, extents and strides a kernel takes for an operand of
  // run-time layout (qmm-kernel-size-arguments); the base buffer as the 0-d
  // view of its first element.
  const HostView *found = lookupView(op.getSource());
  if (!found)
    return hostError(op, "reads the layout of an unknown buffer");
  HostView source = *found;
  scalars[op.getOffset()] = uint64_t(source.offset);
  for (auto [size, extent] : llvm::zip(op.getSizes(), source.shape))
    scalars[size] = uint64_t(extent);
  for (auto [stride, step] : llvm::zip(op.getStrides(), source.strides))
    scalars[stride] = uint64_t(step);
  return defineView(op, op.getBaseBuffer(), HostView{source.buffer, 0, {}, {}},
                    "the base buffer");
}

llvm::Error HostInterpreter::defineCast(memref::CastOp op) {
  if (!isa<UnrankedMemRefType>(op.getType()))
    return defineReshape(*op);
  // The unranked view a tensor map is made from: the same view.
  const HostView *source = lookupView(op.getSource());
  if (!source)
    return hostError(op, "casts an unknown buffer");
  views[op.getResult()] = *source;
  return llvm::Error::success();
}

llvm::Error
HostInterpreter::defineTensorMapCast(UnrealizedConversionCastOp op) {
  auto map = op.getNumOperands() == 1 && op.getNumResults() == 1
                 ? tensorMaps.find(op.getOperand(0))
                 : tensorMaps.end();
  if (map == tensorMaps.end())
    return hostError(op, "casts only tensor maps");
  HostTensorMap value = map->second;
  tensorMaps[op.getResult(0)] = std::move(value);
  return llvm::Error::success();
}

llvm::Error HostInterpreter::finish(func::ReturnOp op) {
  HostResults returned;
  for (Value v : op.getOperands()) {
    const HostView *view = lookupView(v);
    if (!view)
      return hostError(op, "returns a value that is not a buffer");
    if (!isWholeBuffer(*view, cast<MemRefType>(v.getType())))
      return hostError(op, "returns a view that is not a whole buffer, "
                           "row-major from offset 0 (" +
                               describeView(*view) + ")");
    returned.buffers.push_back(view->buffer);
    returned.shapes.push_back(view->shape);
  }
  results = std::move(returned);
  return llvm::Error::success();
}
