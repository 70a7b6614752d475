//===- GroupedMode.cpp - fp8-run --groups: grouped (MoE) GEMMs -------------===//
//
// The grouped mode's inputs and validation: a grouping (contiguous:
// 128-aligned segments of unequal sizes with padding rows and an empty
// group; masked: valid-row counts), A and each group's B quantized and
// stacked; every computed row checked against the f64 reference of its
// group (an FP8 output by its codes and scales), and every other row for
// being untouched (data, aux and output scales).
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "qmm/Runtime/HostQuantizer.h"
#include "qmm/Runtime/Validation.h"

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

void GemmRunner::prepareGroupedInputs() {
  int64_t groups = config.groups;
  bool masked = config.masked;
  unsigned seed = config.seed;
  int64_t alignment = getGroupedMatmulMAlignment();

  // The grouping: contiguous, 128-row tiles dealt to groups (segments in
  // group order), each segment ending in padding rows; masked, a count of
  // valid rows per group.
  std::mt19937_64 rng(seed + 5);
  std::vector<int32_t> &info = groupInfo;
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
  groupInfoTensor = HostTensor(ElementType::I32, {int64_t(info.size())});
  for (size_t i = 0; i < info.size(); ++i)
    groupInfoTensor->setBits(i, uint32_t(info[i]));

  // Data: A whole (contiguous) or per group (masked), B per group.
  for (int64_t g = 0; g < (masked ? groups : 1); ++g)
    aParts.push_back(generateOperand(spec.a, spec.m, seed + 100 * g));
  for (int64_t g = 0; g < groups; ++g)
    bParts.push_back(generateOperand(spec.b, spec.n, seed + 100 * g + 1));
  auto stackParts = [&](const std::vector<OperandData> &parts, bool data) {
    std::vector<HostTensor> tensors;
    for (const OperandData &part : parts)
      tensors.push_back(data ? part.quantized.data : part.quantized.scales);
    return stack(tensors);
  };
  aData = masked ? stackParts(aParts, true) : aParts[0].quantized.data;
  aScales = masked ? stackParts(aParts, false) : aParts[0].quantized.scales;
  bData = stackParts(bParts, true);
  bScales = stackParts(bParts, false);

  // C (or zeros): rows of every group matrix.
  init = prepareAccumulator(masked ? groups * spec.m : spec.m);
  if (masked)
    init.shape = {groups, spec.m, spec.n};
  // A bias per group: [G, N].
  if (spec.biasType) {
    bias = generateBias(groups * spec.n);
    bias->shape = {groups, spec.n};
  }
  // An FP8 output and its scales start as sentinels (code 0x40, a finite
  // value in every FP8 type; scales -7 or 2^6), so that rows the kernel
  // must not write are seen to be untouched.
  if (spec.outEncoding) {
    for (int64_t i = 0; i < init.getNumElements(); ++i)
      init.setBits(i, 0x40);
    std::vector<int64_t> scaleShape =
        spec.getOutputOperand().getScaleShape(spec.m, spec.n);
    if (masked)
      scaleShape.insert(scaleShape.begin(), groups);
    ElementType scaleType = toElementType(spec.outEncoding.getScaleType());
    outScalesInit = HostTensor(scaleType, scaleShape);
    for (int64_t i = 0; i < outScalesInit->getNumElements(); ++i)
      outScalesInit->setBits(
          i, scaleType == ElementType::F32 ? 0xC0E00000u : 0x85u);
  }
  // The pre-activation output starts as -7 everywhere, likewise.
  if (spec.auxType) {
    ElementType auxType = toElementType(spec.auxType);
    auxInit = HostTensor(auxType, init.shape);
    uint32_t minusSeven = auxType == ElementType::F32    ? 0xC0E00000u
                          : auxType == ElementType::BF16 ? 0xC0E0u
                                                         : 0xC700u; // f16
    for (int64_t i = 0; i < auxInit->getNumElements(); ++i)
      auxInit->setBits(i, minusSeven);
  }
}

void GemmRunner::validateGroupedRows() {
  bool masked = config.masked;
  const std::vector<int32_t> &info = groupInfo;
  const HostTensor &d = result.results.front();
  const HostTensor *aux = spec.auxType ? &result.results[1] : nullptr;
  const HostTensor *outScales =
      spec.outEncoding ? &result.results.back() : nullptr;
  int64_t rows = masked ? config.groups * spec.m : spec.m;
  // An FP8 output: the written rows' codes and scales, gathered to be
  // judged as one [written rows, N] output.
  OperandSpec outOperand = spec.getOutputOperand();
  int64_t scalesPerRow =
      outScales ? outOperand.getScaleShape(1, spec.n).back() : 0;
  std::vector<uint32_t> writtenCodes, writtenScales;

  // Row r of group g: the f64 reference of that row alone.
  ElementType outputType = toElementType(spec.outputType);
  std::vector<double> output, exactRef, exactMag, qualityRef, qualityMag;
  std::vector<double> auxOutput, auxRef, auxMag;
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
  // Each part as the recipe's ideal quantizer leaves it (the quantization
  // tier's measure: host/QualityBudget.h), quantized as the parts were.
  ScaleRounding aRounding = getRounding(spec.a);
  ScaleRounding bRounding = getRounding(spec.b);
  std::vector<std::vector<double>> idealA, idealB;
  for (const std::vector<double> &part : hpA)
    idealA.push_back(quantizeIdeally(part, spec.a, spec.m, spec.k, aRounding,
                                     getMinAmax(aRounding)));
  for (const std::vector<double> &part : hpB)
    idealB.push_back(quantizeIdeally(part, spec.b, spec.n, spec.k, bRounding,
                                     getMinAmax(bRounding)));
  QualityBudget budget;
  for (int64_t row = 0; row < rows; ++row) {
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
      for (int64_t j = 0; j < scalesPerRow; ++j, ++untouched) {
        int64_t i = row * scalesPerRow + j;
        untouchedDiffer += outScales->getBits(i) != outScalesInit->getBits(i);
      }
      continue;
    }
    for (int64_t n = 0; outScales && n < spec.n; ++n)
      writtenCodes.push_back(d.getBits(row * spec.n + n));
    for (int64_t j = 0; j < scalesPerRow; ++j)
      writtenScales.push_back(outScales->getBits(row * scalesPerRow + j));
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
    Reference qualityPre = preActivation(
        referenceGemm(rowOf(hpA[aPart]), hpB[g], c, 1, spec.n, spec.k));
    Reference qualityRow = epilogue(
        referenceGemm(rowOf(hpA[aPart]), hpB[g], c, 1, spec.n, spec.k));
    Reference idealRow = epilogue(
        referenceGemm(rowOf(idealA[aPart]), idealB[g], c, 1, spec.n, spec.k));
    for (int64_t n = 0; n < spec.n; ++n)
      if (std::isfinite(qualityRow.values[n]) &&
          std::isfinite(idealRow.values[n]) && !isBeyondF32(qualityRow, n))
        budget.addOutput(qualityRow.values[n], idealRow.values[n],
                         qualityPre.values[n], spec.activation, outputType);
    for (int64_t n = 0; n < spec.n; ++n) {
      output.push_back(d.getValue(row * spec.n + n));
      exactRef.push_back(exactRow.values[n]);
      exactMag.push_back(exactRow.magnitudes[n]);
      qualityRef.push_back(qualityRow.values[n]);
      qualityMag.push_back(qualityRow.magnitudes[n]);
    }
  }
  double formatBudget = getQuantizationThreshold(
      toElementType(spec.a.elementType), toElementType(spec.b.elementType));
  double outputBudget = 0;
  if (outScales) {
    // Judged by the dequantized codes, one more quantization in tier 2.
    int64_t written = int64_t(exactRef.size()) / std::max<int64_t>(spec.n, 1);
    HostTensor codes(outputType, {written, spec.n});
    HostTensor scales(outScales->elementType, {written, scalesPerRow});
    for (size_t i = 0; i < writtenCodes.size(); ++i)
      codes.setBits(i, writtenCodes[i]);
    for (size_t i = 0; i < writtenScales.size(); ++i)
      scales.setBits(i, writtenScales[i]);
    exact.metrics = checkQuantizedOutput(codes, scales, outOperand,
                                         {exactRef, exactMag},
                                         spec.outRounding, spec.outMinAmax,
                                         spec.k);
    output = dequantize(codes, scales, outOperand, written, spec.n);
    outputBudget = getFormatQuantizationBudget(outputType);
  } else {
    exact.metrics = compare(output, {exactRef, exactMag}, outputType,
                            /*checkUlps=*/true, spec.k);
  }
  judgeExactTier(exact, outputType);
  auxExact.pass = true;
  if (aux) {
    ElementType auxType = toElementType(spec.auxType);
    auxExact.metrics = compare(auxOutput, {auxRef, auxMag}, auxType,
                               /*checkUlps=*/true, spec.k);
    judgeExactTier(auxExact, auxType);
  }
  quality.metrics = compare(output, {qualityRef, qualityMag}, outputType,
                            /*checkUlps=*/false, spec.k);
  judgeQualityTier(quality,
                   getQualityThreshold(budget, formatBudget, outputBudget));
}
