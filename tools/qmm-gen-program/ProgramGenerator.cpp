//===- ProgramGenerator.cpp - random qmm programs -------------------------===//
//
// Programs are described (extents, element types, scale encodings,
// epilogue, configuration), their operand shapes derived from the
// description by the dialect's documented rules, and then printed. The
// valid-only generator follows what the verifiers and the AMD pipeline
// document as supported (QMMOps.td, Passes.td, README); the fuzzing
// generator starts from the same descriptions and loosens them: any type
// pairing, any block shape, dynamic or zero extents, memref forms, chained
// FP8 outputs, configurations that may not fit, and now and then one
// deliberate defect for the verifiers to find.
//
//===----------------------------------------------------------------------===//

#include "ProgramGenerator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

using namespace mlir::qmm::gen;
using llvm::StringRef;

namespace {

/// A dynamic extent (`?`).
constexpr int64_t kDynamic = -1;

const char *const kFNUZTypes[] = {"f8E4M3FNUZ", "f8E5M2FNUZ"};
const char *const kOCPTypes[] = {"f8E4M3FN", "f8E5M2"};
const char *const kSubByteTypes[] = {"f6E2M3FN", "f6E3M2FN", "f4E2M1FN"};
const char *const kMXTypes[] = {"f8E4M3FN", "f8E5M2", "f6E2M3FN", "f6E3M2FN",
                                "f4E2M1FN"};
const char *const kQuantizedTypes[] = {
    "f8E4M3FN", "f8E5M2",   "f8E4M3FNUZ", "f8E5M2FNUZ",
    "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"};
const char *const kHighPrecisionTypes[] = {"f32", "bf16", "f16"};
/// Types a defective program puts where qmm expects something else.
const char *const kWrongTypes[] = {"f64",   "i8",        "i32",
                                   "bf16",  "f8E8M0FNU", "f8E4M3B11FNUZ",
                                   "f8E3M4", "index",    "complex<f32>"};

bool isFNUZ(StringRef type) { return type.ends_with("FNUZ"); }
bool isSubByte(StringRef type) {
  return type.starts_with("f6") || type.starts_with("f4");
}
bool isFP8(StringRef type) {
  return llvm::is_contained(kOCPTypes, type) ||
         llvm::is_contained(kFNUZTypes, type);
}

int64_t ceilDiv(int64_t value, int64_t divisor) {
  if (value == kDynamic || divisor <= 0)
    return value;
  return (value + divisor - 1) / divisor;
}

std::string formatExtent(int64_t extent) {
  return extent == kDynamic ? "?" : std::to_string(extent);
}

enum class ScaleKind { PerTensor, PerRow, Block, MX };

/// A `#qmm.scale<...>` encoding.
struct Scale {
  ScaleKind kind = ScaleKind::PerTensor;
  int64_t blockRows = 1, blockK = 1;
  bool mnMajor = false;
  /// Printed when set: the kind's default spelled out, or (a defect)
  /// another type.
  std::string explicitType;
  /// Spells out the default majorness.
  bool printKMajor = false;

  bool isMX() const { return kind == ScaleKind::MX; }
  std::string getType() const {
    if (!explicitType.empty())
      return explicitType;
    return isMX() ? "f8E8M0FNU" : "f32";
  }
  /// K extent of one block (`k` for kinds that span K).
  int64_t getBlockK(int64_t k) const {
    switch (kind) {
    case ScaleKind::Block:
      return blockK;
    case ScaleKind::MX:
      return 32;
    default:
      return k;
    }
  }
  /// Scale tensor shape for a [rows, k] operand, in storage order.
  std::vector<int64_t> getShape(int64_t rows, int64_t k) const {
    std::vector<int64_t> shape;
    switch (kind) {
    case ScaleKind::PerTensor:
      shape = {1, 1};
      break;
    case ScaleKind::PerRow:
      shape = {rows, 1};
      break;
    case ScaleKind::Block:
      shape = {ceilDiv(rows, blockRows), ceilDiv(k, blockK)};
      break;
    case ScaleKind::MX:
      shape = {rows, ceilDiv(k, 32)};
      break;
    }
    if (mnMajor)
      std::swap(shape[0], shape[1]);
    return shape;
  }
  std::string getAttr() const {
    std::string text = "#qmm.scale<";
    switch (kind) {
    case ScaleKind::PerTensor:
      text += "per_tensor";
      break;
    case ScaleKind::PerRow:
      text += "per_row";
      break;
    case ScaleKind::Block:
      text += "block " + std::to_string(blockRows) + "x" +
              std::to_string(blockK);
      break;
    case ScaleKind::MX:
      text += "mx";
      break;
    }
    if (mnMajor)
      text += ", mn_major";
    else if (printKMajor)
      text += ", k_major";
    if (!explicitType.empty())
      text += ", " + explicitType;
    return text + ">";
  }
};

std::string shapedType(bool memref, const std::vector<int64_t> &shape,
                       StringRef elementType) {
  std::string text = memref ? "memref<" : "tensor<";
  for (int64_t extent : shape)
    text += formatExtent(extent) + "x";
  return text + elementType.str() + ">";
}

/// One quantized operand: its element type, encoding and derived shapes.
struct Operand {
  std::string type;
  Scale scale;
  std::vector<int64_t> shape, scaleShape;
};

/// A qmm.matmul or qmm.grouped_matmul.
struct MatmulDesc {
  bool grouped = false, masked = false;
  int64_t numGroups = 1;
  int64_t m = 1, n = 1, k = 1;
  Operand a, b;
  bool bKN = false, printLayout = false;
  std::string outType = "f32";
  bool accumulate = false;
  std::string biasType, activation, auxType;
  /// An FP8 output's encoding, rule and amax floor.
  std::optional<Scale> outScale;
  std::string outRounding, outMinAmax;
  std::string config;
  std::string groupsType = "i32";
  bool memref = false;
  /// A defect: this operand (0 a, 1 a_scales, 2 b, 3 b_scales, 4 init) is
  /// a memref in a tensor op or the other way round.
  int mixedOperand = -1;

  std::vector<int64_t> outShape, biasShape, groupsShape, outScaleShape;

  /// Shapes of every operand from the extents and encodings.
  void computeShapes() {
    a.shape = {m, k};
    a.scaleShape = a.scale.getShape(m, k);
    if (masked) {
      a.shape.insert(a.shape.begin(), numGroups);
      a.scaleShape.insert(a.scaleShape.begin(), numGroups);
    }
    b.shape = bKN && !grouped ? std::vector<int64_t>{k, n}
                              : std::vector<int64_t>{n, k};
    b.scaleShape = b.scale.getShape(n, k);
    if (grouped) {
      b.shape.insert(b.shape.begin(), numGroups);
      b.scaleShape.insert(b.scaleShape.begin(), numGroups);
    }
    outShape = masked ? std::vector<int64_t>{numGroups, m, n}
                      : std::vector<int64_t>{m, n};
    biasShape = grouped ? std::vector<int64_t>{numGroups, n}
                        : std::vector<int64_t>{n};
    groupsShape = {masked ? numGroups : m};
    if (outScale) {
      outScaleShape = outScale->getShape(m, n);
      if (masked)
        outScaleShape.insert(outScaleShape.begin(), numGroups);
    }
  }
};

/// A qmm.quantize or qmm.dequantize.
struct QuantizeDesc {
  bool dequantize = false;
  int64_t rows = 1, k = 1;
  bool kn = false, printLayout = false;
  std::string dataType, highPrecisionType;
  Scale scale;
  std::string rounding, minAmax;
  bool memref = false;
};

/// Builds one func.func: arguments as operands are asked for, then the
/// body and the values it returns.
class FunctionBuilder {
public:
  explicit FunctionBuilder(std::string name) : name(std::move(name)) {}

  std::string addArgument(StringRef hint, const std::string &type) {
    std::string value = "%" + hint.str() + std::to_string(numValues++);
    arguments.push_back(value + ": " + type);
    return value;
  }
  std::string newResultName() { return "%r" + std::to_string(numValues++); }
  void addLine(const std::string &line) { body += "  " + line + "\n"; }
  void addResult(const std::string &value, const std::string &type) {
    resultValues.push_back(value);
    resultTypes.push_back(type);
  }

  std::string str() const {
    std::string text = "func.func @" + name + "(" +
                       llvm::join(arguments, ", ") + ")";
    if (resultTypes.size() == 1)
      text += " -> " + resultTypes.front();
    else if (!resultTypes.empty())
      text += " -> (" + llvm::join(resultTypes, ", ") + ")";
    text += " {\n" + body + "  return";
    if (!resultValues.empty())
      text += " " + llvm::join(resultValues, ", ") + " : " +
              llvm::join(resultTypes, ", ");
    return text + "\n}\n";
  }

private:
  std::string name;
  std::vector<std::string> arguments, resultValues, resultTypes;
  std::string body;
  int numValues = 0;
};

/// Prints an op with `types` results, which become the function's results;
/// returns the result names.
std::vector<std::string> emitResults(FunctionBuilder &function,
                                     const std::string &opText,
                                     const std::vector<std::string> &types) {
  std::vector<std::string> names;
  if (types.empty()) {
    function.addLine(opText);
    return names;
  }
  std::string result = function.newResultName();
  function.addLine(result +
                   (types.size() > 1 ? ":" + std::to_string(types.size())
                                     : std::string()) +
                   " = " + opText + " -> " + llvm::join(types, ", "));
  for (size_t i = 0; i < types.size(); ++i) {
    names.push_back(types.size() > 1 ? result + "#" + std::to_string(i)
                                     : result);
    function.addResult(names.back(), types[i]);
  }
  return names;
}

/// Values already in the function that stand for A and its scales (a
/// chained FP8 output).
struct ChainedA {
  std::string data, scales;
};

/// Prints `desc`; returns its result names (init, [aux,] [out_scales]).
std::vector<std::string> emitMatmul(FunctionBuilder &function,
                                    const MatmulDesc &desc,
                                    const std::optional<ChainedA> &chained) {
  auto type = [&](int operand, const std::vector<int64_t> &shape,
                  StringRef element) {
    bool mixed = operand >= 0 && operand == desc.mixedOperand;
    return shapedType(desc.memref != mixed, shape, element);
  };
  std::string aType = type(0, desc.a.shape, desc.a.type);
  std::string aScalesType = type(1, desc.a.scaleShape, desc.a.scale.getType());
  std::string bType = type(2, desc.b.shape, desc.b.type);
  std::string bScalesType = type(3, desc.b.scaleShape, desc.b.scale.getType());
  std::string initType = type(4, desc.outShape, desc.outType);
  std::string a = chained ? chained->data : function.addArgument("a", aType);
  std::string aScales =
      chained ? chained->scales : function.addArgument("sa", aScalesType);
  std::string b = function.addArgument("b", bType);
  std::string bScales = function.addArgument("sb", bScalesType);
  std::string biasType, bias, groupsType, groups, auxType, aux, outScalesType,
      outScales;
  if (!desc.biasType.empty()) {
    biasType = type(-1, desc.biasShape, desc.biasType);
    bias = function.addArgument("bias", biasType);
  }
  if (desc.grouped) {
    groupsType = type(-1, desc.groupsShape, desc.groupsType);
    groups = function.addArgument("groups", groupsType);
  }
  std::string init = function.addArgument("init", initType);
  if (!desc.auxType.empty()) {
    auxType = type(-1, desc.outShape, desc.auxType);
    aux = function.addArgument("aux", auxType);
  }
  if (desc.outScale) {
    outScalesType = type(-1, desc.outScaleShape, desc.outScale->getType());
    outScales = function.addArgument("out_scales", outScalesType);
  }

  std::string op = desc.grouped ? std::string("qmm.grouped_matmul ") +
                                      (desc.masked ? "masked " : "contiguous ")
                                : std::string("qmm.matmul ");
  op += "a(" + a + ", " + aScales + " : " + aType + ", " + aScalesType + ") " +
        desc.a.scale.getAttr();
  op += " b(" + b + ", " + bScales + " : " + bType + ", " + bScalesType +
        ") " + desc.b.scale.getAttr();
  if (!desc.grouped && (desc.bKN || desc.printLayout))
    op += desc.bKN ? " layout kn" : " layout nk";
  if (desc.grouped)
    op += " groups(" + groups + " : " + groupsType + ")";
  if (desc.accumulate)
    op += " accumulate";
  if (!bias.empty())
    op += " bias(" + bias + " : " + biasType + ")";
  if (!desc.activation.empty())
    op += " activation " + desc.activation;
  if (!desc.config.empty())
    op += " config " + desc.config;
  op += " outs(" + init + " : " + initType;
  if (!aux.empty())
    op += ", aux " + aux + " : " + auxType;
  op += ")";
  if (desc.outScale) {
    op += " out_scales(" + outScales + " : " + outScalesType + ") " +
          desc.outScale->getAttr();
    if (!desc.outRounding.empty())
      op += " rounding " + desc.outRounding;
    if (!desc.outMinAmax.empty())
      op += " min_amax " + desc.outMinAmax;
  }

  // On tensors (judged by init) the op returns its destinations' values.
  std::vector<std::string> resultTypes;
  if (StringRef(initType).starts_with("tensor")) {
    resultTypes.push_back(initType);
    if (!auxType.empty())
      resultTypes.push_back(auxType);
    if (!outScalesType.empty())
      resultTypes.push_back(outScalesType);
  }
  return emitResults(function, op, resultTypes);
}

void emitQuantize(FunctionBuilder &function, const QuantizeDesc &desc) {
  std::vector<int64_t> shape = desc.kn ? std::vector<int64_t>{desc.k, desc.rows}
                                       : std::vector<int64_t>{desc.rows, desc.k};
  std::string dataType = shapedType(desc.memref, shape, desc.dataType);
  std::string scalesType = shapedType(
      desc.memref, desc.scale.getShape(desc.rows, desc.k), desc.scale.getType());
  std::string highType =
      shapedType(desc.memref, shape, desc.highPrecisionType);
  std::string layout;
  if (desc.kn || desc.printLayout)
    layout = desc.kn ? " layout kn" : " layout nk";
  std::vector<std::string> resultTypes;
  std::string op;
  if (desc.dequantize) {
    std::string data = function.addArgument("q", dataType);
    std::string scales = function.addArgument("s", scalesType);
    std::string init = function.addArgument("x", highType);
    op = "qmm.dequantize " + data + ", " + scales + " : " + dataType + ", " +
         scalesType + " encoding " + desc.scale.getAttr() + layout +
         " outs(" + init + " : " + highType + ")";
    if (!desc.memref)
      resultTypes = {highType};
  } else {
    std::string input = function.addArgument("x", highType);
    std::string data = function.addArgument("q", dataType);
    std::string scales = function.addArgument("s", scalesType);
    op = "qmm.quantize " + input + " : " + highType + " encoding " +
         desc.scale.getAttr() + layout;
    if (!desc.rounding.empty())
      op += " rounding " + desc.rounding;
    if (!desc.minAmax.empty())
      op += " min_amax " + desc.minAmax;
    op += " outs(" + data + ", " + scales + " : " + dataType + ", " +
          scalesType + ")";
    if (!desc.memref)
      resultTypes = {dataType, scalesType};
  }
  emitResults(function, op, resultTypes);
}

//===----------------------------------------------------------------------===//
// Valid programs
//===----------------------------------------------------------------------===//

/// M or N: 1, small odd numbers, MFMA-sized and random extents.
int64_t pickExtent(ChoiceSource &choices, int64_t maxExtent) {
  static const int64_t kCommon[] = {1, 2, 3, 16, 32, 64, 128};
  int64_t extent = choices.getPercent(40) ? choices.pick(kCommon)
                                          : choices.getInt(1, maxExtent);
  if (choices.getPercent(30))
    extent |= 1; // odd
  return std::clamp<int64_t>(extent, 1, std::max<int64_t>(1, maxExtent));
}

/// f32 scales for a non-MX operand; `blockKs` are the block K extents the
/// chip's MFMA forms can tile.
Scale pickF32Scale(ChoiceSource &choices, bool weights,
                   llvm::ArrayRef<int64_t> blockKs) {
  Scale scale;
  switch (choices.getInt(0, 3)) {
  case 0:
    scale.kind = ScaleKind::PerTensor;
    break;
  case 1:
    scale.kind = ScaleKind::PerRow;
    break;
  default: {
    scale.kind = ScaleKind::Block;
    static const int64_t kActivationRows[] = {1, 1, 1, 2, 7};
    static const int64_t kWeightRows[] = {128, 128, 64, 32, 1, 5};
    scale.blockRows = choices.getPercent(15)
                          ? choices.getInt(1, 200)
                          : (weights ? choices.pick(kWeightRows)
                                     : choices.pick(kActivationRows));
    scale.blockK = choices.pick(blockKs);
  }
  }
  scale.mnMajor = choices.getPercent(25);
  if (choices.getPercent(10))
    scale.explicitType = "f32";
  if (!scale.mnMajor && choices.getPercent(5))
    scale.printKMajor = true;
  return scale;
}

/// E8M0 scales per 32 of K; `allowMNMajor`: may be stored transposed
/// (gfx950's scaled MFMAs read K-major scales only, Passes.td).
Scale makeMXScale(ChoiceSource &choices, bool allowMNMajor = true) {
  Scale scale;
  scale.kind = ScaleKind::MX;
  scale.mnMajor = allowMNMajor && choices.getPercent(25);
  if (choices.getPercent(10))
    scale.explicitType = "f8E8M0FNU";
  return scale;
}

/// LDS bytes per workgroup of each chip (KernelLayout.cpp checks the
/// exact footprint; the generator stays below it with margin).
int64_t getLdsBytes(StringRef chip) {
  return chip == "gfx950" ? 160 * 1024 : 64 * 1024;
}

/// A #qmm.config<...> the AMD pipeline accepts for `desc` on `chip`, from
/// the rules Passes.td and KernelLayout.cpp document: an MFMA form of the
/// chip that reads the operand types, tile K a multiple of the form's K
/// and of 16 that divides the scale blocks along K, the tiles within the
/// chip's LDS, tile K a multiple of 32 for packed FP4/FP6, an FP8
/// output's blocks inside one wave, and (contiguous
/// grouped) tile M dividing the 128-row group alignment. Empty when it
/// finds none.
std::string pickValidConfig(ChoiceSource &choices, StringRef chip,
                            const MatmulDesc &desc) {
  struct Form {
    const char *kind;
    int64_t size, k;
  };
  std::vector<Form> forms;
  bool gfx950 = chip == "gfx950";
  bool mx = desc.a.scale.isMX() && desc.b.scale.isMX();
  StringRef a = desc.a.type, b = desc.b.type;
  if (mx && gfx950)
    forms = {{"scaled_f8f6f4", 16, 128}, {"scaled_f8f6f4", 32, 64}};
  else if (!gfx950)
    forms = {{"fp8", 16, 32}, {"fp8", 32, 16}};
  else if (isFNUZ(a) && isFNUZ(b))
    forms = {{"bf16", 16, 32}, {"bf16", 32, 16}};
  else if (isFNUZ(a) || isFNUZ(b))
    return ""; // FNUZ with FP4/FP6 on gfx950: no MFMA reads the pair
  else {
    forms = {{"f8f6f4", 16, 128}, {"f8f6f4", 32, 64}};
    if (isFP8(a) && isFP8(b))
      forms.push_back({"fp8", 16, 32});
  }
  const Form &form = choices.pick(llvm::ArrayRef<Form>(forms));

  // The scaled MFMA applies MX scales itself; otherwise a K tile must not
  // straddle two scale blocks.
  int64_t k = desc.k;
  int64_t blockK = std::min(desc.a.scale.getBlockK(k), desc.b.scale.getBlockK(k));
  bool blocksInsideK = blockK < k && !(mx && gfx950);
  std::vector<int64_t> tileKs;
  for (int64_t multiple : {1, 2, 4}) {
    int64_t tileK = form.k * multiple;
    if (tileK > 128 || tileK % 16 != 0)
      continue;
    if (blocksInsideK && blockK % tileK != 0)
      continue;
    // Packed FP4/FP6 rows are copied 32 elements of K at a time.
    if ((isSubByte(a) || isSubByte(b)) && tileK % 32 != 0)
      continue;
    tileKs.push_back(tileK);
  }
  if (tileKs.empty())
    return "";
  int64_t tileK = choices.pick(llvm::ArrayRef<int64_t>(tileKs));

  int64_t outBlockN = desc.outScale ? desc.outScale->getBlockK(desc.n) : 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    static const int64_t kWavesM[] = {1, 2}, kWavesMFP8Out[] = {1, 2, 4};
    int64_t wavesM = outBlockN ? choices.pick(kWavesMFP8Out)
                               : choices.pick(kWavesM);
    int64_t wavesN = attempt < 4 ? choices.getInt(1, 2) : 1;
    int64_t tileM = form.size * wavesM * choices.getInt(1, 2);
    int64_t tileN = form.size * wavesN * choices.pick({1, 2, 4});
    if (tileM > 128 || tileN > 128)
      continue;
    if (outBlockN && !(((tileN / wavesN) % outBlockN == 0) ||
                       (wavesN == 1 && desc.n <= tileN)))
      continue;
    int64_t stages = choices.getInt(1, 2);
    // Bytes per LDS row bounded by one byte per element plus 32 of padding.
    auto footprint = [&](int64_t s) {
      return s * (tileM + tileN) * (tileK + 32);
    };
    if (footprint(stages) * 10 > getLdsBytes(chip) * 9)
      stages = 1;
    return "#qmm.config<tile = [" + std::to_string(tileM) + ", " +
           std::to_string(tileN) + ", " + std::to_string(tileK) +
           "], waves = [" + std::to_string(wavesM) + ", " +
           std::to_string(wavesN) + "], mfma = " + form.kind + " [" +
           std::to_string(form.size) + ", " + std::to_string(form.size) +
           ", " + std::to_string(form.k) + "], stages = " +
           std::to_string(stages) + ">";
  }
  return "";
}

/// FP8 output: type, per-token or MX scales, rule.
void pickFP8Output(ChoiceSource &choices, MatmulDesc &desc, bool fnuz,
                   int64_t maxExtent) {
  desc.outType = fnuz ? choices.pick(kFNUZTypes) : choices.pick(kOCPTypes);
  Scale scale;
  if (!fnuz && choices.getPercent(25)) {
    scale.kind = ScaleKind::MX;
    desc.n = 32 * choices.getInt(1, std::max<int64_t>(1, maxExtent / 32));
  } else {
    scale.kind = ScaleKind::Block;
    static const int64_t kWidths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,
                                      10, 11, 12, 13, 14, 15, 16, 17, 18,
                                      19, 20, 21, 22, 23, 24, 32, 48, 64,
                                      96, 128};
    scale.blockK = choices.pick(kWidths);
    // The selector widens an N-spanning tile to lcm(C, 16) columns, at
    // most 256 (KernelLayout.cpp): wider blocks only when one tile holds
    // all of N.
    if (desc.n > 64 && std::lcm(scale.blockK, int64_t(16)) > 256)
      scale.blockK = choices.pick({16, 32, 128});
  }
  desc.outScale = scale;
  if (scale.isMX()) {
    static const char *const kRules[] = {"", "pow2_floor", "pow2_ceil"};
    desc.outRounding = choices.pick(kRules);
  } else {
    static const char *const kRules[] = {"", "none", "pow2_floor",
                                         "pow2_ceil"};
    desc.outRounding = choices.pick(kRules);
  }
  if (choices.getPercent(20)) {
    bool floorRule = desc.outRounding == "pow2_floor" ||
                     (desc.outRounding.empty() && scale.isMX());
    static const char *const kPositive[] = {"1.0e-03", "1.0e-06", "0.5"};
    desc.outMinAmax = floorRule && choices.getPercent(50)
                          ? "0.0"
                          : choices.pick(kPositive);
  }
}

/// A qmm.matmul that verifies and that the AMD pipeline compiles for
/// `chip`, in fp8-run's calling convention.
MatmulDesc pickValidMatmul(ChoiceSource &choices, StringRef chip,
                           int64_t maxExtent) {
  MatmulDesc desc;
  bool gfx950 = chip == "gfx950";
  int64_t maxK = std::max<int64_t>(32, maxExtent * 2);
  desc.m = pickExtent(choices, maxExtent);
  desc.n = pickExtent(choices, maxExtent);
  bool fnuz = choices.getPercent(50);
  if (choices.getPercent(25)) {
    // MX: any pair of OCP MX element formats, E8M0 scales per 32 of K.
    desc.a.type = choices.pick(kMXTypes);
    desc.b.type = choices.pick(kMXTypes);
    desc.a.scale = makeMXScale(choices, /*allowMNMajor=*/!gfx950);
    desc.b.scale = makeMXScale(choices, /*allowMNMajor=*/!gfx950);
    desc.k = 32 * choices.getInt(1, std::max<int64_t>(1, maxK / 32));
    fnuz = false;
  } else {
    // FP4/FP6 meet either FP8 family, but gfx950 reads FNUZ data only
    // through bf16 MFMAs, which take no FP4/FP6.
    bool subByteAllowed = !(fnuz && gfx950);
    auto pickType = [&]() -> std::string {
      if (subByteAllowed && choices.getPercent(20))
        return choices.pick(kSubByteTypes);
      return fnuz ? choices.pick(kFNUZTypes) : choices.pick(kOCPTypes);
    };
    desc.a.type = pickType();
    desc.b.type = pickType();
    // Scale blocks along K that the chip's MFMA K tiles divide: gfx950's
    // f8f6f4 forms read 128 (or 64) of K at once.
    bool wideForms = gfx950 && !fnuz;
    static const int64_t kNarrowBlockKs[] = {32, 64, 128, 256};
    static const int64_t kWideBlockKs[] = {128, 256};
    llvm::ArrayRef<int64_t> blockKs =
        wideForms ? llvm::ArrayRef<int64_t>(kWideBlockKs)
                  : llvm::ArrayRef<int64_t>(kNarrowBlockKs);
    desc.a.scale = pickF32Scale(choices, /*weights=*/false, blockKs);
    desc.b.scale = pickF32Scale(choices, /*weights=*/true, blockKs);
    desc.k = choices.getPercent(70) ? 16 * choices.getInt(1, maxK / 16)
                                    : choices.getInt(1, maxK);
    // The AMD pipeline reads packed FP4/FP6 rows 32 elements of K at a
    // time (Passes.td, qmm-tile-matmul).
    if (isSubByte(desc.a.type) || isSubByte(desc.b.type))
      desc.k = llvm::alignTo(desc.k, 32);
  }
  // B [K, N]: FP4/FP6 too (K is a multiple of 32 above, so the transposed
  // packed rows fill whole bytes).
  desc.bKN = choices.getPercent(35);
  desc.printLayout = choices.getPercent(10);

  if (choices.getPercent(25)) {
    // The output's family: the FP8 operands', else either.
    bool outFNUZ = isFP8(desc.a.type)   ? isFNUZ(desc.a.type)
                   : isFP8(desc.b.type) ? isFNUZ(desc.b.type)
                                        : choices.getPercent(50);
    pickFP8Output(choices, desc, outFNUZ, maxExtent);
  } else {
    desc.outType = choices.pick(kHighPrecisionTypes);
    desc.accumulate = choices.getPercent(20);
  }
  if (choices.getPercent(30))
    desc.biasType = choices.pick({"f32", "bf16"});
  if (choices.getPercent(30)) {
    desc.activation = choices.pick({"gelu_tanh", "gelu_erf"});
    if (choices.getPercent(50))
      desc.auxType = choices.pick(kHighPrecisionTypes);
  }
  desc.computeShapes();
  if (choices.getPercent(40))
    desc.config = pickValidConfig(choices, chip, desc);
  return desc;
}

//===----------------------------------------------------------------------===//
// Fuzzing programs
//===----------------------------------------------------------------------===//

/// Any extent a type can spell: dynamic, zero, huge, or an ordinary one.
int64_t pickWildExtent(ChoiceSource &choices) {
  if (choices.getPercent(8))
    return kDynamic;
  if (choices.getPercent(5))
    return 0;
  if (choices.getPercent(1)) {
    static const int64_t kHuge[] = {4096, 7168, 65536, (int64_t(1) << 31) - 1,
                                    int64_t(1) << 40};
    return choices.pick(kHuge);
  }
  return pickExtent(choices, 300);
}

Scale pickWildScale(ChoiceSource &choices) {
  Scale scale;
  scale.kind = ScaleKind(choices.getInt(0, 3));
  static const int64_t kBlocks[] = {1, 2, 3, 5, 16, 31, 32, 64, 100, 128, 256};
  scale.blockRows = choices.getPercent(20) ? choices.getInt(1, 300)
                                           : choices.pick(kBlocks);
  scale.blockK = choices.getPercent(20) ? choices.getInt(1, 300)
                                        : choices.pick(kBlocks);
  scale.mnMajor = choices.getPercent(30);
  return scale;
}

std::string pickWildConfig(ChoiceSource &choices) {
  static const int64_t kTiles[] = {0,  1,   8,   16,  17,   32,
                                   48, 64, 128, 256, 512, 4096};
  static const int64_t kWaves[] = {0, 1, 2, 3, 4, 8, 64};
  static const char *const kKinds[] = {"fp8", "f8f6f4", "scaled_f8f6f4",
                                       "bf16"};
  static const char *const kShapes[] = {
      "[16, 16, 32]", "[32, 32, 16]", "[16, 16, 128]", "[32, 32, 64]",
      "[4, 4, 4]",    "[16, 16, 16]", "[0, 0, 0]"};
  static const int64_t kStages[] = {0, 1, 2, 3, 4, 1000};
  auto tile = [&] {
    return choices.getPercent(2) ? int64_t(1) << 40 : choices.pick(kTiles);
  };
  return "#qmm.config<tile = [" + std::to_string(tile()) + ", " +
         std::to_string(tile()) + ", " + std::to_string(tile()) +
         "], waves = [" + std::to_string(choices.pick(kWaves)) + ", " +
         std::to_string(choices.pick(kWaves)) + "], mfma = " +
         choices.pick(kKinds) + " " + choices.pick(kShapes) +
         ", stages = " + std::to_string(choices.pick(kStages)) + ">";
}

/// Mutates one extent of a shape (a defect).
void perturbShape(ChoiceSource &choices, std::vector<int64_t> &shape) {
  if (shape.empty() || choices.getPercent(10)) {
    shape.push_back(choices.getInt(1, 4)); // wrong rank
    return;
  }
  int64_t &extent = shape[choices.getInt(0, int64_t(shape.size()) - 1)];
  extent = extent == kDynamic ? 3 : extent + choices.pick({1, -1, 7});
  if (extent < 0)
    extent = kDynamic;
}

/// One deliberate defect in an otherwise valid matmul: what the verifiers
/// (or the pipelines' checks) must reject with a diagnostic.
void applyMatmulDefect(ChoiceSource &choices, MatmulDesc &desc) {
  switch (choices.getInt(0, 17)) {
  case 0:
    perturbShape(choices, desc.a.scaleShape);
    break;
  case 1:
    perturbShape(choices, desc.b.scaleShape);
    break;
  case 2:
    perturbShape(choices, desc.a.shape);
    break;
  case 3:
    perturbShape(choices, desc.b.shape);
    break;
  case 4:
    perturbShape(choices, desc.outShape);
    break;
  case 5:
    (choices.getPercent(50) ? desc.a.type : desc.b.type) =
        choices.pick(kWrongTypes);
    break;
  case 6: // FNUZ mixed with OCP
    desc.a.type = choices.pick(kOCPTypes);
    desc.b.type = choices.pick(kFNUZTypes);
    break;
  case 7: // aux without an activation
    desc.activation.clear();
    desc.auxType = choices.pick(kHighPrecisionTypes);
    break;
  case 8: // an FP8 output accumulated, or without scales
    if (desc.outScale && choices.getPercent(50)) {
      desc.accumulate = true;
    } else {
      desc.outType = choices.pick(kOCPTypes);
      desc.outScale.reset();
    }
    break;
  case 9: // output scales on a high-precision output
    if (!desc.outScale) {
      Scale scale;
      scale.kind = ScaleKind::Block;
      scale.blockK = 128;
      desc.outScale = scale;
      desc.outScaleShape = scale.getShape(desc.m, desc.n);
    }
    desc.outType = choices.pick(kHighPrecisionTypes);
    break;
  case 10:
    if (choices.getPercent(50))
      perturbShape(choices, desc.biasShape);
    desc.biasType = choices.pick({"f16", "f64", "i32", "f8E4M3FN"});
    break;
  case 11: // a scale type the encoding does not use
    (choices.getPercent(50) ? desc.a.scale : desc.b.scale).explicitType =
        choices.pick({"f16", "f8E8M0FNU", "f32", "bf16", "i8"});
    break;
  case 12:
    desc.mixedOperand = int(choices.getInt(0, 4));
    break;
  case 13:
    if (!desc.outScale) {
      pickFP8Output(choices, desc, /*fnuz=*/false, /*maxExtent=*/64);
      desc.computeShapes();
    }
    desc.outMinAmax = choices.pick({"0.0", "-1.0", "0x7FC00000",
                                    "0x7F800000", "1.0e+38"});
    desc.outRounding = choices.pick({"", "none", "pow2_floor", "pow2_ceil"});
    break;
  case 14: // degenerate blocks
    desc.a.scale.kind = ScaleKind::Block;
    desc.a.scale.blockRows = choices.pick({0, 1, 128});
    desc.a.scale.blockK = choices.pick({0, 1, -1});
    break;
  case 15: // MX on types without MX semantics
    desc.a.scale.kind = ScaleKind::MX;
    desc.a.type = choices.pick(kFNUZTypes);
    break;
  case 16: // groups of the wrong type or shape
    desc.groupsType = choices.pick({"i64", "f32", "index", "i32"});
    perturbShape(choices, desc.groupsShape);
    break;
  case 17: // an FP8 output with a scale kind it cannot take
    if (!desc.outScale)
      pickFP8Output(choices, desc, /*fnuz=*/false, /*maxExtent=*/64);
    desc.outScale->kind = ScaleKind(choices.getInt(0, 3));
    desc.outScale->mnMajor = choices.getPercent(50);
    desc.outScaleShape = desc.outScale->getShape(desc.m, desc.n);
    if (choices.getPercent(50) && desc.outScale->isMX())
      desc.outType = choices.pick(kFNUZTypes);
    break;
  }
}

/// A matmul or grouped matmul for fuzzing: a valid one, loosened.
MatmulDesc pickFuzzMatmul(ChoiceSource &choices, StringRef chip,
                          bool grouped) {
  MatmulDesc desc =
      pickValidMatmul(choices, chip, choices.pick({16, 160, 1024}));
  if (grouped) {
    desc.grouped = true;
    desc.masked = choices.getPercent(50);
    desc.numGroups = choices.getPercent(10) ? pickWildExtent(choices)
                                            : choices.getInt(1, 6);
    // Contiguous groups are 128-aligned segments of rows.
    if (!desc.masked && choices.getPercent(80))
      desc.m = 128 * choices.getInt(1, 4);
    // Grouped matmuls take B as [N, K].
    desc.bKN = false;
  }
  // Each loosening alone mostly keeps the op valid; a program holds a few
  // ops, and one invalid op makes the whole program a verifier test.
  if (choices.getPercent(5))
    desc.m = pickWildExtent(choices);
  if (choices.getPercent(5))
    desc.n = pickWildExtent(choices);
  if (choices.getPercent(5))
    desc.k = pickWildExtent(choices);
  if (choices.getPercent(6))
    desc.a.type = choices.pick(kQuantizedTypes);
  if (choices.getPercent(6))
    desc.b.type = choices.pick(kQuantizedTypes);
  if (choices.getPercent(5))
    desc.a.scale = pickWildScale(choices);
  if (choices.getPercent(5))
    desc.b.scale = pickWildScale(choices);
  if (choices.getPercent(6))
    desc.config = pickWildConfig(choices);
  else if (desc.config.empty() && choices.getPercent(20))
    desc.config = pickValidConfig(choices, choices.pick({"gfx942", "gfx950"}),
                                  desc);
  desc.memref = choices.getPercent(8);
  desc.computeShapes();
  if (choices.getPercent(7))
    applyMatmulDefect(choices, desc);
  return desc;
}

QuantizeDesc pickFuzzQuantize(ChoiceSource &choices, bool dequantize) {
  QuantizeDesc desc;
  desc.dequantize = dequantize;
  desc.rows = choices.getPercent(8) ? pickWildExtent(choices)
                                     : pickExtent(choices, 300);
  desc.dataType = choices.pick(kQuantizedTypes);
  desc.highPrecisionType = choices.pick(kHighPrecisionTypes);
  if (choices.getPercent(30) &&
      (desc.dataType.find("FNUZ") == std::string::npos)) {
    desc.scale = makeMXScale(choices);
    desc.k = 32 * choices.getInt(1, 10);
  } else {
    static const int64_t kBlockKs[] = {32, 64, 128, 256};
    desc.scale = pickF32Scale(choices, choices.getPercent(50), kBlockKs);
    desc.k = pickExtent(choices, 300);
  }
  if (choices.getPercent(8))
    desc.k = pickWildExtent(choices);
  if (choices.getPercent(5))
    desc.scale = pickWildScale(choices);
  desc.kn = choices.getPercent(30);
  desc.printLayout = choices.getPercent(10);
  static const char *const kRules[] = {"", "", "none", "pow2_floor",
                                       "pow2_ceil"};
  desc.rounding = choices.pick(kRules);
  if (choices.getPercent(15))
    desc.minAmax = choices.pick({"1.0e-04", "0.0", "1.0e-12", "-1.0", "0.5"});
  desc.memref = choices.getPercent(10);
  if (choices.getPercent(4))
    desc.dataType = choices.pick(kWrongTypes);
  if (choices.getPercent(2))
    desc.highPrecisionType = choices.pick(kWrongTypes);
  return desc;
}

/// After a tensor matmul with an FP8 output, the next matmul takes that
/// output and its scales as A, as the dialect intends layers to chain.
void emitChainedMatmul(ChoiceSource &choices, FunctionBuilder &function,
                       const MatmulDesc &first,
                       const std::vector<std::string> &results,
                       StringRef chip) {
  MatmulDesc next;
  next.m = first.m;
  next.k = first.n;
  next.n = pickExtent(choices, 160);
  next.a.type = first.outType;
  next.a.scale = *first.outScale;
  if (next.a.scale.isMX()) {
    next.b.type = choices.pick(kMXTypes);
    next.b.scale = makeMXScale(choices);
  } else {
    next.b.type = isFNUZ(next.a.type) ? choices.pick(kFNUZTypes)
                                      : choices.pick(kOCPTypes);
    static const int64_t kBlockKs[] = {32, 64, 128, 256};
    next.b.scale = pickF32Scale(choices, /*weights=*/true, kBlockKs);
  }
  next.outType = choices.pick(kHighPrecisionTypes);
  if (choices.getPercent(30))
    next.activation = choices.pick({"gelu_tanh", "gelu_erf"});
  next.computeShapes();
  if (choices.getPercent(30))
    next.config = pickValidConfig(choices, chip, next);
  emitMatmul(function, next, ChainedA{results.front(), results.back()});
}

std::string generateFuzzProgram(ChoiceSource &choices) {
  std::string text;
  int64_t numFunctions = choices.getInt(1, 2);
  for (int64_t f = 0; f < numFunctions; ++f) {
    FunctionBuilder function("f" + std::to_string(f));
    StringRef chip = choices.pick({"gfx942", "gfx950"});
    int64_t numOps = choices.getInt(1, 3);
    for (int64_t i = 0; i < numOps; ++i) {
      int64_t kind = choices.getInt(0, 99);
      if (kind < 72) {
        MatmulDesc desc = pickFuzzMatmul(choices, chip, /*grouped=*/kind >= 55);
        std::vector<std::string> results =
            emitMatmul(function, desc, std::nullopt);
        if (!desc.grouped && desc.outScale && results.size() >= 2 &&
            desc.mixedOperand < 0 && choices.getPercent(40))
          emitChainedMatmul(choices, function, desc, results, chip);
      } else {
        emitQuantize(function, pickFuzzQuantize(choices, kind >= 86));
      }
    }
    text += function.str();
  }
  return text;
}

} // namespace

std::string mlir::qmm::gen::generateProgram(ChoiceSource &choices,
                                      const GeneratorOptions &options) {
  if (!options.validOnly)
    return generateFuzzProgram(choices);
  MatmulDesc desc = pickValidMatmul(choices, options.chip, options.maxExtent);
  FunctionBuilder function(choices.pick({"gemm", "qmm_gemm", "layer"}));
  emitMatmul(function, desc, std::nullopt);
  return function.str();
}
