//===- fp8-run.cpp - generate, quantize, execute, validate ----------------===//
//
// Runs a quantized GEMM on a device and checks it twice: against an f64
// product of the dequantized inputs (compiler correctness) and against an
// f64 product of the unquantized inputs (quantization quality).
//
// Exit codes: 0 PASS, 1 FAIL, 2 bad input.
//
//===----------------------------------------------------------------------===//

#include "LaunchMode.h"
#include "Runner.h"

#include "qmm/Emulator/Emulator.h"
#include "qmm/InitQMM.h"

#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostFormats.h"
#include "qmm/Runtime/HostQuantizer.h"
#include "qmm/Runtime/HostTensor.h"
#include "qmm/Runtime/Validation.h"
#include "qmm/Target/Chip.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <new>
#include <random>
#include <tuple>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;
using namespace mlir::qmm::fp8run;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory category("fp8-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::init(""),
                                      cl::desc("[input.mlir]"),
                                      cl::cat(category));
static cl::opt<std::string>
    gemmShape("gemm", cl::init("256x512x1024"),
              cl::desc("GEMM extents MxNxK (default 256x512x1024)"),
              cl::cat(category));
static cl::opt<std::string>
    aType("a-type", cl::init(""),
          cl::desc("A element type (MLIR name; default: the chip's e4m3)"),
          cl::cat(category));
static cl::opt<std::string>
    bType("b-type", cl::init(""),
          cl::desc("B element type (MLIR name; default: the chip's e4m3)"),
          cl::cat(category));
static cl::opt<std::string> aScale(
    "a-scale", cl::init("1x128"),
    cl::desc("A scales: tensor, row, 1x128, 128x128, mx32 or RxC"),
    cl::cat(category));
static cl::opt<std::string> bScale(
    "b-scale", cl::init("128x128"),
    cl::desc("B scales: tensor, row, 1x128, 128x128, mx32 or RxC"),
    cl::cat(category));
static cl::opt<std::string>
    aScaleMajor("a-scale-major", cl::init("k"),
                cl::desc("A scale tensor majorness: k or mn"),
                cl::cat(category));
static cl::opt<std::string>
    bScaleMajor("b-scale-major", cl::init("k"),
                cl::desc("B scale tensor majorness: k or mn"),
                cl::cat(category));
static cl::opt<std::string> bLayout("b-layout", cl::init("nk"),
                                    cl::desc("B storage: nk ([N,K]) or kn"),
                                    cl::cat(category));
static cl::opt<std::string> outType(
    "out-type", cl::init("bf16"),
    cl::desc("output type: f32, bf16, f16, or FP8 (f8E4M3FN, f8E5M2, "
             "f8E4M3FNUZ, f8E5M2FNUZ) quantized by the epilogue"),
    cl::cat(category));
static cl::opt<std::string> outScale(
    "out-scale", cl::init("1x128"),
    cl::desc("FP8 output scales: 1xC per token along N (default 1x128) or "
             "mx32"),
    cl::cat(category));
static cl::opt<std::string> outRounding(
    "out-rounding", cl::init(""),
    cl::desc("FP8 output scale rule: none, pow2_floor, pow2_ceil (default: "
             "none for f32 scales, pow2_floor for mx32)"),
    cl::cat(category));
static cl::opt<bool> accumulate("accumulate", cl::init(false),
                                cl::desc("D = C + A*B with a generated C"),
                                cl::cat(category));
static cl::opt<unsigned> numGroups(
    "groups",
    cl::desc("a grouped (MoE) GEMM of this many groups, B [G, N, K]: "
             "contiguous layout (A [M, K], M a multiple of 128, rows grouped "
             "in 128-aligned segments of random sizes with padding rows, one "
             "group empty when G >= 3) unless --masked"),
    cl::init(0), cl::cat(category));
static cl::opt<bool> maskedGroups(
    "masked",
    cl::desc("with --groups: the masked layout (A [G, M, K], a random "
             "valid-row count per group: group 0 full, one empty when "
             "G >= 3)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> wgrad(
    "wgrad",
    cl::desc("the weight-gradient GEMM (DeepGEMM's wgrad_gemm_fp8_fp8_fp32_nt): "
             "D (f32) += A B^T with A = grad_out^T [M, K] and B = act^T [N, K], "
             "K the tokens, both with 1x128 scales; sets --a-scale 1x128 "
             "--b-scale 1x128 --out-type f32 --accumulate"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> biasType(
    "bias", cl::desc("epilogue: add a generated bias per output column, in "
                     "f32 or bf16"),
    cl::cat(category));
static cl::opt<std::string> geluKind(
    "gelu", cl::desc("epilogue: GELU of the result, tanh (approximation) or "
                     "erf"),
    cl::cat(category));
static cl::opt<std::string> auxType(
    "aux", cl::desc("epilogue (with --gelu): also output the "
                    "pre-activation, in f32, bf16 or f16"),
    cl::cat(category));
static cl::opt<std::string> chipName("chip", cl::init("gfx942"),
                                     cl::desc("target chip: gfx942, gfx950"),
                                     cl::cat(category));
static cl::opt<std::string> deviceName(
    "device", cl::init("auto"),
    cl::desc("where to run: cpu, emu, hip or auto (hip when a GPU of the "
             "chip is present, else emu; programs the AMD pipeline does not "
             "compile yet run on cpu)"),
    cl::cat(category));
static cl::opt<std::string> kernelConfig(
    "config", cl::init(""),
    cl::desc("#qmm.config<...> the AMD pipeline uses for every matmul "
             "(devices emu and hip; default: qmm-select-config's choice)"),
    cl::cat(category));
cl::opt<unsigned> fp8run::seed("seed", cl::init(0),
                              cl::desc("random seed of the generated data"),
                              cl::cat(category));
cl::opt<std::string> fp8run::distribution(
    "dist", cl::init("normal"),
    cl::desc("data distribution: normal, uniform, outliers, near-max"),
    cl::cat(category));
cl::opt<std::string> fp8run::roundingName(
    "rounding", cl::init(""),
    cl::desc("host quantizer scale rule: none, pow2_floor, pow2_ceil "
             "(default: none for f32 scales, pow2_floor for mx32)"),
    cl::cat(category));
cl::opt<float> fp8run::minAmax("min-amax", cl::init(-1.0f),
                              cl::desc("host quantizer amax floor (default "
                                       "1e-4, 0 for pow2_floor)"),
                              cl::cat(category));
static cl::opt<std::string> quantizeOn(
    "quantize", cl::init("host"),
    cl::desc("where to quantize generated data: host (the runner's own "
             "quantizer) or device (qmm.quantize compiled for the device, "
             "checked bit for bit against the host quantizer)"),
    cl::cat(category));
static cl::opt<bool> emitIR("emit-ir", cl::init(false),
                            cl::desc("print the GEMM's IR and stop"),
                            cl::cat(category));
cl::opt<std::string> fp8run::saveDir("save", cl::init(""),
                                    cl::desc("write inputs and output as "
                                             ".npy files into DIR"),
                                    cl::cat(category));
cl::opt<std::string> fp8run::loadDir("load", cl::init(""),
                                    cl::desc("read inputs from .npy files in "
                                             "DIR"),
                                    cl::cat(category));
static cl::opt<bool> jsonOutput("json", cl::init(false),
                                cl::desc("print the report as one JSON "
                                         "object"),
                                cl::cat(category));
static cl::opt<std::string> modelDevice(
    "model", cl::ValueOptional, cl::init(""),
    cl::desc("print the performance model of every kernel (MODELED, not "
             "measured): --model, or --model mi300x|mi325x|mi355x (default: "
             "the chip's first product)"),
    cl::cat(category));
static cl::opt<bool> modelOnly(
    "model-only", cl::init(false),
    cl::desc("compile and model only: no data, no execution (implies "
             "--model)"),
    cl::cat(category));
static cl::list<std::string> modelParams(
    "model-param",
    cl::desc("override a model parameter, NAME=VALUE (clock, "
             "global-latency, lds-latency, barrier, valu, mfma-issue, "
             "memory-issue, salu, l2-bw, mall-bw, hbm-bw, launch, cu-l2-bw)"),
    cl::cat(category));
static cl::opt<unsigned> iterations("iters", cl::init(0),
                                    cl::desc("time N runs after a warm-up"),
                                    cl::cat(category));
static cl::opt<int64_t> emuMaxOps(
    "emu-max-ops", cl::init(emu::kDefaultMaxOperations),
    cl::desc("emulator: a launch that executes more operations stops with "
             "an error naming the op (default 2^30)"),
    cl::cat(category));

// Kernel launch mode.
static cl::opt<std::string> modulePath(
    "module", cl::init(""),
    cl::desc("launch one kernel of this GPU-level module (launch mode)"),
    cl::cat(category));
static cl::opt<std::string> kernelName("kernel", cl::init(""),
                                       cl::desc("launch mode: kernel name"),
                                       cl::cat(category));
static cl::opt<std::string> gridText("grid", cl::init("1,1,1"),
                                     cl::desc("launch mode: workgroups X,Y,Z"),
                                     cl::cat(category));
static cl::opt<std::string> blockText(
    "block", cl::init("64,1,1"),
    cl::desc("launch mode: threads per workgroup X,Y,Z"), cl::cat(category));
static cl::list<std::string> kernelArgs(
    "arg", cl::desc("launch mode: a kernel argument, a .npy file or TYPE:VALUE"),
    cl::cat(category));
static cl::opt<std::string> outDir(
    "out", cl::init(""),
    cl::desc("launch mode: write every memref argument to DIR/arg<N>.npy"),
    cl::cat(category));
/// LLVM itself registers `-stats` (read with llvm::AreStatisticsEnabled);
/// fp8-run gives it its own help text and meaning.
static void describeStatsOption() {
  if (cl::Option *option = cl::getRegisteredOptions().lookup("stats")) {
    option->setDescription("print per-kernel statistics (MFMAs, memory "
                           "traffic, LDS bank conflicts)");
    option->addCategory(category);
    option->setHiddenFlag(cl::NotHidden);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Bad input: reported on one line, exit code 2.
[[noreturn]] void fp8run::fail(const llvm::Twine &message) {
  llvm::errs() << "fp8-run: error: " << message << "\n";
  std::exit(2);
}

void fp8run::failOn(llvm::Error error) {
  if (error)
    fail(llvm::toString(std::move(error)));
}


//===----------------------------------------------------------------------===//
// The GEMM from the flags
//===----------------------------------------------------------------------===//

/// "file:line:col: message" for diagnostics located in a file.
static std::string formatDiagnostic(Diagnostic &diag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn() << ": ";
  os << diag.str();
  return text;
}

/// Runs `action` with the context's diagnostics captured: the first one's
/// message (after its file location when `withLocation`), or "" when it
/// emitted none. Errors stay on one line.
static std::string captureDiagnostics(MLIRContext *ctx,
                                      llvm::function_ref<void()> action,
                                      bool withLocation = false) {
  std::string message;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (message.empty())
      message = withLocation ? formatDiagnostic(diag) : diag.str();
    return success();
  });
  action();
  return message;
}

static Type parseElementType(MLIRContext *ctx, llvm::StringRef flag,
                             llvm::StringRef name) {
  Type type;
  captureDiagnostics(ctx, [&] {
    type = parseType(name, ctx, nullptr, /*isKnownNullTerminated=*/false);
  });
  if (!type)
    fail("--" + flag + ": '" + name + "' is not an MLIR type");
  if (!isQuantizedElementType(type))
    fail("--" + flag + ": " + name + " is not a quantized type (expected " +
         getQuantizedElementTypeList() + ")");
  return type;
}

static ScaleEncodingAttr parseScaleFlag(MLIRContext *ctx, llvm::StringRef flag,
                                        llvm::StringRef text,
                                        llvm::StringRef majorText) {
  if (majorText != "k" && majorText != "mn")
    fail("--" + flag + "-major: expected k or mn, got '" + majorText + "'");
  llvm::Expected<ScaleEncodingAttr> encoding =
      parseScaleSpec(ctx, text, majorText == "mn");
  if (!encoding)
    fail("--" + flag + ": " + llvm::toString(encoding.takeError()));
  return *encoding;
}

static GemmSpec specFromFlags(MLIRContext *ctx, const ChipInfo &chip) {
  GemmSpec spec;
  llvm::SmallVector<llvm::StringRef> dims;
  llvm::StringRef(gemmShape).split(dims, 'x');
  if (dims.size() != 3 || dims[0].getAsInteger(10, spec.m) ||
      dims[1].getAsInteger(10, spec.n) || dims[2].getAsInteger(10, spec.k) ||
      spec.m <= 0 || spec.n <= 0 || spec.k < 0)
    fail("--gemm: expected MxNxK with positive M and N and K >= 0 (K = 0: an "
         "empty sum), got '" + gemmShape + "'");
  // Limits of the host side (operands, f64 references): a larger problem
  // would exhaust memory rather than fail clearly.
  constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMaxElements = int64_t(1) << 32;
  if (spec.m > kMaxExtent || spec.n > kMaxExtent || spec.k > kMaxExtent)
    fail("--gemm: extents are limited to " + llvm::Twine(kMaxExtent) +
         ", got '" + gemmShape + "'");
  for (auto [rows, cols, name] :
       {std::tuple(spec.m, spec.k, "A"), std::tuple(spec.n, spec.k, "B"),
        std::tuple(spec.m, spec.n, "D")})
    if (rows * cols > kMaxElements)
      fail("--gemm: " + llvm::Twine(name) + " would have " +
           llvm::Twine(rows * cols) + " elements, over the runner's limit of "
           "2^32");
  std::string native =
      chip.nativeFP8 == FormatFamily::FNUZ ? "f8E4M3FNUZ" : "f8E4M3FN";
  spec.a.elementType =
      parseElementType(ctx, "a-type", aType.empty() ? native : aType);
  spec.b.elementType =
      parseElementType(ctx, "b-type", bType.empty() ? native : bType);
  if (wgrad) {
    // Values that agree with what --wgrad fixes are fine.
    for (auto [flag, value] :
         {std::pair<cl::opt<std::string> *, llvm::StringRef>(&aScale, "1x128"),
          {&bScale, "1x128"}, {&outType, "f32"}})
      if (flag->getNumOccurrences() && flag->getValue() != value)
        fail("--wgrad fixes --" + flag->ArgStr.str() + " to " + value +
             " (1x128 scales on both operands, f32 output, accumulate)");
    if (accumulate.getNumOccurrences() && !accumulate)
      fail("--wgrad fixes --accumulate (1x128 scales on both operands, f32 "
           "output, accumulate)");
    aScale = "1x128";
    bScale = "1x128";
    outType = "f32";
    accumulate = true;
  }
  spec.a.encoding = parseScaleFlag(ctx, "a-scale", aScale, aScaleMajor);
  spec.b.encoding = parseScaleFlag(ctx, "b-scale", bScale, bScaleMajor);
  if (bLayout == "nk")
    spec.b.layout = OperandLayout::NK;
  else if (bLayout == "kn")
    spec.b.layout = OperandLayout::KN;
  else
    fail("--b-layout: expected nk or kn, got '" + bLayout + "'");
  if (outType == "f32")
    spec.outputType = Float32Type::get(ctx);
  else if (outType == "bf16")
    spec.outputType = BFloat16Type::get(ctx);
  else if (outType == "f16")
    spec.outputType = Float16Type::get(ctx);
  else if (outType == "f8E4M3FN" || outType == "f8E5M2" ||
           outType == "f8E4M3FNUZ" || outType == "f8E5M2FNUZ")
    spec.outputType = parseElementType(ctx, "out-type", outType);
  else
    fail("--out-type: expected f32, bf16, f16, f8E4M3FN, f8E5M2, f8E4M3FNUZ "
         "or f8E5M2FNUZ, got '" + outType + "'");
  if (spec.outputType.getIntOrFloatBitWidth() == 8) {
    spec.outEncoding = parseScaleFlag(ctx, "out-scale", outScale, "k");
    if (!outRounding.empty()) {
      std::optional<ScaleRounding> rounding =
          symbolizeScaleRounding(outRounding);
      if (!rounding)
        fail("--out-rounding: expected none, pow2_floor or pow2_ceil, got '" +
             outRounding + "'");
      spec.outRounding = *rounding;
    } else {
      spec.outRounding = getDefaultScaleRounding(spec.outEncoding);
    }
    spec.outMinAmax = getDefaultMinAmax(spec.outRounding);
  } else if (outScale.getNumOccurrences() || outRounding.getNumOccurrences()) {
    fail("--out-scale and --out-rounding go with an FP8 --out-type");
  }
  spec.accumulate = accumulate;
  auto floatType = [&](const std::string &flag, const std::string &name,
                       bool allowF16) -> Type {
    if (name == "f32")
      return Float32Type::get(ctx);
    if (name == "bf16")
      return BFloat16Type::get(ctx);
    if (name == "f16" && allowF16)
      return Float16Type::get(ctx);
    fail("--" + flag + ": expected f32, bf16" + (allowF16 ? ", f16" : "") +
         ", got '" + name + "'");
  };
  if (biasType.getNumOccurrences())
    spec.biasType = floatType("bias", biasType, /*allowF16=*/false);
  if (geluKind.getNumOccurrences()) {
    if (geluKind == "tanh")
      spec.activation = Activation::GeluTanh;
    else if (geluKind == "erf")
      spec.activation = Activation::GeluErf;
    else
      fail("--gelu: expected tanh or erf, got '" + geluKind + "'");
  }
  if (auxType.getNumOccurrences()) {
    if (spec.activation == Activation::None)
      fail("--aux (the pre-activation output) needs --gelu");
    spec.auxType = floatType("aux", auxType, /*allowF16=*/true);
  }
  return spec;
}


/// Verifies `module`, turning the first diagnostic into a usage error.
void fp8run::verifyOrFail(ModuleOp module, llvm::StringRef what) {
  LogicalResult verified = success();
  std::string message = captureDiagnostics(
      module.getContext(), [&] { verified = verify(module); },
      /*withLocation=*/true);
  if (failed(verified))
    fail(what + ": " + message);
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  // Memory exhaustion is bad input (a problem too large for this host), not
  // a crash (the project builds without exceptions: a new handler).
  std::set_new_handler([] {
    fail("out of host memory: the problem is too large for this machine");
  });
  describeStatsOption();
  cl::HideUnrelatedOptions(category);
  // `--model DEVICE` reads as `--model=DEVICE` when DEVICE names a device
  // (the option's value is optional, so the parser would not take it).
  std::vector<std::string> argStorage(argv, argv + argc);
  for (size_t i = 1; i + 1 < argStorage.size(); ++i)
    if ((argStorage[i] == "--model" || argStorage[i] == "-model") &&
        lookupDevice(argStorage[i + 1])) {
      argStorage[i] += "=" + argStorage[i + 1];
      argStorage.erase(argStorage.begin() + i + 1);
    }
  std::vector<char *> mergedArgv;
  for (std::string &arg : argStorage)
    mergedArgv.push_back(arg.data());
  argc = int(mergedArgv.size());
  argv = mergedArgv.data();
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "fp8-run: generate, quantize, execute and validate a quantized "
          "GEMM\n\nExit codes: 0 PASS, 1 FAIL, 2 bad input.\n",
          &parseErrorStream)) {
    // Errors in option values are printed by the parser itself, on one line.
    if (parseErrors.empty())
      return 2;
    llvm::StringRef first = llvm::StringRef(parseErrors).split('\n').first;
    first.consume_front(llvm::sys::path::filename(argv[0]));
    first.consume_front(": ");
    fail(first.trim());
  }

  // `--bias --gelu tanh` gives --bias the value "--gelu": say what --bias
  // needs instead of complaining about the input file "tanh".
  for (cl::opt<std::string> *text :
       {&gemmShape, &aType, &bType, &aScale, &bScale, &aScaleMajor,
        &bScaleMajor, &bLayout, &outType, &outScale, &outRounding, &biasType,
        &geluKind, &auxType, &chipName, &deviceName, &kernelConfig,
        &distribution, &roundingName, &quantizeOn, &saveDir, &loadDir,
        &modelDevice, &modulePath, &kernelName, &gridText, &blockText,
        &outDir})
    if (text->getNumOccurrences() &&
        llvm::StringRef(text->getValue()).starts_with("--"))
      fail("--" + text->ArgStr.str() + " needs a value (" +
           text->HelpStr.str() + "), got the option '" + text->getValue() +
           "'");
  const ChipInfo *chip = lookupChip(chipName);
  if (!chip)
    fail("--chip: unknown chip '" + chipName + "' (expected " +
         getSupportedChipNames() + ")");
  if (iterations > 100000)
    fail("--iters: at most 100000");
  if (emuMaxOps <= 0)
    fail("--emu-max-ops: expected a positive count, got " +
         llvm::Twine(emuMaxOps.getValue()));
  emu::setMaxOperationsPerLaunch(emuMaxOps);
  if (distribution != "normal" && distribution != "uniform" &&
      distribution != "outliers" && distribution != "near-max")
    fail("--dist: expected normal, uniform, outliers or near-max, got '" +
         distribution + "'");

  if (!modulePath.empty() && !inputFile.empty())
    fail("--module cannot be combined with an input file");
  if (modulePath.empty() &&
      (kernelName.getNumOccurrences() || gridText.getNumOccurrences() ||
       blockText.getNumOccurrences() || kernelArgs.getNumOccurrences() ||
       outDir.getNumOccurrences()))
    fail("--kernel, --grid, --block, --arg and --out need --module");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerQMMDialectAndExtensions(registry);
  // Kernels are translated to LLVM IR for code objects and --stats.
  registerAllToLLVMIRTranslations(registry);
  registerAllPasses();
  registerQMMPassesAndPipelines();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // A malformed --config is bad input here, not a pipeline failure that
  // --device auto would fall back from.
  if (!kernelConfig.empty()) {
    Attribute config;
    std::string message = captureDiagnostics(&context, [&] {
      config = parseAttribute(kernelConfig, &context, Type(), nullptr,
                              /*isKnownNullTerminated=*/false);
    });
    if (!config)
      fail("--config: cannot parse '" + kernelConfig + "': " + message);
    if (!isa<ConfigAttr>(config))
      fail("--config: expected #qmm.config<...>, got '" + kernelConfig + "'");
  }

  ModelRequest model = parseModelRequest(
      *chip, modelDevice.getNumOccurrences() > 0, modelDevice, modelOnly,
      std::vector<std::string>(modelParams.begin(), modelParams.end()));
  if (model.device && !modulePath.empty())
    fail("--model works on qmm programs (an input file or the generated "
         "GEMM); for a code object use qmm-model");

  if (!modulePath.empty()) {
    LaunchRequest request;
    request.modulePath = modulePath;
    request.kernelName = kernelName;
    request.grid = gridText;
    request.block = blockText;
    request.args.assign(kernelArgs.begin(), kernelArgs.end());
    request.outDir = outDir;
    request.device = deviceName;
    request.stats = llvm::AreStatisticsEnabled();
    request.iterations = int(iterations);
    request.flags = &category;
    return runLaunchMode(context, *chip, request);
  }

  OwningOpRef<ModuleOp> module;
  GemmSpec spec;
  if (!inputFile.empty()) {
    cl::Option *generatorFlags[] = {
        &gemmShape,   &aType,   &bType,   &aScale,     &bScale,
        &aScaleMajor, &bScaleMajor, &bLayout, &outType, &accumulate,
        &biasType,    &geluKind, &auxType, &wgrad, &numGroups, &maskedGroups,
        &outScale,    &outRounding};
    for (cl::Option *flag : generatorFlags)
      if (flag->getNumOccurrences())
        fail("--" + flag->ArgStr + " cannot be combined with an input file "
             "(the file fixes the GEMM)");
    std::string errorMessage;
    auto file = openInputFile(inputFile, &errorMessage);
    if (!file)
      fail("cannot read '" + inputFile + "': " + errorMessage);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    std::string message = captureDiagnostics(
        &context,
        [&] { module = parseSourceFile<ModuleOp>(sourceMgr, &context); },
        /*withLocation=*/true);
    if (!module)
      fail(message);
    verifyOrFail(*module, inputFile);
    spec = orFail(extractGemmSpec(*module));
  } else {
    spec = specFromFlags(&context, *chip);
    if (numGroups) {
      if (quantizeOn != "host" || !loadDir.empty() || !saveDir.empty() ||
          (jsonOutput && !model.only))
        fail("--groups: --quantize device, --load, --save and --json (but "
             "with --model-only) are not supported on grouped GEMMs yet");
      GroupedRun run{numGroups,    maskedGroups, seed,   deviceName,
                     kernelConfig, iterations,   emitIR, model,
                     jsonOutput};
      return runGrouped(context, spec, *chip, run);
    }
    module = buildGemmModule(&context, spec);
    verifyOrFail(*module, "the GEMM described by the flags");
  }

  if (quantizeOn != "host" && quantizeOn != "device")
    fail("--quantize: expected host or device, got '" + quantizeOn + "'");
  bool deviceQuantizes = quantizeOn == "device";
  if (deviceQuantizes && deviceName != "cpu" && deviceName != "auto")
    fail("--quantize device: the AMD pipeline compiles matmuls only (no "
         "quantize kernels yet); use --quantize host with --device " +
         deviceName);
  if (deviceQuantizes) {
    if (!loadDir.empty() || !inputFile.empty())
      fail("--quantize device works on generated data only");
    ScaleRounding aRounding = getRounding(spec.a);
    ScaleRounding bRounding = getRounding(spec.b);
    addQuantizeFunction(*module, "quantize_a", spec.a, spec.m, spec.k,
                        aRounding, getMinAmax(aRounding));
    addQuantizeFunction(*module, "quantize_b", spec.b, spec.n, spec.k,
                        bRounding, getMinAmax(bRounding));
    verifyOrFail(*module, "the quantize functions");
  }

  if (emitIR) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  if (model.device && deviceQuantizes)
    fail("--model: the AMD pipeline does not compile the quantize functions "
         "of --quantize device; model with --quantize host");
  std::vector<perf::KernelPrediction> predictions;
  if (model.device)
    predictions = modelOrFail(*module, *chip, model, kernelConfig);
  if (model.only) {
    if (jsonOutput)
      llvm::outs() << llvm::formatv(
                          "{0}\n", llvm::json::Value(llvm::json::Object{
                                       {"modeled", true},
                                       {"model", modelJson(predictions)}}));
    else
      printModel(predictions, nullptr, deviceName);
    return 0;
  }

  std::unique_ptr<Device> device = orFail(createDevice(deviceName, chip->name, kernelConfig));

  OperandData a = prepareOperand("a", spec.a, spec.m, spec.k, seed);
  OperandData b = prepareOperand("b", spec.b, spec.n, spec.k, seed + 1);
  QuantizerCheck quantizerCheck;
  if (deviceQuantizes) {
    quantizeOnDevice(*device, *module, "quantize_a", a, spec.a, spec.m, spec.k,
                     quantizerCheck);
    quantizeOnDevice(*device, *module, "quantize_b", b, spec.b, spec.n, spec.k,
                     quantizerCheck);
  }
  HostTensor c = prepareAccumulator(spec);
  HostTensor init = c; // zeros unless accumulating
  std::optional<HostTensor> bias;
  if (spec.biasType)
    bias = generateBias(spec);
  std::optional<HostTensor> auxInit, outScalesInit;
  if (spec.auxType)
    auxInit = HostTensor(toElementType(spec.auxType), {spec.m, spec.n});
  ElementType outScaleType = ElementType::F32;
  std::vector<int64_t> outScaleShape;
  if (spec.outEncoding) {
    outScaleType = toElementType(spec.outEncoding.getScaleType());
    outScaleShape = spec.getOutputOperand().getScaleShape(spec.m, spec.n);
    outScalesInit = HostTensor(outScaleType, outScaleShape);
  }

  llvm::SmallVector<const HostTensor *> args = {
      &a.quantized.data, &a.quantized.scales, &b.quantized.data,
      &b.quantized.scales};
  if (bias)
    args.push_back(&*bias);
  args.push_back(&init);
  if (auxInit)
    args.push_back(&*auxInit);
  if (outScalesInit)
    args.push_back(&*outScalesInit);
  std::vector<TensorSpec> resultSpecs = {
      {toElementType(spec.outputType), {spec.m, spec.n}}};
  if (spec.auxType)
    resultSpecs.push_back({toElementType(spec.auxType), {spec.m, spec.n}});
  if (spec.outEncoding)
    resultSpecs.push_back({outScaleType, outScaleShape});
  RunResult result = orFail(device->run(*module, spec.functionName, args,
                                        resultSpecs, iterations));
  const HostTensor &d = result.results.front();

  // References.
  std::vector<double> cValues;
  if (spec.accumulate)
    for (int64_t i = 0; i < c.getNumElements(); ++i)
      cValues.push_back(c.getValue(i));
  std::vector<double> output(d.getNumElements());
  for (size_t i = 0; i < output.size(); ++i)
    output[i] = d.getValue(i);
  // An FP8 output is judged by its dequantized values.
  const HostTensor *outScales =
      spec.outEncoding ? &result.results.back() : nullptr;
  if (outScales)
    output = dequantize(d, *outScales, spec.getOutputOperand(), spec.m, spec.n);

  ElementType outputType = toElementType(spec.outputType);
  std::vector<double> biasValues;
  if (bias)
    for (int64_t i = 0; i < bias->getNumElements(); ++i)
      biasValues.push_back(bias->getValue(i));
  // The epilogue on an f64 GEMM: the pre-activation, then D.
  auto epilogue = [&](const Reference &product) {
    Reference pre = bias ? addBias(product, biasValues, spec.n) : product;
    Reference post = spec.activation == Activation::None
                         ? pre
                         : applyActivation(pre, spec.activation, spec.k);
    return std::make_pair(pre, post);
  };
  // Outputs that depend on non-finite or f32-overflowing quantized inputs
  // are judged in the exact tier only (the unquantized inputs need not
  // explain them).
  llvm::SmallVector<bool> beyondF32(spec.m * spec.n, false);
  Tier exact{"exact tier (vs f64 of the dequantized inputs)"};
  Tier auxExact{"aux (pre-activation) exact tier"};
  auxExact.skipped = !spec.auxType;
  auxExact.pass = true;
  {
    auto [pre, reference] = epilogue(referenceGemm(
        dequantize(a.quantized.data, a.quantized.scales, spec.a, spec.m,
                   spec.k),
        dequantize(b.quantized.data, b.quantized.scales, spec.b, spec.n,
                   spec.k),
        cValues, spec.m, spec.n, spec.k));
    for (size_t i = 0; i < beyondF32.size(); ++i)
      beyondF32[i] = isBeyondF32(reference, i);
    if (spec.auxType) {
      const HostTensor &aux = result.results[1];
      std::vector<double> auxValues(aux.getNumElements());
      for (size_t i = 0; i < auxValues.size(); ++i)
        auxValues[i] = aux.getValue(i);
      ElementType auxType = toElementType(spec.auxType);
      auxExact.metrics = compare(auxValues, pre, auxType, /*checkUlps=*/true,
                                 spec.k);
      judgeExactTier(auxExact, auxType);
    }
    if (outScales) {
      exact.metrics = checkQuantizedOutput(d, *outScales,
                                           spec.getOutputOperand(), reference,
                                           spec.outRounding, spec.outMinAmax,
                                           spec.k);
    } else {
      exact.metrics = compare(output, reference, outputType, /*checkUlps=*/true,
                              spec.k);
    }
    judgeExactTier(exact, outputType);
  }

  Tier quality{"quantization tier (vs f64 of the unquantized inputs)"};
  double threshold = getQuantizationThreshold(toElementType(spec.a.elementType),
                                              toElementType(spec.b.elementType));
  // An FP8 output is one more quantization.
  if (spec.outEncoding)
    threshold += getFormatQuantizationBudget(outputType);
  if (a.highPrecision && b.highPrecision) {
    auto logical = [](const std::vector<float> &values,
                      const OperandSpec &operand, int64_t rows, int64_t k) {
      std::vector<double> result(rows * k);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t col = 0; col < k; ++col)
          result[r * k + col] = operand.layout == OperandLayout::NK
                                    ? values[r * k + col]
                                    : values[col * rows + r];
      return result;
    };
    Reference reference =
        epilogue(referenceGemm(logical(*a.highPrecision, spec.a, spec.m,
                                       spec.k),
                               logical(*b.highPrecision, spec.b, spec.n,
                                       spec.k),
                               cValues, spec.m, spec.n, spec.k))
            .second;
    quality.metrics = compare(output, reference, outputType, /*checkUlps=*/false,
                              spec.k, beyondF32);
    quality.criterion = llvm::formatv("calc_diff < {0:e1}", threshold).str();
    quality.pass = quality.metrics.calcDiff < threshold &&
                   quality.metrics.nanMismatches == 0;
  } else {
    quality.skipped = true;
    quality.pass = true;
    quality.criterion = "no unquantized inputs: a_hp.npy / b_hp.npy not given";
  }

  if (!saveDir.empty()) {
    saveAll(spec, a, b, c, d);
    auto save = [&](llvm::StringRef name, const HostTensor &tensor) {
      llvm::SmallString<128> path(saveDir);
      llvm::sys::path::append(path, name);
      failOn(writeNpy(path, tensor));
    };
    if (bias)
      save("bias.npy", *bias);
    if (spec.auxType)
      save("aux.npy", result.results[1]);
    if (outScales)
      save("d_scale.npy", *outScales);
  }

  auto nonFiniteInputs =
      countNonFiniteInputs(a, b, c, bias ? &*bias : nullptr);
  bool quantizerAgrees = quantizerCheck.codeMismatches == 0 &&
                         quantizerCheck.scaleMismatches == 0;
  bool pass = exact.pass && auxExact.pass && quality.pass && quantizerAgrees;
  double flops = 2.0 * spec.m * spec.n * spec.k;
  double tflops = result.secondsPerIteration > 0
                      ? flops / result.secondsPerIteration / 1e12
                      : 0.0;
  if (jsonOutput) {
    llvm::json::Object report{
        {"gemm", llvm::formatv("{0}x{1}x{2}", spec.m, spec.n, spec.k).str()},
        {"m", spec.m},
        {"n", spec.n},
        {"k", spec.k},
        {"a_type", getTypeName(spec.a.elementType)},
        {"b_type", getTypeName(spec.b.elementType)},
        {"b_layout", stringifyOperandLayout(spec.b.layout).str()},
        {"out_type", getElementTypeName(outputType).str()},
        {"out_scale", spec.outEncoding ? llvm::json::Value([&] {
           std::string text;
           llvm::raw_string_ostream(text) << spec.outEncoding;
           return text;
         }())
                                       : llvm::json::Value(nullptr)},
        {"accumulate", spec.accumulate},
        {"chip", chip->name.str()},
        {"device", device->getName().str()},
        {"exact", tierJson(exact)},
        {"quantization", tierJson(quality)},
        {"non_finite_inputs",
         [&] {
           llvm::json::Object counts;
           for (auto [name, count] : nonFiniteInputs)
             counts[name] = count;
           return counts;
         }()},
        {"quantize", quantizeOn.getValue()},
        {"iters", int64_t(result.iterations)},
        {"result", pass ? "PASS" : "FAIL"}};
    std::string aEncoding, bEncoding;
    llvm::raw_string_ostream(aEncoding) << spec.a.encoding;
    llvm::raw_string_ostream(bEncoding) << spec.b.encoding;
    report["a_scale"] = aEncoding;
    if (spec.biasType)
      report["bias"] = getTypeName(spec.biasType);
    if (spec.activation != Activation::None)
      report["activation"] = stringifyActivation(spec.activation).str();
    if (spec.auxType) {
      report["aux_type"] = getTypeName(spec.auxType);
      report["aux_exact"] = tierJson(auxExact);
    }
    report["b_scale"] = bEncoding;
    if (quantizerCheck.ran)
      report["quantizer_check"] = llvm::json::Object{
          {"code_mismatches", quantizerCheck.codeMismatches},
          {"codes", quantizerCheck.codes},
          {"scale_mismatches", quantizerCheck.scaleMismatches},
          {"scales", quantizerCheck.scales},
          {"pass", quantizerAgrees}};
    if (result.iterations) {
      report["time_ms"] = result.secondsPerIteration * 1e3;
      report["tflops"] = tflops;
    }
    if (model.device)
      report["model"] = modelJson(predictions);
    llvm::outs() << llvm::formatv("{0}", llvm::json::Value(std::move(report)))
                 << "\n";
  } else {
    llvm::outs() << "fp8-run: " << spec.describe() << "\n";
    llvm::outs() << "  chip " << chip->name << " (" << chip->product
                 << "), device " << device->getName() << ", seed " << seed
                 << ", dist " << distribution << "\n";
    if (quantizerCheck.ran)
      llvm::outs() << llvm::formatv(
          "  quantizer check (device qmm.quantize vs host quantizer): "
          "{0} of {1} codes and {2} of {3} scales differ  [bit-exact]  {4}\n",
          quantizerCheck.codeMismatches, quantizerCheck.codes,
          quantizerCheck.scaleMismatches, quantizerCheck.scales,
          quantizerAgrees ? "PASS" : "FAIL");
    printNonFiniteInputs(nonFiniteInputs);
    printTier(exact);
    if (spec.auxType)
      printTier(auxExact);
    printTier(quality);
    if (result.iterations)
      llvm::outs() << llvm::formatv(
          "  time: {0:f3} ms/iter, {1:f4} TFLOP/s ({2} iterations)\n",
          result.secondsPerIteration * 1e3, tflops, result.iterations);
    if (model.device)
      printModel(predictions, &result, device->getName());
    llvm::outs() << "RESULT: " << (pass ? "PASS" : "FAIL") << "\n";
  }
  return pass ? 0 : 1;
}
