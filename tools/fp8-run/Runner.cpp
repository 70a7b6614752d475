//===- Runner.cpp - fp8-run's run: the steps ------------------------------===//
//
// Runs a quantized GEMM on a device and checks it twice: against an f64
// product of the dequantized inputs (compiler correctness) and against an
// f64 product of the unquantized inputs (quantization quality).
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "qmm/Support/NestingLimit.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;
using namespace mlir::qmm::fp8run;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

[[noreturn]] void fp8run::fail(const llvm::Twine &message) {
  llvm::errs() << "fp8-run: error: " << message << "\n";
  std::exit(2);
}

void fp8run::failOn(llvm::Error error) {
  if (error)
    fail(llvm::toString(std::move(error)));
}

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

std::string fp8run::captureDiagnostics(MLIRContext *ctx,
                                       llvm::function_ref<void()> action,
                                       bool withLocation) {
  std::string message;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (message.empty())
      message = withLocation ? formatDiagnostic(diag) : diag.str();
    return success();
  });
  action();
  return message;
}

void fp8run::verifyOrFail(ModuleOp module, llvm::StringRef what) {
  LogicalResult verified = success();
  std::string message = captureDiagnostics(
      module.getContext(), [&] { verified = verify(module); },
      /*withLocation=*/true);
  if (failed(verified))
    fail(what + ": " + message);
}

//===----------------------------------------------------------------------===//
// The steps
//===----------------------------------------------------------------------===//

GemmRunner::GemmRunner(MLIRContext &context, const RunConfig &config)
    : context(context), config(config) {}

int GemmRunner::run() {
  if (config.target.nvidia)
    return saveLaunchPlan();
  const ChipInfo &chip = amdChip();
  if (config.isDynamicM())
    return runForEachM();
  buildProgram();
  chooseConfig();
  if (config.tuneSpace)
    return 0;
  if (printProgramOrModel())
    return 0;
  device = orFail(createDevice(config.device, chip, kernelConfig));
  if (isGrouped())
    prepareGroupedInputs();
  else
    prepareInputs();
  if (config.tuneMeasure) {
    tuneByMeasurement();
    // The report's model is of the config that runs.
    predictions = orFail(perf::modelQMMProgram(*module, chip,
                                               *config.model.device,
                                               config.model.params,
                                               kernelConfig));
  }
  execute();
  if (isGrouped())
    validateGroupedRows();
  else
    validate();
  if (!config.saveDir.empty())
    saveAll();
  return report() ? 0 : 1;
}

void GemmRunner::checkConfigText(llvm::StringRef text,
                                 llvm::StringRef flag) const {
  Attribute parsed;
  std::string message = captureDiagnostics(&context, [&] {
    parsed = parseAttributeWithinLimits(text, &context);
  });
  if (!parsed)
    fail(flag + ": cannot parse '" + text + "': " + message);
  if (!isa<ConfigAttr>(parsed))
    fail(flag + ": expected #qmm.config<...>, got '" + text + "'");
}

void GemmRunner::buildProgram() {
  // A malformed --config is bad input here, not a pipeline failure that
  // --device auto would fall back from.
  if (!config.kernelConfig.empty())
    checkConfigText(config.kernelConfig, "--config");

  if (!config.inputFile.empty()) {
    std::string errorMessage;
    auto file = openInputFile(config.inputFile, &errorMessage);
    if (!file)
      fail("cannot read '" + config.inputFile + "': " + errorMessage);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    std::string message = captureDiagnostics(
        &context,
        [&] { module = parseModuleWithinLimits(sourceMgr, &context); },
        /*withLocation=*/true);
    if (!module)
      fail(message);
    verifyOrFail(*module, config.inputFile);
    spec = orFail(extractGemmSpec(*module));
  } else {
    spec = buildSpecFromFlags();
    if (isGrouped()) {
      // (--save for an NVIDIA chip saves a launch plan.)
      if (config.quantize != QuantizeOn::Host || !config.loadDir.empty() ||
          (!config.saveDir.empty() && !config.target.nvidia) ||
          (config.json && !config.model.only))
        fail("--groups: --quantize device, --load, --save and --json (but "
             "with --model-only) are not supported on grouped GEMMs yet");
      if (spec.b.layout != OperandLayout::NK)
        fail("--groups: B is [G, N, K]; --b-layout kn is not supported");
      int64_t alignment = getGroupedMatmulMAlignment();
      if (!config.masked && spec.m % alignment != 0)
        fail("--groups (contiguous): M = " + std::to_string(spec.m) +
             " must be a multiple of the M alignment " +
             std::to_string(alignment));
      module = buildGroupedGemmModule(&context, spec, config.groups,
                                      getGroupedLayout());
      verifyOrFail(*module, "the grouped GEMM described by the flags");
      return;
    }
    module = buildGemmModule(&context, spec);
    verifyOrFail(*module, "the GEMM described by the flags");
  }

  deviceQuantizes = config.quantize == QuantizeOn::Device;
  if (deviceQuantizes) {
    if (!config.loadDir.empty() || !config.inputFile.empty())
      fail("--quantize device works on generated data only");
    ScaleRounding aRounding = getRounding(spec.a);
    ScaleRounding bRounding = getRounding(spec.b);
    addQuantizeFunction(*module, "quantize_a", spec.a, spec.m, spec.k,
                        aRounding, getMinAmax(aRounding));
    addQuantizeFunction(*module, "quantize_b", spec.b, spec.n, spec.k,
                        bRounding, getMinAmax(bRounding));
    verifyOrFail(*module, "the quantize functions");
  }
}

bool GemmRunner::printProgramOrModel() {
  const ChipInfo &chip = amdChip();
  if (config.emitIR) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return true;
  }
  const ModelRequest &model = config.model;
  if (model.device && deviceQuantizes)
    fail("--model models the GEMM's kernels alone; model with --quantize "
         "host (the default)");
  // The model reads shapes only: all rows of a grouped GEMM are counted as
  // useful (contiguous padding rows and masked rows past the counts
  // included).
  if (model.device) {
    llvm::Expected<std::vector<perf::KernelPrediction>> modeled =
        perf::modelQMMProgram(*module, chip, *model.device, model.params,
                              kernelConfig);
    if (!modeled)
      fail("--model: " + llvm::toString(modeled.takeError()));
    predictions = std::move(*modeled);
  }
  if (!model.only)
    return false;
  if (config.json) {
    llvm::json::Object out{{"modeled", true},
                           {"model", modelJson(predictions)}};
    if (config.tune)
      out["tune"] = std::move(tuneRanking);
    if (!selectionNote.empty())
      out["selection"] = selectionNote;
    llvm::outs() << llvm::formatv("{0}\n", llvm::json::Value(std::move(out)));
  } else {
    if (!selectionNote.empty())
      llvm::outs() << selectionNote << "\n";
    printModel(predictions, nullptr, getDeviceKindName(config.device));
  }
  return true;
}

void GemmRunner::prepareInputs() {
  aParts.push_back(prepareOperand("a", spec.a, spec.m, spec.k, config.seed));
  bParts.push_back(
      prepareOperand("b", spec.b, spec.n, spec.k, config.seed + 1));
  if (deviceQuantizes) {
    quantizeOnDevice("quantize_a", aParts.front(), spec.a, spec.m);
    quantizeOnDevice("quantize_b", bParts.front(), spec.b, spec.n);
  }
  aData = aParts.front().quantized.data;
  aScales = aParts.front().quantized.scales;
  bData = bParts.front().quantized.data;
  bScales = bParts.front().quantized.scales;
  init = prepareAccumulator(spec.m); // zeros unless accumulating
  if (spec.biasType)
    bias = generateBias(spec.n);
  if (spec.auxType)
    auxInit = HostTensor(toElementType(spec.auxType), {spec.m, spec.n});
  if (spec.outEncoding)
    outScalesInit =
        HostTensor(toElementType(spec.outEncoding.getScaleType()),
                   spec.getOutputOperand().getScaleShape(spec.m, spec.n));
}

void GemmRunner::execute() { result = runProgram(config.iterations); }

llvm::SmallVector<const HostTensor *> GemmRunner::getProgramArguments(
    std::vector<TensorSpec> *resultSpecs) const {
  // The program's arguments, in order: a, a_scales, b, b_scales[, bias]
  // [, groups], init[, aux][, out_scales].
  llvm::SmallVector<const HostTensor *> args = {&aData, &aScales, &bData,
                                                &bScales};
  if (bias)
    args.push_back(&*bias);
  if (groupInfoTensor)
    args.push_back(&*groupInfoTensor);
  args.push_back(&init);
  *resultSpecs = {{toElementType(spec.outputType), init.shape}};
  if (auxInit) {
    args.push_back(&*auxInit);
    resultSpecs->push_back({auxInit->elementType, init.shape});
  }
  if (outScalesInit) {
    args.push_back(&*outScalesInit);
    resultSpecs->push_back({outScalesInit->elementType, outScalesInit->shape});
  }
  return args;
}

RunResult GemmRunner::runProgram(unsigned iterations) {
  std::vector<TensorSpec> resultSpecs;
  llvm::SmallVector<const HostTensor *> args =
      getProgramArguments(&resultSpecs);
  if (compiled)
    return orFail(compiled->run(args, resultSpecs, iterations));
  return orFail(device->run(*module, spec.functionName, args, resultSpecs,
                           iterations));
}

/// The f64 values of `tensor`.
static std::vector<double> getValues(const HostTensor &tensor) {
  std::vector<double> values(tensor.getNumElements());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = tensor.getValue(i);
  return values;
}

/// `values` of an operand in its storage order, as [rows][k].
static std::vector<double> toLogical(const std::vector<float> &values,
                                     const OperandSpec &operand, int64_t rows,
                                     int64_t k) {
  std::vector<double> result(rows * k);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 0; col < k; ++col)
      result[r * k + col] = operand.layout == OperandLayout::NK
                                ? values[r * k + col]
                                : values[col * rows + r];
  return result;
}

GemmReferences GemmRunner::computeReferences() const {
  const OperandData &a = aParts.front(), &b = bParts.front();
  GemmReferences refs;
  std::vector<double> cValues;
  if (spec.accumulate)
    cValues = getValues(init);
  std::vector<double> biasValues;
  if (bias)
    biasValues = getValues(*bias);
  // The epilogue on an f64 GEMM: the pre-activation, then D.
  auto epilogue = [&](const Reference &product) {
    Reference pre = bias ? addBias(product, biasValues, spec.n) : product;
    Reference post = spec.activation == Activation::None
                         ? pre
                         : applyActivation(pre, spec.activation, spec.k);
    return std::make_pair(pre, post);
  };
  std::tie(refs.preActivation, refs.exact) = epilogue(referenceGemm(
      dequantize(a.quantized.data, a.quantized.scales, spec.a, spec.m,
                 spec.k),
      dequantize(b.quantized.data, b.quantized.scales, spec.b, spec.n,
                 spec.k),
      cValues, spec.m, spec.n, spec.k));
  // Outputs that depend on non-finite or f32-overflowing quantized inputs
  // are judged in the exact tier only (the unquantized inputs need not
  // explain them).
  refs.beyondF32.assign(spec.m * spec.n, false);
  for (size_t i = 0; i < refs.beyondF32.size(); ++i)
    refs.beyondF32[i] = isBeyondF32(refs.exact, i);
  double formatBudget = getQuantizationThreshold(
      toElementType(spec.a.elementType), toElementType(spec.b.elementType));
  // An FP8 output is one more quantization.
  double outputBudget =
      spec.outEncoding
          ? getFormatQuantizationBudget(toElementType(spec.outputType))
          : 0.0;
  refs.threshold = formatBudget + outputBudget;
  refs.qualityRule.threshold = refs.threshold;
  if (!a.highPrecision || !b.highPrecision)
    return refs;
  std::vector<double> aValues =
      toLogical(*a.highPrecision, spec.a, spec.m, spec.k);
  std::vector<double> bValues =
      toLogical(*b.highPrecision, spec.b, spec.n, spec.k);
  auto [pre, post] = epilogue(
      referenceGemm(aValues, bValues, cValues, spec.m, spec.n, spec.k));
  // What an ideal quantizer of the recipe reaches on these inputs (the
  // outputs the tier judges only).
  ScaleRounding aRounding = getRounding(spec.a);
  ScaleRounding bRounding = getRounding(spec.b);
  Reference ideal =
      epilogue(referenceGemm(
                   quantizeIdeally(aValues, spec.a, spec.m, spec.k, aRounding,
                                   getMinAmax(aRounding)),
                   quantizeIdeally(bValues, spec.b, spec.n, spec.k, bRounding,
                                   getMinAmax(bRounding)),
                   cValues, spec.m, spec.n, spec.k))
          .second;
  QualityBudget budget;
  ElementType outputType = toElementType(spec.outputType);
  for (size_t i = 0; i < post.values.size(); ++i)
    if (!refs.beyondF32[i] && std::isfinite(post.values[i]) &&
        std::isfinite(ideal.values[i]))
      budget.addOutput(post.values[i], ideal.values[i], pre.values[i],
                       spec.activation, outputType);
  refs.qualityRule = getQualityThreshold(budget, formatBudget, outputBudget);
  refs.threshold = refs.qualityRule.threshold;
  refs.quality = std::move(post);
  return refs;
}

void GemmRunner::validate() {
  const HostTensor &d = result.results.front();
  std::vector<double> output = getValues(d);
  // An FP8 output is judged by its dequantized values.
  const HostTensor *outScales =
      spec.outEncoding ? &result.results.back() : nullptr;
  if (outScales)
    output = dequantize(d, *outScales, spec.getOutputOperand(), spec.m, spec.n);

  ElementType outputType = toElementType(spec.outputType);
  GemmReferences refs = computeReferences();
  auxExact.skipped = !spec.auxType;
  auxExact.pass = true;
  if (spec.auxType) {
    ElementType auxType = toElementType(spec.auxType);
    auxExact.metrics = compare(getValues(result.results[1]),
                               refs.preActivation, auxType,
                               /*checkUlps=*/true, spec.k);
    judgeExactTier(auxExact, auxType);
  }
  if (outScales) {
    exact.metrics = checkQuantizedOutput(d, *outScales,
                                         spec.getOutputOperand(), refs.exact,
                                         spec.outRounding, spec.outMinAmax,
                                         spec.k);
  } else {
    exact.metrics = compare(output, refs.exact, outputType,
                            /*checkUlps=*/true, spec.k);
  }
  judgeExactTier(exact, outputType);

  if (refs.quality) {
    quality.metrics = compare(output, *refs.quality, outputType,
                              /*checkUlps=*/false, spec.k, refs.beyondF32);
    judgeQualityTier(quality, refs.qualityRule);
  } else {
    quality.skipped = true;
    quality.pass = true;
    quality.criterion = "no unquantized inputs: a_hp.npy / b_hp.npy not given";
  }
}

bool GemmRunner::report() {
  bool pass = exact.pass && auxExact.pass && quality.pass &&
              quantizerCheck.agrees() && untouchedDiffer == 0;
  double flops = 2.0 * spec.m * spec.n * spec.k;
  double tflops = result.secondsPerIteration > 0
                      ? flops / result.secondsPerIteration / 1e12
                      : 0.0;
  if (config.json)
    printJsonReport(pass, tflops);
  else
    printTextReport(pass, tflops);
  return pass;
}
