//===- CPUDevice.cpp - the reference lowering JIT-compiled for the host ---===//

#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::qmm;
using host::HostTensor;

namespace {
/// A memref descriptor of any rank in MLIR's C layout (StridedMemRefType):
/// allocated and aligned pointers, offset, sizes[rank], strides[rank], as
/// 64-bit words.
struct MemRefDescriptor {
  std::vector<int64_t> words;

  explicit MemRefDescriptor(size_t rank) : words(3 + 2 * rank, 0) {}
  size_t rank() const { return (words.size() - 3) / 2; }
  void *allocated() const { return reinterpret_cast<void *>(words[0]); }
  const uint8_t *aligned() const {
    return reinterpret_cast<const uint8_t *>(words[1]);
  }
  int64_t offset() const { return words[2]; }
  int64_t size(size_t d) const { return words[3 + d]; }
  int64_t stride(size_t d) const { return words[3 + rank() + d]; }
};

/// A dense row-major descriptor of `buffer`.
MemRefDescriptor describe(std::vector<uint8_t> &buffer,
                          llvm::ArrayRef<int64_t> shape) {
  MemRefDescriptor descriptor(shape.size());
  descriptor.words[0] = reinterpret_cast<int64_t>(buffer.data());
  descriptor.words[1] = reinterpret_cast<int64_t>(buffer.data());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    descriptor.words[3 + d] = shape[d];
    descriptor.words[3 + shape.size() + d] = stride;
    stride *= shape[d];
  }
  return descriptor;
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
        os << diag.getLocation() << ": " << diag << "\n";
        return success();
      });
      if (llvm::Error error = specializeToArguments(func, args, diagnostics))
        return std::move(error);
      PassManager pm(ctx);
      if (failed(buildCPUPipeline(pm)) || failed(pm.run(*lowered)))
        return llvm::createStringError("cpu device: lowering failed: %s",
                                       diagnostics.c_str());
    }

    // options.transformer is a function_ref: the transformer it refers to
    // must outlive create() (found by ASan: a temporary died first).
    std::function<llvm::Error(llvm::Module *)> optimize =
        makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                  /*targetMachine=*/nullptr);
    ExecutionEngineOptions options;
    options.transformer = optimize;
    auto engine = ExecutionEngine::create(*lowered, options);
    if (!engine)
      return engine.takeError();

    // Our copies of the inputs: the function may write `init` in place.
    std::vector<std::vector<uint8_t>> buffers;
    for (const HostTensor *arg : args)
      buffers.push_back(arg->bytes);

    RunResult result;
    std::string entry = "_mlir_ciface_" + function.str();
    double totalSeconds = 0;
    for (int run = 0; run <= iterations; ++run) {
      // Fresh inputs every call: the function may write them in place.
      for (size_t i = 0; i < args.size(); ++i)
        buffers[i] = args[i]->bytes;
      std::vector<MemRefDescriptor> descriptors;
      for (size_t i = 0; i < args.size(); ++i)
        descriptors.push_back(describe(buffers[i], args[i]->shape));
      // The C interface returns all results through one leading pointer to
      // a struct of their descriptors, one after the other.
      std::vector<int64_t> returned;
      for (const TensorSpec &spec : results)
        returned.resize(returned.size() + 3 + 2 * spec.shape.size());
      std::vector<void *> pointers = {returned.data()};
      for (MemRefDescriptor &descriptor : descriptors)
        pointers.push_back(descriptor.words.data());
      std::vector<void *> packed;
      for (void *&pointer : pointers)
        packed.push_back(&pointer);

      auto start = std::chrono::steady_clock::now();
      if (llvm::Error error = (*engine)->invokePacked(entry, packed))
        return std::move(error);
      auto stop = std::chrono::steady_clock::now();
      if (run > 0)
        totalSeconds += std::chrono::duration<double>(stop - start).count();

      size_t at = 0;
      llvm::Error mismatch = llvm::Error::success();
      for (size_t i = 0; i < results.size(); ++i) {
        MemRefDescriptor output(results[i].shape.size());
        std::copy_n(returned.begin() + at, output.words.size(),
                    output.words.begin());
        at += output.words.size();
        if (run == iterations && !mismatch) {
          // The result's extents are the returned ones (a dynamic M); the
          // caller's static extents must agree.
          std::vector<int64_t> shape;
          for (size_t d = 0; d < output.rank(); ++d) {
            int64_t expected = results[i].shape[d];
            if (expected >= 0 && expected != output.size(d))
              mismatch = llvm::createStringError(
                  "cpu device: result %zu has extent %lld along dimension "
                  "%zu, the caller expects %lld",
                  i, (long long)output.size(d), d, (long long)expected);
            shape.push_back(output.size(d));
          }
          result.results.emplace_back(results[i].elementType, shape);
          copyOutput(output, result.results.back());
        }
        releaseOutput(output, buffers);
      }
      if (mismatch)
        return std::move(mismatch);
    }
    result.iterations = iterations;
    result.secondsPerIteration = iterations ? totalSeconds / iterations : 0;
    return result;
  }

private:
  /// A function whose arguments have dynamic extents (a dynamic M) is
  /// specialized to the call: each such argument takes the static type of
  /// the tensor passed (a tensor.cast back to the declared type feeds the
  /// body), canonicalization folds the casts into the ops and the extents
  /// into constants, and the verifier then checks every extent the call
  /// implies: a mismatched call is a diagnostic, not a read past a buffer.
  /// The reference lowering runs on the static program (the cpu device
  /// compiles at every call).
  static llvm::Error
  specializeToArguments(func::FuncOp func,
                        llvm::ArrayRef<const HostTensor *> args,
                        const std::string &diagnostics) {
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    bool specialized = false;
    SmallVector<Type> argTypes;
    for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
      argTypes.push_back(arg.getType());
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      llvm::ArrayRef<int64_t> shape = args[i]->shape;
      bool agrees = int64_t(shape.size()) == type.getRank();
      for (size_t d = 0; agrees && d < shape.size(); ++d)
        agrees = type.isDynamicDim(d) || type.getDimSize(d) == shape[d];
      if (!agrees) {
        std::string expected, actual;
        llvm::raw_string_ostream e(expected), a(actual);
        e << type;
        llvm::interleave(shape, a, "x");
        return llvm::createStringError(
            "cpu device: argument %zu has shape %s, @%s takes %s", i,
            actual.c_str(), func.getName().str().c_str(), expected.c_str());
      }
      if (type.hasStaticShape())
        continue;
      auto staticType = RankedTensorType::get(shape, type.getElementType());
      arg.setType(staticType);
      argTypes.back() = staticType;
      auto cast = tensor::CastOp::create(b, func.getLoc(), type, arg);
      arg.replaceAllUsesExcept(cast.getResult(), cast);
      specialized = true;
    }
    if (!specialized)
      return llvm::Error::success();
    func.setType(FunctionType::get(func.getContext(), argTypes,
                                   func.getResultTypes()));
    PassManager pm(func.getContext());
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(func->getParentOfType<ModuleOp>())) ||
        failed(verify(func)))
      return llvm::createStringError(
          "cpu device: the call's shapes do not fit @%s: %s",
          func.getName().str().c_str(), diagnostics.c_str());
    return llvm::Error::success();
  }

  static void copyOutput(const MemRefDescriptor &output, HostTensor &into) {
    unsigned bytes = into.getElementBytes();
    const uint8_t *base = output.aligned() + output.offset() * bytes;
    int64_t count = into.getNumElements();
    for (int64_t i = 0; i < count; ++i) {
      // Element i of the dense result, at its strided place in the output.
      int64_t rest = i, offset = 0;
      for (size_t d = output.rank(); d-- > 0;) {
        offset += (rest % output.size(d)) * output.stride(d);
        rest /= output.size(d);
      }
      std::memcpy(into.bytes.data() + i * bytes, base + offset * bytes,
                  bytes);
    }
  }

  /// A returned buffer that is not one of ours was malloc'ed by the kernel.
  static void releaseOutput(const MemRefDescriptor &output,
                            std::vector<std::vector<uint8_t>> &buffers) {
    for (std::vector<uint8_t> &buffer : buffers)
      if (output.allocated() == buffer.data())
        return;
    std::free(output.allocated());
  }
};
} // namespace

std::unique_ptr<Device> qmm::createCPUDevice() {
  return std::make_unique<CPUDevice>();
}
