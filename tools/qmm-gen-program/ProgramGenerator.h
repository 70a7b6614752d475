//===- ProgramGenerator.h - random qmm programs -----------------*- C++ -*-===//
//
// A structured generator of qmm programs as MLIR text, shared by
// qmm-gen-program (seeded, for the differential test against the emulator)
// and the qmm-fuzz-structured libFuzzer target (driven by the fuzzer's
// bytes). It depends on nothing but LLVM's Support library, so that its
// text goes through the same parser as a user's file.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_TOOLS_QMM_GEN_PROGRAM_PROGRAMGENERATOR_H
#define QMM_TOOLS_QMM_GEN_PROGRAM_PROGRAMGENERATOR_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>

namespace mlir {
namespace qmm {
namespace gen {

/// Where the generator's decisions come from.
class ChoiceSource {
public:
  virtual ~ChoiceSource() = default;
  /// A number in [lo, hi], both included (lo <= hi).
  virtual int64_t getInt(int64_t lo, int64_t hi) = 0;

  /// True with probability `percent` / 100.
  bool getPercent(int64_t percent) { return getInt(0, 99) < percent; }
  template <typename T> const T &pick(llvm::ArrayRef<T> options) {
    return options[getInt(0, int64_t(options.size()) - 1)];
  }
  template <typename T, size_t N> const T &pick(const T (&options)[N]) {
    return options[getInt(0, int64_t(N) - 1)];
  }
  template <typename T> T pick(std::initializer_list<T> options) {
    return options.begin()[getInt(0, int64_t(options.size()) - 1)];
  }
};

/// Decisions from a 64-bit Mersenne twister, whose sequence the C++
/// standard fixes: a seed gives the same program on every platform (the
/// range reduction is ours, not a std distribution's).
class SeededChoiceSource : public ChoiceSource {
public:
  explicit SeededChoiceSource(uint64_t seed) : engine(seed) {}
  int64_t getInt(int64_t lo, int64_t hi) override {
    uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;
    return span == 0 ? int64_t(engine()) : lo + int64_t(engine() % span);
  }

private:
  std::mt19937_64 engine;
};

struct GeneratorOptions {
  /// Only programs that fp8-run can run from a file and that the AMD
  /// pipeline compiles for `chip`: one func.func around one qmm.matmul on
  /// tensors in fp8-run's calling convention (a, a_scales, b, b_scales
  /// [, bias], init[, aux][, out_scales]), static positive extents, and a
  /// forced #qmm.config (sometimes) that the chip accepts. Otherwise
  /// anything the dialect can spell: several functions and ops
  /// (qmm.matmul, qmm.grouped_matmul, qmm.quantize, qmm.dequantize, chained
  /// FP8 outputs), dynamic and zero extents, memref forms, configurations
  /// that may not fit, and now and then one deliberate defect for the
  /// verifiers.
  bool validOnly = false;
  /// gfx942 or gfx950: the chip a valid-only program's configuration is for.
  std::string chip = "gfx942";
  /// Upper bound of the M, N and K extents of valid-only programs (their
  /// cost on the emulator grows with M * N * K).
  int64_t maxExtent = 160;
};

/// One program as MLIR text.
std::string generateProgram(ChoiceSource &choices,
                            const GeneratorOptions &options);

} // namespace gen
} // namespace qmm
} // namespace mlir

#endif // QMM_TOOLS_QMM_GEN_PROGRAM_PROGRAMGENERATOR_H
