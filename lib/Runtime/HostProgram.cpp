//===- HostProgram.cpp - the host side of a compiled qmm function ---------===//

#include "qmm/Runtime/HostProgram.h"

#include "HostInterpreter.h"

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
using namespace mlir::qmm::hostprog;

KernelLauncher::~KernelLauncher() = default;

std::string hostprog::describeHostOp(Operation *op) {
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  return ("host program: '" + op->getName().getStringRef() + "' at " +
          location)
      .str();
}

llvm::Error hostprog::hostError(Operation *op,
                                const llvm::Twine &message) {
  return llvm::createStringError(describeHostOp(op) + ": " + message);
}

size_t hostprog::getShapedBufferBytes(MemRefType type,
                                      llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return getStorageBytes(1, type.getElementType());
  int64_t rows = 1;
  for (int64_t extent : shape.drop_back())
    rows *= extent;
  return rows * getStorageBytes(shape.back(), type.getElementType());
}

std::vector<int64_t>
hostprog::getRowMajorStrides(llvm::ArrayRef<int64_t> shape) {
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

std::string hostprog::describeView(const HostView &view) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "extents [";
  llvm::interleaveComma(view.shape, os);
  os << "], strides [";
  llvm::interleaveComma(view.strides, os);
  os << "], offset " << view.offset;
  return text;
}

llvm::Error hostprog::checkViewType(Operation *op, const llvm::Twine &what,
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
         getShapedBufferBytes(type, view.shape) == storage[view.buffer].size();
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
    if (storage[i].size() != getShapedBufferBytes(type, shape))
      return hostError(func, "argument #" + llvm::Twine(i) + " has " +
                                 llvm::Twine(storage[i].size()) +
                                 " bytes, its shape needs " +
                                 llvm::Twine(getShapedBufferBytes(type, shape)));
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

const HostOpRegistry &HostInterpreter::getRegistry() {
  static const HostOpRegistry registry = [] {
    HostOpRegistry r;
    r.add<arith::ConstantOp>(
        dispatch<arith::ConstantOp, &HostInterpreter::defineConstant>);
    r.add<memref::DimOp>(dispatch<memref::DimOp, &HostInterpreter::defineDim>);
    r.add<cf::AssertOp>(dispatch<cf::AssertOp, &HostInterpreter::check>);
    r.add<scf::IfOp>(dispatch<scf::IfOp, &HostInterpreter::runIf>);
    r.add<scf::YieldOp, memref::DeallocOp>(ignore);
    r.add<memref::AllocOp>(
        dispatch<memref::AllocOp, &HostInterpreter::allocate>);
    r.add<memref::GetGlobalOp>(
        dispatch<memref::GetGlobalOp, &HostInterpreter::defineGlobal>);
    r.add<gpu::MemsetOp>(dispatch<gpu::MemsetOp, &HostInterpreter::fill>);
    r.add<memref::SubViewOp>(
        dispatch<memref::SubViewOp, &HostInterpreter::defineSubView>);
    r.add<memref::ReinterpretCastOp>(
        dispatch<memref::ReinterpretCastOp,
                 &HostInterpreter::defineReinterpretCast>);
    r.add<memref::ExtractStridedMetadataOp>(
        dispatch<memref::ExtractStridedMetadataOp,
                 &HostInterpreter::defineStridedMetadata>);
    r.add<memref::CastOp>(
        dispatch<memref::CastOp, &HostInterpreter::defineCast>);
    r.add<memref::ExpandShapeOp, memref::CollapseShapeOp>(
        [](HostInterpreter &interpreter, Operation &op) {
          return interpreter.defineReshape(op);
        });
    r.add<nvgpu::TmaCreateDescriptorOp>(
        dispatch<nvgpu::TmaCreateDescriptorOp,
                 &HostInterpreter::defineTensorMap>);
    r.add<UnrealizedConversionCastOp>(
        dispatch<UnrealizedConversionCastOp,
                 &HostInterpreter::defineTensorMapCast>);
    r.add<memref::CopyOp>(dispatch<memref::CopyOp, &HostInterpreter::copy>);
    r.add<gpu::LaunchFuncOp>(
        dispatch<gpu::LaunchFuncOp, &HostInterpreter::launch>);
    r.add<func::ReturnOp>(
        dispatch<func::ReturnOp, &HostInterpreter::finish>);
    return r;
  }();
  return registry;
}

llvm::Error HostInterpreter::runOp(Operation &op) {
  if (HostOpRegistry::Handler handler = getRegistry().lookup(op.getName()))
    return handler(*this, op);
  if (isHostScalarOp(&op))
    return defineScalarOp(op);
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
