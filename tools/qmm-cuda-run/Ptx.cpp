//===- Ptx.cpp - what a PTX entry declares and how it uses its params -----===//
//
// Reads declarations as LLVM's NVPTX backend and hand-written PTX spell
// them, e.g. `.param .u64 .ptr .global .align 16 name`,
// `.param .align 8 .b8 name[16]`, `.maxntid 384, 1, 1` after the parameter
// list, `.extern .shared .align 1024 .b8 name[]` at module scope.
//
// The uses of a parameter are found without a full parser: the registers
// that `ld.param` loads it into, followed through `mov` and `cvta` copies,
// and the statements that read those registers. A register inside the
// tensor-map operand of a TMA instruction makes the parameter a tensor
// map; any other read makes it something else (an address, a value). The
// analysis ignores control flow: a register that a parameter is copied
// into counts as that parameter wherever it is read.
//
//===----------------------------------------------------------------------===//

#include "Ptx.h"
#include "Support.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace qmmcuda {

namespace {

// The most parameter bytes a kernel may take (32 KiB from CUDA 12.1 on).
constexpr uint64_t kMaxParamBytes = 32768;
// Bounds for directive values and array extents, far above any real one.
constexpr uint64_t kMaxDirectiveValue = uint64_t(1) << 20;
constexpr uint64_t kMaxArrayExtent = uint64_t(1) << 32;

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

std::vector<std::string> splitWhitespace(const std::string &text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i]))
      ++i;
    size_t start = i;
    while (i < text.size() && !isSpace(text[i]))
      ++i;
    if (i > start)
      words.push_back(text.substr(start, i - start));
  }
  return words;
}

std::string trim(const std::string &text) {
  size_t begin = 0, end = text.size();
  while (begin < end && isSpace(text[begin]))
    ++begin;
  while (end > begin && isSpace(text[end - 1]))
    --end;
  return text.substr(begin, end - begin);
}

bool isPtxIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%';
}

/// \p text holds \p word with no identifier character on either side.
bool containsWord(const std::string &text, const std::string &word) {
  for (size_t at = text.find(word); at != std::string::npos;
       at = text.find(word, at + 1)) {
    size_t end = at + word.size();
    if ((at == 0 || !isPtxIdentifierChar(text[at - 1])) &&
        (end >= text.size() || !isPtxIdentifierChar(text[end])))
      return true;
  }
  return false;
}

/// \p ptx with its comments blanked out (strings and line breaks kept), so
/// that nothing commented out is read.
std::string stripComments(const std::string &ptx) {
  std::string text = ptx;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '"') {
      ++i;
      while (i < text.size() && text[i] != '"' && text[i] != '\n')
        ++i;
      if (i < text.size() && text[i] == '"')
        ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n')
        text[i++] = ' ';
    } else if (text.compare(i, 2, "/*") == 0) {
      size_t end = text.find("*/", i + 2);
      end = end == std::string::npos ? text.size() : end + 2;
      for (; i < end; ++i)
        if (text[i] != '\n')
          text[i] = ' ';
    } else {
      ++i;
    }
  }
  return text;
}

/// The '}' that closes the '{' at \p open, or npos.
size_t findClosingBrace(const std::string &text, size_t open) {
  unsigned depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{') {
      ++depth;
    } else if (text[i] == '}' && --depth == 0) {
      return i;
    }
  }
  return std::string::npos;
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

/// One `.param [.align N] [.ptr ...] .<type> name[[N]]`; false when the
/// declaration is not of a form this scanner knows.
bool parsePtxParam(const std::string &declaration, PtxParam &param) {
  std::vector<std::string> tokens = splitWhitespace(declaration);
  if (tokens.empty() || tokens[0] != ".param")
    return false;
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
      if (text == ".ptr")
        param.pointer = true;
      continue; // state spaces and the other .ptr attributes
    }
    // The name, possibly with an array extent attached or following.
    size_t bracket = text.find('[');
    if (named && bracket != 0)
      return false;
    if (!named)
      param.name = text.substr(0, bracket);
    named = true;
    if (bracket != std::string::npos) {
      size_t close = text.find(']', bracket);
      if (close == std::string::npos ||
          !parseUnsigned(text.substr(bracket + 1, close - bracket - 1),
                         kMaxParamBytes, count))
        return false;
    }
  }
  if (!named || param.name.empty() || elementBytes == 0 ||
      elementBytes * count == 0 || elementBytes * count > kMaxParamBytes)
    return false;
  param.bytes = static_cast<unsigned>(elementBytes * count);
  return true;
}

bool parseParamList(const std::string &list, std::vector<PtxParam> &params) {
  params.clear();
  if (splitWhitespace(list).empty())
    return true;
  size_t begin = 0;
  while (true) {
    size_t comma = list.find(',', begin);
    PtxParam param;
    if (!parsePtxParam(list.substr(begin, comma == std::string::npos
                                              ? std::string::npos
                                              : comma - begin),
                       param))
      return false;
    params.push_back(param);
    if (comma == std::string::npos)
      return true;
    begin = comma + 1;
  }
}

/// The directives between the parameter list and the body. A directive
/// whose values do not read as decimal extents is left undeclared (the
/// driver still sees it).
void parseDirectives(std::string header, PtxEntry &entry) {
  for (char &c : header)
    if (c == ',')
      c = ' ';
  std::vector<std::string> words = splitWhitespace(header);
  auto readShape = [&](size_t &i, PtxShape &shape) {
    PtxShape read;
    read.declared = true;
    unsigned count = 0;
    uint64_t value = 0;
    while (count < 3 && i + 1 < words.size() &&
           parseUnsigned(words[i + 1], kMaxDirectiveValue, value) && value) {
      read.dims[count++] = static_cast<uint32_t>(value);
      ++i;
    }
    if (count)
      shape = read;
  };
  for (size_t i = 0; i < words.size(); ++i) {
    uint64_t value = 0;
    if (words[i] == ".maxntid")
      readShape(i, entry.maxntid);
    else if (words[i] == ".reqntid")
      readShape(i, entry.reqntid);
    else if (words[i] == ".reqnctapercluster")
      readShape(i, entry.reqCluster);
    else if (words[i] == ".explicitcluster")
      entry.explicitCluster = true;
    else if (words[i] == ".maxclusterrank" && i + 1 < words.size() &&
             parseUnsigned(words[i + 1], kMaxDirectiveValue, value) && value)
      entry.maxClusterRank = static_cast<uint32_t>(value);
  }
}

struct Statement {
  std::string opcode, operands;
};

/// Is there a label `name:` at \p i (not an opcode's `::`)? Returns the
/// position after the colon, or npos.
size_t skipLabel(const std::string &text, size_t i) {
  size_t end = i;
  while (end < text.size() && isPtxIdentifierChar(text[end]))
    ++end;
  if (end == i || end >= text.size() || text[end] != ':' ||
      (end + 1 < text.size() && text[end + 1] == ':'))
    return std::string::npos;
  return end + 1;
}

/// The body's statements, each without the block braces, labels and guard
/// predicate in front of it.
std::vector<Statement> splitStatements(const std::string &body) {
  std::vector<Statement> statements;
  size_t begin = 0;
  while (begin < body.size()) {
    size_t end = body.find(';', begin);
    if (end == std::string::npos)
      end = body.size();
    size_t i = begin;
    while (i < end) {
      if (isSpace(body[i]) || body[i] == '{' || body[i] == '}') {
        ++i;
      } else if (size_t next = skipLabel(body, i);
                 next != std::string::npos && next <= end) {
        i = next;
      } else {
        break;
      }
    }
    if (i < end && body[i] == '@')
      while (i < end && !isSpace(body[i]))
        ++i;
    std::string text = trim(body.substr(i, end - i));
    size_t space = 0;
    while (space < text.size() && !isSpace(text[space]))
      ++space;
    if (space)
      statements.push_back(
          {text.substr(0, space), trim(text.substr(space))});
    begin = end + 1;
  }
  return statements;
}

enum class Place { Plain, Address, TensorMap };

/// A name (register, variable, parameter) in an operand list and where it
/// stands: outside any [...], in an address [...], or in the tensor-map
/// part of a [map, {coordinates}] operand.
struct OperandName {
  std::string name;
  Place place;
};

std::vector<OperandName> getOperandNames(const std::string &operands) {
  std::vector<OperandName> names;
  Place place = Place::Plain;
  size_t i = 0;
  while (i < operands.size()) {
    char c = operands[i];
    if (c == '[') {
      size_t close = operands.find(']', i);
      size_t brace = operands.find('{', i);
      place = brace < close ? Place::TensorMap : Place::Address;
    } else if (c == ']') {
      place = Place::Plain;
    } else if (c == '{' && place == Place::TensorMap) {
      place = Place::Address; // the coordinates
    }
    if (!isPtxIdentifierChar(c)) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < operands.size() && isPtxIdentifierChar(operands[i]))
      ++i;
    // Numbers (0x1f included) and suffixes (%tid.x's x) are not names.
    if (!std::isdigit(static_cast<unsigned char>(operands[start])) &&
        (start == 0 || operands[start - 1] != '.'))
      names.push_back({operands.substr(start, i - start), place});
  }
  return names;
}

bool startsWith(const std::string &text, const char *prefix) {
  return text.compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

bool isIdentifier(const std::string &text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])))
    return false;
  for (char c : text)
    if (!isPtxIdentifierChar(c))
      return false;
  return true;
}

/// Where an instruction takes a tensor map: the bulk tensor copies in their
/// [map, {coordinates}] operand, prefetch.tensormap, fence.proxy.tensormap
/// and tensormap.* in their address operands.
enum class TensorMapOperand { None, BeforeCoordinates, Addresses };

TensorMapOperand getTensorMapOperand(const std::string &opcode) {
  if (startsWith(opcode, "cp.async.bulk.tensor") ||
      startsWith(opcode, "cp.reduce.async.bulk.tensor") ||
      startsWith(opcode, "cp.async.bulk.prefetch.tensor"))
    return TensorMapOperand::BeforeCoordinates;
  if (opcode.find("tensormap") != std::string::npos)
    return TensorMapOperand::Addresses;
  return TensorMapOperand::None;
}

/// A statement that copies one name into a register: `ld.param` of a whole
/// parameter, `mov` and `cvta`.
bool getCopy(const Statement &statement, std::string &to, std::string &from) {
  bool load = startsWith(statement.opcode, "ld.param.");
  if (!load && !startsWith(statement.opcode, "mov.") &&
      !startsWith(statement.opcode, "cvta."))
    return false;
  size_t comma = statement.operands.find(',');
  if (comma == std::string::npos)
    return false;
  to = trim(statement.operands.substr(0, comma));
  from = trim(statement.operands.substr(comma + 1));
  if (load) {
    if (from.size() < 2 || from.front() != '[' || from.back() != ']')
      return false;
    from = trim(from.substr(1, from.size() - 2));
    if (from.size() > 2 && from.compare(from.size() - 2, 2, "+0") == 0)
      from = trim(from.substr(0, from.size() - 2));
  }
  return isIdentifier(to) && isIdentifier(from);
}

/// Marks how the entry's statements use each of its parameters.
void findParamUses(const std::vector<Statement> &statements,
                   std::vector<PtxParam> &params) {
  // The names that hold a parameter's value (its own name, then the
  // registers it is copied into; `mov %r, param` copies its address, which
  // is how a parameter passed by value is read through a pointer).
  std::map<std::string, size_t> holders;
  for (size_t i = 0; i < params.size(); ++i)
    holders.emplace(params[i].name, i);
  // Copies to a fixed point: a copy may stand before its source's load (a
  // loop's back edge).
  std::vector<bool> isCopy(statements.size());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < statements.size(); ++i) {
      std::string to, from;
      if (!getCopy(statements[i], to, from))
        continue;
      auto source = holders.find(from);
      if (source == holders.end())
        continue;
      isCopy[i] = true;
      changed |= holders.emplace(to, source->second).second;
    }
  }
  for (size_t i = 0; i < statements.size(); ++i) {
    // What a called function does with an argument is not read here: such
    // a use tells neither way.
    if (isCopy[i] || startsWith(statements[i].opcode, "call") ||
        startsWith(statements[i].opcode, "st.param"))
      continue;
    TensorMapOperand operand = getTensorMapOperand(statements[i].opcode);
    for (const OperandName &name : getOperandNames(statements[i].operands)) {
      auto holder = holders.find(name.name);
      if (holder == holders.end())
        continue;
      bool map = (operand == TensorMapOperand::BeforeCoordinates &&
                  name.place == Place::TensorMap) ||
                 (operand == TensorMapOperand::Addresses &&
                  name.place != Place::Plain);
      PtxParam &param = params[holder->second];
      (map ? param.usedAsTensorMap : param.usedOtherwise) = true;
    }
  }
}

struct SharedVariable {
  std::string name;
  uint64_t bytes = 0;
  bool dynamic = false; // an unsized `.extern` array
};

uint64_t multiplySaturating(uint64_t a, uint64_t b) {
  constexpr uint64_t kMax = uint64_t(1) << 62;
  return b && a > kMax / b ? kMax : a * b;
}

/// Reads `[.extern|.visible|.weak] .shared [.align N] .<type> name[N]...`
/// (several names separated by commas) from its `.shared` on: the text
/// before it may hold module directives that end without a ';' (.version,
/// .target). False if \p statement is no such declaration.
bool parseSharedDeclaration(const std::string &statement,
                            std::vector<SharedVariable> &variables) {
  std::vector<std::string> tokens = splitWhitespace(statement);
  size_t i = 0;
  while (i < tokens.size() && tokens[i] != ".shared")
    ++i;
  if (i == tokens.size())
    return false;
  unsigned elementBytes = 0;
  for (++i; i < tokens.size() && !elementBytes; ++i) {
    if (tokens[i] == ".align")
      ++i;
    else if (!(elementBytes = getPtxTypeBytes(tokens[i])))
      return false;
  }
  if (!elementBytes)
    return false;
  std::string names;
  for (; i < tokens.size(); ++i)
    names += tokens[i];
  size_t begin = 0;
  while (true) {
    size_t comma = names.find(',', begin);
    std::string spec = names.substr(
        begin, comma == std::string::npos ? std::string::npos : comma - begin);
    SharedVariable variable;
    size_t bracket = spec.find('[');
    variable.name = spec.substr(0, bracket);
    variable.bytes = elementBytes;
    while (bracket != std::string::npos) {
      size_t close = spec.find(']', bracket);
      uint64_t extent = 0;
      if (close == std::string::npos)
        return false;
      if (close == bracket + 1)
        variable.dynamic = true;
      else if (!parseUnsigned(spec.substr(bracket + 1, close - bracket - 1),
                              kMaxArrayExtent, extent))
        return false;
      else
        variable.bytes = multiplySaturating(variable.bytes, extent);
      bracket = spec.find('[', close);
    }
    if (!isIdentifier(variable.name))
      return false;
    variables.push_back(variable);
    if (comma == std::string::npos)
      return true;
    begin = comma + 1;
  }
}

/// The module's text outside the function bodies, each body replaced by a
/// ';' (so that the statements around it stay apart).
std::string getModuleScope(const std::string &text) {
  std::string scope;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      scope += text[i];
      continue;
    }
    size_t close = findClosingBrace(text, i);
    if (close == std::string::npos)
      break;
    scope += ';';
    i = close;
  }
  return scope;
}

/// The shared memory of the entry: module-scope variables its body names,
/// and its own.
void findSharedMemory(const std::string &text, const std::string &body,
                      const std::vector<Statement> &statements,
                      PtxEntry &entry) {
  std::vector<SharedVariable> variables;
  std::string scope = getModuleScope(text);
  size_t begin = 0;
  while (begin < scope.size()) {
    size_t end = scope.find(';', begin);
    if (end == std::string::npos)
      end = scope.size();
    std::vector<SharedVariable> declared;
    if (parseSharedDeclaration(scope.substr(begin, end - begin), declared))
      for (const SharedVariable &variable : declared)
        if (containsWord(body, variable.name))
          variables.push_back(variable);
    begin = end + 1;
  }
  for (const Statement &statement : statements)
    if (statement.opcode[0] == '.')
      parseSharedDeclaration(statement.opcode + " " + statement.operands,
                             variables);
  for (const SharedVariable &variable : variables) {
    if (!variable.dynamic)
      entry.staticSharedBytes =
          std::min(entry.staticSharedBytes + variable.bytes,
                   uint64_t(1) << 62);
    else if (entry.dynamicShared.empty())
      entry.dynamicShared = variable.name;
  }
}

/// The position of `.entry <name>` in \p text, after the name; npos if none.
size_t findEntryName(const std::string &text, const std::string &name) {
  static const char keyword[] = ".entry";
  const size_t keywordLength = sizeof(keyword) - 1;
  for (size_t at = text.find(keyword); at != std::string::npos;
       at = text.find(keyword, at + 1)) {
    if (at > 0 && !isSpace(text[at - 1]))
      continue;
    size_t i = at + keywordLength;
    if (i >= text.size() || !isSpace(text[i]))
      continue;
    while (i < text.size() && isSpace(text[i]))
      ++i;
    size_t start = i;
    while (i < text.size() && isPtxIdentifierChar(text[i]))
      ++i;
    if (i - start == name.size() && text.compare(start, i - start, name) == 0)
      return i;
  }
  return std::string::npos;
}

} // namespace

EntryLookup findPtxEntry(const std::string &ptx, const std::string &name,
                         PtxEntry &entry) {
  entry = PtxEntry();
  std::string text = stripComments(ptx);
  size_t i = findEntryName(text, name);
  if (i == std::string::npos)
    return EntryLookup::Missing;
  while (i < text.size() && isSpace(text[i]))
    ++i;
  bool known = true;
  if (i < text.size() && text[i] == '(') {
    size_t close = text.find(')', i);
    if (close == std::string::npos)
      return EntryLookup::Unparsed;
    known = parseParamList(text.substr(i + 1, close - i - 1), entry.params);
    i = close + 1;
  }
  size_t open = std::min(text.find_first_of("{;", i), text.size());
  parseDirectives(text.substr(i, open - i), entry);
  std::string body;
  if (open < text.size() && text[open] == '{') {
    size_t close = std::min(findClosingBrace(text, open), text.size());
    body = text.substr(open + 1, close - open - 1);
  }
  std::vector<Statement> statements = splitStatements(body);
  if (known)
    findParamUses(statements, entry.params);
  else
    entry.params.clear();
  entry.paramsKnown = known;
  findSharedMemory(text, body, statements, entry);
  return known ? EntryLookup::Found : EntryLookup::Unparsed;
}

std::string describePtxEntry(const PtxEntry &entry) {
  if (!entry.paramsKnown)
    return "unchecked";
  std::string text = formatString("%zu parameters", entry.params.size());
  for (size_t i = 0; i < entry.params.size(); ++i)
    text += formatString("%s%u", i ? " " : ": ", entry.params[i].bytes);
  if (!entry.params.empty())
    text += " bytes";
  std::string maps;
  for (size_t i = 0; i < entry.params.size(); ++i)
    if (entry.params[i].isTensorMap())
      maps += formatString(" %zu", i);
  if (!maps.empty())
    text += "; tensor maps at" + maps;
  auto shape = [&](const char *name, const PtxShape &shape) {
    if (shape.declared)
      text += formatString("; %s %ux%ux%u", name, shape.dims[0],
                           shape.dims[1], shape.dims[2]);
  };
  shape(".maxntid", entry.maxntid);
  shape(".reqntid", entry.reqntid);
  shape(".reqnctapercluster", entry.reqCluster);
  if (entry.explicitCluster)
    text += "; .explicitcluster";
  if (entry.maxClusterRank)
    text += formatString("; .maxclusterrank %u", entry.maxClusterRank);
  if (entry.staticSharedBytes)
    text += formatString("; %llu bytes of static shared memory",
                         static_cast<unsigned long long>(
                             entry.staticSharedBytes));
  if (!entry.dynamicShared.empty())
    text += "; dynamic shared memory (" + entry.dynamicShared + ")";
  return text;
}

} // namespace qmmcuda
