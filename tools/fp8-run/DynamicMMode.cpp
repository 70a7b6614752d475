//===- DynamicMMode.cpp - fp8-run --gemm ?xNxK --m ... -------------------===//
//
// One program with a dynamic M (tensor<?xKx...> A, output and M-following
// scales), compiled once for the device and called for each M of --m: each
// call gets inputs of its M and is validated as a static run is. The model
// reports the program's config at each M.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::fp8run;

std::string GemmRunner::getSelectedConfig() {
  const ChipInfo &chip = amdChip();
  OwningOpRef<ModuleOp> configured = module->clone();
  PassManager pm(&context);
  pm.addPass(createQMMAttachTarget({chip.name.str()}));
  pm.addPass(createQMMLegalizeForChip());
  QMMSelectConfigOptions select;
  select.override = kernelConfig;
  pm.addPass(createQMMSelectConfig(select));
  LogicalResult ran = success();
  std::string message =
      captureDiagnostics(&context, [&] { ran = pm.run(*configured); });
  if (failed(ran))
    fail("--m: " + message);
  // One config, or a matmul versioned by M: "(M <= bound) config; config".
  std::string text;
  llvm::raw_string_ostream os(text);
  configured->walk([&](Operation *op) {
    if (!isa<MatmulOp, GroupedMatmulOp>(op))
      return;
    if (!text.empty())
      os << "\n  config (larger M) ";
    if (auto bound = op->getAttrOfType<IntegerAttr>(kMaxMAttrName))
      os << "(M <= " << bound.getInt() << ") ";
    os << op->getAttr("config");
  });
  return text;
}

void GemmRunner::setM(int64_t m) {
  spec.m = m;
  aParts.clear();
  bParts.clear();
  bias.reset();
  auxInit.reset();
  outScalesInit.reset();
  groupInfo.clear();
  groupInfoTensor.reset();
}

void GemmRunner::checkGroupedMValues() const {
  if (!isGrouped() || config.masked)
    return;
  int64_t alignment = getGroupedMatmulMAlignment();
  for (int64_t m : config.mValues)
    if (m % alignment != 0)
      fail("--m with --groups (contiguous): M = " + std::to_string(m) +
           " must be a multiple of the M alignment " +
           std::to_string(alignment));
}

int GemmRunner::runForEachM() {
  const ChipInfo &chip = amdChip();
  const ModelRequest &model = config.model;
  checkGroupedMValues();
  if (config.quantize == QuantizeOn::Device || !config.loadDir.empty() ||
      !config.saveDir.empty() || config.tune || config.tuneMeasure ||
      !config.tuneTable.empty() || !config.tuningTable.empty())
    fail("--m: --quantize device, --load, --save, --tune and tuning tables "
         "are not supported with a dynamic M");
  buildProgram();
  kernelConfig = config.kernelConfig;
  if (config.emitIR) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  // One config for every M: the selector's for its dynamic-M bucket (or
  // --config). The cpu device runs the reference lowering, specialized to
  // each call's shapes.
  if (config.json) {
  } else if (config.device == DeviceKind::CPU) {
    llvm::outs() << "fp8-run: one program for every M: " << spec.describe()
                 << "\n  the cpu device: the reference lowering, "
                    "specialized to each call's M\n";
  } else {
    std::string chosen = getSelectedConfig();
    llvm::outs() << "fp8-run: one program for every M: "
                 << spec.describe() << "\n  config " << chosen
                 << (kernelConfig.empty()
                         ? llvm::formatv(" (qmm-select-config's for M = {0})",
                                         kDefaultDynamicMBucket)
                               .str()
                         : std::string(" (--config, every M)"))
                 << "\n";
  }
  if (model.device) {
    // MODELED: the one code object of the dynamic-M program, its grid and
    // operand bytes evaluated at each M.
    OwningOpRef<ModuleOp> lowered = module->clone();
    AMDGPUPipelineOptions options{chip.name.str(), "gpu", kernelConfig};
    failOn(runAMDGPUPipeline(*lowered, options));
    llvm::outs() << "modeled (" << model.device->name
                 << ", the dynamic-M program's code object at each M):\n";
    for (int64_t m : config.mValues) {
      if (m == 0) {
        llvm::outs() << "  M = 0: no launch\n";
        continue;
      }
      perf::DynamicExtents at = perf::getDynamicExtentsAtM(*module, m);
      std::vector<perf::KernelPrediction> modeled = orFail(perf::modelProgram(
          *lowered, chip, *model.device, model.params, &at));
      double seconds = 0;
      for (const perf::KernelPrediction &p : modeled)
        seconds += p.seconds;
      // Masked grouped: M is each group's row capacity, G matrices.
      double matrices = isGrouped() && config.masked ? double(config.groups)
                                                     : 1.0;
      double flops =
          2.0 * matrices * double(m) * double(spec.n) * double(spec.k);
      llvm::outs() << llvm::formatv(
          "  M = {0,6}: {1,9:f1} us  {2,8:f1} TFLOP/s\n", m, seconds * 1e6,
          seconds > 0 ? flops / seconds / 1e12 : 0.0);
    }
    if (model.only)
      return 0;
  }

  device = orFail(createDevice(config.device, chip, kernelConfig));
  auto function = module->lookupSymbol<func::FuncOp>(spec.functionName);
  compiled = orFail(device->compile(*module, spec.functionName,
                                    function.getNumArguments(),
                                    function.getNumResults()));
  const Tier freshExact = exact, freshAux = auxExact, freshQuality = quality;
  bool allPass = true;
  for (int64_t m : config.mValues) {
    setM(m);
    exact = freshExact;
    auxExact = freshAux;
    quality = freshQuality;
    if (isGrouped()) {
      untouched = untouchedDiffer = 0;
      prepareGroupedInputs();
      execute();
      validateGroupedRows();
    } else {
      prepareInputs();
      execute();
      validate();
    }
    if (!config.json)
      llvm::outs() << "--- M = " << m << "\n";
    allPass &= report();
  }
  if (!config.json)
    llvm::outs() << llvm::formatv(
        "fp8-run: {0} M values, {1}: {2}\n", config.mValues.size(),
        config.device == DeviceKind::CPU
            ? "one program (the cpu device specializes it to each M)"
            : "one compiled program",
        allPass ? "PASS" : "FAIL");
  return allPass ? 0 : 1;
}
