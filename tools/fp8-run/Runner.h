//===- Runner.h - fp8-run's run: one object for every mode ------*- C++ -*-===//
//
// A GemmRunner takes one RunConfig (the command line, parsed once) through
// the steps of a run, in order: build the program, compile and model it,
// prepare the inputs, run it on the device, validate the outputs and
// report. Dense and grouped (--groups) GEMMs share every step; they differ
// in the program builder, in how A, B and the rows are laid out and in what
// the validation compares row by row (GroupedMode.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TOOLS_FP8RUN_RUNNER_H
#define QMM_TOOLS_FP8RUN_RUNNER_H

#include "Options.h"

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"

#include "qmm/PerfModel/PerfModel.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostQuantizer.h"
#include "qmm/Runtime/HostTensor.h"
#include "qmm/Runtime/QualityBudget.h"
#include "qmm/Runtime/Validation.h"
#include "qmm/Target/Chip.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace qmm {
namespace fp8run {

/// Bad input: reported on one line, exit code 2.
[[noreturn]] void fail(const llvm::Twine &message);
void failOn(llvm::Error error);

template <typename T> T orFail(llvm::Expected<T> value) {
  if (!value)
    fail(llvm::toString(value.takeError()));
  return std::move(*value);
}

/// Runs `action` with the context's diagnostics captured: the first one's
/// message (after its file location when `withLocation`), or "" when it
/// emitted none. Errors stay on one line.
std::string captureDiagnostics(MLIRContext *context,
                               llvm::function_ref<void()> action,
                               bool withLocation = false);

/// Verifies a module fp8-run built or read; fails with the first error.
void verifyOrFail(ModuleOp module, llvm::StringRef what);

/// One operand's data: the unquantized values when known, and the
/// quantized pair.
struct OperandData {
  std::optional<std::vector<float>> highPrecision;
  host::QuantizedOperand quantized;
};

/// f32 values as a tensor of `shape`, and back.
host::HostTensor toTensor(llvm::ArrayRef<float> values,
                          llvm::ArrayRef<int64_t> shape);
std::vector<float> toFloats(const host::HostTensor &tensor);

/// How the device's qmm.quantize agreed with the host quantizer.
struct QuantizerCheck {
  bool ran = false;
  int64_t codeMismatches = 0, codes = 0;
  int64_t scaleMismatches = 0, scales = 0;
  bool agrees() const { return codeMismatches == 0 && scaleMismatches == 0; }
};

/// One validation tier as reported.
struct Tier {
  std::string name;
  host::ErrorMetrics metrics;
  std::string criterion;
  bool pass = false;
  bool skipped = false;
  /// The quantization tier: the calc_diff an ideal quantizer of the recipe
  /// is expected to reach on these inputs (host/QualityBudget.h).
  std::optional<double> expectedCalcDiff;
};

/// The exact tier's criterion for an output of `type`: f32 within
/// 80 dB SQNR, bf16/f16 within one output ulp plus the f32 accumulation
/// bound everywhere; NaN where the reference has it and nowhere else.
void judgeExactTier(Tier &tier, ElementType type);
/// The quantization tier's: calc_diff below `threshold`, no NaN mismatch.
void judgeQualityTier(Tier &tier, double threshold);
/// The same by a data-aware rule (host/QualityBudget.h): skipped, with the
/// reason, where the rule cannot judge.
void judgeQualityTier(Tier &tier, const host::QualityThreshold &rule);
void printTier(const Tier &tier);
llvm::json::Object tierJson(const Tier &tier);

/// The inputs' values that are NaN or infinite (unquantized data, scales,
/// NaN codes, C, bias), by name, in input order; empty when all are finite.
llvm::SmallVector<std::pair<std::string, int64_t>>
countNonFiniteInputs(const OperandData &a, const OperandData &b,
                     const host::HostTensor &c, const host::HostTensor *bias);

/// The report's line about non-finite inputs (nothing when there are none):
/// what each holds and how outputs depending on them are judged.
void printNonFiniteInputs(
    llvm::ArrayRef<std::pair<std::string, int64_t>> counts);

/// --model: checked against the chip; bad input on failure.
ModelRequest parseModelRequest(const ChipInfo &chip, bool requested,
                               llvm::StringRef deviceName, bool only,
                               llvm::ArrayRef<std::string> params);
llvm::json::Array
modelJson(llvm::ArrayRef<perf::KernelPrediction> predictions);
/// The predictions; with `measured` on a hip device, the measured time
/// next to them.
void printModel(llvm::ArrayRef<perf::KernelPrediction> predictions,
                const RunResult *measured, llvm::StringRef device);

/// The f64 references of a GEMM's two tiers (exact: the dequantized
/// inputs, with the pre-activation; quality: the unquantized inputs, when
/// known), the elements beyond f32's range, and the quality threshold.
struct GemmReferences {
  host::Reference preActivation, exact;
  std::optional<host::Reference> quality;
  llvm::SmallVector<bool> beyondF32;
  /// The quantization tier's rule (host/QualityBudget.h); its threshold is
  /// the formats' budget where there are no unquantized inputs.
  host::QualityThreshold qualityRule;
  double threshold = 0;
};

/// One fp8-run run of a dense or grouped GEMM.
class GemmRunner {
public:
  GemmRunner(MLIRContext &context, const RunConfig &config);

  /// All steps; returns the exit code (0 PASS, 1 FAIL; bad input exits 2).
  int run();

private:
  //===--- Steps ----------------------------------------------------------===//
  /// The program: the user's file, or the (grouped) GEMM of the flags, with
  /// the quantize functions of --quantize device.
  void buildProgram();
  /// Bad input (exit 2, naming `flag`) unless `text` is a #qmm.config.
  void checkConfigText(llvm::StringRef text, llvm::StringRef flag) const;
  /// The config the run compiles with: --config, the --tuning-table
  /// entry, or --tune's best (TuneMode.cpp); empty: the selector's.
  void chooseConfig();
  /// --tune: ranks the legal configs of the program's matmul by the model.
  void tune(const ConfigQuery &query);
  /// One config of --tune's space: its lower bound and estimated time
  /// (ConfigCost.h), in seconds.
  struct SpaceRow {
    double bound, estimate;
    ConfigAttr config;
  };
  /// `space` with its bounds and estimates, in the order --tune models it
  /// (by lower bound; ties keep `space`'s order).
  std::vector<SpaceRow> orderByBound(const ConfigQuery &query,
                                     llvm::ArrayRef<ConfigAttr> space) const;
  /// --tune --tune-space: prints `rows`; nothing is compiled.
  void printTuneSpace(const ConfigQuery &query,
                      llvm::ArrayRef<SpaceRow> rows) const;
  /// What qmm-select-config chooses for the legalized program's matmul
  /// (the pass run on a copy); null when it chooses nothing.
  ConfigAttr getPipelineChoice(Operation *legalizedMatmul);
  /// Whether the default for the query is the model's choice
  /// (--select=model, a GEMM of at least 2^32 FLOP: a table entry covers a
  /// bucket of shapes, and is one of the candidates).
  bool choosesByModel(const ConfigQuery &query) const;
  /// The configs the default chooses among: getPipelineChoice's, the
  /// nearest tuned shapes', the cheapest by estimated cost, the rule's,
  /// and the leaders' wave layouts and transposes (nothing compiled).
  std::vector<ConfigAttr> getDefaultCandidates(const ConfigQuery &query);
  /// The model's best of getDefaultCandidates; `note` says how it was
  /// chosen.
  std::string getModelChoice(const ConfigQuery &query, std::string &note);
  /// --tune-measure: times the model's best configs on the device (inputs
  /// prepared) and keeps the fastest.
  void tuneByMeasurement();
  /// --tune-table: records `entry` for the tuned matmul's key.
  void saveTuningEntry(const TuningTable::Entry &entry);
  /// Calls the program on the device (`iterations` > 0: timed).
  RunResult runProgram(unsigned iterations);
  /// --gemm ?xNxK --m ...: one program with a dynamic M, compiled once,
  /// modeled and run for each M (DynamicMMode.cpp).
  int runForEachM();
  /// The next M of a dynamic-M run: the spec's M, the inputs of the last
  /// one dropped.
  void setM(int64_t m);
  /// Bad input unless each --m of a contiguous grouped GEMM is a multiple
  /// of the M alignment.
  void checkGroupedMValues() const;
  /// The #qmm.config qmm-select-config gives the program's matmul.
  std::string getSelectedConfig();
  /// --emit-ir and --model; true when the run stops there.
  bool printProgramOrModel();
  /// The device's arguments, generated or loaded.
  void prepareInputs();
  void prepareGroupedInputs(); // GroupedMode.cpp
  void execute();
  void validate();
  void validateGroupedRows(); // GroupedMode.cpp
  /// Grouped: the rows the GEMM writes (contiguous: not padding; masked:
  /// below their group's count), in order, as rows of the [rows, N]
  /// output.
  std::vector<int64_t> getWrittenGroupedRows() const;
  /// Grouped: the references of the rows `written`, as a [written rows,
  /// N] GEMM (each row its group's product and epilogue).
  GemmReferences computeGroupedReferences(
      llvm::ArrayRef<int64_t> written) const;
  /// Prints the report; returns whether the run passes.
  bool report();

  //===--- Data (Data.cpp) ------------------------------------------------===//
  /// GemmSpec from the flags (element types and scales need the context).
  GemmSpec buildSpecFromFlags();
  /// `count` values of the --dist distribution from one seeded stream.
  std::vector<float> generate(int64_t count, unsigned streamSeed) const;
  /// The scale rule (--rounding, or the encoding's default) and amax floor.
  ScaleRounding getRounding(const OperandSpec &operand) const;
  float getMinAmax(ScaleRounding rounding) const;
  /// Operand `name` ("a" or "b"): loaded (--load) or generated from
  /// `streamSeed`, and quantized by the host quantizer unless loaded so.
  OperandData prepareOperand(llvm::StringRef name, const OperandSpec &operand,
                             int64_t rows, int64_t k,
                             unsigned streamSeed) const;
  /// Generated with the host quantizer (the grouped mode's operands).
  OperandData generateOperand(const OperandSpec &operand, int64_t rows,
                              unsigned streamSeed) const;
  /// C in the output type ([rows, spec.n]): generated when accumulating
  /// (or loaded as c.npy), zeros otherwise.
  host::HostTensor prepareAccumulator(int64_t rows) const;
  /// `columns` bias values: generated values rounded to the bias type.
  host::HostTensor generateBias(int64_t columns) const;
  /// Quantizes the operand's unquantized data with the device's
  /// qmm.quantize, compares the result with the host quantizer's and keeps
  /// the device's.
  void quantizeOnDevice(llvm::StringRef function, OperandData &data,
                        const OperandSpec &operand, int64_t rows);
  /// --save: the inputs and outputs as .npy files.
  void saveAll() const;

  /// The f64 references of both tiers and the quantization threshold.
  GemmReferences computeReferences() const;
  /// The program's arguments in order and its results' specs.
  llvm::SmallVector<const host::HostTensor *>
  getProgramArguments(std::vector<TensorSpec> *resultSpecs) const;

  //===--- NVIDIA (NvidiaMode.cpp) ----------------------------------------===//
  /// --chip sm_90a --save DIR: compiles the program for the chip and saves
  /// it as a launch plan (with the inputs and both tiers' checks, unless
  /// --no-data) for qmm-cuda-run.
  int saveLaunchPlan();
  /// One launch plan of the compiled program `lowered` (the NVVM
  /// pipeline's format gpu) at the spec's M, its inputs prepared, saved to
  /// `dir`.
  void savePlanAt(ModuleOp lowered, const NVVMPipelineOptions &options,
                  const std::string &dir);

  //===--- Report (Report.cpp) --------------------------------------------===//
  void printJsonReport(bool pass, double tflops) const;
  void printTextReport(bool pass, double tflops) const;

  bool isGrouped() const { return config.groups != 0; }
  GroupedLayout getGroupedLayout() const {
    return config.masked ? GroupedLayout::Masked : GroupedLayout::Contiguous;
  }

  /// The AMD chip the program runs on (the paths that run, model or tune
  /// here; an NVIDIA chip only saves a launch plan).
  const ChipInfo &amdChip() const {
    assert(config.target.amd && "an AMD path reached for an NVIDIA chip");
    return *config.target.amd;
  }

  MLIRContext &context;
  const RunConfig &config;

  GemmSpec spec;
  OwningOpRef<ModuleOp> module;
  std::string kernelConfig;
  /// --tune's ranking, for the model's JSON; the matmul it tuned; with
  /// --tune-measure, the configs to time and their modeled seconds.
  llvm::json::Array tuneRanking;
  /// How getModelChoice chose (empty: it did not), for the report.
  std::string selectionNote;
  /// qmm-select-config's choice for the matmul (--tune and the model's
  /// choice start from it).
  ConfigAttr pipelineChoice;
  std::optional<ConfigQuery> tunedQuery;
  std::vector<std::pair<std::string, double>> measureCandidates;
  bool deviceQuantizes = false;
  std::vector<perf::KernelPrediction> predictions;
  std::unique_ptr<Device> device;
  /// The program compiled once (dynamic M); null: runProgram compiles.
  std::unique_ptr<CompiledProgram> compiled;

  /// Inputs. Dense: one operand each; grouped: A whole (contiguous) or per
  /// group (masked), B per group, stacked into the device's arguments.
  std::vector<OperandData> aParts, bParts;
  host::HostTensor aData, aScales, bData, bScales;
  std::optional<host::HostTensor> bias;
  /// Grouped: row -> group (contiguous, -1 padding) or rows per group
  /// (masked), as the program's i32 argument.
  std::vector<int32_t> groupInfo;
  std::optional<host::HostTensor> groupInfoTensor;
  /// C (zeros unless accumulating); the output starts from it.
  host::HostTensor init;
  std::optional<host::HostTensor> auxInit, outScalesInit;
  QuantizerCheck quantizerCheck;

  RunResult result;

  /// Validation.
  Tier exact{"exact tier (vs f64 of the dequantized inputs)"};
  Tier auxExact{"aux (pre-activation) exact tier"};
  Tier quality{"quantization tier (vs f64 of the unquantized inputs)"};
  /// Grouped: values of rows not computed that differ from init.
  int64_t untouchedDiffer = 0, untouched = 0;
};

} // namespace fp8run
} // namespace qmm
} // namespace mlir

#endif
