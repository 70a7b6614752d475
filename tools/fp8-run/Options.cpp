//===- Options.cpp - fp8-run's command line, typed ------------------------===//

#include "Options.h"
#include "Runner.h"

#include "qmm/Emulator/Emulator.h"
#include "qmm/Runtime/GemmLimits.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::fp8run;
namespace cl = llvm::cl;

/// Spellings in the enum's order: the option's values and the report use
/// them.
static constexpr llvm::StringLiteral kDistributionNames[] = {
    "normal", "uniform", "outliers", "near-max"};

llvm::StringRef fp8run::getDistributionName(Distribution distribution) {
  return kDistributionNames[unsigned(distribution)];
}

/// A cl::values entry spelled as in `names`.
template <typename Enum, size_t N>
static cl::OptionEnumValue namedValue(const llvm::StringLiteral (&names)[N],
                                      Enum value) {
  return {names[unsigned(value)], int(value), ""};
}

/// A cl::values entry for a device, spelled as the runtime spells it.
static cl::OptionEnumValue deviceValue(DeviceKind kind) {
  return {getDeviceKindName(kind), int(kind), ""};
}

namespace {
/// The parser of an enumerated option: a spelling outside the option's
/// values is bad input naming them ("--gelu: expected tanh or erf, got
/// 'relu'"), and an option given as the value (`--bias --gelu tanh`) says
/// what the flag needs instead of what it does not know.
template <typename T> class ChoiceParser : public cl::parser<T> {
public:
  using cl::parser<T>::parser;

  bool parse(cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             T &value) {
    std::string flag = "--" + option.ArgStr.str();
    if (arg.starts_with("--"))
      fail(flag + " needs a value (" + option.HelpStr + "), got the option '" +
           arg + "'");
    for (const auto &choice : this->Values)
      if (choice.Name == arg) {
        value = choice.V.getValue();
        return false;
      }
    fail(flag + ": " + describeMismatch(arg));
  }

protected:
  /// "expected a, b or c, got 'x'".
  virtual std::string describeMismatch(llvm::StringRef arg) const {
    return "expected " + listValues() + ", got '" + arg.str() + "'";
  }

  std::string listValues() const {
    std::string names;
    for (size_t i = 0, e = this->Values.size(); i < e; ++i) {
      if (i)
        names += i + 1 == e ? " or " : ", ";
      names += this->Values[i].Name.str();
    }
    return names;
  }
};

/// --chip: the chips of both vendors' target descriptions, by name (added
/// before parsing: the tables live in another translation unit). The
/// values point into a table of TargetChips that outlives the parser.
class ChipParser : public ChoiceParser<const TargetChip *> {
public:
  explicit ChipParser(cl::Option &option)
      : ChoiceParser<const TargetChip *>(option) {}

  void addChips() {
    static const std::vector<TargetChip> chips = [] {
      std::vector<TargetChip> all;
      for (const ChipInfo &chip : getSupportedChips())
        all.push_back(TargetChip{&chip, nullptr});
      for (const NvidiaChipInfo &chip : getSupportedNvidiaChips())
        all.push_back(TargetChip{nullptr, &chip});
      return all;
    }();
    for (const TargetChip &chip : chips)
      this->addLiteralOption(chip.getName(), &chip,
                             chip.amd ? chip.amd->product
                                      : chip.nvidia->product);
  }

protected:
  std::string describeMismatch(llvm::StringRef arg) const override {
    return "unknown chip '" + arg.str() + "' (expected " + listValues() + ")";
  }
};

template <typename T> using ChoiceOpt = cl::opt<T, false, ChoiceParser<T>>;
} // namespace

/// A cl::values entry for an element type, spelled as in MLIR.
static cl::OptionEnumValue elementTypeValue(ElementType type) {
  return {getElementTypeName(type), int(type), ""};
}

//===----------------------------------------------------------------------===//
// The options
//===----------------------------------------------------------------------===//

/// The values of --rounding and --out-rounding: qmm.quantize's rules.
static cl::ValuesClass getScaleRoundingValues() {
  return cl::values(clEnumValN(ScaleRounding::None, "none", ""),
                    clEnumValN(ScaleRounding::Pow2Floor, "pow2_floor", ""),
                    clEnumValN(ScaleRounding::Pow2Ceil, "pow2_ceil", ""));
}

/// The values of --a-scale-major and --b-scale-major.
static cl::ValuesClass getScaleMajornessValues() {
  return cl::values(clEnumValN(ScaleMajorness::KMajor, "k", "K-major"),
                    clEnumValN(ScaleMajorness::MNMajor, "mn", "MN-major"));
}

static cl::OptionCategory category("fp8-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::init(""),
                                      cl::desc("[input.mlir]"),
                                      cl::cat(category));
static cl::opt<std::string>
    gemmShape("gemm", cl::init("256x512x1024"),
              cl::desc("GEMM extents MxNxK (default 256x512x1024)"),
              cl::cat(category));
static cl::opt<std::string> mValues(
    "m", cl::init(""),
    cl::desc("with --gemm ?xNxK: the comma-separated M values one program, "
             "compiled once with a dynamic M, runs and validates (or, with "
             "--model-only, models) in turn, e.g. --m 1,17,128,4096 (with "
             "--json, one JSON report per line, per M)"),
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
static ChoiceOpt<ScaleMajorness> aScaleMajor(
    "a-scale-major", cl::init(ScaleMajorness::KMajor),
    cl::desc("A scale tensor majorness: k or mn"),
    getScaleMajornessValues(),
    cl::cat(category));
static ChoiceOpt<ScaleMajorness> bScaleMajor(
    "b-scale-major", cl::init(ScaleMajorness::KMajor),
    cl::desc("B scale tensor majorness: k or mn"),
    getScaleMajornessValues(),
    cl::cat(category));
static ChoiceOpt<OperandLayout>
    bLayout("b-layout", cl::init(OperandLayout::NK),
            cl::desc("B storage: nk ([N,K]) or kn"),
            cl::values(clEnumValN(OperandLayout::NK, "nk", "B is [N, K]"),
                       clEnumValN(OperandLayout::KN, "kn", "B is [K, N]")),
            cl::cat(category));
static ChoiceOpt<ElementType> outType(
    "out-type", cl::init(ElementType::BF16),
    cl::desc("output type: f32, bf16, f16, or FP8 (f8E4M3FN, f8E5M2, "
             "f8E4M3FNUZ, f8E5M2FNUZ) quantized by the epilogue"),
    cl::values(elementTypeValue(ElementType::F32),
               elementTypeValue(ElementType::BF16),
               elementTypeValue(ElementType::F16),
               elementTypeValue(ElementType::F8E4M3FN),
               elementTypeValue(ElementType::F8E5M2),
               elementTypeValue(ElementType::F8E4M3FNUZ),
               elementTypeValue(ElementType::F8E5M2FNUZ)),
    cl::cat(category));
static cl::opt<std::string> outScale(
    "out-scale", cl::init("1x128"),
    cl::desc("FP8 output scales: 1xC per token along N (default 1x128) or "
             "mx32"),
    cl::cat(category));
static ChoiceOpt<ScaleRounding> outRounding(
    "out-rounding",
    cl::desc("FP8 output scale rule: none, pow2_floor, pow2_ceil (default: "
             "none for f32 scales, pow2_floor for mx32)"),
    getScaleRoundingValues(),
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
static ChoiceOpt<ElementType> biasType(
    "bias",
    cl::desc("epilogue: add a generated bias per output column, in f32 or "
             "bf16"),
    cl::values(elementTypeValue(ElementType::F32),
               elementTypeValue(ElementType::BF16)),
    cl::cat(category));
static ChoiceOpt<Activation> geluKind(
    "gelu",
    cl::desc("epilogue: GELU of the result, tanh (approximation) or erf"),
    cl::values(clEnumValN(Activation::GeluTanh, "tanh", ""),
               clEnumValN(Activation::GeluErf, "erf", "")),
    cl::cat(category));
static ChoiceOpt<ElementType> auxType(
    "aux",
    cl::desc("epilogue (with --gelu): also output the pre-activation, in "
             "f32, bf16 or f16"),
    cl::values(elementTypeValue(ElementType::F32),
               elementTypeValue(ElementType::BF16),
               elementTypeValue(ElementType::F16)),
    cl::cat(category));
static cl::opt<const TargetChip *, false, ChipParser>
    chipOption("chip", cl::init(nullptr),
               cl::desc("target chip: gfx942, gfx950, or sm_90a (saved as "
                        "a launch plan for qmm-cuda-run)"),
               cl::cat(category));
static ChoiceOpt<DeviceKind> deviceKind(
    "device", cl::init(DeviceKind::Auto),
    cl::desc("where to run: cpu, emu, hip or auto (hip when a GPU of the "
             "chip is present, else emu; programs the AMD pipeline does not "
             "compile yet run on cpu)"),
    cl::values(deviceValue(DeviceKind::CPU), deviceValue(DeviceKind::Emulator),
               deviceValue(DeviceKind::HIP), deviceValue(DeviceKind::Auto)),
    cl::cat(category));
static cl::opt<std::string> kernelConfig(
    "config", cl::init(""),
    cl::desc("#qmm.config<...> the AMD pipeline uses for every matmul "
             "(devices emu and hip; default: qmm-select-config's choice)"),
    cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::init(0),
                              cl::desc("random seed of the generated data"),
                              cl::cat(category));
static ChoiceOpt<Distribution> distribution(
    "dist", cl::init(Distribution::Normal),
    cl::desc("data distribution: normal, uniform, outliers, near-max"),
    cl::values(namedValue(kDistributionNames, Distribution::Normal),
               namedValue(kDistributionNames, Distribution::Uniform),
               namedValue(kDistributionNames, Distribution::Outliers),
               namedValue(kDistributionNames, Distribution::NearMax)),
    cl::cat(category));
static ChoiceOpt<ScaleRounding> rounding(
    "rounding",
    cl::desc("host quantizer scale rule: none, pow2_floor, pow2_ceil "
             "(default: none for f32 scales, pow2_floor for mx32)"),
    getScaleRoundingValues(),
    cl::cat(category));
static cl::opt<float> minAmax("min-amax", cl::init(-1.0f),
                              cl::desc("host quantizer amax floor (default "
                                       "1e-4, 0 for pow2_floor)"),
                              cl::cat(category));
static ChoiceOpt<QuantizeOn> quantizeOn(
    "quantize", cl::init(QuantizeOn::Host),
    cl::desc("where to quantize generated data: host (the runner's own "
             "quantizer) or device (qmm.quantize compiled for the device, "
             "checked bit for bit against the host quantizer)"),
    cl::values(clEnumValN(QuantizeOn::Host, "host", ""),
               clEnumValN(QuantizeOn::Device, "device", "")),
    cl::cat(category));
static cl::opt<bool> emitIR("emit-ir", cl::init(false),
                            cl::desc("print the GEMM's IR and stop"),
                            cl::cat(category));
static cl::opt<std::string> saveDir("save", cl::init(""),
                                    cl::desc("write inputs and output as "
                                             ".npy files into DIR (--chip "
                                             "sm_90a: a launch plan)"),
                                    cl::cat(category));
static cl::opt<bool> saveWithoutData(
    "no-data", cl::init(false),
    cl::desc("with --chip sm_90a --save DIR: a launch plan whose inputs the "
             "runner draws at random (benchmark sizes; no validation)"),
    cl::cat(category));
static cl::opt<int64_t> nvidiaClusterRows(
    "cluster-rows", cl::init(0),
    cl::desc("with --chip sm_90a: blocks of a wgmma kernel's cluster that "
             "share B's tiles through TMA multicast (the pipeline's "
             "cluster-rows; 0: chosen per matmul; 1: no clusters)"),
    cl::cat(category));
static cl::opt<int64_t> nvidiaClusterColumns(
    "cluster-columns", cl::init(1),
    cl::desc("with --chip sm_90a: blocks of a wgmma kernel's cluster that "
             "share A's tiles through TMA multicast (the pipeline's "
             "cluster-columns; 1: none)"),
    cl::cat(category));
static cl::opt<int64_t> nvidiaStages(
    "stages", cl::init(kDefaultWgmmaStages),
    cl::desc("with --chip sm_90a: shared-memory stages of a wgmma kernel's "
             "TMA ring of 128 x 128 tiles (the pipeline's stages; other "
             "tiles scale them: docs/wgmma-kernel.md, \"Ring depth\")"),
    cl::cat(category));
static cl::opt<bool> nvidiaStreamK(
    "stream-k", cl::init(true),
    cl::desc("with --chip sm_90a: split a wgmma kernel's last, at most "
             "half-full round of tiles along K (the pipeline's stream-k; "
             "--stream-k=false turns it off)"),
    cl::cat(category));
static cl::opt<int64_t> nvidiaMaxBlocks(
    "max-blocks", cl::init(0),
    cl::desc("with --chip sm_90a: the most persistent blocks of a wgmma "
             "kernel (the pipeline's max-blocks; 0: one per "
             "multiprocessor)"),
    cl::cat(category));
static cl::opt<int64_t> nvidiaPromotionKTiles(
    "promotion-k-tiles", cl::init(kDefaultWgmmaPromotionKTiles),
    cl::desc("with --chip sm_90a: K tiles (128 products each) a wgmma "
             "kernel without block scales sums between promotions into f32 "
             "(the pipeline's promotion-k-tiles; 1: as cuBLASLt's default "
             "FP8 mode); the exact tier's bound follows"),
    cl::cat(category));
static cl::opt<bool> nvidiaDynamicSchedule(
    "dynamic-schedule", cl::init(false),
    cl::desc("with --chip sm_90a: a wgmma kernel's blocks draw their tiles "
             "from a global counter as they free up (the pipeline's "
             "dynamic-schedule)"),
    cl::cat(category));
static cl::opt<bool> nvidiaCheckScalesAhead(
    "check-scales-ahead", cl::init(true),
    cl::desc("with --chip sm_90a: idle producer warps check a wgmma "
             "kernel's block scales once per launch (the pipeline's "
             "check-scales-ahead; =false for the per-K-tile test alone)"),
    cl::cat(category));
static cl::opt<bool> nvidiaClusterReduction(
    "cluster-reduction", cl::init(true),
    cl::desc("with --chip sm_90a: where every block of a wgmma kernel takes "
             "one Stream-K part, a tile's parts run as one cluster and add "
             "their sums in its shared memory (the pipeline's "
             "cluster-reduction; =false: through a global workspace)"),
    cl::cat(category));
static cl::opt<bool> nvidiaStageScales(
    "stage-scales", cl::init(true),
    cl::desc("with --chip sm_90a: a wgmma kernel's block scales go through "
             "its ring, copied by TMA beside the tiles (the pipeline's "
             "stage-scales; =false: the consumers load them from global "
             "memory)"),
    cl::cat(category));
static cl::opt<int64_t> nvidiaTileM(
    "tile-m", cl::init(0),
    cl::desc("with --chip sm_90a: a wgmma kernel tile's rows, 64, 128 or 256 "
             "(the pipeline's tile-m; 0: chosen per matmul)"),
    cl::cat(category));
static cl::opt<int64_t> nvidiaTileN(
    "tile-n", cl::init(0),
    cl::desc("with --chip sm_90a: a wgmma kernel tile's columns, 64, 128 "
             "or 192 (the pipeline's tile-n; 0: chosen per matmul)"),
    cl::cat(category));
static cl::opt<std::string> loadDir("load", cl::init(""),
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
static cl::opt<bool> tune(
    "tune", cl::init(false),
    cl::desc("rank every legal #qmm.config of the program's matmul by the "
             "performance model (MODELED), print the ranking and run (or, "
             "with --model-only, model) the best (implies --model)"),
    cl::cat(category));
enum class SelectMode { Model, Pass };
static cl::opt<SelectMode> selectMode(
    "select", cl::init(SelectMode::Model),
    cl::desc("how the config is chosen when neither --config, --tune nor a "
             "tuning table decides"),
    cl::values(clEnumValN(SelectMode::Model, "model",
                          "for GEMMs of at least 2^32 FLOP without a built-in "
                          "table entry, the performance model's best of a "
                          "few candidates (the nearest tuned shapes' entries, "
                          "the cheapest by estimated cost, the rule's "
                          "choice); below that, as 'pass'"),
               clEnumValN(SelectMode::Pass, "pass",
                          "qmm-select-config's choice (a table entry for "
                          "the GEMM or a nearby shape, else its rule)")),
    cl::cat(category));

static cl::opt<bool> tuneAll(
    "tune-all", cl::init(false),
    cl::desc("with --tune: model every legal config, also those whose lower "
             "bound shows they cannot beat the best one modeled"),
    cl::cat(category));

static cl::opt<bool> tuneSpace(
    "tune-space", cl::init(false),
    cl::desc("with --tune: list the legal configs with their lower bound "
             "and estimated time, in the order --tune models them, and stop "
             "(nothing is compiled; with --json, a \"tune_space\" array)"),
    cl::cat(category));

static cl::opt<unsigned> tuneThreads(
    "tune-threads", cl::init(0),
    cl::desc("with --tune: threads compiling and modeling configs (default: "
             "one per hardware thread)"),
    cl::cat(category));

static cl::opt<unsigned> tuneMeasure(
    "tune-measure", cl::init(0),
    cl::desc("with --tune and --device hip: time the model's N best configs "
             "on the GPU (--iters calls each, default 20) and run the "
             "fastest MEASURED (--device emu: emulator wall-clock time, "
             "which only exercises the mechanism)"),
    cl::cat(category));
static cl::opt<std::string> tuneTable(
    "tune-table", cl::init(""),
    cl::desc("with --tune: add the best config to this tuning table (JSON; "
             "created when missing, an entry with the same key replaced)"),
    cl::cat(category));
static cl::opt<std::string> tuningTable(
    "tuning-table", cl::init(""),
    cl::desc("take the matmul's config from this tuning table when it has "
             "an entry for the matmul's key (as qmm-select-config "
             "tuning-table=FILE does)"),
    cl::cat(category));
static cl::opt<unsigned> iterations("iters", cl::init(0),
                                    cl::desc("time N runs after a warm-up"),
                                    cl::cat(category));
static cl::opt<int64_t> emuMaxOps(
    "emu-max-ops", cl::init(emu::kDefaultMaxOperations),
    cl::desc("emulator: a launch that executes more operations stops with "
             "an error naming the op (default 2^26)"),
    cl::cat(category));

static ChoiceOpt<emu::WorkgroupOrder> emuWorkgroupOrder(
    "emu-workgroup-order", cl::init(emu::WorkgroupOrder::Forward),
    cl::desc("emulator: the order workgroups run in (hardware promises "
             "none)"),
    cl::values(clEnumValN(emu::WorkgroupOrder::Forward, "forward",
                          "by increasing (z, y, x), x fastest (default)"),
               clEnumValN(emu::WorkgroupOrder::Reverse, "reverse",
                          "the opposite")),
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
    cl::desc("launch mode: write every memref argument to DIR/arg<N>.npy; "
             "call mode: every result to DIR/result<N>.npy"),
    cl::cat(category));

// Call mode.
static cl::opt<std::string> functionName(
    "function", cl::init(""),
    cl::desc("call this function of the input file with the --arg .npy "
             "files (call mode; tensor arguments and results)"),
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
// Parsing
//===----------------------------------------------------------------------===//

/// `--model DEVICE` reads as `--model=DEVICE` when DEVICE names a device
/// (the option's value is optional, so the parser would not take it).
static std::vector<std::string> joinModelDevice(int argc, char **argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i + 1 < args.size(); ++i)
    if ((args[i] == "--model" || args[i] == "-model") &&
        lookupDevice(args[i + 1])) {
      args[i] += "=" + args[i + 1];
      args.erase(args.begin() + i + 1);
    }
  return args;
}

/// --gemm MxNxK, within the host side's limits (operands, f64 references):
/// a larger problem would exhaust memory rather than fail clearly.
static void parseExtents(RunConfig &config) {
  llvm::SmallVector<llvm::StringRef> dims;
  llvm::StringRef(gemmShape).split(dims, 'x');
  // ?xNxK: a dynamic M, run for each of --m.
  bool dynamicM = dims.size() == 3 && dims[0] == "?";
  if (dynamicM != !mValues.empty())
    fail(dynamicM ? "--gemm ?xNxK (a dynamic M) needs --m M1,M2,... (the M "
                    "values to run)"
                  : "--m needs a dynamic M: --gemm ?xNxK");
  if (dynamicM) {
    llvm::SmallVector<llvm::StringRef> values;
    llvm::StringRef(mValues).split(values, ',');
    for (llvm::StringRef text : values) {
      int64_t m;
      if (text.trim().getAsInteger(10, m) || m < 0)
        fail("--m: expected comma-separated M values >= 0, got '" + mValues +
             "'");
      config.mValues.push_back(m);
    }
    dims[0] = "1"; // checked below with the largest M
    int64_t largest = *llvm::max_element(config.mValues);
    config.m = std::max<int64_t>(largest, 1);
  }
  if (dims.size() != 3 ||
      (!dynamicM && dims[0].getAsInteger(10, config.m)) ||
      dims[1].getAsInteger(10, config.n) ||
      dims[2].getAsInteger(10, config.k) || config.m <= 0 || config.n <= 0 ||
      config.k < 0)
    fail("--gemm: expected MxNxK with positive M and N and K >= 0 (K = 0: an "
         "empty sum), got '" + gemmShape + "'");
  if (llvm::Error error = checkGemmSizeLimits(config.m, config.n, config.k))
    fail("--gemm: " + llvm::toString(std::move(error)));
}

/// --wgrad fixes the scales, the output type and accumulation; values that
/// agree with it are fine.
static void applyWeightGradient() {
  const char *fixes = " (1x128 scales on both operands, f32 output, "
                      "accumulate)";
  for (cl::opt<std::string> *flag : {&aScale, &bScale})
    if (flag->getNumOccurrences() && flag->getValue() != "1x128")
      fail("--wgrad fixes --" + flag->ArgStr.str() + " to 1x128" + fixes);
  if (outType.getNumOccurrences() && outType != ElementType::F32)
    fail(llvm::Twine("--wgrad fixes --out-type to f32") + fixes);
  if (accumulate.getNumOccurrences() && !accumulate)
    fail(llvm::Twine("--wgrad fixes --accumulate") + fixes);
  aScale = "1x128";
  bScale = "1x128";
  outType = ElementType::F32;
  accumulate = true;
}

std::optional<LaunchRequest>
fp8run::parseCommandLine(int argc, char **argv, RunConfig &config) {
  describeStatsOption();
  chipOption.getParser().addChips();
  cl::HideUnrelatedOptions(category);
  std::vector<std::string> argStorage = joinModelDevice(argc, argv);
  std::vector<char *> args;
  for (std::string &arg : argStorage)
    args.push_back(arg.data());
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  if (!cl::ParseCommandLineOptions(
          int(args.size()), args.data(),
          "fp8-run: generate, quantize, execute and validate a quantized "
          "GEMM\n\nExit codes: 0 PASS, 1 FAIL, 2 bad input.\n",
          &parseErrorStream)) {
    // Errors in option values are printed by the parser itself, on one line.
    if (parseErrors.empty())
      std::exit(2);
    llvm::StringRef first = llvm::StringRef(parseErrors).split('\n').first;
    first.consume_front(llvm::sys::path::filename(args[0]));
    first.consume_front(": ");
    fail(first.trim());
  }

  // `--a-type --b-type X` gives --a-type the value "--b-type": say what it
  // needs instead of complaining about the input file "X". (Enumerated
  // options say so in their parser.)
  for (cl::opt<std::string> *text :
       {&gemmShape, &aType, &bType, &aScale, &bScale, &outScale,
        &kernelConfig, &saveDir, &loadDir, &modelDevice, &modulePath,
        &kernelName, &gridText, &blockText, &outDir, &tuneTable,
        &tuningTable})
    if (text->getNumOccurrences() &&
        llvm::StringRef(text->getValue()).starts_with("--"))
      fail("--" + text->ArgStr.str() + " needs a value (" +
           text->HelpStr.str() + "), got the option '" + text->getValue() +
           "'");
  config.target = chipOption.getValue() ? *chipOption.getValue()
                                        : lookupTargetChip("gfx942");
  if (const NvidiaChipInfo *nvidia = config.target.nvidia) {
    // No NVIDIA GPU is reachable from here: the program is compiled and
    // saved as a launch plan for qmm-cuda-run.
    if (saveDir.empty())
      fail("--chip " + nvidia->name +
           ": NVIDIA programs are saved, not run here: give --save DIR and "
           "run `qmm-cuda-run DIR` on a GPU of the chip");
    if (deviceKind.getNumOccurrences() || iterations.getNumOccurrences() ||
        modelDevice.getNumOccurrences() || modelOnly ||
        modelParams.getNumOccurrences() || tune || tuneMeasure ||
        !modulePath.empty() || !functionName.empty() || jsonOutput)
      fail("--chip " + nvidia->name +
           ": --device, --iters, --json, --model (-only, -param), --tune, "
           "--module and --function do not apply (the program runs in qmm-cuda-run: its --iters "
           "times it, its --json reports)");
    if (saveWithoutData && !loadDir.empty())
      fail("--no-data: the runner draws the inputs; --load gives them");
  }
  if (saveWithoutData && !config.target.nvidia)
    fail("--no-data: saves launch plans for NVIDIA chips only (--chip "
         "sm_90a)");
  config.saveWithoutData = saveWithoutData;
  if (nvidiaClusterRows.getNumOccurrences() && !config.target.nvidia)
    fail("--cluster-rows: applies to NVIDIA chips only (--chip sm_90a)");
  config.nvidiaClusterRows = nvidiaClusterRows;
  if (nvidiaClusterColumns.getNumOccurrences() && !config.target.nvidia)
    fail("--cluster-columns: applies to NVIDIA chips only (--chip sm_90a)");
  config.nvidiaClusterColumns = nvidiaClusterColumns;
  if ((nvidiaStages.getNumOccurrences() || nvidiaStreamK.getNumOccurrences() ||
       nvidiaMaxBlocks.getNumOccurrences() ||
       nvidiaPromotionKTiles.getNumOccurrences() ||
       nvidiaDynamicSchedule.getNumOccurrences() ||
       nvidiaCheckScalesAhead.getNumOccurrences() ||
       nvidiaStageScales.getNumOccurrences() ||
       nvidiaClusterReduction.getNumOccurrences() ||
       nvidiaTileM.getNumOccurrences() || nvidiaTileN.getNumOccurrences()) &&
      !config.target.nvidia)
    fail("--stages, --stream-k, --max-blocks, --promotion-k-tiles, "
         "--dynamic-schedule, --check-scales-ahead, --stage-scales, "
         "--cluster-reduction, --tile-m, --tile-n: "
         "apply to NVIDIA chips "
         "only (--chip sm_90a)");
  config.nvidiaStages = nvidiaStages;
  config.nvidiaTileM = nvidiaTileM;
  config.nvidiaTileN = nvidiaTileN;
  config.nvidiaDynamicSchedule = nvidiaDynamicSchedule;
  config.nvidiaCheckScalesAhead = nvidiaCheckScalesAhead;
  config.nvidiaStageScales = nvidiaStageScales;
  config.nvidiaClusterReduction = nvidiaClusterReduction;
  config.nvidiaPromotionKTiles = nvidiaPromotionKTiles;
  config.nvidiaStreamK = nvidiaStreamK;
  config.nvidiaMaxBlocks = nvidiaMaxBlocks;
  if (iterations > 100000)
    fail("--iters: at most 100000");
  if (emuMaxOps <= 0)
    fail("--emu-max-ops: expected a positive count, got " +
         llvm::Twine(emuMaxOps.getValue()));
  emu::setMaxOperationsPerLaunch(emuMaxOps);
  emu::setWorkgroupOrder(emuWorkgroupOrder);

  if (!modulePath.empty() && !inputFile.empty())
    fail("--module cannot be combined with an input file");
  if (modulePath.empty() &&
      (kernelName.getNumOccurrences() || gridText.getNumOccurrences() ||
       blockText.getNumOccurrences()))
    fail("--kernel, --grid and --block need --module");
  if (modulePath.empty() && functionName.empty() &&
      (kernelArgs.getNumOccurrences() || outDir.getNumOccurrences()))
    fail("--arg and --out need --module or --function");
  if (!functionName.empty() && inputFile.empty())
    fail("--function calls a function of an input file: give the file");
  if (!functionName.empty()) {
    LaunchRequest request;
    request.modulePath = inputFile;
    request.functionName = functionName;
    request.config = kernelConfig;
    request.args.assign(kernelArgs.begin(), kernelArgs.end());
    request.outDir = outDir;
    request.device = deviceKind;
    request.flags = &category;
    return request;
  }

  config.kernelConfig = kernelConfig;
  config.tune = tune;
  config.tuneTable = tuneTable;
  config.tuneAll = tuneAll;
  config.tuneSpace = tuneSpace;
  config.selectByModel = selectMode == SelectMode::Model;
  config.tuneThreads = tuneThreads;
  if ((tuneAll || tuneSpace || tuneThreads.getNumOccurrences()) && !tune)
    fail("--tune-all, --tune-space and --tune-threads need --tune");
  config.tuningTable = tuningTable;
  if (!tuneTable.empty() && !tune)
    fail("--tune-table needs --tune");
  config.tuneMeasure = tuneMeasure;
  if (tuneMeasure && !tune)
    fail("--tune-measure needs --tune");
  // The emulator's wall-clock time says nothing of GPU speed; it is
  // accepted so that the mechanism can be exercised without a GPU.
  if (tuneMeasure && deviceKind != DeviceKind::HIP &&
      deviceKind != DeviceKind::Emulator)
    fail("--tune-measure times configs on a GPU: it needs --device hip (or "
         "emu, whose wall-clock time only exercises the mechanism)");
  if (tuneMeasure && modelOnly)
    fail("--tune-measure runs the GEMM: it cannot be combined with "
         "--model-only");
  if (tune && !kernelConfig.empty())
    fail("--tune chooses the config: it cannot be combined with --config");
  if (!tuningTable.empty() && (tune || !kernelConfig.empty()))
    fail("--tuning-table cannot be combined with --tune or --config");
  if (tune && jsonOutput && !modelOnly && !tuneSpace)
    fail("--tune --json needs --model-only (the ranking is part of the "
         "model's JSON)");
  if (config.target.amd)
    config.model = parseModelRequest(
      *config.target.amd, modelDevice.getNumOccurrences() > 0 || tune, modelDevice,
      modelOnly, std::vector<std::string>(modelParams.begin(),
                                          modelParams.end()));
  if (config.model.device && !modulePath.empty())
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
    request.device = deviceKind;
    request.stats = llvm::AreStatisticsEnabled();
    request.iterations = int(iterations);
    request.flags = &category;
    return request;
  }

  config.inputFile = inputFile;
  if (!inputFile.empty()) {
    cl::Option *generatorFlags[] = {
        &gemmShape,   &aType,       &bType,    &aScale,    &bScale,
        &aScaleMajor, &bScaleMajor, &bLayout,  &outType,   &accumulate,
        &biasType,    &geluKind,    &auxType,  &wgrad,     &numGroups,
        &maskedGroups, &outScale,   &outRounding};
    for (cl::Option *flag : generatorFlags)
      if (flag->getNumOccurrences())
        fail("--" + flag->ArgStr + " cannot be combined with an input file "
             "(the file fixes the GEMM)");
  } else {
    parseExtents(config);
    if (wgrad)
      applyWeightGradient();
  }
  if (mValues.getNumOccurrences() && !inputFile.empty())
    fail("--m goes with --gemm ?xNxK, not with an input file");
  config.aType = aType;
  config.bType = bType;
  config.aScale = aScale;
  config.bScale = bScale;
  config.outScale = outScale;
  config.aScaleMNMajor = aScaleMajor == ScaleMajorness::MNMajor;
  config.bScaleMNMajor = bScaleMajor == ScaleMajorness::MNMajor;
  config.bLayout = bLayout;
  config.outType = outType;
  if (outRounding.getNumOccurrences())
    config.outRounding = outRounding.getValue();
  if (getElementBitWidth(config.outType) != 8 &&
      (outScale.getNumOccurrences() || outRounding.getNumOccurrences()))
    fail("--out-scale and --out-rounding go with an FP8 --out-type");
  config.accumulate = accumulate;
  if (biasType.getNumOccurrences())
    config.biasType = biasType.getValue();
  if (geluKind.getNumOccurrences())
    config.activation = geluKind;
  if (auxType.getNumOccurrences()) {
    if (config.activation == Activation::None)
      fail("--aux (the pre-activation output) needs --gelu");
    config.auxType = auxType.getValue();
  }
  config.groups = numGroups;
  config.masked = maskedGroups;

  config.device = deviceKind;
  config.iterations = iterations;
  config.seed = seed;
  config.distribution = distribution;
  if (rounding.getNumOccurrences())
    config.rounding = rounding.getValue();
  if (minAmax.getNumOccurrences())
    config.minAmax = minAmax; // checked with the rule it goes with
  config.quantize = quantizeOn;
  config.saveDir = saveDir;
  config.loadDir = loadDir;
  config.emitIR = emitIR;
  config.json = jsonOutput;
  return std::nullopt;
}
