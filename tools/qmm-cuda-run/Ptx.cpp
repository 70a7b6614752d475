//===- Ptx.cpp - the parameters of a PTX entry ----------------------------===//
//
// Reads declarations as LLVM's NVPTX backend and hand-written PTX spell
// them, e.g. `.param .u64 .ptr .global .align 16 name` or
// `.param .align 8 .b8 name[16]`.
//
//===----------------------------------------------------------------------===//

#include "Ptx.h"
#include "Support.h"

#include <cctype>

namespace qmmcuda {

namespace {

// The most parameter bytes a kernel may take (32 KiB from CUDA 12.1 on).
constexpr uint64_t kMaxParamBytes = 32768;

std::vector<std::string> splitWhitespace(const std::string &text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    if (i > start)
      words.push_back(text.substr(start, i - start));
  }
  return words;
}

bool isPtxIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%';
}

unsigned getPtxTypeBytes(const std::string &type) {
  static const struct {
    const char *name;
    unsigned bytes;
  } types[] = {{".b8", 1},  {".u8", 1},  {".s8", 1},  {".b16", 2},
               {".u16", 2}, {".s16", 2}, {".f16", 2}, {".bf16", 2},
               {".b32", 4}, {".u32", 4}, {".s32", 4}, {".f32", 4},
               {".b64", 8}, {".u64", 8}, {".s64", 8}, {".f64", 8}};
  for (const auto &entry : types)
    if (type == entry.name)
      return entry.bytes;
  return 0;
}

/// The size of one `.param [.align N] [.ptr ...] .<type> name[[N]]`, or 0
/// when the declaration is not of a form this scanner knows.
unsigned getPtxParamBytes(const std::string &declaration) {
  std::vector<std::string> tokens = splitWhitespace(declaration);
  if (tokens.empty() || tokens[0] != ".param")
    return 0;
  unsigned elementBytes = 0;
  uint64_t count = 1;
  bool named = false;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string &text = tokens[i];
    if (text == ".align") {
      ++i; // its operand
      continue;
    }
    if (!named && text[0] == '.') {
      if (unsigned bytes = getPtxTypeBytes(text))
        elementBytes = bytes;
      continue; // state spaces and .ptr attributes
    }
    // The name, possibly with an array extent attached or following.
    size_t bracket = text.find('[');
    if (named && bracket != 0)
      return 0;
    named = true;
    if (bracket != std::string::npos) {
      size_t close = text.find(']', bracket);
      if (close == std::string::npos ||
          !parseUnsigned(text.substr(bracket + 1, close - bracket - 1),
                         kMaxParamBytes, count))
        return 0;
    }
  }
  if (!named || elementBytes == 0)
    return 0;
  return static_cast<unsigned>(elementBytes * count);
}

} // namespace

EntryLookup findPtxEntry(const std::string &ptx, const std::string &name,
                         std::vector<unsigned> &paramSizes) {
  static const char keyword[] = ".entry";
  const size_t keywordLength = sizeof(keyword) - 1;
  for (size_t at = ptx.find(keyword); at != std::string::npos;
       at = ptx.find(keyword, at + 1)) {
    if (at > 0 && !std::isspace(static_cast<unsigned char>(ptx[at - 1])))
      continue;
    size_t i = at + keywordLength;
    if (i >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[i])))
      continue;
    while (i < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[i])))
      ++i;
    size_t start = i;
    while (i < ptx.size() && isPtxIdentifierChar(ptx[i]))
      ++i;
    if (ptx.compare(start, i - start, name) != 0 || i - start != name.size())
      continue;
    while (i < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[i])))
      ++i;
    paramSizes.clear();
    if (i >= ptx.size() || ptx[i] != '(')
      return EntryLookup::Found; // no parameter list
    size_t close = ptx.find(')', i);
    if (close == std::string::npos)
      return EntryLookup::Unparsed;
    std::string list = ptx.substr(i + 1, close - i - 1);
    if (splitWhitespace(list).empty())
      return EntryLookup::Found;
    size_t begin = 0;
    while (true) {
      size_t comma = list.find(',', begin);
      std::string declaration = list.substr(
          begin, comma == std::string::npos ? std::string::npos : comma - begin);
      unsigned bytes = getPtxParamBytes(declaration);
      if (bytes == 0)
        return EntryLookup::Unparsed;
      paramSizes.push_back(bytes);
      if (comma == std::string::npos)
        break;
      begin = comma + 1;
    }
    return EntryLookup::Found;
  }
  return EntryLookup::Missing;
}
} // namespace qmmcuda
