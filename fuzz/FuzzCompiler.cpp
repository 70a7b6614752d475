//===- FuzzCompiler.cpp - what the fuzz targets do with a program ---------===//

#include "FuzzCompiler.h"

#include "qmm/InitQMM.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Support/NestingLimit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// The AMD pipeline's last stage for every input (QMM_FUZZ_AMD_FORMAT).
std::string amdFormat = "gpu";

const DialectRegistry &getRegistry() {
  // Built once and shared by every input's context; never destroyed (the
  // fuzzer exits without running destructors of what the inputs use).
  static DialectRegistry *registry = [] {
    auto *result = new DialectRegistry();
    registerAllDialects(*result);
    registerAllExtensions(*result);
    registerAllToLLVMIRTranslations(*result);
    qmm::registerQMMDialectAndExtensions(*result);
    return result;
  }();
  return *registry;
}

/// Verifies the IR after every pass that reports success. The pass
/// manager's own verifier would turn invalid IR into one more diagnostic,
/// which the fuzz targets drop; here it is a finding.
class VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    std::string messages;
    LogicalResult verified = success();
    {
      ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
        messages += diag.str() + "\n";
        for (Diagnostic &note : diag.getNotes())
          messages += "  note: " + note.str() + "\n";
        return success();
      });
      verified = verify(op);
    }
    if (succeeded(verified))
      return;
    llvm::errs() << "qmm-fuzz: pass '" << pass->getArgument()
                 << "' succeeded but left IR that does not verify:\n"
                 << messages;
    std::abort();
  }
};

void runPipeline(ModuleOp module,
                 llvm::function_ref<LogicalResult(OpPassManager &)> build) {
  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager pm(module.getContext());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
  if (failed(build(pm)))
    return;
  (void)pm.run(*clone);
}

} // namespace

void mlir::qmm::fuzz::compileForFuzzing(llvm::StringRef text) {
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  // Rejections are expected on most inputs.
  ScopedDiagnosticHandler dropDiagnostics(
      &context, [](Diagnostic &) { return success(); });
  ParserConfig config(&context);
  // MLIR's lexer reads the character after the buffer (a terminating null):
  // the fuzzer's bytes are not followed by one, a std::string's are.
  std::string terminated = text.str();
  // As every entry point does: text nested deeper than the limit is refused
  // before the parser's recursion could overflow the stack.
  if (failed(checkNestingDepth(terminated, "<fuzz>", &context)))
    return;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(terminated, config);
  if (!module || failed(verify(*module)))
    return;
  // The cpu pipeline lowers host programs: GPU-level IR (what the lit tests
  // of the AMD pipeline's later stages hold) is not its input. (Upstream's
  // ownership-based-buffer-deallocation leaves invalid gpu.launch
  // workgroup attributions behind on such IR.)
  bool hasGPUOps =
      module->walk([](Operation *op) {
            return op->getName().getDialectNamespace() == "gpu"
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          }).wasInterrupted();
  if (!hasGPUOps)
    runPipeline(*module,
                [](OpPassManager &pm) { return qmm::buildCPUPipeline(pm); });
  for (const char *chip : {"gfx942", "gfx950"}) {
    qmm::AMDGPUPipelineOptions options;
    options.chip = chip;
    options.format = amdFormat;
    runPipeline(*module, [&](OpPassManager &pm) {
      return qmm::buildAMDGPUPipeline(pm, options);
    });
  }
}

void mlir::qmm::fuzz::initializeCompiler() {
  registerAllPasses();
  qmm::registerQMMPassesAndPipelines();
  if (const char *format = std::getenv("QMM_FUZZ_AMD_FORMAT"))
    amdFormat = format;
  if (amdFormat == "isa" || amdFormat == "bin") {
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  }
  compileForFuzzing(R"mlir(
    func.func @warm_up(%a: tensor<16x32xf8E4M3FN>, %sa: tensor<1x1xf32>,
                       %b: tensor<16x32xf8E4M3FN>, %sb: tensor<1x1xf32>,
                       %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
      %d = qmm.matmul a(%a, %sa : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                      b(%b, %sb : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                      outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
      return %d : tensor<16x16xf32>
    })mlir");
}
