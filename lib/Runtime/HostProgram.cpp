//===- HostProgram.cpp - the host side of a compiled qmm function ---------===//

#include "qmm/Runtime/HostProgram.h"

#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

llvm::Expected<std::vector<size_t>>
qmm::runHostProgram(func::FuncOp func, KernelLauncher &launcher,
                    HostBuffers &storage) {
  llvm::DenseMap<Value, size_t> buffers;
  llvm::DenseMap<Value, uint64_t> scalars;
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    buffers[arg] = i;
  if (!func.getBody().hasOneBlock())
    return hostError(func, "the host function must be one block");
  for (Operation &op : func.getBody().front()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto value = dyn_cast<IntegerAttr>(constant.getValue())) {
        scalars[constant] = value.getValue().getZExtValue();
        continue;
      }
      if (auto value = dyn_cast<FloatAttr>(constant.getValue())) {
        scalars[constant] =
            value.getValue().bitcastToAPInt().getZExtValue();
        continue;
      }
      return hostError(&op, "only scalar constants are supported");
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape() ||
          !alloc.getType().getLayout().isIdentity())
        return hostError(&op, "needs a static, dense buffer type");
      // memref.alloc leaves its contents undefined: a recognizable
      // pattern, not zeros, so that a program relying on them (instead of
      // gpu.memset) shows.
      storage.emplace_back(getBufferBytes(alloc.getType()),
                           kUninitializedByte);
      buffers[alloc] = storage.size() - 1;
      continue;
    }
    if (isa<memref::DeallocOp>(op))
      continue;
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
      if (!value || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || bits % 8 != 0)
        return hostError(&op, "reads dense constants of byte-sized "
                              "elements only");
      std::vector<uint8_t> bytes(getBufferBytes(type));
      ArrayRef<char> raw = value.getRawData();
      for (size_t at = 0; at < bytes.size(); ++at)
        bytes[at] = uint8_t(raw[value.isSplat() ? at % raw.size() : at]);
      storage.push_back(std::move(bytes));
      buffers[get] = storage.size() - 1;
      continue;
    }
    if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
      auto to = buffers.find(memset.getDst());
      auto value = scalars.find(memset.getValue());
      auto type = cast<MemRefType>(memset.getDst().getType());
      unsigned bits = type.getElementTypeBitWidth();
      if (to == buffers.end() || value == scalars.end() ||
          !memset.getAsyncDependencies().empty() || memset.getAsyncToken() ||
          bits % 8 != 0 || bits > 64)
        return hostError(&op, "fills whole buffers with a constant of a "
                              "byte-sized element type, synchronously, only");
      std::vector<uint8_t> &bytes = storage[to->second];
      size_t width = bits / 8;
      for (size_t at = 0; at + width <= bytes.size(); at += width)
        for (size_t i = 0; i < width; ++i) // little-endian, as the GPU
          bytes[at + i] = uint8_t(value->second >> (8 * i));
      continue;
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
      buffers[op.getResult(0)] = from->second;
      continue;
    }
    if (auto copyOp = dyn_cast<memref::CopyOp>(op)) {
      auto from = buffers.find(copyOp.getSource());
      auto to = buffers.find(copyOp.getTarget());
      auto fromType = dyn_cast<MemRefType>(copyOp.getSource().getType());
      auto toType = dyn_cast<MemRefType>(copyOp.getTarget().getType());
      if (from == buffers.end() || to == buffers.end() || !fromType ||
          !toType || !fromType.getLayout().isIdentity() ||
          !toType.getLayout().isIdentity() ||
          getBufferBytes(fromType) != getBufferBytes(toType))
        return hostError(&op, "copies whole dense buffers only");
      storage[to->second] = storage[from->second];
      continue;
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel)
        return hostError(&op, "kernel not found");
      auto extent = [&](Value v) -> std::optional<int64_t> {
        auto it = scalars.find(v);
        if (it == scalars.end())
          return std::nullopt;
        return int64_t(it->second);
      };
      std::array<int64_t, 3> grid, block;
      gpu::KernelDim3 g = launch.getGridSizeOperandValues(),
                      b = launch.getBlockSizeOperandValues();
      Value dims[] = {g.x, g.y, g.z, b.x, b.y, b.z};
      for (int i = 0; i < 6; ++i) {
        std::optional<int64_t> e = extent(dims[i]);
        if (!e)
          return hostError(&op, "grid and block sizes must be constants");
        (i < 3 ? grid[i] : block[i - 3]) = *e;
      }
      std::vector<HostKernelArgument> args;
      for (Value operand : launch.getKernelOperands()) {
        HostKernelArgument arg;
        if (auto it = buffers.find(operand); it != buffers.end()) {
          arg.isBuffer = true;
          arg.buffer = it->second;
        } else if (auto it = scalars.find(operand); it != scalars.end()) {
          arg.scalarBits = it->second;
        } else {
          return hostError(&op, "a kernel operand is neither a buffer nor a "
                                "constant");
        }
        args.push_back(arg);
      }
      if (llvm::Error error = launcher.launch(kernel, grid, block, args))
        return std::move(error);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      std::vector<size_t> results;
      for (Value v : ret.getOperands()) {
        auto it = buffers.find(v);
        if (it == buffers.end())
          return hostError(&op, "returns a value that is not a buffer");
        results.push_back(it->second);
      }
      return results;
    }
    if (op.getDialect() && op.getDialect()->getNamespace() == "qmm")
      return llvm::make_error<NotCompiledForGPUError>(
          describeHostOp(&op) +
          ": the AMD pipeline does not compile this op for GPUs yet");
    return hostError(&op, "not supported in host code (expected "
                          "constants, memref.alloc/dealloc/copy, "
                          "memref.get_global, gpu.memset, gpu.launch_func, "
                          "return)");
  }
  return hostError(func, "no return");
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
qmm::collectResults(const HostBuffers &buffers,
                    llvm::ArrayRef<size_t> returned,
                    llvm::ArrayRef<TensorSpec> results) {
  std::vector<host::HostTensor> tensors;
  for (auto [index, spec] : llvm::zip(returned, results)) {
    host::HostTensor out(spec.elementType, spec.shape);
    if (buffers[index].size() != out.bytes.size())
      return llvm::createStringError("a result has %zu bytes, expected %zu",
                                     buffers[index].size(), out.bytes.size());
    out.bytes = buffers[index];
    tensors.push_back(std::move(out));
  }
  return tensors;
}
