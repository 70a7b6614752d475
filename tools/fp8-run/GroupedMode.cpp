//===- GroupedMode.cpp - fp8-run --groups: grouped (MoE) GEMMs -------------===//
//
// Generates a grouping (contiguous: 128-aligned segments of unequal sizes
// with padding rows and an empty group; masked: valid-row counts), quantizes
// A and each group's B, runs the grouped program and checks every computed
// row against the f64 reference of its group, and every other row for being
// untouched.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "qmm/Runtime/HostQuantizer.h"
#include "qmm/Runtime/Validation.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <random>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;
using namespace mlir::qmm::fp8run;

/// Stacks equally shaped tensors along a new leading dimension.
static HostTensor stack(llvm::ArrayRef<HostTensor> parts) {
  std::vector<int64_t> shape = {int64_t(parts.size())};
  llvm::append_range(shape, parts.front().shape);
  HostTensor result(parts.front().elementType, shape);
  result.bytes.clear();
  for (const HostTensor &part : parts)
    llvm::append_range(result.bytes, part.bytes);
  return result;
}

/// The grouped mode: generates the grouping, quantizes A and every group's
/// B, runs the program, and checks each computed row against the f64
/// reference of its group (both tiers) and every other row against init
/// (it must be untouched).
int fp8run::runGrouped(MLIRContext &context, GemmSpec spec,
                       const ChipInfo &chip, const GroupedRun &run) {
  int64_t groups = run.groups;
  unsigned seed = run.seed;
  GroupedLayout layout =
      run.masked ? GroupedLayout::Masked : GroupedLayout::Contiguous;
  bool masked = layout == GroupedLayout::Masked;
  int64_t alignment = getGroupedMatmulMAlignment();
  if (spec.b.layout != OperandLayout::NK)
    fail("--groups: B is [G, N, K]; --b-layout kn is not supported");
  if (!masked && spec.m % alignment != 0)
    fail("--groups (contiguous): M = " + std::to_string(spec.m) +
         " must be a multiple of the M alignment " +
         std::to_string(alignment));
  OwningOpRef<ModuleOp> module =
      buildGroupedGemmModule(&context, spec, groups, layout);
  verifyOrFail(*module, "the grouped GEMM described by the flags");
  if (run.emitIR) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  // The model reads shapes only: all rows are counted as useful (contiguous
  // padding rows and masked rows past the counts included).
  std::vector<perf::KernelPrediction> predictions;
  if (run.model.device)
    predictions = modelOrFail(*module, chip, run.model, run.config);
  if (run.model.only) {
    if (run.json)
      llvm::outs() << llvm::formatv(
          "{0}\n", llvm::json::Value(llvm::json::Object{
                       {"modeled", true}, {"model", modelJson(predictions)}}));
    else
      printModel(predictions, nullptr, run.device);
    return 0;
  }

  // The grouping: contiguous, 128-row tiles dealt to groups (segments in
  // group order), each segment ending in padding rows; masked, a count of
  // valid rows per group.
  std::mt19937_64 rng(seed + 5);
  std::vector<int32_t> info;
  if (masked) {
    for (int64_t g = 0; g < groups; ++g)
      info.push_back(int32_t(rng() % (spec.m + 1)));
    info[0] = int32_t(spec.m);
    if (groups >= 3)
      info[groups / 2] = 0;
  } else {
    // One tile to each group in turn (but the empty one), then the rest
    // at random: unequal sizes.
    std::vector<int64_t> tiles(groups, 0);
    std::vector<int64_t> open;
    for (int64_t g = 0; g < groups; ++g)
      if (groups < 3 || g != groups / 2)
        open.push_back(g);
    for (int64_t t = 0; t < spec.m / alignment; ++t)
      ++tiles[t < int64_t(open.size()) ? open[t]
                                        : open[rng() % open.size()]];
    for (int64_t g = 0; g < groups; ++g) {
      int64_t rows = tiles[g] * alignment;
      int64_t valid = rows ? rows - int64_t(rng() % alignment) : 0;
      for (int64_t r = 0; r < rows; ++r)
        info.push_back(r < valid ? int32_t(g) : -1);
    }
  }
  HostTensor groupInfo(ElementType::I32, {int64_t(info.size())});
  for (size_t i = 0; i < info.size(); ++i)
    groupInfo.setBits(i, uint32_t(info[i]));

  // Data: A whole (contiguous) or per group (masked), B per group.
  auto quantizeOne = [&](const OperandSpec &operand, int64_t rows,
                         unsigned streamSeed) {
    OperandData data;
    data.highPrecision = generate(rows * spec.k, streamSeed);
    ScaleRounding rounding = getRounding(operand);
    data.quantized = quantize(*data.highPrecision, operand, rows, spec.k,
                              rounding, getMinAmax(rounding));
    return data;
  };
  std::vector<OperandData> aParts, bParts;
  for (int64_t g = 0; g < (masked ? groups : 1); ++g)
    aParts.push_back(quantizeOne(spec.a, spec.m, seed + 100 * g));
  for (int64_t g = 0; g < groups; ++g)
    bParts.push_back(quantizeOne(spec.b, spec.n, seed + 100 * g + 1));
  auto stackParts = [&](const std::vector<OperandData> &parts, bool data) {
    std::vector<HostTensor> tensors;
    for (const OperandData &part : parts)
      tensors.push_back(data ? part.quantized.data : part.quantized.scales);
    return stack(tensors);
  };
  HostTensor aData = masked ? stackParts(aParts, true) : aParts[0].quantized.data;
  HostTensor aScales =
      masked ? stackParts(aParts, false) : aParts[0].quantized.scales;
  HostTensor bData = stackParts(bParts, true);
  HostTensor bScales = stackParts(bParts, false);

  // C (or zeros): rows of every group matrix.
  GemmSpec rowsSpec = spec;
  rowsSpec.m = masked ? groups * spec.m : spec.m;
  HostTensor init = prepareAccumulator(rowsSpec);
  if (masked)
    init.shape = {groups, spec.m, spec.n};

  std::unique_ptr<Device> device =
      orFail(createDevice(run.device, chip.name, run.config));
  // A bias per group: [G, N].
  std::optional<HostTensor> bias;
  if (spec.biasType) {
    GemmSpec biasSpec = spec;
    biasSpec.n = groups * spec.n;
    bias = generateBias(biasSpec);
    bias->shape = {groups, spec.n};
  }
  llvm::SmallVector<const HostTensor *> args = {&aData, &aScales, &bData,
                                                &bScales};
  if (bias)
    args.push_back(&*bias);
  args.append({&groupInfo, &init});
  std::vector<TensorSpec> resultSpecs = {
      {toElementType(spec.outputType), init.shape}};
  // The pre-activation output starts as -7 everywhere, so that rows the
  // kernel must not write are seen to be untouched.
  std::optional<HostTensor> auxInit;
  if (spec.auxType) {
    ElementType auxType = toElementType(spec.auxType);
    auxInit = HostTensor(auxType, init.shape);
    uint32_t minusSeven = auxType == ElementType::F32    ? 0xC0E00000u
                          : auxType == ElementType::BF16 ? 0xC0E0u
                                                         : 0xC700u; // f16
    for (int64_t i = 0; i < auxInit->getNumElements(); ++i)
      auxInit->setBits(i, minusSeven);
    args.push_back(&*auxInit);
    resultSpecs.push_back({auxType, init.shape});
  }
  RunResult result = orFail(device->run(*module, spec.functionName, args,
                                        resultSpecs, run.iterations));
  const HostTensor &d = result.results.front();
  const HostTensor *aux = spec.auxType ? &result.results[1] : nullptr;

  // Row r of group g: the f64 reference of that row alone.
  ElementType outType = toElementType(spec.outputType);
  std::vector<double> output, exactRef, exactMag, qualityRef, qualityMag;
  std::vector<double> auxOutput, auxRef, auxMag;
  int64_t untouchedDiffer = 0, untouched = 0, computed = 0;
  std::vector<std::vector<double>> dqA, hpA, dqB, hpB;
  for (OperandData &part : aParts) {
    dqA.push_back(dequantize(part.quantized.data, part.quantized.scales,
                             spec.a, spec.m, spec.k));
    hpA.emplace_back(part.highPrecision->begin(), part.highPrecision->end());
  }
  for (OperandData &part : bParts) {
    dqB.push_back(dequantize(part.quantized.data, part.quantized.scales,
                             spec.b, spec.n, spec.k));
    hpB.emplace_back(part.highPrecision->begin(), part.highPrecision->end());
  }
  for (int64_t row = 0; row < rowsSpec.m; ++row) {
    int64_t g = masked ? row / spec.m : info[row];
    int64_t local = masked ? row % spec.m : row;
    bool valid = masked ? local < info[g] : g >= 0;
    if (!valid) {
      for (int64_t n = 0; n < spec.n; ++n, ++untouched) {
        int64_t i = row * spec.n + n;
        untouchedDiffer += d.getBits(i) != init.getBits(i);
        if (aux) {
          untouchedDiffer += aux->getBits(i) != auxInit->getBits(i);
          ++untouched;
        }
      }
      continue;
    }
    ++computed;
    int64_t aPart = masked ? g : 0;
    std::vector<double> c;
    if (spec.accumulate)
      for (int64_t n = 0; n < spec.n; ++n)
        c.push_back(init.getValue(row * spec.n + n));
    auto rowOf = [&](const std::vector<double> &matrix) {
      return llvm::ArrayRef<double>(matrix).slice(local * spec.k, spec.k);
    };
    // The epilogue: group g's bias (the pre-activation), then the
    // activation.
    auto preActivation = [&](Reference product) {
      if (bias) {
        std::vector<double> groupBias;
        for (int64_t n = 0; n < spec.n; ++n)
          groupBias.push_back(bias->getValue(g * spec.n + n));
        product = addBias(product, groupBias, spec.n);
      }
      return product;
    };
    auto epilogue = [&](Reference product) {
      product = preActivation(product);
      if (spec.activation != Activation::None)
        product = applyActivation(product, spec.activation, spec.k);
      return product;
    };
    Reference exactProduct =
        referenceGemm(rowOf(dqA[aPart]), dqB[g], c, 1, spec.n, spec.k);
    if (aux) {
      Reference pre = preActivation(exactProduct);
      for (int64_t n = 0; n < spec.n; ++n) {
        auxOutput.push_back(aux->getValue(row * spec.n + n));
        auxRef.push_back(pre.values[n]);
        auxMag.push_back(pre.magnitudes[n]);
      }
    }
    Reference exactRow = epilogue(exactProduct);
    Reference qualityRow = epilogue(
        referenceGemm(rowOf(hpA[aPart]), hpB[g], c, 1, spec.n, spec.k));
    for (int64_t n = 0; n < spec.n; ++n) {
      output.push_back(d.getValue(row * spec.n + n));
      exactRef.push_back(exactRow.values[n]);
      exactMag.push_back(exactRow.magnitudes[n]);
      qualityRef.push_back(qualityRow.values[n]);
      qualityMag.push_back(qualityRow.magnitudes[n]);
    }
  }
  Tier exact{"exact tier (vs f64 of the dequantized inputs)"};
  exact.metrics =
      compare(output, {exactRef, exactMag}, outType, /*checkUlps=*/true, spec.k);
  judgeExactTier(exact, outType);
  Tier auxExact{"aux (pre-activation) exact tier"};
  auxExact.pass = true;
  if (aux) {
    ElementType auxType = toElementType(spec.auxType);
    auxExact.metrics = compare(auxOutput, {auxRef, auxMag}, auxType,
                               /*checkUlps=*/true, spec.k);
    judgeExactTier(auxExact, auxType);
  }
  Tier quality{"quantization tier (vs f64 of the unquantized inputs)"};
  double threshold = getQuantizationThreshold(toElementType(spec.a.elementType),
                                              toElementType(spec.b.elementType));
  quality.metrics = compare(output, {qualityRef, qualityMag}, outType,
                            /*checkUlps=*/false, spec.k);
  quality.criterion = llvm::formatv("calc_diff < {0:e1}", threshold).str();
  quality.pass = quality.metrics.calcDiff < threshold &&
                 quality.metrics.nanMismatches == 0;
  bool untouchedPass = untouchedDiffer == 0;
  bool pass = exact.pass && auxExact.pass && quality.pass && untouchedPass;

  llvm::outs() << "fp8-run: " << spec.describe() << "\n";
  llvm::outs() << "  grouped " << stringifyGroupedLayout(layout) << ", "
               << groups << " groups, "
               << (masked ? "valid rows per group:" : "rows per group:");
  for (int64_t g = 0; g < groups; ++g) {
    int64_t rows = 0;
    if (masked)
      rows = info[g];
    else
      for (int32_t v : info)
        rows += v == g;
    llvm::outs() << " " << rows;
  }
  if (!masked)
    llvm::outs() << " (+" << llvm::count(info, -1) << " padding)";
  llvm::outs() << "\n  chip " << chip.name << " (" << chip.product
               << "), device " << device->getName() << ", seed " << seed
               << "\n";
  printTier(exact);
  if (aux)
    printTier(auxExact);
  printTier(quality);
  llvm::outs() << llvm::formatv(
      "  rows not computed ({0}): {1} of {2} values differ from init{4}  "
      "[untouched]  {3}\n",
      masked ? "past the counts" : "padding", untouchedDiffer, untouched,
      untouchedPass ? "PASS" : "FAIL", aux ? " (output and aux)" : "");
  if (run.model.device)
    printModel(predictions, &result, device->getName());
  llvm::outs() << "RESULT: " << (pass ? "PASS" : "FAIL") << "\n";
  return pass ? 0 : 1;
}

