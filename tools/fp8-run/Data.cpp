//===- Data.cpp - fp8-run: the GEMM, operands, C, bias and .npy files -----===//

#include "Runner.h"

#include "qmm/Runtime/HostFormats.h"
#include "qmm/Support/NestingLimit.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;
using namespace mlir::qmm::fp8run;

//===----------------------------------------------------------------------===//
// The GEMM from the flags
//===----------------------------------------------------------------------===//

static Type parseElementType(MLIRContext *ctx, llvm::StringRef flag,
                             llvm::StringRef name) {
  Type type;
  captureDiagnostics(ctx, [&] {
    if (succeeded(checkNestingDepth(name, "--" + flag.str(), ctx)))
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
                                        llvm::StringRef text, bool mnMajor) {
  llvm::Expected<ScaleEncodingAttr> encoding =
      parseScaleSpec(ctx, text, mnMajor);
  if (!encoding)
    fail("--" + flag + ": " + llvm::toString(encoding.takeError()));
  return *encoding;
}

GemmSpec GemmRunner::buildSpecFromFlags() {
  GemmSpec spec;
  spec.m = config.isDynamicM() ? ShapedType::kDynamic : config.m;
  spec.n = config.n;
  spec.k = config.k;
  FormatFamily family = config.target.getNativeFP8();
  std::string native =
      family == FormatFamily::FNUZ ? "f8E4M3FNUZ" : "f8E4M3FN";
  spec.a.elementType = parseElementType(
      &context, "a-type", config.aType.empty() ? native : config.aType);
  spec.b.elementType = parseElementType(
      &context, "b-type", config.bType.empty() ? native : config.bType);
  spec.a.encoding =
      parseScaleFlag(&context, "a-scale", config.aScale, config.aScaleMNMajor);
  spec.b.encoding =
      parseScaleFlag(&context, "b-scale", config.bScale, config.bScaleMNMajor);
  spec.b.layout = config.bLayout;
  spec.outputType = getMLIRType(config.outType, &context);
  if (getElementBitWidth(config.outType) == 8) {
    spec.outEncoding = parseScaleFlag(&context, "out-scale", config.outScale,
                                      /*mnMajor=*/false);
    spec.outRounding = config.outRounding
                           ? *config.outRounding
                           : getDefaultScaleRounding(spec.outEncoding);
    spec.outMinAmax = getDefaultMinAmax(spec.outRounding);
  }
  spec.accumulate = config.accumulate;
  if (config.biasType)
    spec.biasType = getMLIRType(*config.biasType, &context);
  spec.activation = config.activation;
  if (config.auxType)
    spec.auxType = getMLIRType(*config.auxType, &context);
  return spec;
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

std::vector<float> GemmRunner::generate(int64_t count,
                                        unsigned streamSeed) const {
  std::mt19937_64 rng(streamSeed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &value : values) {
    switch (config.distribution) {
    case Distribution::Normal:
      value = normal(rng);
      break;
    case Distribution::Uniform:
      value = uniform(rng);
      break;
    case Distribution::Outliers:
      // One element in a thousand is a hundred times larger.
      value = normal(rng);
      if (std::uniform_int_distribution<int>(0, 999)(rng) == 0)
        value *= 100.0f;
      break;
    case Distribution::NearMax: {
      // Every magnitude within 10% of the block amax.
      float magnitude = 0.9f + 0.1f * (uniform(rng) + 1.0f) / 2.0f;
      value = uniform(rng) < 0 ? -magnitude : magnitude;
      break;
    }
    }
  }
  return values;
}

HostTensor fp8run::toTensor(llvm::ArrayRef<float> values,
                            llvm::ArrayRef<int64_t> shape) {
  HostTensor tensor(ElementType::F32, shape);
  std::memcpy(tensor.bytes.data(), values.data(), values.size() * 4);
  return tensor;
}

std::vector<float> fp8run::toFloats(const HostTensor &tensor) {
  std::vector<float> values(tensor.getNumElements());
  std::memcpy(values.data(), tensor.bytes.data(), values.size() * 4);
  return values;
}

ScaleRounding GemmRunner::getRounding(const OperandSpec &operand) const {
  if (!config.rounding)
    return getDefaultScaleRounding(operand.encoding);
  if (*config.rounding == ScaleRounding::None &&
      isa<Float8E8M0FNUType>(operand.encoding.getScaleType()))
    fail("--rounding none cannot produce E8M0 (mx32) scales");
  return *config.rounding;
}

float GemmRunner::getMinAmax(ScaleRounding rounding) const {
  if (!config.minAmax)
    return getDefaultMinAmax(rounding);
  float minAmax = *config.minAmax;
  if (!(minAmax >= 0.0f) || !std::isfinite(minAmax))
    fail("--min-amax must be finite and non-negative");
  if (minAmax == 0.0f && rounding != ScaleRounding::Pow2Floor)
    fail("--min-amax 0 needs --rounding pow2_floor");
  return minAmax;
}

/// The dimensions of `shape` that are not 1.
static std::vector<int64_t> withoutUnitDims(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> dims;
  for (int64_t d : shape)
    if (d != 1)
      dims.push_back(d);
  return dims;
}

/// Scales from `path`, in `shape`; shapes that differ only by dimensions of
/// 1 hold the same scales and are accepted (torch's `_scaled_mm` keeps a
/// per-tensor scale as a 0-d or [1] array, a per-row one as [M]).
static HostTensor readScales(llvm::StringRef path, ElementType type,
                             const std::vector<int64_t> &shape) {
  host::NpyArray array = orFail(host::readNpyArray(path));
  std::vector<int64_t> stored = shape;
  if (array.shape != shape &&
      withoutUnitDims(array.shape) == withoutUnitDims(shape))
    stored = array.shape;
  HostTensor scales = orFail(readNpy(path, type, stored));
  scales.shape = shape;
  return scales;
}

OperandData GemmRunner::prepareOperand(llvm::StringRef name,
                                       const OperandSpec &operand,
                                       int64_t rows, int64_t k,
                                       unsigned streamSeed) const {
  std::vector<int64_t> dataShape = operand.getDataShape(rows, k);
  std::vector<int64_t> scaleShape = operand.getScaleShape(rows, k);
  ElementType dataType = toElementType(operand.elementType);
  ElementType scaleType = toElementType(operand.encoding.getScaleType());
  ScaleRounding rounding = getRounding(operand);
  OperandData data;
  const std::string &loadDir = config.loadDir;
  if (!loadDir.empty()) {
    llvm::SmallString<128> hpPath(loadDir), qPath(loadDir), sPath(loadDir);
    llvm::sys::path::append(hpPath, name + "_hp.npy");
    llvm::sys::path::append(qPath, name + ".npy");
    llvm::sys::path::append(sPath, name + "_scale.npy");
    bool haveQuantized = llvm::sys::fs::exists(qPath);
    bool haveScales = llvm::sys::fs::exists(sPath);
    if (haveQuantized != haveScales)
      fail("--load: '" + (haveQuantized ? qPath : sPath) +
           "' needs its companion '" + (haveQuantized ? sPath : qPath) + "'");
    if (llvm::sys::fs::exists(hpPath))
      data.highPrecision =
          toFloats(orFail(readNpy(hpPath, ElementType::F32, dataShape)));
    if (haveQuantized) {
      data.quantized.data = orFail(readNpy(qPath, dataType, dataShape));
      data.quantized.scales = readScales(sPath, scaleType, scaleShape);
      return data;
    }
    if (!data.highPrecision)
      fail("--load: '" + loadDir + "' holds neither " + name + ".npy + " +
           name + "_scale.npy nor " + name + "_hp.npy");
  } else {
    data.highPrecision = generate(rows * k, streamSeed);
  }
  data.quantized = quantize(*data.highPrecision, operand, rows, k, rounding,
                            getMinAmax(rounding));
  return data;
}

OperandData GemmRunner::generateOperand(const OperandSpec &operand,
                                        int64_t rows,
                                        unsigned streamSeed) const {
  OperandData data;
  data.highPrecision = generate(rows * spec.k, streamSeed);
  ScaleRounding rounding = getRounding(operand);
  data.quantized = quantize(*data.highPrecision, operand, rows, spec.k,
                            rounding, getMinAmax(rounding));
  return data;
}

static int64_t countMismatches(const HostTensor &x, const HostTensor &y) {
  int64_t mismatches = 0;
  for (int64_t i = 0; i < x.getNumElements(); ++i)
    mismatches += x.getBits(i) != y.getBits(i);
  return mismatches;
}

void GemmRunner::quantizeOnDevice(llvm::StringRef function, OperandData &data,
                                  const OperandSpec &operand, int64_t rows) {
  if (!data.highPrecision)
    fail("--quantize device needs unquantized data (not a.npy / b.npy)");
  HostTensor input =
      toTensor(*data.highPrecision, operand.getDataShape(rows, spec.k));
  std::vector<TensorSpec> results = {
      {data.quantized.data.elementType, data.quantized.data.shape},
      {data.quantized.scales.elementType, data.quantized.scales.shape}};
  RunResult run = orFail(
      device->run(*module, function, {&input}, results, /*iterations=*/0));
  QuantizerCheck &check = quantizerCheck;
  check.ran = true;
  check.codes += data.quantized.data.getNumElements();
  check.scales += data.quantized.scales.getNumElements();
  check.codeMismatches += countMismatches(run.results[0], data.quantized.data);
  check.scaleMismatches +=
      countMismatches(run.results[1], data.quantized.scales);
  data.quantized.data = std::move(run.results[0]);
  data.quantized.scales = std::move(run.results[1]);
}

HostTensor GemmRunner::prepareAccumulator(int64_t rows) const {
  ElementType type = toElementType(spec.outputType);
  HostTensor c(type, {rows, spec.n});
  if (!spec.accumulate)
    return c;
  if (!config.loadDir.empty()) {
    llvm::SmallString<128> path(config.loadDir);
    llvm::sys::path::append(path, "c.npy");
    if (llvm::sys::fs::exists(path))
      return orFail(readNpy(path, type, {rows, spec.n}));
  }
  std::vector<float> values = generate(rows * spec.n, config.seed + 2);
  const FormatSpec &format = *lookupFormat(type);
  for (int64_t i = 0; i < c.getNumElements(); ++i) {
    float value = float(roundToFormat(format, values[i]));
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    if (type == ElementType::F32)
      c.setBits(i, bits);
    else if (type == ElementType::BF16)
      c.setBits(i, bits >> 16);
    else { // f16: encode from the exactly representable value
      const FormatSpec &half = format;
      uint32_t code = 0;
      for (uint32_t candidate = 0; candidate < 0x10000; ++candidate)
        if (decode(half, candidate) == double(value) &&
            std::signbit(decode(half, candidate)) == std::signbit(value)) {
          code = candidate;
          break;
        }
      c.setBits(i, code);
    }
  }
  return c;
}

HostTensor GemmRunner::generateBias(int64_t columns) const {
  ElementType type = toElementType(spec.biasType);
  HostTensor bias(type, {columns});
  std::vector<float> values = generate(columns, config.seed + 3);
  for (int64_t i = 0; i < columns; ++i) {
    float value = float(roundToFormat(*lookupFormat(type), values[i]));
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    bias.setBits(i, type == ElementType::F32 ? bits : bits >> 16);
  }
  return bias;
}

void GemmRunner::saveAll() const {
  const std::string &saveDir = config.saveDir;
  if (std::error_code ec = llvm::sys::fs::create_directories(saveDir))
    fail("--save: cannot create '" + saveDir + "': " + ec.message());
  auto save = [&](llvm::StringRef name, const HostTensor &tensor) {
    llvm::SmallString<128> path(saveDir);
    llvm::sys::path::append(path, name);
    failOn(writeNpy(path, tensor));
  };
  const OperandData &a = aParts.front(), &b = bParts.front();
  if (a.highPrecision)
    save("a_hp.npy",
         toTensor(*a.highPrecision, spec.a.getDataShape(spec.m, spec.k)));
  if (b.highPrecision)
    save("b_hp.npy",
         toTensor(*b.highPrecision, spec.b.getDataShape(spec.n, spec.k)));
  save("a.npy", a.quantized.data);
  save("a_scale.npy", a.quantized.scales);
  save("b.npy", b.quantized.data);
  save("b_scale.npy", b.quantized.scales);
  if (spec.accumulate)
    save("c.npy", init);
  save("d.npy", result.results.front());
  if (bias)
    save("bias.npy", *bias);
  if (spec.auxType)
    save("aux.npy", result.results[1]);
  if (spec.outEncoding)
    save("d_scale.npy", result.results.back());
}
