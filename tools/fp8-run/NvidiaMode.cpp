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

/// The quality-tier check of the buffer `like` checks: calc_diff against
/// the unquantized reference, if the references have one.
static void addQualityCheck(LaunchPlan &plan, const LaunchPlan::Check &like,
                            const GemmReferences &refs, std::string label) {
  if (!refs.quality)
    return;
  LaunchPlan::Check quality = like;
  quality.tier = "quality";
  quality.kind = "calc_diff";
  quality.threshold = refs.threshold;
  quality.data = refs.quality->values;
  quality.label = std::move(label);
  plan.checks.push_back(std::move(quality));
}

/// The checks of D: the exact tier and, with unquantized inputs, the
/// quantization tier. Exact tier: each element's interval (bf16/f16), 80
/// dB SQNR (f32) — or, when the matmul ran as a wgmma kernel (the plan
/// passes tensor maps), each element's interval for every output type,
/// with the bound of wgmma's FP8 accumulation (`accumulation`).
static void addChecks(LaunchPlan &plan, const GemmReferences &refs,
                      ElementType outputType, int64_t k,
                      const AccumulationModel &accumulation) {
  size_t count = refs.exact.values.size();
  LaunchPlan::Check exact;
  exact.buffer = plan.results.front();
  exact.element = getElementTypeName(outputType).str();
  exact.count = count;
  exact.tier = "exact";
  exact.label = "D vs f64 of the dequantized inputs";
  if (accumulation.chunk)
    exact.label += " (wgmma FP8 accumulation bound)";
  if (outputType == ElementType::F32 && !accumulation.chunk) {
    exact.kind = "sqnr";
    exact.threshold = kExactTierMinSqnrDb;
    exact.data = refs.exact.values;
  } else {
    exact.kind = "bounds";
    exact.data.reserve(2 * count);
    for (size_t i = 0; i < count; ++i) {
      auto [low, high] =
          getExactTierInterval(refs.exact, i, outputType, k, accumulation);
      exact.data.push_back(low);
      exact.data.push_back(high);
    }
  }
  plan.checks.push_back(exact);
  addQualityCheck(plan, exact, refs, "D vs f64 of the unquantized inputs");
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
                                     int64_t promotionKTiles) {
  OperandSpec output = spec.getOutputOperand();
  size_t codes = plan.results[0], scales = plan.results[1];
  std::vector<int64_t> scaleShape = output.getScaleShape(spec.m, spec.n);
  int64_t numScales = scaleShape[0] * scaleShape[1];
  LaunchPlan::Scaling scaling;
  scaling.buffer = codes;
  scaling.scalesBuffer = scales;
  ElementType scaleType = toElementType(output.encoding.getScaleType());
  scaling.scaleElement = getElementTypeName(scaleType).str();
  scaling.rows = spec.m;
  scaling.columns = spec.n;
  scaling.blockColumns =
      output.encoding.getBlockExtent(spec.m, spec.n).second;
  plan.scalings.push_back(scaling);

  AccumulationModel accumulation =
      getAccumulationModel(plan, spec, chip, promotionKTiles);
  QuantizedOutputBounds bounds = getQuantizedOutputBounds(
      output, spec.m, spec.n, numScales, refs.exact, spec.outRounding,
      spec.outMinAmax, spec.k, accumulation);
  std::string bound =
      accumulation.chunk ? " (wgmma FP8 accumulation bound)" : "";
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
  LaunchPlan::Check scaleCheck =
      boundsCheck(scales, scaling.scaleElement, bounds.scales,
                  "D's scales vs the rule at f64 amax" + bound);
  LaunchPlan::Check codeCheck = boundsCheck(
      codes, getElementTypeName(toElementType(spec.outputType)).str(),
      bounds.values,
      "D (code x scale) vs f64 of the dequantized inputs" + bound);
  plan.checks.push_back(std::move(scaleCheck));
  plan.checks.push_back(codeCheck);
  addQualityCheck(plan, codeCheck, refs,
                  "D (code x scale) vs f64 of the unquantized inputs");
}

int GemmRunner::saveLaunchPlan() {
  const NvidiaChipInfo &target = *config.target.nvidia;
  std::string flag = "--chip " + target.name.str();
  if (config.isDynamicM() || isGrouped() || config.emitIR ||
      config.quantize != QuantizeOn::Host)
    fail(flag + ": --m, --groups, --emit-ir and --quantize device are not "
                "supported for NVIDIA chips yet");
  buildProgram();
  if (spec.auxType)
    fail(flag + ": --aux is not supported for NVIDIA chips yet");
  prepareInputs();

  NVVMPipelineOptions options;
  options.chip = target.name.str();
  options.format = "gpu";
  options.clusterRows = config.nvidiaClusterRows;
  options.streamK = config.nvidiaStreamK;
  options.maxBlocks = config.nvidiaMaxBlocks;
  options.promotionKTiles = config.nvidiaPromotionKTiles;
  options.dynamicSchedule = config.nvidiaDynamicSchedule;
  options.tileM = config.nvidiaTileM;
  options.tileN = config.nvidiaTileN;
  OwningOpRef<ModuleOp> lowered = module->clone();
  if (llvm::Error error = runNVVMPipeline(*lowered, options))
    fail("compiling for " + target.name + " failed: " +
         llvm::toString(std::move(error)));
  options.format = "ptx";
  std::vector<TensorSpec> resultSpecs;
  llvm::SmallVector<const HostTensor *> args =
      getProgramArguments(&resultSpecs);
  bool withData = !config.saveWithoutData;
  LaunchPlan plan = orFail(
      recordLaunchPlan(*lowered, spec.functionName, args, options, withData));
  plan.flops = 2.0 * double(spec.m) * double(spec.n) * double(spec.k);
  // D's buffer is the program's `init`; unless the GEMM accumulates into
  // it, its contents are not read: poisoned (0xFF, NaN) rather than
  // uploaded, so that an element no kernel writes fails the checks.
  if (!spec.accumulate)
    for (size_t result : plan.results) {
      plan.buffers[result].fill = "poison";
      plan.buffers[result].data.clear();
    }
  if (withData) {
    GemmReferences refs = computeReferences();
    if (llvm::is_contained(refs.beyondF32, true))
      fail(flag + ": outputs that depend on non-finite inputs or overflow "
                  "f32 are not saved (the runner's checks assume finite "
                  "references)");
    if (spec.outEncoding)
      addQuantizedOutputChecks(plan, refs, spec, target,
                               config.nvidiaPromotionKTiles);
    else
      addChecks(plan, refs, toElementType(spec.outputType), spec.k,
                getAccumulationModel(plan, spec, target,
                                     config.nvidiaPromotionKTiles));
  }
  failOn(writeLaunchPlan(plan, config.saveDir));
  llvm::outs() << llvm::formatv(
      "fp8-run: saved @{0} ({1}x{2}x{3}) for {4} ({5}) to {6}: {7} kernels "
      "in {8} PTX modules, {9} buffers, {10} launches, {11} checks{12}\n",
      spec.functionName, spec.m, spec.n, spec.k, target.name, target.product,
      config.saveDir, plan.kernels.size(), plan.modules.size(),
      plan.buffers.size(), plan.launches.size(), plan.checks.size(),
      withData ? "" : " (random inputs: --no-data)");
  llvm::outs() << "run it on a GPU of the chip: qmm-cuda-run "
               << config.saveDir << "\n";
  return 0;
}
