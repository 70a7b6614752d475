//===- PlanParser.h - the parser of plan.txt (internal) ---------*- C++ -*-===//
//
// Shared by Plan.cpp (the statements that set up and launch) and
// PlanOutputs.cpp (the statements about the outputs: scaled, check).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_PLANPARSER_H
#define QMM_CUDA_RUN_PLANPARSER_H

#include "Plan.h"

#include <cctype>
#include <string>
#include <vector>

namespace qmmcuda {
namespace detail {

// Limits that keep every size computation far from overflow and every host
// allocation plausible; no real plan comes near them.
constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 40;
constexpr uint64_t kMaxIndex = 1u << 20;
constexpr uint64_t kMaxArgs = 4096;

struct Token {
  std::string text;
  size_t offset; // in the line, for the free-text tails (program, label)
};

inline std::string trimRight(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  return text;
}

class PlanParser {
public:
  explicit PlanParser(Plan &plan) : plan(plan) {}

  Status parse(const std::string &text);

private:
  Status error(const std::string &message) const {
    return Status::error(
        formatString("%s:%u: %s", plan.planPath.c_str(), line, message.c_str()));
  }
  /// An unsigned integer field in [min, max], or an error naming it.
  Status parseField(const Token &token, const char *what, uint64_t min,
                    uint64_t max, uint64_t &value) const;
  /// An index that must continue 0, 1, 2, ...
  Status parseNextIndex(const Token &token, const char *what, size_t next,
                        uint64_t &value) const;
  Status parseFileName(const Token &token, std::string &file,
                       std::string &path) const;
  Status expectTokens(const std::vector<Token> &tokens, size_t count,
                      const char *syntax) const;

  Status parseHeader(const std::string &text);
  Status parseChip(const std::vector<Token> &tokens);
  Status parseModule(const std::vector<Token> &tokens);
  Status parseKernel(const std::vector<Token> &tokens);
  Status parseBuffer(const std::vector<Token> &tokens);
  Status parseTensorMap(const std::vector<Token> &tokens);
  Status parseLaunch(const std::vector<Token> &tokens);
  Status parseLaunchArg(const Token &token, size_t position, LaunchArg &arg);
  Status parseCluster(const std::vector<Token> &tokens, size_t first,
                      PlanLaunch &launch) const;
  Status parseScaled(const std::vector<Token> &tokens);
  Status parseCheck(const std::vector<Token> &tokens, const std::string &text);

  Plan &plan;
  unsigned line = 0;
  unsigned chipLine = 0, programLine = 0, flopsLine = 0;
};

} // namespace detail
} // namespace qmmcuda

#endif // QMM_CUDA_RUN_PLANPARSER_H
