//===- Compiler.cpp - embedding the qmm compiler --------------------------===//

#include "qmm/API/Compiler.h"
#include "qmm/InitQMM.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/KernelResources.h"
#include "qmm/Support/NestingLimit.h"
#include "qmm/Target/Chip.h"
#include "qmm/Target/LaunchLimits.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::api;

void api::registerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerQMMDialectAndExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

/// Pass and pipeline registration is global: done once.
void api::registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerQMMPassesAndPipelines();
  });
}

namespace {
/// Collects the diagnostics emitted while it lives, instead of printing
/// them, so that they can become an error value.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return success();
          Location loc = diag.getLocation();
          if (auto file = dyn_cast<FileLineColLoc>(loc))
            os << file.getFilename().getValue() << ":" << file.getLine()
               << ":" << file.getColumn() << ": ";
          else if (!isa<UnknownLoc>(loc))
            os << loc << ": ";
          os << diag.str() << "\n";
          return success();
        }) {}

  llvm::Error makeError(const llvm::Twine &what) const {
    std::string message = what.str();
    if (!text.empty())
      message += ":\n" + llvm::StringRef(text).rtrim().str();
    return llvm::createStringError(message);
  }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

static std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// Where each launch argument comes from in the host function.
static std::string describeSource(Value value, func::FuncOp func,
                                  llvm::DenseMap<Operation *, size_t> &allocs) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (arg.getOwner() == &func.getBody().front())
      return "arg" + std::to_string(arg.getArgNumber());
  Operation *def = value.getDefiningOp();
  if (def && isa<memref::AllocOp>(def)) {
    auto [it, inserted] = allocs.try_emplace(def, allocs.size());
    return "alloc" + std::to_string(it->second);
  }
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return std::to_string(*constant);
  if (auto base = dyn_cast_or_null<memref::ReinterpretCastOp>(def))
    // A dynamic operand passed as its base (qmm-kernel-size-arguments).
    return describeSource(base.getSource(), func, allocs);
  if (auto dim = dyn_cast_or_null<memref::DimOp>(def)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (index)
      return "dim(" + describeSource(dim.getSource(), func, allocs) + ", " +
             std::to_string(*index) + ")";
  }
  if (auto cmp = dyn_cast_or_null<arith::CmpIOp>(def)) {
    std::string lhs = describeSource(cmp.getLhs(), func, allocs);
    std::string rhs = describeSource(cmp.getRhs(), func, allocs);
    if (lhs != "?" && rhs != "?")
      return lhs + " " + arith::stringifyCmpIPredicate(cmp.getPredicate()).str() +
             " " + rhs;
  }
  if (auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def)) {
    // One operand (a dynamic M's grid): the map's expression of it.
    AffineMap map = apply.getAffineMap();
    if (apply.getMapOperands().size() == 1 && map.getNumResults() == 1) {
      std::string operand =
          describeSource(apply.getMapOperands()[0], func, allocs);
      std::string expression;
      llvm::raw_string_ostream(expression) << map.getResult(0);
      std::string symbol = map.getNumDims() == 1 ? "d0" : "s0";
      size_t at = expression.find(symbol);
      if (operand != "?" && at != std::string::npos)
        return expression.replace(at, symbol.size(), operand);
    }
  }
  return "?";
}

/// Refuses a launch no GPU of the chip takes (a grid of 2^40 workgroups for
/// a GEMM of 2^40 rows): the extents known at compile time, as HIP checks
/// them; a dynamic extent is checked by the runtime that launches it.
static llvm::Error verifyLaunch(const ChipInfo &chip, const Launch &launch,
                                llvm::StringRef function,
                                llvm::StringRef kernel) {
  auto describe = [&] {
    auto extents = [](const std::array<int64_t, 3> &e) {
      std::string text;
      for (int64_t extent : e)
        text += (text.empty() ? "" : ",") +
                (extent < 0 ? std::string("?") : std::to_string(extent));
      return text;
    };
    return "@" + function.str() + " launches @" + kernel.str() + " with grid " +
           extents(launch.grid) + " x block " + extents(launch.block) +
           ", not a valid launch on " + chip.name.str() + ": ";
  };
  if (llvm::is_contained(launch.block, -1))
    return llvm::Error::success();
  if (llvm::Error error = verifyBlockExtents(chip, launch.block))
    return llvm::createStringError(describe() +
                                   llvm::toString(std::move(error)));
  std::array<int64_t, 3> grid = launch.grid;
  for (int64_t &extent : grid)
    if (extent == -1)
      extent = 1;
  if (llvm::Error error = verifyGridExtents(chip, grid, launch.block))
    return llvm::createStringError(describe() +
                                   llvm::toString(std::move(error)));
  return llvm::Error::success();
}

llvm::Expected<CompiledProgram> api::compile(ModuleOp module,
                                             const CompileOptions &options) {
  const ChipInfo *chip = lookupChip(options.chip);
  if (!chip)
    return llvm::createStringError("unknown chip '%s' (expected %s)",
                                   options.chip.c_str(),
                                   getSupportedChipNames().c_str());
  registerPasses();
  MLIRContext *ctx = module.getContext();
  OwningOpRef<ModuleOp> lowered = module.clone();
  {
    DiagnosticCollector diagnostics(ctx);
    if (failed(verify(*lowered)))
      return diagnostics.makeError("the program is not valid");
    PassManager pm(ctx);
    AMDGPUPipelineOptions pipeline{chip->name.str(), "gpu", options.config};
    if (failed(buildAMDGPUPipeline(pm, pipeline)))
      return diagnostics.makeError("cannot build the AMD pipeline");
    if (failed(pm.run(*lowered)))
      return diagnostics.makeError("the AMD pipeline failed for " +
                                   chip->name);
  }

  CompiledProgram program;
  program.chip = chip->name.str();
  llvm::raw_string_ostream(program.gpuIR) << *lowered;

  std::map<std::string, KernelResources> resources;
  {
    DiagnosticCollector diagnostics(ctx);
    llvm::Expected<std::map<std::string, KernelResources>> read =
        getKernelResources(*lowered, *chip);
    if (!read)
      return llvm::joinErrors(diagnostics.makeError("code generation failed"),
                              read.takeError());
    resources = std::move(*read);
  }

  // One code object per gpu.module.
  llvm::StringMap<std::string> codeObjects;
  {
    DiagnosticCollector diagnostics(ctx);
    OwningOpRef<ModuleOp> binaries = lowered->clone();
    if (llvm::Error error = runGPUToBinary(*binaries, chip->name, "bin"))
      return llvm::joinErrors(diagnostics.makeError("code generation failed"),
                              std::move(error));
    for (auto binary : binaries->getOps<gpu::BinaryOp>())
      for (Attribute object : binary.getObjects())
        codeObjects[binary.getName()] =
            cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  }

  llvm::StringMap<size_t> kernelIndex;
  for (auto gpuModule : lowered->getOps<gpu::GPUModuleOp>()) {
    for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      Kernel kernel;
      kernel.module = gpuModule.getName().str();
      kernel.name = func.getName().str();
      for (Type type : func.getArgumentTypes())
        kernel.argumentTypes.push_back(printed(type));
      const KernelResources &r =
          resources[kernel.module + "::" + kernel.name];
      kernel.resources = {r.vgprs,   r.agprs,        r.sgprs,
                          r.vgprSpills, r.sgprSpills, r.ldsBytes,
                          r.scratchBytes, r.occupancy};
      const std::string &object = codeObjects[kernel.module];
      if (object.empty())
        return llvm::createStringError("no code object for @%s",
                                       kernel.module.c_str());
      kernel.codeObject.assign(object.begin(), object.end());
      kernelIndex[kernel.module + "::" + kernel.name] =
          program.kernels.size();
      program.kernels.push_back(std::move(kernel));
    }
  }

  for (auto func : lowered->getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    HostFunction host;
    host.name = func.getName().str();
    for (Type type : func.getArgumentTypes())
      host.argumentTypes.push_back(printed(type));
    for (Type type : func.getResultTypes())
      host.resultTypes.push_back(printed(type));
    llvm::DenseMap<Operation *, size_t> allocs;
    std::string launchError;
    func.walk([&](Operation *op) -> WalkResult {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        allocs.try_emplace(op, allocs.size());
        host.temporaries.push_back({printed(alloc.getType()), false});
      }
      if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
        std::optional<int64_t> value = getConstantIntValue(memset.getValue());
        Operation *target = memset.getDst().getDefiningOp();
        auto it = target ? allocs.find(target) : allocs.end();
        if (it != allocs.end() && value && *value == 0)
          host.temporaries[it->second].zeroed = true;
      }
      auto launchOp = dyn_cast<gpu::LaunchFuncOp>(op);
      if (!launchOp)
        return WalkResult::advance();
      Launch launch;
      launch.kernel = kernelIndex.lookup(
          (launchOp.getKernelModuleName().getValue() + "::" +
           launchOp.getKernelName().getValue())
              .str());
      gpu::KernelDim3 grid = launchOp.getGridSizeOperandValues();
      gpu::KernelDim3 block = launchOp.getBlockSizeOperandValues();
      Value gridValues[] = {grid.x, grid.y, grid.z};
      Value blockValues[] = {block.x, block.y, block.z};
      for (int d = 0; d < 3; ++d) {
        launch.grid[d] = getConstantIntValue(gridValues[d]).value_or(-1);
        launch.gridExpressions[d] =
            describeSource(gridValues[d], func, allocs);
        launch.block[d] = getConstantIntValue(blockValues[d]).value_or(-1);
      }
      for (Value operand : launchOp.getKernelOperands())
        launch.arguments.push_back(describeSource(operand, func, allocs));
      for (Operation *at = launchOp; at->getParentOp() != func;
           at = at->getParentOp()) {
        auto ifOp = dyn_cast<scf::IfOp>(at->getParentOp());
        if (!ifOp)
          continue;
        std::string condition =
            describeSource(ifOp.getCondition(), func, allocs);
        if (at->getParentRegion() != &ifOp.getThenRegion())
          condition = "!(" + condition + ")";
        launch.conditions.insert(launch.conditions.begin(), condition);
      }
      if (llvm::Error error = verifyLaunch(
              *chip, launch, host.name, program.kernels[launch.kernel].name)) {
        launchError = llvm::toString(std::move(error));
        return WalkResult::interrupt();
      }
      host.launches.push_back(std::move(launch));
      return WalkResult::advance();
    });
    if (!launchError.empty())
      return llvm::createStringError(launchError);
    program.functions.push_back(std::move(host));
  }
  return program;
}

llvm::Expected<CompiledProgram> api::compile(llvm::StringRef source,
                                             const CompileOptions &options,
                                             llvm::StringRef sourceName) {
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module;
  {
    DiagnosticCollector diagnostics(&context);
    module = parseModuleWithinLimits(source, &context, sourceName);
    if (!module)
      return diagnostics.makeError("cannot parse the program");
  }
  return compile(*module, options);
}
