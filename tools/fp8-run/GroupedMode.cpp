//===- GroupedMode.cpp - fp8-run --groups: grouped (MoE) GEMMs -------------===//
//
// The grouped mode's inputs and validation: a grouping (contiguous:
// 128-aligned segments of unequal sizes with padding rows, an empty group
// and a group of one row; masked: valid-row counts, A's scales past them
// NaN), A and each group's B quantized and stacked; every computed row
// checked against the f64 reference of its group (an FP8 output by its
// codes and scales), and every other row for being untouched (data, aux
// and output scales).
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

/// NaN in a scale type (0: none to write).
static uint32_t getScaleNaNBits(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return 0x7FC00000u;
  case ElementType::BF16:
    return 0x7FC0u;
  case ElementType::F16:
    return 0x7E00u;
  case ElementType::F8E8M0FNU:
    return 0xFFu;
  default:
    return 0;
  }
}

/// Writes NaN into the scales, [G, ...] of `encoding` for `rows` x `k`
/// each, whose rows all lie at or past their group's count: a masked
/// matmul's buffer may hold anything there, and none of it may reach a
/// valid row (a check of every scale, a tile's amax).
static void poisonScalesPastCounts(HostTensor &scales,
                                   ScaleEncodingAttr encoding, int64_t rows,
                                   int64_t k, llvm::ArrayRef<int32_t> counts) {
  uint32_t nan = getScaleNaNBits(scales.elementType);
  if (!nan || encoding.getKind() == ScaleKind::PerTensor)
    return;
  int64_t blockRows = encoding.getBlockExtent(rows, k).first;
  llvm::SmallVector<int64_t, 2> shape = encoding.getScaleShape(rows, k);
  int64_t perGroup = shape[0] * shape[1];
  for (auto [g, count] : llvm::enumerate(counts))
    for (int64_t i = 0; i < perGroup; ++i) {
      int64_t scaleRow =
          encoding.isMNMajor() ? i % shape[1] : i / shape[1];
      if (scaleRow * blockRows >= count)
        scales.setBits(int64_t(g) * perGroup + i, nan);
    }
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
      // With 3 groups or more, group 1 has a single row: the rest of its
      // segment is padding, whole tiles of it where it has more than one.
      if (groups >= 3 && g == 1 && rows)
        valid = 1;
      for (int64_t r = 0; r < rows; ++r)
        info.push_back(r < valid ? int32_t(g) : -1);
    }
  }
  groupInfoTensor = HostTensor(ElementType::I32, {int64_t(info.size())});
  for (size_t i = 0; i < info.size(); ++i)
    groupInfoTensor->setBits(i, uint32_t(info[i]));

  // Data: A whole (contiguous) or per group (masked), B per group. With
  // --no-data (a launch plan whose inputs the runner draws), zeros of
  // their shapes only: drawing and quantizing them would take most of the
  // time, and none of it travels.
  if (config.saveWithoutData) {
    auto shaped = [&](const OperandSpec &operand, int64_t rows,
                      int64_t count) {
      std::vector<int64_t> dataShape = {rows, spec.k};
      std::vector<int64_t> scaleShape = operand.getScaleShape(rows, spec.k);
      if (count) {
        dataShape.insert(dataShape.begin(), count);
        scaleShape.insert(scaleShape.begin(), count);
      }
      return std::pair{
          HostTensor(toElementType(operand.elementType), dataShape),
          HostTensor(toElementType(operand.encoding.getScaleType()),
                     scaleShape)};
    };
    std::tie(aData, aScales) = shaped(spec.a, spec.m, masked ? groups : 0);
    std::tie(bData, bScales) = shaped(spec.b, spec.n, groups);
  } else {
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
    if (masked)
      poisonScalesPastCounts(aScales, spec.a.encoding, spec.m, spec.k, info);
    bData = stackParts(bParts, true);
    bScales = stackParts(bParts, false);
  }

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

std::vector<int64_t> GemmRunner::getWrittenGroupedRows() const {
  std::vector<int64_t> written;
  const std::vector<int32_t> &info = groupInfo;
  int64_t rows = config.masked ? config.groups * spec.m : spec.m;
  for (int64_t row = 0; row < rows; ++row) {
    bool valid = config.masked ? row % spec.m < info[row / spec.m]
                               : info[row] >= 0;
    if (valid)
      written.push_back(row);
  }
  return written;
}

GemmReferences
GemmRunner::computeGroupedReferences(llvm::ArrayRef<int64_t> written) const {
  bool masked = config.masked;
  const std::vector<int32_t> &info = groupInfo;
  std::vector<std::vector<double>> dqA, hpA, dqB, hpB;
  for (const OperandData &part : aParts) {
    dqA.push_back(dequantize(part.quantized.data, part.quantized.scales,
                             spec.a, spec.m, spec.k));
    hpA.emplace_back(part.highPrecision->begin(), part.highPrecision->end());
  }
  for (const OperandData &part : bParts) {
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
  ElementType outputType = toElementType(spec.outputType);
  GemmReferences refs;
  Reference quality;
  QualityBudget budget;
  auto append = [&](Reference &to, const Reference &row) {
    llvm::append_range(to.values, row.values);
    llvm::append_range(to.magnitudes, row.magnitudes);
  };
  for (int64_t row : written) {
    int64_t g = masked ? row / spec.m : info[row];
    int64_t local = masked ? row % spec.m : row;
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
    auto activate = [&](Reference product) {
      if (spec.activation != Activation::None)
        product = applyActivation(product, spec.activation, spec.k);
      return product;
    };
    auto product = [&](const std::vector<double> &a,
                       const std::vector<double> &b) {
      return referenceGemm(rowOf(a), b, c, 1, spec.n, spec.k);
    };
    Reference exactPre = preActivation(product(dqA[aPart], dqB[g]));
    append(refs.preActivation, exactPre);
    append(refs.exact, activate(exactPre));
    Reference qualityPre = preActivation(product(hpA[aPart], hpB[g]));
    Reference qualityRow = activate(qualityPre);
    Reference idealRow =
        activate(preActivation(product(idealA[aPart], idealB[g])));
    for (int64_t n = 0; n < spec.n; ++n)
      if (std::isfinite(qualityRow.values[n]) &&
          std::isfinite(idealRow.values[n]) && !isBeyondF32(qualityRow, n))
        budget.addOutput(qualityRow.values[n], idealRow.values[n],
                         qualityPre.values[n], spec.activation, outputType);
    append(quality, qualityRow);
  }
  refs.beyondF32.assign(refs.exact.values.size(), false);
  for (size_t i = 0; i < refs.beyondF32.size(); ++i)
    refs.beyondF32[i] = isBeyondF32(refs.exact, i);
  double formatBudget = getQuantizationThreshold(
      toElementType(spec.a.elementType), toElementType(spec.b.elementType));
  // An FP8 output is judged by its dequantized codes: one more
  // quantization.
  double outputBudget =
      spec.outEncoding ? getFormatQuantizationBudget(outputType) : 0.0;
  refs.qualityRule = getQualityThreshold(budget, formatBudget, outputBudget);
  refs.threshold = refs.qualityRule.threshold;
  refs.quality = std::move(quality);
  return refs;
}

void GemmRunner::validateGroupedRows() {
  const HostTensor &d = result.results.front();
  const HostTensor *aux = spec.auxType ? &result.results[1] : nullptr;
  const HostTensor *outScales =
      spec.outEncoding ? &result.results.back() : nullptr;
  int64_t rows = config.masked ? config.groups * spec.m : spec.m;
  // An FP8 output: the written rows' codes and scales, gathered to be
  // judged as one [written rows, N] output.
  OperandSpec outOperand = spec.getOutputOperand();
  int64_t scalesPerRow =
      outScales ? outOperand.getScaleShape(1, spec.n).back() : 0;
  std::vector<uint32_t> writtenCodes, writtenScales;
  std::vector<double> output, auxOutput;
  std::vector<int64_t> written = getWrittenGroupedRows();
  GemmReferences refs = computeGroupedReferences(written);
  // Rows not computed keep their values (data, aux and output scales);
  // the computed ones are gathered.
  size_t next = 0;
  for (int64_t row = 0; row < rows; ++row) {
    if (next < written.size() && written[next] == row) {
      ++next;
      for (int64_t n = 0; n < spec.n; ++n) {
        int64_t i = row * spec.n + n;
        if (outScales)
          writtenCodes.push_back(d.getBits(i));
        output.push_back(d.getValue(i));
        if (aux)
          auxOutput.push_back(aux->getValue(i));
      }
      for (int64_t j = 0; j < scalesPerRow; ++j)
        writtenScales.push_back(outScales->getBits(row * scalesPerRow + j));
      continue;
    }
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
  }
  ElementType outputType = toElementType(spec.outputType);
  if (outScales) {
    // Judged by the dequantized codes.
    int64_t count = int64_t(written.size());
    HostTensor codes(outputType, {count, spec.n});
    HostTensor scales(outScales->elementType, {count, scalesPerRow});
    for (size_t i = 0; i < writtenCodes.size(); ++i)
      codes.setBits(i, writtenCodes[i]);
    for (size_t i = 0; i < writtenScales.size(); ++i)
      scales.setBits(i, writtenScales[i]);
    exact.metrics = checkQuantizedOutput(codes, scales, outOperand, refs.exact,
                                         spec.outRounding, spec.outMinAmax,
                                         spec.k);
    output = dequantize(codes, scales, outOperand, count, spec.n);
  } else {
    exact.metrics = compare(output, refs.exact, outputType,
                            /*checkUlps=*/true, spec.k);
  }
  judgeExactTier(exact, outputType);
  auxExact.pass = true;
  if (aux) {
    ElementType auxType = toElementType(spec.auxType);
    auxExact.metrics = compare(auxOutput, refs.preActivation, auxType,
                               /*checkUlps=*/true, spec.k);
    judgeExactTier(auxExact, auxType);
  }
  quality.metrics = compare(output, *refs.quality, outputType,
                            /*checkUlps=*/false, spec.k);
  judgeQualityTier(quality, refs.qualityRule);
}
