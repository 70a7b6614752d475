//===- CPUDevice.cpp - the reference lowering JIT-compiled for the host ---===//

#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::qmm;
using host::HostTensor;

namespace {
/// The C layout of a rank-2 memref descriptor (MLIR's StridedMemRefType).
struct MemRefDescriptor2D {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

MemRefDescriptor2D describe(std::vector<uint8_t> &buffer,
                            llvm::ArrayRef<int64_t> shape) {
  return {buffer.data(), buffer.data(), 0, {shape[0], shape[1]},
          {shape[1], 1}};
}

class CPUDevice : public Device {
public:
  llvm::StringRef getName() const override { return "cpu"; }

  llvm::Expected<RunResult> run(ModuleOp module, llvm::StringRef function,
                                llvm::ArrayRef<const HostTensor *> args,
                                llvm::ArrayRef<TensorSpec> results,
                                int iterations) override {
    MLIRContext *ctx = module.getContext();
    DialectRegistry registry;
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    ctx->appendDialectRegistry(registry);
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();

    OwningOpRef<ModuleOp> lowered = module.clone();
    auto func = lowered->lookupSymbol<func::FuncOp>(function);
    if (!func)
      return llvm::createStringError("no function @%s in the module",
                                     function.str().c_str());
    if (func.getNumArguments() != args.size() ||
        func.getNumResults() != results.size())
      return llvm::createStringError(
          "@%s takes %u arguments and returns %u results; the caller "
          "passes %zu and expects %zu",
          function.str().c_str(), func.getNumArguments(),
          func.getNumResults(), args.size(), results.size());
    func->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));

    std::string diagnostics;
    {
      llvm::raw_string_ostream os(diagnostics);
      ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
        os << diag << "\n";
        return success();
      });
      PassManager pm(ctx);
      if (failed(buildCPUPipeline(pm)) || failed(pm.run(*lowered)))
        return llvm::createStringError("cpu device: lowering failed: %s",
                                       diagnostics.c_str());
    }

    ExecutionEngineOptions options;
    options.transformer = makeOptimizingTransformer(
        /*optLevel=*/2, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
    auto engine = ExecutionEngine::create(*lowered, options);
    if (!engine)
      return engine.takeError();

    // Our copies of the inputs: the function may write `init` in place.
    std::vector<std::vector<uint8_t>> buffers;
    for (const HostTensor *arg : args)
      buffers.push_back(arg->bytes);

    RunResult result;
    for (const TensorSpec &spec : results)
      result.results.emplace_back(spec.elementType, spec.shape);
    std::string entry = "_mlir_ciface_" + function.str();
    double totalSeconds = 0;
    for (int run = 0; run <= iterations; ++run) {
      // Fresh inputs every call: the function may write them in place.
      for (size_t i = 0; i < args.size(); ++i)
        buffers[i] = args[i]->bytes;
      std::vector<MemRefDescriptor2D> descriptors;
      for (size_t i = 0; i < args.size(); ++i)
        descriptors.push_back(describe(buffers[i], args[i]->shape));
      // The C interface returns all results through one leading pointer to
      // a struct of descriptors.
      std::vector<MemRefDescriptor2D> outputs(results.size());
      std::vector<void *> pointers = {outputs.data()};
      for (MemRefDescriptor2D &descriptor : descriptors)
        pointers.push_back(&descriptor);
      std::vector<void *> packed;
      for (void *&pointer : pointers)
        packed.push_back(&pointer);

      auto start = std::chrono::steady_clock::now();
      if (llvm::Error error = (*engine)->invokePacked(entry, packed))
        return std::move(error);
      auto stop = std::chrono::steady_clock::now();
      if (run > 0)
        totalSeconds += std::chrono::duration<double>(stop - start).count();

      for (size_t i = 0; i < outputs.size(); ++i) {
        if (run == iterations)
          copyOutput(outputs[i], result.results[i]);
        releaseOutput(outputs[i], buffers);
      }
    }
    result.iterations = iterations;
    result.secondsPerIteration = iterations ? totalSeconds / iterations : 0;
    return result;
  }

private:
  static void copyOutput(const MemRefDescriptor2D &output, HostTensor &into) {
    unsigned bytes = into.getElementBytes();
    const uint8_t *base =
        static_cast<const uint8_t *>(output.aligned) + output.offset * bytes;
    for (int64_t i = 0; i < output.sizes[0]; ++i)
      for (int64_t j = 0; j < output.sizes[1]; ++j)
        std::memcpy(into.bytes.data() + (i * output.sizes[1] + j) * bytes,
                    base + (i * output.strides[0] + j * output.strides[1]) *
                               bytes,
                    bytes);
  }

  /// A returned buffer that is not one of ours was malloc'ed by the kernel.
  static void releaseOutput(const MemRefDescriptor2D &output,
                            std::vector<std::vector<uint8_t>> &buffers) {
    for (std::vector<uint8_t> &buffer : buffers)
      if (output.allocated == buffer.data())
        return;
    std::free(output.allocated);
  }
};
} // namespace

std::unique_ptr<Device> qmm::createCPUDevice() {
  return std::make_unique<CPUDevice>();
}
