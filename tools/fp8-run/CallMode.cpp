//===- CallMode.cpp - fp8-run FILE --function: call one function ----------===//
//
// fp8-run PROGRAM.mlir --function NAME --arg a.npy --arg sa.npy ...
//         --device cpu|emu|hip|auto --chip C [--config ...] --out DIR
//
// Calls any function of a program whose arguments and results are ranked
// tensors of the runtime's element types, as the Python API's qmm.run does:
// a linalg program as it is on the cpu device, the program raised to qmm
// on the emulator, both from the same files (the frontend lowering's
// differential test, fuzz/linalg_differential.py). Arguments are .npy
// files in fp8-run's convention (8-bit formats as uint8 bit patterns,
// FP4/FP6 packed, f16/bf16 as the float32 values they hold); a dynamic
// extent takes the file's. Results are written to DIR/result<N>.npy the
// same way. Exit codes: 0 success, 1 the device could not compile or run
// the program, 2 bad input (one error line).
//
//===----------------------------------------------------------------------===//

#include "LaunchMode.h"
#include "Runner.h"

#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostTensor.h"
#include "qmm/Support/NestingLimit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::fp8run;

/// The fp8-run flags call mode reads (the input file is positional).
static const llvm::StringRef kCallModeFlags[] = {
    "function", "arg",         "out",
    "device",   "chip",        "config",
    "emu-max-ops", "emu-workgroup-order"};

/// The runtime element type of a tensor argument or result; bad input for
/// other types.
static ElementType getTensorElementType(Type type, const llvm::Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    fail(what + ": " + getTypeName(type) + " is not a ranked tensor");
  std::optional<ElementType> element = getElementType(tensor.getElementType());
  if (!element)
    fail(what + ": element type " + getTypeName(tensor.getElementType()) +
         " is not supported by the runtime");
  return *element;
}

/// Argument `index` of `type` read from `path`: the tensor's static extents,
/// the file's where they are dynamic (not the packed last extent of FP4/FP6,
/// whose file holds bytes there).
static host::HostTensor readArgument(RankedTensorType type,
                                     ElementType element, unsigned index,
                                     llvm::StringRef path) {
  std::string what = "--arg " + std::to_string(index) + " '" + path.str() +
                     "' (" + getTypeName(type) + ")";
  llvm::Expected<host::NpyArray> array = host::readNpyArray(path);
  if (!array)
    fail(what + ": " + llvm::toString(array.takeError()));
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  bool packed = getElementBitWidth(element) < 8;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    if ((packed && d + 1 == shape.size()) || array->shape.size() != shape.size())
      fail(what + ": a dynamic extent needs an array of the tensor's rank "
                  "(and packed FP4/FP6 rows a static length)");
    shape[d] = array->shape[d];
  }
  llvm::Expected<host::HostTensor> tensor =
      host::fromNpyArray(*array, element, shape);
  if (!tensor)
    fail(what + ": " + llvm::toString(tensor.takeError()));
  return std::move(*tensor);
}

static OwningOpRef<ModuleOp> parseProgram(MLIRContext &context,
                                          llvm::StringRef path) {
  std::string error;
  auto file = openInputFile(path, &error);
  if (!file)
    fail("cannot read '" + path + "': " + error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module;
  std::string message = captureDiagnostics(
      &context,
      [&] { module = parseModuleWithinLimits(sourceMgr, &context); },
      /*withLocation=*/true);
  if (!module)
    fail(message);
  verifyOrFail(*module, path);
  return module;
}

int mlir::qmm::runCallMode(MLIRContext &context, const ChipInfo &chip,
                           const LaunchRequest &request) {
  if (request.flags)
    if (std::optional<std::string> unused =
            findUnusedFlag(*request.flags, kCallModeFlags,
                           "call mode (--function)"))
      fail(*unused);
  OwningOpRef<ModuleOp> module = parseProgram(context, request.modulePath);
  auto func = module->lookupSymbol<func::FuncOp>(request.functionName);
  if (!func || func.isExternal())
    fail("no function @" + request.functionName + " in '" +
         request.modulePath + "'");
  unsigned numArgs = func.getNumArguments();
  if (request.args.size() != numArgs)
    fail("@" + request.functionName + " takes " + llvm::Twine(numArgs) +
         " arguments, " + llvm::Twine(request.args.size()) + " --arg given");

  std::vector<host::HostTensor> args;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    ElementType element =
        getTensorElementType(type, "argument " + llvm::Twine(i));
    args.push_back(readArgument(cast<RankedTensorType>(type), element, i,
                                request.args[i]));
  }
  // Dynamic result extents are the program's to give (the host program
  // knows them once it ran).
  std::vector<TensorSpec> results;
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    ElementType element =
        getTensorElementType(type, "result " + llvm::Twine(i));
    auto shape = cast<RankedTensorType>(type).getShape();
    results.push_back({element, {shape.begin(), shape.end()}});
  }

  llvm::Expected<std::unique_ptr<Device>> device =
      createDevice(request.device, chip, request.config);
  if (!device)
    fail(llvm::toString(device.takeError()));
  llvm::SmallVector<const host::HostTensor *> pointers;
  for (const host::HostTensor &tensor : args)
    pointers.push_back(&tensor);
  llvm::Expected<std::unique_ptr<CompiledProgram>> compiled =
      (*device)->compile(*module, request.functionName, numArgs,
                         results.size());
  llvm::Expected<RunResult> ran =
      compiled ? (*compiled)->run(pointers, results, /*iterations=*/0)
               : llvm::Expected<RunResult>(compiled.takeError());
  if (!ran) {
    // One line, whatever the message (diagnostics may carry notes).
    std::string message = llvm::toString(ran.takeError());
    llvm::errs() << "fp8-run: error: "
                 << llvm::StringRef(message).split('\n').first << "\n";
    return 1;
  }

  if (!request.outDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(request.outDir))
      fail("--out: cannot create '" + request.outDir + "': " + ec.message());
    for (auto [i, tensor] : llvm::enumerate(ran->results)) {
      llvm::SmallString<128> path(request.outDir);
      llvm::sys::path::append(path, "result" + std::to_string(i) + ".npy");
      if (llvm::Error error = host::writeNpy(path, tensor))
        fail(llvm::toString(std::move(error)));
    }
  }
  llvm::outs() << "@" << request.functionName << " ran on "
               << (*device)->getName() << ": " << ran->results.size()
               << " result(s)\n";
  return 0;
}
