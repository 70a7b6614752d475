//===- HostProgram.cpp - the host side of a compiled qmm function ---------===//

#include "qmm/Runtime/HostProgram.h"

#include "qmm/Conversion/Utils.h"
#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "qmm/Dialect/QMM/IR/StorageSize.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::qmm;

KernelLauncher::~KernelLauncher() = default;

/// The bytes of a memref.alloc before anything writes them.
constexpr uint8_t kUninitializedByte = 0xA5;

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
/// Walks a host function: buffers (by index into the run's storage, with
/// their shapes), index and integer scalars, and the launches.
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
  std::optional<uint64_t> scalar(Value v) const {
    auto it = scalars.find(v);
    if (it == scalars.end())
      return std::nullopt;
    return it->second;
  }
  /// The shape of a memref result: its static extents, the dynamic ones
  /// from `dynamicSizes` in order.
  std::optional<std::vector<int64_t>>
  resolveShape(MemRefType type, ValueRange dynamicSizes) const {
    std::vector<int64_t> shape;
    auto next = dynamicSizes.begin();
    for (int64_t extent : type.getShape()) {
      if (!ShapedType::isDynamic(extent)) {
        shape.push_back(extent);
        continue;
      }
      if (next == dynamicSizes.end())
        return std::nullopt;
      std::optional<uint64_t> value = scalar(*next++);
      if (!value)
        return std::nullopt;
      shape.push_back(int64_t(*value));
    }
    return shape;
  }
  void defineBuffer(Value value, size_t index, std::vector<int64_t> shape) {
    buffers[value] = index;
    shapes[value] = std::move(shape);
  }

  KernelLauncher &launcher;
  HostBuffers &storage;
  llvm::DenseMap<Value, size_t> buffers;
  llvm::DenseMap<Value, std::vector<int64_t>> shapes;
  llvm::DenseMap<Value, uint64_t> scalars;
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
    defineBuffer(arg, i, shape);
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
    auto shape = shapes.find(dim.getSource());
    std::optional<uint64_t> index = scalar(dim.getIndex());
    if (shape == shapes.end() || !index || *index >= shape->second.size())
      return hostError(&op, "reads an extent of an unknown buffer");
    scalars[dim] = uint64_t(shape->second[*index]);
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
        resolveShape(alloc.getType(), alloc.getDynamicSizes());
    if (!shape || !alloc.getType().getLayout().isIdentity())
      return hostError(&op, "needs a dense buffer type of known extents");
    // memref.alloc leaves its contents undefined: a recognizable
    // pattern, not zeros, so that a program relying on them (instead of
    // gpu.memset) shows.
    storage.emplace_back(getBufferBytes(alloc.getType(), *shape),
                         kUninitializedByte);
    defineBuffer(alloc, storage.size() - 1, *shape);
    return llvm::Error::success();
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
    defineBuffer(get, storage.size() - 1, std::vector<int64_t>(type.getShape()));
    return llvm::Error::success();
  }
  if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
    auto to = buffers.find(memset.getDst());
    std::optional<uint64_t> value = scalar(memset.getValue());
    auto type = cast<MemRefType>(memset.getDst().getType());
    unsigned bits = type.getElementTypeBitWidth();
    if (to == buffers.end() || !value ||
        !memset.getAsyncDependencies().empty() || memset.getAsyncToken() ||
        bits % 8 != 0 || bits > 64)
      return hostError(&op, "fills whole buffers with a constant of a "
                            "byte-sized element type, synchronously, only");
    std::vector<uint8_t> &bytes = storage[to->second];
    size_t width = bits / 8;
    for (size_t at = 0; at + width <= bytes.size(); at += width)
      for (size_t i = 0; i < width; ++i) // little-endian, as the GPU
        bytes[at + i] = uint8_t(*value >> (8 * i));
    return llvm::Error::success();
  }
  if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op)) {
    // The base of a dynamic kernel operand (qmm-kernel-size-arguments): the
    // same bytes, viewed from offset 0 with row-major strides.
    auto from = buffers.find(cast.getSource());
    std::optional<std::vector<int64_t>> shape =
        resolveShape(cast.getType(), cast.getSizes());
    bool zeroOffset = cast.getStaticOffsets().size() == 1 &&
                      cast.getStaticOffsets()[0] == 0;
    if (from == buffers.end() || !shape || !zeroOffset ||
        getBufferBytes(cast.getType(), *shape) >
            storage[from->second].size())
      return hostError(&op, "views a known buffer from offset 0, within "
                            "its bytes, only");
    defineBuffer(cast, from->second, *shape);
    return llvm::Error::success();
  }
  if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
          op)) {
    // A reshape of a dense buffer is the same bytes (how the frontend
    // lowering's scale vectors become [rows, 1] tensors).
    auto from = buffers.find(op.getOperand(0));
    auto type = cast<MemRefType>(op.getResult(0).getType());
    if (from == buffers.end() || !type.getLayout().isIdentity() ||
        !cast<MemRefType>(op.getOperand(0).getType())
             .getLayout()
             .isIdentity())
      return hostError(&op, "reshapes whole dense buffers only");
    const std::vector<int64_t> &source = shapes[op.getOperand(0)];
    std::optional<std::vector<int64_t>> shape;
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(op))
      shape = resolveShape(type, expand.getOutputShape());
    else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
      shape.emplace();
      for (const ReassociationIndices &group :
           collapse.getReassociationIndices()) {
        int64_t extent = 1;
        for (int64_t d : group)
          extent *= source[d];
        shape->push_back(extent);
      }
    } else {
      shape = source; // a cast keeps the extents, which must fit its type
      for (auto [extent, declared] : llvm::zip(source, type.getShape()))
        if (!ShapedType::isDynamic(declared) && extent != declared)
          return hostError(&op, "casts a buffer of extent " +
                                    llvm::Twine(extent) + " to " +
                                    llvm::Twine(declared));
    }
    if (!shape)
      return hostError(&op, "the reshape's extents are not known");
    defineBuffer(op.getResult(0), from->second, *shape);
    return llvm::Error::success();
  }
  if (auto copyOp = dyn_cast<memref::CopyOp>(op)) {
    auto from = buffers.find(copyOp.getSource());
    auto to = buffers.find(copyOp.getTarget());
    auto fromType = dyn_cast<MemRefType>(copyOp.getSource().getType());
    auto toType = dyn_cast<MemRefType>(copyOp.getTarget().getType());
    if (from == buffers.end() || to == buffers.end() || !fromType ||
        !toType || !fromType.getLayout().isIdentity() ||
        !toType.getLayout().isIdentity() ||
        storage[from->second].size() != storage[to->second].size())
      return hostError(&op, "copies whole dense buffers only");
    storage[to->second] = storage[from->second];
    return llvm::Error::success();
  }
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel)
      return hostError(&op, "kernel not found");
    std::array<int64_t, 3> grid, block;
    gpu::KernelDim3 g = launch.getGridSizeOperandValues(),
                    b = launch.getBlockSizeOperandValues();
    Value dims[] = {g.x, g.y, g.z, b.x, b.y, b.z};
    for (int i = 0; i < 6; ++i) {
      std::optional<uint64_t> e = scalar(dims[i]);
      if (!e)
        return hostError(&op, "grid and block sizes must be known scalars");
      (i < 3 ? grid[i] : block[i - 3]) = int64_t(*e);
    }
    std::vector<HostKernelArgument> args;
    for (Value operand : launch.getKernelOperands()) {
      HostKernelArgument arg;
      if (auto it = buffers.find(operand); it != buffers.end()) {
        arg.isBuffer = true;
        arg.buffer = it->second;
      } else if (std::optional<uint64_t> bits = scalar(operand)) {
        arg.scalarBits = *bits;
      } else {
        return hostError(&op, "a kernel operand is neither a buffer nor a "
                              "known scalar");
      }
      args.push_back(arg);
    }
    return launcher.launch(kernel, grid, block, args);
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    HostResults returned;
    for (Value v : ret.getOperands()) {
      auto it = buffers.find(v);
      if (it == buffers.end())
        return hostError(&op, "returns a value that is not a buffer");
      returned.buffers.push_back(it->second);
      returned.shapes.push_back(shapes[v]);
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
                        "memref.alloc/dealloc/copy/dim, reshapes and casts, "
                        "memref.get_global, gpu.memset, gpu.launch_func, "
                        "return)");
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
    for (size_t d = 0; d < extents.size() && d < shape.size(); ++d)
      if (ShapedType::isDynamic(extents[d]))
        extents[d] = shape[d];
    host::HostTensor out(spec.elementType, extents);
    if (buffers[index].size() != out.bytes.size())
      return llvm::createStringError("a result has %zu bytes, expected %zu",
                                     buffers[index].size(), out.bytes.size());
    out.bytes = buffers[index];
    tensors.push_back(std::move(out));
  }
  return tensors;
}
