//===- NvidiaMode.cpp - fp8-run --chip sm_90a: a saved launch plan --------===//
//
// No NVIDIA GPU is reachable from a machine with MLIR, so for an NVIDIA
// chip fp8-run stops before running: it compiles the GEMM with the NVVM
// pipeline, records the host program's launches, and saves them with the
// inputs and both validation tiers (same references, same criteria as a
// run here) for qmm-cuda-run.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "qmm/Conversion/NVVM/WgmmaPromotion.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/LaunchPlan.h"
#include "qmm/Runtime/Validation.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::host;
using namespace mlir::qmm::fp8run;

/// How the GEMM's sums over K round: in f32, or when the matmul ran as a
/// wgmma kernel (the plan passes tensor maps) in chunks of the products
/// wgmma sums between two promotions, at the chip's accumulator
/// precision, the chunks added in f32 (`promotionKTiles`: the kernel's
/// interval without block scales).
static AccumulationModel getAccumulationModel(const LaunchPlan &plan,
                                              const GemmSpec &spec,
                                              const NvidiaChipInfo &chip,
                                              int64_t promotionKTiles) {
  AccumulationModel accumulation;
  if (plan.tensorMaps.empty())
    return accumulation;
  bool perKTileScales = spec.a.encoding.getKind() == ScaleKind::Block ||
                        spec.b.encoding.getKind() == ScaleKind::Block;
  // A K below the interval is one chunk.
  accumulation.chunk = std::min(
      chip.getWgmmaKTile() *
          getWgmmaPromotionKTiles(perKTileScales, promotionKTiles),
      int64_t(llvm::alignTo(spec.k, chip.getWgmmaKTile())));
  accumulation.chunkUnitRoundoff =
      std::ldexp(1.0, -int(chip.wgmmaFP8AccumulatorBits - 1));
  return accumulation;
}

/// Where each row of a checked buffer takes its expected values: row
/// `sources[r]` of the references, or, where that is -1, none (a grouped
/// GEMM's row that is not written: expected to keep its initial value).
/// Empty: every row its own.
using RowSources = std::vector<int64_t>;

/// `width` values per row of the references, `perRow`, laid out as the
/// checked buffer's rows (`rows` of them); rows without a source get
/// `untouched(i)` for their element i.
static std::vector<double>
scatterRows(llvm::ArrayRef<double> perRow, int64_t width, int64_t rows,
            const RowSources &sources,
            llvm::function_ref<double(int64_t)> untouched) {
  if (sources.empty())
    return perRow.vec();
  std::vector<double> result;
  result.reserve(rows * width);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t column = 0; column < width; ++column) {
      int64_t source = sources[row];
      result.push_back(source < 0 ? untouched(row * width + column)
                                  : perRow[source * width + column]);
    }
  return result;
}

/// As scatterRows, for intervals: an untouched element's is [v, v].
static std::vector<std::pair<double, double>>
scatterIntervals(llvm::ArrayRef<std::pair<double, double>> perRow,
                 int64_t width, int64_t rows, const RowSources &sources,
                 llvm::function_ref<double(int64_t)> untouched) {
  if (sources.empty())
    return perRow.vec();
  std::vector<std::pair<double, double>> result;
  result.reserve(rows * width);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t column = 0; column < width; ++column) {
      int64_t source = sources[row];
      double value = source < 0 ? untouched(row * width + column) : 0;
      result.push_back(source < 0 ? std::pair{value, value}
                                  : perRow[source * width + column]);
    }
  return result;
}

/// The quality-tier check of the buffer `like` checks: calc_diff against
/// the unquantized reference, if the references have one. Rows without a
/// source are left out (a NaN reference; the exact tier checks them).
static void addQualityCheck(LaunchPlan &plan, const LaunchPlan::Check &like,
                            const GemmReferences &refs, int64_t width,
                            const RowSources &sources, std::string label) {
  if (!refs.quality)
    return;
  LaunchPlan::Check quality = like;
  quality.tier = "quality";
  quality.kind = "calc_diff";
  quality.threshold = refs.threshold;
  quality.data = scatterRows(refs.quality->values, width,
                             int64_t(like.count) / width, sources,
                             [](int64_t) { return std::nan(""); });
  quality.label = std::move(label);
  plan.checks.push_back(std::move(quality));
}

/// The checks of D (`untouched` its initial values): the exact tier and,
/// with unquantized inputs, the quantization tier. Exact tier: each
/// element's interval (bf16/f16), 80 dB SQNR (f32) — or, when the matmul
/// ran as a wgmma kernel (the plan passes tensor maps), each element's
/// interval for every output type, with the bound of wgmma's FP8
/// accumulation (`accumulation`).
static void addChecks(LaunchPlan &plan, const GemmReferences &refs,
                      ElementType outputType, int64_t n, int64_t k,
                      const AccumulationModel &accumulation,
                      const RowSources &sources, const HostTensor &untouched) {
  size_t count = untouched.getNumElements();
  int64_t rows = int64_t(count) / n;
  auto initial = [&](int64_t i) { return untouched.getValue(i); };
  LaunchPlan::Check exact;
  exact.buffer = plan.results.front();
  exact.element = getElementTypeName(outputType).str();
  exact.count = count;
  exact.tier = "exact";
  exact.label = "D vs f64 of the dequantized inputs";
  if (accumulation.chunk)
    exact.label += " (wgmma FP8 accumulation bound)";
  if (!sources.empty())
    exact.label += "; rows not written keep their values";
  if (outputType == ElementType::F32 && !accumulation.chunk &&
      sources.empty()) {
    exact.kind = "sqnr";
    exact.threshold = kExactTierMinSqnrDb;
    exact.data = refs.exact.values;
  } else {
    exact.kind = "bounds";
    std::vector<std::pair<double, double>> intervals;
    for (size_t i = 0; i < refs.exact.values.size(); ++i)
      intervals.push_back(
          getExactTierInterval(refs.exact, i, outputType, k, accumulation));
    for (auto [low, high] :
         scatterIntervals(intervals, n, rows, sources, initial)) {
      exact.data.push_back(low);
      exact.data.push_back(high);
    }
  }
  plan.checks.push_back(exact);
  addQualityCheck(plan, exact, refs, n, sources,
                  "D vs f64 of the unquantized inputs");
}

/// The checks of an FP8 output (codes, then scales, the program's
/// results): exact tier, the scales within the range the rule gives for
/// the reference's amax (within its error bound) and each element's code
/// x scale within checkQuantizedOutput's allowance at either end of its
/// block's range; quality tier, calc_diff of code x scale against the
/// unquantized reference (the output format's budget included).
static void addQuantizedOutputChecks(LaunchPlan &plan,
                                     const GemmReferences &refs,
                                     const GemmSpec &spec,
                                     const NvidiaChipInfo &chip,
                                     int64_t promotionKTiles,
                                     const RowSources &sources,
                                     const HostTensor &codesInit,
                                     const HostTensor &scalesInit) {
  OperandSpec output = spec.getOutputOperand();
  size_t codes = plan.results[0], scales = plan.results[1];
  int64_t rows = codesInit.getNumElements() / spec.n;
  int64_t referenceRows = int64_t(refs.exact.values.size()) / spec.n;
  int64_t scalesPerRow = output.getScaleShape(1, spec.n).back();
  LaunchPlan::Scaling scaling;
  scaling.buffer = codes;
  scaling.scalesBuffer = scales;
  ElementType scaleType = toElementType(output.encoding.getScaleType());
  scaling.scaleElement = getElementTypeName(scaleType).str();
  scaling.rows = rows;
  scaling.columns = spec.n;
  scaling.blockColumns =
      output.encoding.getBlockExtent(spec.m, spec.n).second;
  plan.scalings.push_back(scaling);

  AccumulationModel accumulation =
      getAccumulationModel(plan, spec, chip, promotionKTiles);
  QuantizedOutputBounds bounds = getQuantizedOutputBounds(
      output, referenceRows, spec.n, referenceRows * scalesPerRow,
      refs.exact, spec.outRounding, spec.outMinAmax, spec.k, accumulation);
  std::string bound =
      accumulation.chunk ? " (wgmma FP8 accumulation bound)" : "";
  if (!sources.empty())
    bound += "; rows not written keep their values";
  // An exact-tier check of intervals.
  auto boundsCheck = [&](size_t buffer, std::string element,
                         llvm::ArrayRef<std::pair<double, double>> intervals,
                         std::string label) {
    LaunchPlan::Check check;
    check.buffer = buffer;
    check.element = std::move(element);
    check.count = intervals.size();
    check.tier = "exact";
    check.kind = "bounds";
    check.label = std::move(label);
    for (auto [low, high] : intervals) {
      check.data.push_back(low);
      check.data.push_back(high);
    }
    return check;
  };
  // A row not written keeps its codes and scales: code x scale as they
  // were.
  auto initialScale = [&](int64_t i) { return scalesInit.getValue(i); };
  auto initialValue = [&](int64_t i) {
    int64_t row = i / spec.n, column = i % spec.n;
    return codesInit.getValue(i) *
           scalesInit.getValue(row * scalesPerRow +
                               column / scaling.blockColumns);
  };
  LaunchPlan::Check scaleCheck = boundsCheck(
      scales, scaling.scaleElement,
      scatterIntervals(bounds.scales, scalesPerRow, rows, sources,
                       initialScale),
      "D's scales vs the rule at f64 amax" + bound);
  LaunchPlan::Check codeCheck = boundsCheck(
      codes, getElementTypeName(toElementType(spec.outputType)).str(),
      scatterIntervals(bounds.values, spec.n, rows, sources, initialValue),
      "D (code x scale) vs f64 of the dequantized inputs" + bound);
  plan.checks.push_back(std::move(scaleCheck));
  plan.checks.push_back(codeCheck);
  addQualityCheck(plan, codeCheck, refs, spec.n, sources,
                  "D (code x scale) vs f64 of the unquantized inputs");
}

/// The initial bits of a grouped GEMM's output (D or its scales) on the
/// GPU: the rows it writes poisoned unless `keepWritten` (0xFF bytes: NaN
/// in every output and scale type), so that a row the kernel skips fails
/// the checks; the others `untouchedBits` where given, else as they are,
/// to be found unchanged.
static void markGroupedRows(HostTensor &tensor, const RowSources &sources,
                            bool keepWritten,
                            std::optional<uint32_t> untouchedBits) {
  int64_t rows = int64_t(sources.size());
  int64_t width = tensor.getNumElements() / rows;
  unsigned bits = getElementBitWidth(tensor.elementType);
  uint32_t poison = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t i = row * width; i < (row + 1) * width; ++i) {
      if (sources[row] >= 0 && !keepWritten)
        tensor.setBits(i, poison);
      else if (sources[row] < 0 && untouchedBits)
        tensor.setBits(i, *untouchedBits);
    }
}

/// -7 in a 16- or 32-bit output type: a value no kernel computes by
/// accident where it should write nothing.
static uint32_t getMinusSevenBits(ElementType type) {
  return type == ElementType::F32    ? 0xC0E00000u
         : type == ElementType::BF16 ? 0xC0E0u
                                     : 0xC700u; // f16
}

int GemmRunner::saveLaunchPlan() {
  const NvidiaChipInfo &target = *config.target.nvidia;
  std::string flag = "--chip " + target.name.str();
  if (config.emitIR || config.quantize != QuantizeOn::Host)
    fail(flag + ": --emit-ir and --quantize device are not supported for "
                "NVIDIA chips yet");
  // (The compiled program launches nothing at M = 0, and a plan holds no
  // empty buffer.)
  if (llvm::is_contained(config.mValues, 0))
    fail(flag + ": --m 0: a plan of an empty GEMM launches nothing; give "
                "M values of at least 1");
  if (config.isDynamicM() && isGrouped() && config.masked)
    fail(flag + ": --m with --masked: a masked GEMM's M is its buffer's "
                "bound, compiled static");
  checkGroupedMValues();
  buildProgram();
  if (spec.auxType)
    fail(flag + ": --aux is not supported for NVIDIA chips yet");

  // One compilation (for a run-time M, of the program for every M).
  NVVMPipelineOptions options;
  options.chip = target.name.str();
  options.format = "gpu";
  options.clusterRows = config.nvidiaClusterRows;
  options.clusterColumns = config.nvidiaClusterColumns;
  options.stages = config.nvidiaStages;
  options.streamK = config.nvidiaStreamK;
  options.maxBlocks = config.nvidiaMaxBlocks;
  options.promotionKTiles = config.nvidiaPromotionKTiles;
  options.dynamicSchedule = config.nvidiaDynamicSchedule;
  options.checkScalesAhead = config.nvidiaCheckScalesAhead;
  options.stageScales = config.nvidiaStageScales;
  options.clusterReduction = config.nvidiaClusterReduction;
  options.tileM = config.nvidiaTileM;
  options.tileN = config.nvidiaTileN;
  OwningOpRef<ModuleOp> lowered = module->clone();
  if (llvm::Error error = runNVVMPipeline(*lowered, options))
    fail("compiling for " + target.name + " failed: " +
         llvm::toString(std::move(error)));
  options.format = "ptx";
  if (!config.isDynamicM()) {
    savePlanAt(*lowered, options, config.saveDir);
  } else {
    // A plan per M, each with its inputs, grid and tensor maps, in DIR/m<M>.
    for (int64_t m : config.mValues) {
      setM(m);
      savePlanAt(*lowered, options,
                 config.saveDir + "/m" + std::to_string(m));
    }
  }
  llvm::outs() << "run it on a GPU of the chip: qmm-cuda-run "
               << (config.isDynamicM() ? config.saveDir + "/m<M>"
                                       : config.saveDir)
               << "\n";
  return 0;
}

void GemmRunner::savePlanAt(ModuleOp lowered,
                            const NVVMPipelineOptions &options,
                            const std::string &dir) {
  const NvidiaChipInfo &target = *config.target.nvidia;
  std::string flag = "--chip " + target.name.str();
  RowSources sources;
  if (isGrouped()) {
    prepareGroupedInputs();
    // The output's rows: M (contiguous) or G x Mmax (masked).
    sources.assign(config.masked ? config.groups * spec.m : spec.m, -1);
    std::vector<int64_t> written = getWrittenGroupedRows();
    for (auto [index, row] : llvm::enumerate(written))
      sources[row] = int64_t(index);
    // The output travels: written rows poisoned (unless accumulated
    // into), the others (padding, or past a group's count) to be found
    // unchanged: C, an FP8 output's sentinels (prepareGroupedInputs), or
    // -7.
    std::optional<uint32_t> untouchedBits;
    if (!spec.accumulate && !spec.outEncoding)
      untouchedBits = getMinusSevenBits(init.elementType);
    if (!sources.empty()) {
      markGroupedRows(init, sources, /*keepWritten=*/spec.accumulate,
                      untouchedBits);
      if (outScalesInit)
        markGroupedRows(*outScalesInit, sources, /*keepWritten=*/false,
                        std::nullopt);
    }
  } else {
    prepareInputs();
  }
  std::vector<TensorSpec> resultSpecs;
  llvm::SmallVector<const HostTensor *> args =
      getProgramArguments(&resultSpecs);
  bool withData = !config.saveWithoutData;
  LaunchPlan plan = orFail(
      recordLaunchPlan(lowered, spec.functionName, args, options, withData));
  // Useful work: a grouped GEMM's written rows.
  int64_t rowsComputed =
      isGrouped() ? llvm::count_if(sources, [](int64_t s) { return s >= 0; })
                  : spec.m;
  plan.flops =
      2.0 * double(rowsComputed) * double(spec.n) * double(spec.k);
  // D's buffer is the program's `init`; unless the GEMM accumulates into
  // it (or a grouped GEMM leaves rows of it), its contents are not read:
  // poisoned (0xFF, NaN) rather than uploaded, so that an element no
  // kernel writes fails the checks.
  if (!spec.accumulate && !isGrouped())
    for (size_t result : plan.results) {
      plan.buffers[result].fill = "poison";
      plan.buffers[result].data.clear();
    }
  if (withData) {
    GemmReferences refs =
        isGrouped() ? computeGroupedReferences(getWrittenGroupedRows())
                    : computeReferences();
    if (llvm::is_contained(refs.beyondF32, true))
      fail(flag + ": outputs that depend on non-finite inputs or overflow "
                  "f32 are not saved (the runner's checks assume finite "
                  "references)");
    if (spec.outEncoding)
      addQuantizedOutputChecks(plan, refs, spec, target,
                               config.nvidiaPromotionKTiles, sources, init,
                               *outScalesInit);
    else
      addChecks(plan, refs, toElementType(spec.outputType), spec.n, spec.k,
                getAccumulationModel(plan, spec, target,
                                     config.nvidiaPromotionKTiles),
                sources, init);
  }
  failOn(writeLaunchPlan(plan, dir));
  llvm::outs() << llvm::formatv(
      "fp8-run: saved @{0} ({1}x{2}x{3}) for {4} ({5}) to {6}: {7} kernels "
      "in {8} PTX modules, {9} buffers, {10} launches, {11} checks{12}\n",
      spec.functionName, spec.m, spec.n, spec.k, target.name, target.product,
      dir, plan.kernels.size(), plan.modules.size(), plan.buffers.size(),
      plan.launches.size(), plan.checks.size(),
      withData ? "" : " (random inputs: --no-data)");
}
