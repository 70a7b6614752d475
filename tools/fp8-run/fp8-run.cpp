//===- fp8-run.cpp - generate, quantize, execute, validate ----------------===//
//
// Runs a quantized GEMM on a device and checks it twice: against an f64
// product of the dequantized inputs (compiler correctness) and against an
// f64 product of the unquantized inputs (quantization quality). The command
// line becomes a RunConfig (Options.cpp) that a GemmRunner takes through
// its steps (Runner.cpp); --module launches one kernel (LaunchMode.cpp);
// an input file with --function calls one function (CallMode.cpp).
//
// Exit codes: 0 PASS, 1 FAIL, 2 bad input.
//
//===----------------------------------------------------------------------===//

#include "LaunchMode.h"
#include "Options.h"
#include "Runner.h"

#include "qmm/InitQMM.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <new>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::fp8run;

int main(int argc, char **argv) {
  // Memory exhaustion is bad input (a problem too large for this host), not
  // a crash (the project builds without exceptions: a new handler).
  std::set_new_handler([] {
    fail("out of host memory: the problem is too large for this machine");
  });
  RunConfig config;
  std::optional<LaunchRequest> launch = parseCommandLine(argc, argv, config);

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerQMMDialectAndExtensions(registry);
  // Kernels are translated to LLVM IR for code objects and --stats.
  registerAllToLLVMIRTranslations(registry);
  registerAllPasses();
  registerQMMPassesAndPipelines();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // Launch and call modes run AMD code (parseCommandLine refuses them for
  // NVIDIA chips).
  if (launch && !launch->functionName.empty())
    return runCallMode(context, *config.target.amd, *launch);
  if (launch)
    return runLaunchMode(context, *config.target.amd, *launch);
  return GemmRunner(context, config).run();
}
