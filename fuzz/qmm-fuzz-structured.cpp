//===- qmm-fuzz-structured.cpp - libFuzzer target: generated programs -----===//
//
// The input bytes drive the structured generator (ProgramGenerator.h, the
// one qmm-gen-program uses): every decision is read from the bytes, so
// libFuzzer's mutations explore shapes, types, scale kinds, layouts,
// epilogues, FP8 outputs, configurations and defects rather than syntax.
// The program then goes through the same passes as in qmm-fuzz-ir.
// QMM_FUZZ_PRINT=1 prints each program (to replay a crash file).
//
//===----------------------------------------------------------------------===//

#include "FuzzCompiler.h"
#include "ProgramGenerator.h"

#include "llvm/Support/raw_ostream.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {
/// Decisions read from the fuzzer's bytes; once they run out, every
/// decision is its lowest option (FuzzedDataProvider's rule).
class FuzzedChoiceSource : public mlir::qmm::gen::ChoiceSource {
public:
  FuzzedChoiceSource(const uint8_t *data, size_t size) : provider(data, size) {}
  int64_t getInt(int64_t lo, int64_t hi) override {
    return provider.ConsumeIntegralInRange<int64_t>(lo, hi);
  }

private:
  FuzzedDataProvider provider;
};

bool printPrograms = false;
} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  mlir::qmm::fuzz::initializeCompiler();
  const char *print = std::getenv("QMM_FUZZ_PRINT");
  printPrograms = print && *print && *print != '0';
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedChoiceSource choices(data, size);
  mlir::qmm::gen::GeneratorOptions options;
  std::string program = mlir::qmm::gen::generateProgram(choices, options);
  if (printPrograms)
    llvm::errs() << program << "// -----\n";
  mlir::qmm::fuzz::compileForFuzzing(program);
  return 0;
}
