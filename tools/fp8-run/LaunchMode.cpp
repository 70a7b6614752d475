//===- LaunchMode.cpp - fp8-run --module: launch one kernel ---------------===//
//
// fp8-run --device emu --chip gfx942 --module K.mlir --kernel NAME
//         --grid X,Y,Z --block X,Y,Z --arg a.npy --arg i32:5 ... --out DIR
//
// Each --arg is a .npy file matching a memref argument (8-bit types as
// uint8/int8 bit patterns, bf16 as uint16) or a scalar TYPE:VALUE. After the
// launch every memref argument is written to DIR/arg<N>.npy. Bad input
// (malformed or out-of-range values, element types the emulator does not
// hold, launch extents beyond the chip's limits, GEMM-mode flags) is one
// error line and exit code 2.
//
//===----------------------------------------------------------------------===//

#include "LaunchMode.h"

#include "qmm/Dialect/QMM/IR/StorageSize.h"
#include "qmm/Emulator/Emulator.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/HIPRuntime.h"
#include "qmm/Runtime/HostTensor.h"
#include "qmm/Support/NestingLimit.h"
#include "qmm/Target/LaunchLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::qmm;

namespace {
/// One error line, exit code 2 (bad input) or 1 (the kernel failed).
struct Failure {
  int code;
  std::string message;
};
} // namespace

static Failure badInput(const llvm::Twine &message) {
  return {2, message.str()};
}

static bool parseExtents(llvm::StringRef text, std::array<int64_t, 3> &out) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  if (parts.empty() || parts.size() > 3)
    return false;
  out = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].trim().getAsInteger(10, out[i]) || out[i] <= 0)
      return false;
  return true;
}

/// The fp8-run flags launch mode reads.
static const llvm::StringRef kLaunchModeFlags[] = {
    "module", "kernel", "grid",  "block", "arg",        "out",
    "device", "chip",   "stats", "iters", "emu-max-ops",
    "emu-workgroup-order"};


/// numpy dtypes accepted for a memref element type.
static bool dtypeMatches(Type type, llvm::StringRef descr) {
  llvm::StringRef kind = descr.drop_front(1);
  if (type.isF32())
    return kind == "f4";
  if (type.isF64())
    return kind == "f8";
  if (type.isF16())
    return kind == "f2" || kind == "u2" || kind == "i2";
  unsigned bytes = getStorageBytes(1, type);
  if (bytes == 1) // 8-bit and smaller floats and integers: one byte each
    return kind == "u1" || kind == "i1" || kind == "b1";
  return kind == "u" + std::to_string(bytes) ||
         kind == "i" + std::to_string(bytes);
}

static std::string dtypeFor(Type type) {
  if (type.isF32())
    return "<f4";
  if (type.isF64())
    return "<f8";
  if (type.isF16())
    return "<f2";
  unsigned bytes = getStorageBytes(1, type);
  if (bytes == 1)
    return "|u1";
  if (isa<FloatType>(type)) // bf16: bit patterns
    return "<u2";
  return "<i" + std::to_string(bytes);
}

static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

static std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// Parses an integer scalar of `type` (index or an integer type of at most
/// 64 bits): unsigned types take [0, 2^w - 1], signed and signless ones the
/// signed range, i1 0 and 1. Returns its bit pattern.
static std::optional<Failure> parseIntegerScalar(llvm::StringRef text,
                                                 Type type, unsigned index,
                                                 uint64_t &bits) {
  llvm::StringRef digits = text;
  bool negative = digits.consume_front("-");
  llvm::APInt magnitude;
  if (digits.empty() || !llvm::isDigit(digits.front()) ||
      digits.getAsInteger(0, magnitude))
    return badInput("--arg " + llvm::Twine(index) + ": '" + text +
                    "' is not an integer");
  auto integerType = dyn_cast<IntegerType>(type);
  unsigned width = integerType ? integerType.getWidth() : 64;
  // Compare in 66 bits, which hold -2^64 .. 2^64 and every bound.
  constexpr unsigned kBits = 66;
  llvm::APInt minimum(kBits, 0), maximum(kBits, 0);
  if (integerType && integerType.isUnsigned()) {
    maximum = llvm::APInt::getMaxValue(width).zext(kBits);
  } else if (integerType && integerType.isSignless() && width == 1) {
    maximum = llvm::APInt(kBits, 1);
  } else {
    minimum = llvm::APInt::getSignedMinValue(width).sext(kBits);
    maximum = llvm::APInt::getSignedMaxValue(width).sext(kBits);
  }
  bool fits = magnitude.getActiveBits() < kBits;
  llvm::APInt value = magnitude.zextOrTrunc(kBits);
  if (negative)
    value.negate();
  if (!fits || value.slt(minimum) || value.sgt(maximum))
    return badInput("--arg " + llvm::Twine(index) + ": " + text +
                    " is out of range for " + typeText(type) + " [" +
                    llvm::toString(minimum, 10, /*Signed=*/true) + ", " +
                    llvm::toString(maximum, 10, /*Signed=*/true) + "]");
  bits = value.trunc(width).getZExtValue();
  return std::nullopt;
}

static std::optional<Failure>
parseScalar(llvm::StringRef text, Type type, unsigned index, uint64_t &bits) {
  auto [typeName, valueText] = text.split(':');
  std::string expected = typeText(type);
  if (typeName != expected && !(type.isIndex() && typeName == "i64"))
    return badInput("--arg " + llvm::Twine(index) + ": '" + text +
                    "' does not match argument type " + expected);
  if (auto floatType = dyn_cast<FloatType>(type)) {
    double value;
    if (valueText.getAsDouble(value))
      return badInput("--arg " + llvm::Twine(index) + ": '" + valueText +
                      "' is not a number");
    if (!floatType.isF32() && !floatType.isF64())
      return badInput("--arg " + llvm::Twine(index) +
                      ": scalar floats must be f32 or f64");
    if (floatType.isF32()) {
      float f = float(value);
      if (std::isfinite(value) && !std::isfinite(f))
        return badInput("--arg " + llvm::Twine(index) + ": " + valueText +
                        " is out of range for f32");
      uint32_t word;
      std::memcpy(&word, &f, 4);
      bits = word;
    } else {
      std::memcpy(&bits, &value, 8);
    }
    return std::nullopt;
  }
  return parseIntegerScalar(valueText, type, index, bits);
}

std::optional<std::string>
mlir::qmm::findUnusedFlag(const llvm::cl::OptionCategory &category,
                          llvm::ArrayRef<llvm::StringRef> used,
                          llvm::StringRef mode) {
  for (auto [name, option] : llvm::cl::getRegisteredOptions())
    if (option->getNumOccurrences() &&
        llvm::is_contained(option->Categories, &category) &&
        !llvm::is_contained(used, name))
      return ("--" + name + " is not used in " + mode).str();
  return std::nullopt;
}

static std::optional<Failure> launch(MLIRContext &context,
                                     const ChipInfo &chip,
                                     const LaunchRequest &request) {
  if (request.flags)
    if (std::optional<std::string> unused = findUnusedFlag(
            *request.flags, kLaunchModeFlags, "launch mode (--module)"))
      return badInput(*unused);
  if (request.device == DeviceKind::CPU)
    return badInput("unknown device 'cpu' (expected emu, hip or auto)");
  // hip: the runtime and a GPU of the chip must be there. auto: hip when
  // they are, else the emulator.
  std::unique_ptr<HIPRuntime> hip;
  int hipDevice = -1;
  if (request.device != DeviceKind::Emulator) {
    auto runtime = HIPRuntime::load();
    llvm::Expected<int> device =
        runtime ? (*runtime)->findDevice(chip.name)
                : llvm::Expected<int>(runtime.takeError());
    if (device) {
      hip = std::move(*runtime);
      hipDevice = *device;
    } else if (request.device == DeviceKind::HIP) {
      return badInput("--device hip: " + llvm::toString(device.takeError()));
    } else {
      llvm::consumeError(device.takeError());
    }
  }
  if (request.kernelName.empty())
    return badInput("--module needs --kernel NAME");
  emu::LaunchConfig config;
  if (!parseExtents(request.grid, config.grid))
    return badInput("--grid: expected X[,Y[,Z]] with positive extents, got '" +
                    request.grid + "'");
  if (!parseExtents(request.block, config.block))
    return badInput("--block: expected X[,Y[,Z]] with positive extents, got '" +
                    request.block + "'");
  if (llvm::Error error = verifyBlockExtents(chip, config.block))
    return badInput("--block: " + llvm::toString(std::move(error)));
  if (llvm::Error error = verifyGridExtents(chip, config.grid, config.block))
    return badInput("--grid: " + llvm::toString(std::move(error)));

  std::string message;
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (message.empty()) {
        llvm::raw_string_ostream os(message);
        if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
          os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
             << loc.getColumn() << ": ";
        os << diag.str();
      }
      return success();
    });
    std::string error;
    auto file = openInputFile(request.modulePath, &error);
    if (!file)
      return badInput("cannot read '" + request.modulePath + "': " + error);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseModuleWithinLimits(sourceMgr, &context);
  }
  if (!module)
    return badInput(message);

  gpu::GPUFuncOp kernel;
  module->walk([&](gpu::GPUFuncOp func) {
    if (func.getName() == request.kernelName && func.isKernel())
      kernel = func;
  });
  if (!kernel)
    return badInput("no gpu.func kernel @" + request.kernelName + " in '" +
                    request.modulePath + "'");
  unsigned numArgs = kernel.getNumArguments();
  if (request.args.size() != numArgs)
    return badInput("kernel @" + request.kernelName + " takes " +
                    llvm::Twine(numArgs) + " arguments, " +
                    llvm::Twine(request.args.size()) + " --arg given");

  std::vector<std::vector<uint8_t>> buffers(numArgs);
  std::vector<emu::KernelArgument> args(numArgs);
  for (unsigned i = 0; i < numArgs; ++i) {
    Type type = kernel.getArgumentTypes()[i];
    llvm::StringRef text = request.args[i];
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (!emu::isSupportedElementType(memref.getElementType()))
        return badInput("argument " + llvm::Twine(i) + ": element type " +
                        typeText(memref.getElementType()) + " of " +
                        typeText(type) + " is not supported");
      if (!memref.hasStaticShape())
        return badInput("argument " + llvm::Twine(i) +
                        ": dynamic memref shapes are not supported");
      auto array = host::readNpyArray(text);
      if (!array)
        return badInput(llvm::toString(array.takeError()));
      std::vector<int64_t> shape(memref.getShape().begin(),
                                 memref.getShape().end());
      if (array->shape != shape)
        return badInput("--arg " + llvm::Twine(i) + " '" + text + "': shape " +
                        shapeText(array->shape) + " does not match " +
                        typeText(type));
      if (!dtypeMatches(memref.getElementType(), array->descr))
        return badInput("--arg " + llvm::Twine(i) + " '" + text + "': dtype " +
                        array->descr + " does not match " + typeText(type));
      // The buffer spans the memref's layout (strided layouts included).
      int64_t offset;
      llvm::SmallVector<int64_t> strides;
      if (failed(memref.getStridesAndOffset(strides, offset)) ||
          !memref.getLayout().isIdentity())
        return badInput("argument " + llvm::Twine(i) +
                        ": kernel memref arguments must have the identity "
                        "layout");
      buffers[i] = std::move(array->bytes);
      args[i].isMemRef = true;
      args[i].buffer = &buffers[i];
      continue;
    }
    if (!emu::isSupportedElementType(type))
      return badInput("argument " + llvm::Twine(i) + ": type " +
                      typeText(type) + " is not supported");
    if (std::optional<Failure> failure =
            parseScalar(text, type, i, args[i].scalarBits))
      return failure;
  }

  emu::KernelStats stats;
  if (hip) {
    auto codeObject =
        compileKernelModule(*module, request.kernelName, chip.name, "bin");
    if (!codeObject)
      return Failure{1, llvm::toString(codeObject.takeError())};
    std::vector<HIPRuntime::Argument> hipArgs(numArgs);
    for (unsigned i = 0; i < numArgs; ++i) {
      if (args[i].isMemRef) {
        hipArgs[i].buffer = &buffers[i];
        continue;
      }
      Type type = kernel.getArgumentTypes()[i];
      hipArgs[i].scalar = args[i].scalarBits;
      hipArgs[i].bytes = getStorageBytes(1, type);
    }
    auto ms = hip->launch(hipDevice, *codeObject, request.kernelName,
                          config.grid, config.block, hipArgs,
                          request.iterations);
    if (!ms)
      return Failure{1, llvm::toString(ms.takeError())};
    if (request.iterations)
      llvm::outs() << "time: " << *ms << " ms/iter (" << request.iterations
                   << " iterations, HIP events)\n";
  } else if (llvm::Error error =
                 emu::launchKernel(chip, kernel, config, args, stats)) {
    return Failure{1, llvm::toString(std::move(error))};
  } else if (request.iterations) {
    llvm::outs() << "note: --iters times hip launches; the emulator ran the "
                    "kernel once\n";
  }

  if (!request.outDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(request.outDir))
      return badInput("--out: cannot create '" + request.outDir +
                      "': " + ec.message());
    for (unsigned i = 0; i < numArgs; ++i) {
      auto memref = dyn_cast<MemRefType>(kernel.getArgumentTypes()[i]);
      if (!memref)
        continue;
      llvm::SmallString<128> path(request.outDir);
      llvm::sys::path::append(path, "arg" + std::to_string(i) + ".npy");
      host::NpyArray array{dtypeFor(memref.getElementType()),
                           {memref.getShape().begin(), memref.getShape().end()},
                           buffers[i]};
      if (llvm::Error error = host::writeNpyArray(path, array))
        return badInput(llvm::toString(std::move(error)));
    }
  }
  if (request.stats) {
    if (hip)
      llvm::outs() << "kernel @" << request.kernelName << " ran on a "
                   << chip.name << " GPU (hip): statistics come from the "
                   << "emulator, use --device emu\n";
    else
      llvm::outs() << emu::formatStats(request.kernelName, chip, stats);
  }
  return std::nullopt;
}

int mlir::qmm::runLaunchMode(MLIRContext &context, const ChipInfo &chip,
                             const LaunchRequest &request) {
  std::optional<Failure> failure = launch(context, chip, request);
  if (!failure)
    return 0;
  // One line, whatever the message (diagnostics may carry notes).
  llvm::StringRef line = llvm::StringRef(failure->message).split('\n').first;
  llvm::errs() << "fp8-run: error: " << line << "\n";
  return failure->code;
}
