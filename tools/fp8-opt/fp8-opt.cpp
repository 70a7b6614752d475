//===- fp8-opt.cpp - the qmm optimizer driver -----------------------------===//
//
// An mlir-opt with the qmm dialect, its passes and pipelines, and the
// upstream dialects, extensions and passes the lowering builds on. The
// input is read here, not by MlirOptMain, so that text nested too deeply
// for the parser's recursion is refused before parsing (NestingLimit.h).
//
//===----------------------------------------------------------------------===//

#include "qmm/InitQMM.h"
#include "qmm/Support/NestingLimit.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAllPasses();
  qmm::registerQMMPassesAndPipelines();

  DialectRegistry registry;
  qmm::registerQMMRequiredDialects(registry);

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "fp8-opt: the qmm quantized-matmul compiler driver\n",
      registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();

  // Listing dialects or passes reads no input (stdin would block).
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input;
  if (config.shouldShowDialects() || config.shouldListPasses())
    input = llvm::MemoryBuffer::getMemBuffer("");
  else
    input = openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (!isBytecode(*input)) {
    if (std::optional<qmm::ExcessiveNesting> deep =
            qmm::findExcessiveNesting(input->getBuffer())) {
      llvm::errs() << input->getBufferIdentifier() << ":" << deep->line << ":"
                   << deep->column << ": error: "
                   << qmm::getExcessiveNestingMessage() << "\n";
      return EXIT_FAILURE;
    }
  }

  auto output = openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
