//===- fp8-opt.cpp - the qmm optimizer driver -----------------------------===//
//
// An mlir-opt with the qmm dialect, its passes and pipelines, and the
// upstream dialects, extensions and passes the lowering builds on.
//
//===----------------------------------------------------------------------===//

#include "qmm/InitQMM.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::qmm::registerQMMPassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates to LLVM IR and serializes for ROCDL.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::qmm::registerQMMDialectAndExtensions(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "fp8-opt: the qmm quantized-matmul compiler driver\n",
      registry));
}
