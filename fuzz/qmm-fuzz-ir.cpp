//===- qmm-fuzz-ir.cpp - libFuzzer target: MLIR text in -------------------===//
//
// The input bytes are MLIR text, seeded from the lit tests' programs
// (fuzz/run.sh splits them on `// -----`): parse, verify, cpu pipeline,
// AMD pipeline for both chips.
//
//===----------------------------------------------------------------------===//

#include "FuzzCompiler.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  mlir::qmm::fuzz::initializeCompiler();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::qmm::fuzz::compileForFuzzing(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  return 0;
}
