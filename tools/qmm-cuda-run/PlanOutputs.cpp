//===- PlanOutputs.cpp - the 'scaled' and 'check' statements -------------===//
//
// What the outputs of a run are judged against (Plan.cpp has the syntax):
// the element type each check reads a buffer as must be the one the plan
// gives it, so that no bytes are decoded as another format.
//
//===----------------------------------------------------------------------===//

#include "PlanParser.h"
#include "Support.h"

namespace qmmcuda {
namespace detail {

namespace {

/// The check element spelled `text` (MLIR's spelling), or false.
bool parseElementName(const std::string &text, ElementType &element) {
  for (ElementType candidate :
       {ElementType::F32, ElementType::Bf16, ElementType::F16,
        ElementType::F8E4M3FN, ElementType::F8E5M2, ElementType::F8E8M0FNU})
    if (text == getElementName(candidate)) {
      element = candidate;
      return true;
    }
  return false;
}

bool isFP8Codes(ElementType element) {
  return element == ElementType::F8E4M3FN || element == ElementType::F8E5M2;
}

} // namespace

Status PlanParser::parseScaled(const std::vector<Token> &tokens) {
  if (Status status = expectTokens(
          tokens, 7,
          "scaled <buffer-index> <scales-buffer-index> <scale-element> "
          "<rows> <columns> <block-columns>");
      !status.isOk())
    return status;
  PlanScaling scaling;
  scaling.line = line;
  uint64_t indices[2];
  for (int i = 0; i < 2; ++i)
    if (!parseUnsigned(tokens[1 + i].text, kMaxIndex, indices[i]) ||
        indices[i] >= plan.buffers.size())
      return error(formatString("scaled: buffer '%s' is not defined (%zu "
                                "defined so far)",
                                tokens[1 + i].text.c_str(),
                                plan.buffers.size()));
  scaling.buffer = static_cast<unsigned>(indices[0]);
  scaling.scalesBuffer = static_cast<unsigned>(indices[1]);
  if (scaling.buffer == scaling.scalesBuffer)
    return error("scaled: the codes and their scales are the same buffer");
  for (const PlanScaling &other : plan.scalings)
    if (other.buffer == scaling.buffer)
      return error(formatString("scaled: buffer %u is already scaled (line "
                                "%u)",
                                scaling.buffer, other.line));
  // Checks before this line would have read the codes as they are.
  for (const PlanCheck &check : plan.checks)
    if (check.buffer == scaling.buffer)
      return error(formatString("scaled: buffer %u is checked before (line "
                                "%u); 'scaled' must come first",
                                scaling.buffer, check.line));
  if (!parseElementName(tokens[3].text, scaling.scaleElement) ||
      (scaling.scaleElement != ElementType::F32 &&
       scaling.scaleElement != ElementType::F8E8M0FNU))
    return error(formatString("scaled: unknown scale element '%s' "
                              "(expected f32 or f8E8M0FNU)",
                              tokens[3].text.c_str()));
  if (Status status = parseField(tokens[4], "scaled rows", 1, kMaxBufferBytes,
                                 scaling.rows);
      !status.isOk())
    return status;
  if (Status status = parseField(tokens[5], "scaled columns", 1,
                                 kMaxBufferBytes, scaling.columns);
      !status.isOk())
    return status;
  if (Status status = parseField(tokens[6], "scaled block columns", 1,
                                 kMaxBufferBytes, scaling.blockColumns);
      !status.isOk())
    return status;
  if (scaling.rows > kMaxBufferBytes / scaling.columns ||
      scaling.rows * scaling.columns > plan.buffers[scaling.buffer].bytes)
    return error(formatString(
        "scaled: %llu x %llu codes do not fit buffer %u (%llu bytes)",
        static_cast<unsigned long long>(scaling.rows),
        static_cast<unsigned long long>(scaling.columns), scaling.buffer,
        static_cast<unsigned long long>(plan.buffers[scaling.buffer].bytes)));
  uint64_t scaleBytes = scaling.rows * scaling.scalesPerRow() *
                        getElementBytes(scaling.scaleElement);
  if (scaleBytes > plan.buffers[scaling.scalesBuffer].bytes)
    return error(formatString(
        "scaled: %llu x %llu scales do not fit buffer %u (%llu bytes)",
        static_cast<unsigned long long>(scaling.rows),
        static_cast<unsigned long long>(scaling.scalesPerRow()),
        scaling.scalesBuffer,
        static_cast<unsigned long long>(
            plan.buffers[scaling.scalesBuffer].bytes)));
  plan.scalings.push_back(scaling);
  return Status::ok();
}

Status PlanParser::parseCheck(const std::vector<Token> &tokens,
                              const std::string &text) {
  if (tokens.size() < 9)
    return error(formatString("expected 'check <buffer-index> <element> "
                              "<count> <tier> <kind> <threshold> <file> "
                              "<label...>', got %zu tokens",
                              tokens.size()));
  PlanCheck check;
  check.line = line;
  uint64_t buffer = 0;
  if (!parseUnsigned(tokens[1].text, kMaxIndex, buffer) ||
      buffer >= plan.buffers.size())
    return error(formatString("check: buffer '%s' is not defined (%zu "
                              "defined so far)",
                              tokens[1].text.c_str(), plan.buffers.size()));
  check.buffer = static_cast<unsigned>(buffer);
  const std::string &element = tokens[2].text;
  if (!parseElementName(element, check.element))
    return error(formatString("check: unknown element type '%s' (expected "
                              "f32, bf16, f16, f8E4M3FN, f8E5M2 or "
                              "f8E8M0FNU)",
                              element.c_str()));
  for (size_t i = 0; i < plan.scalings.size(); ++i)
    if (plan.scalings[i].buffer == check.buffer)
      check.scaling = static_cast<int>(i);
  if (isFP8Codes(check.element) != (check.scaling >= 0))
    return error(formatString(
        isFP8Codes(check.element)
            ? "check: %s codes are judged as code x scale: buffer %u needs "
              "an earlier 'scaled' line"
            : "check: %s elements of buffer %u, which a 'scaled' line makes "
              "FP8 codes",
        element.c_str(), check.buffer));
  // A 'scaled' line gives its scales buffer's element type too, and E8M0
  // is only ever a scale format: any other reading of the bytes is garbage.
  const PlanScaling *scalesOf = nullptr;
  for (const PlanScaling &scaling : plan.scalings)
    if (scaling.scalesBuffer == check.buffer)
      scalesOf = &scaling;
  if (scalesOf && check.element != scalesOf->scaleElement)
    return error(formatString(
        "check: %s elements of buffer %u, which the 'scaled' line %u makes %s "
        "scales",
        element.c_str(), check.buffer, scalesOf->line,
        getElementName(scalesOf->scaleElement)));
  if (!scalesOf && check.element == ElementType::F8E8M0FNU)
    return error(formatString(
        "check: f8E8M0FNU elements are scales: buffer %u needs an earlier "
        "'scaled' line naming it as f8E8M0FNU scales",
        check.buffer));
  if (Status status =
          parseField(tokens[3], "check count", 1, kMaxBufferBytes, check.count);
      !status.isOk())
    return status;
  uint64_t bufferBytes = plan.buffers[check.buffer].bytes;
  unsigned elementBytes = getElementBytes(check.element);
  if (check.count > bufferBytes / elementBytes)
    return error(formatString(
        "check: %llu %s elements do not fit buffer %u (%llu bytes)",
        static_cast<unsigned long long>(check.count), element.c_str(),
        check.buffer, static_cast<unsigned long long>(bufferBytes)));
  if (check.scaling >= 0) {
    const PlanScaling &scaling = plan.scalings[check.scaling];
    if (check.count > scaling.rows * scaling.columns)
      return error(formatString(
          "check: %llu codes, more than the %llu x %llu of buffer %u's "
          "'scaled' line",
          static_cast<unsigned long long>(check.count),
          static_cast<unsigned long long>(scaling.rows),
          static_cast<unsigned long long>(scaling.columns), check.buffer));
  }
  check.tier = tokens[4].text;
  if (check.tier != "exact" && check.tier != "quality")
    return error(formatString("check: unknown tier '%s' (expected exact or "
                              "quality)",
                              check.tier.c_str()));
  const std::string &kind = tokens[5].text;
  if (kind == "bounds")
    check.kind = CheckKind::Bounds;
  else if (kind == "sqnr")
    check.kind = CheckKind::Sqnr;
  else if (kind == "calc_diff")
    check.kind = CheckKind::CalcDiff;
  else
    return error(formatString("check: unknown kind '%s' (expected bounds, "
                              "sqnr or calc_diff)",
                              kind.c_str()));
  if (!parseFiniteDouble(tokens[6].text, check.threshold))
    return error(formatString("check: threshold '%s' is not a finite number",
                              tokens[6].text.c_str()));
  if (Status status = parseFileName(tokens[7], check.file, check.path);
      !status.isOk())
    return status;
  uint64_t size = 0;
  if (Status status = getFileSize(check.path, check.file, size); !status.isOk())
    return error(status.getMessage());
  uint64_t perElement = check.kind == CheckKind::Bounds ? 16 : 8;
  if (size != perElement * check.count)
    return error(formatString(
        "check: '%s' holds %llu bytes, expected %llu (%s for each of %llu "
        "elements)",
        check.file.c_str(), static_cast<unsigned long long>(size),
        static_cast<unsigned long long>(perElement * check.count),
        check.kind == CheckKind::Bounds ? "lo and hi in f64" : "one f64",
        static_cast<unsigned long long>(check.count)));
  check.label = trimRight(text.substr(tokens[8].offset));
  plan.checks.push_back(std::move(check));
  return Status::ok();
}

} // namespace detail
} // namespace qmmcuda
