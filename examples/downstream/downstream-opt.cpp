//===- downstream-opt.cpp - an opt tool on an installed qmm ---------------===//
//
// What a frontend compiler's own driver links: the upstream dialects, passes
// and LLVM IR translations next to qmm's dialect, passes and pipelines,
// all from the installed package (find_package(QMM), QMM::Registration).
//
//===----------------------------------------------------------------------===//

#include "qmm/InitQMM.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::qmm::registerQMMPassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::qmm::registerQMMRequiredDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "downstream-opt: upstream MLIR with qmm\n", registry));
}
