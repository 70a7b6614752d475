//===- qmm-gen-program.cpp - print one random qmm program -----------------===//
//
// Prints the program the structured generator (ProgramGenerator.h) makes
// from a seed: with --valid-only, one qmm.matmul that fp8-run runs from a
// file and the AMD pipeline compiles for --chip (fuzz/differential.py runs
// it on the cpu and emu devices); without, the kind of program the
// qmm-fuzz-structured target feeds the compiler (diagnostics expected).
//
//===----------------------------------------------------------------------===//

#include "ProgramGenerator.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("qmm-gen-program options");
static cl::opt<uint64_t> seed("seed", cl::desc("random seed of the program"),
                              cl::init(0), cl::cat(category));
static cl::opt<bool> validOnly(
    "valid-only",
    cl::desc("only programs that verify, compile for --chip and that "
             "fp8-run runs (one qmm.matmul in its calling convention)"),
    cl::cat(category));
static cl::opt<std::string>
    chip("chip", cl::desc("gfx942 or gfx950: the chip a --valid-only "
                          "program's configuration is for"),
         cl::init("gfx942"), cl::cat(category));
static cl::opt<int64_t>
    maxExtent("max-extent",
              cl::desc("largest M and N of --valid-only programs (K: twice "
                       "that)"),
              cl::init(160), cl::cat(category));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "qmm-gen-program: print a random qmm program\n");
  if (chip != "gfx942" && chip != "gfx950") {
    errs() << "qmm-gen-program: --chip: expected gfx942 or gfx950, got '"
           << chip << "'\n";
    return 2;
  }
  if (maxExtent < 1) {
    errs() << "qmm-gen-program: --max-extent must be positive\n";
    return 2;
  }
  mlir::qmm::gen::SeededChoiceSource choices(seed);
  mlir::qmm::gen::GeneratorOptions options;
  options.validOnly = validOnly;
  options.chip = chip;
  options.maxExtent = maxExtent;
  outs() << "// qmm-gen-program --seed " << seed
         << (validOnly ? " --valid-only --chip " + chip : std::string())
         << "\n"
         << mlir::qmm::gen::generateProgram(choices, options);
  return 0;
}
