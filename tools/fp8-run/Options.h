//===- Options.h - fp8-run's command line, typed ----------------*- C++ -*-===//
//
// The command line is parsed once into a RunConfig (as mlir-opt's
// MlirOptMainConfig): enumerated options are cl::opts over enums whose
// parser rejects other spellings with the list of valid ones; what needs an
// MLIRContext to parse (element and scale types) stays text until the
// runner builds the program.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TOOLS_FP8RUN_OPTIONS_H
#define QMM_TOOLS_FP8RUN_OPTIONS_H

#include "LaunchMode.h"

#include "qmm/Conversion/NVVM/WgmmaPromotion.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/PerfModel/PerfModel.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/ElementType.h"
#include "qmm/Target/TargetAttr.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
namespace qmm {
namespace fp8run {

/// --dist: the generated data.
enum class Distribution { Normal, Uniform, Outliers, NearMax };
llvm::StringRef getDistributionName(Distribution distribution);

/// --quantize: who quantizes generated data.
enum class QuantizeOn { Host, Device };

/// --model, --model-only and --model-param, checked.
struct ModelRequest {
  const DeviceInfo *device = nullptr; ///< null: no model asked for
  perf::ModelParameters params;
  bool only = false; ///< compile and model; generate and run nothing
};

/// Everything one fp8-run invocation asks for (launch mode aside).
struct RunConfig {
  /// The program: a user's file, or the GEMM of the flags.
  std::string inputFile;
  int64_t m = 0, n = 0, k = 0;
  /// --gemm ?xNxK --m ...: one program with a dynamic M, run for each of
  /// these (`m` is then the largest, for the extent checks).
  std::vector<int64_t> mValues;
  bool isDynamicM() const { return !mValues.empty(); }
  /// MLIR spellings, empty for the chip's e4m3 (parsed with a context).
  std::string aType, bType;
  /// Scale specs as parseScaleSpec reads them.
  std::string aScale, bScale, outScale;
  bool aScaleMNMajor = false, bScaleMNMajor = false;
  OperandLayout bLayout = OperandLayout::NK;
  ElementType outType = ElementType::BF16;
  std::optional<ScaleRounding> outRounding; ///< none: the encoding's default
  bool accumulate = false;
  std::optional<ElementType> biasType, auxType;
  Activation activation = Activation::None;
  /// Grouped (MoE) GEMMs: 0 groups for a dense one.
  unsigned groups = 0;
  bool masked = false;

  /// Where and how it runs.
  /// --chip: an AMD chip runs the program here (device, model, tune); an
  /// NVIDIA chip saves it as a launch plan in saveDir for qmm-cuda-run.
  TargetChip target;
  DeviceKind device = DeviceKind::Auto;
  std::string kernelConfig; ///< #qmm.config<...>, empty: the selector's
  /// --tune (rank the legal configs by the model), the table it adds its
  /// best to, and the table a config is taken from.
  bool tune = false;
  /// --tune-all: model every legal config (no pruning by the lower bound);
  /// --tune-threads: worker threads (0: one per hardware thread).
  bool tuneAll = false;
  /// --tune-space: list the legal configs in the order --tune models them
  /// and stop (nothing is compiled).
  bool tuneSpace = false;
  /// --select=model (default): without a config or a table entry, a large
  /// GEMM's config is the model's best of a few candidates; pass: what
  /// qmm-select-config chooses alone.
  bool selectByModel = true;
  unsigned tuneThreads = 0;
  /// --tune-measure: how many of the model's best configs are re-ranked by
  /// time measured on the HIP GPU (0: the model's ranking decides).
  unsigned tuneMeasure = 0;
  std::string tuneTable, tuningTable;
  unsigned iterations = 0;

  /// Data.
  unsigned seed = 0;
  Distribution distribution = Distribution::Normal;
  std::optional<ScaleRounding> rounding; ///< none: the encoding's default
  std::optional<float> minAmax;          ///< none: the rule's default
  QuantizeOn quantize = QuantizeOn::Host;
  std::string saveDir, loadDir;
  /// --no-data (NVIDIA chips): the runner draws the inputs.
  bool saveWithoutData = false;
  /// The NVVM pipeline's cluster-rows (checked by the pass).
  int64_t nvidiaClusterRows = 0;
  /// The NVVM pipeline's cluster-columns (checked by the pass).
  int64_t nvidiaClusterColumns = 1;
  /// The NVVM pipeline's stages (checked by the pass).
  int64_t nvidiaStages = kDefaultWgmmaStages;
  /// The NVVM pipeline's stream-k and max-blocks (checked by the pass).
  bool nvidiaStreamK = true;
  int64_t nvidiaMaxBlocks = 0;
  /// The NVVM pipeline's promotion-k-tiles (checked by the pass; the exact
  /// tier's accumulation bound follows it).
  int64_t nvidiaPromotionKTiles = kDefaultWgmmaPromotionKTiles;
  /// The NVVM pipeline's dynamic-schedule.
  bool nvidiaDynamicSchedule = false;
  bool nvidiaCheckScalesAhead = true;
  bool nvidiaClusterReduction = true;
  bool nvidiaStageScales = true;
  /// The NVVM pipeline's tile-m and tile-n (checked by the pass).
  int64_t nvidiaTileM = 0, nvidiaTileN = 0;

  /// Output.
  bool emitIR = false;
  bool json = false;
  ModelRequest model;
};

/// Parses the command line (exiting with code 2 and one error line on bad
/// input). Returns the launch-mode request when --module is given (the
/// call-mode request, with a function name, when an input file comes with
/// --function), else fills `config`.
std::optional<LaunchRequest> parseCommandLine(int argc, char **argv,
                                              RunConfig &config);

/// The flags that describe the GEMM, given on the command line: they cannot
/// be combined with an input file.
llvm::SmallVector<std::string> getGivenGeneratorFlags();

} // namespace fp8run
} // namespace qmm
} // namespace mlir

#endif
