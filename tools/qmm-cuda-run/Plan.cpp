//===- Plan.cpp - parsing and checking a saved launch plan ----------------===//
//
// DIR/plan.txt, version 1: one statement a line, tokens separated by spaces,
// '#' at the start of a line for a comment, blank lines ignored.
//
//   qmm-launch-plan 1                  (the first line, exactly)
//   chip sm_90a                        (required: what the PTX targets)
//   program <name>                     (informative)
//   flops <number>                     (of one run of the plan, for TFLOP/s)
//   module <module-index> <file>       (PTX text, relative to DIR)
//   kernel <kernel-index> <module-index> <entry-name>
//   buffer <buffer-index> <bytes> <fill> [<file>]
//   tensormap <tensormap-index> <buffer-index> <byte-offset> <element>
//          <rank> <global-dims...> <global-strides...> <box-dims...>
//          <swizzle>
//   launch <kernel-index> <gx> <gy> <gz> <bx> <by> <bz> <dynamic-shared>
//          <nargs> <arg>...            (b<buffer>, t<tensormap>,
//                                       u64:<value>, u32:<value>)
//          [cluster <cx> <cy> <cz>]
//   scaled <buffer-index> <scales-buffer-index> <scale-element> <rows>
//          <columns> <block-columns>
//   check <buffer-index> <element> <count> <tier> <kind> <threshold> <file>
//         <label...>
//
// A check's <element> is f32, bf16 or f16, f8E8M0FNU (E8M0 scales), or
// f8E4M3FN / f8E5M2 for a buffer of FP8 codes, which needs an earlier
// 'scaled' line: the buffer holds [rows, columns] codes, row-major, and
// its checks judge code x scale, each row's block of <block-columns>
// columns taking its scale (<scale-element> f32 or f8E8M0FNU) from
// [rows, ceil(columns / block-columns)] in the scales buffer. A scales
// buffer is checked as its <scale-element> only, and f8E8M0FNU only in a
// scales buffer (PlanOutputs.cpp).
//
// A tensormap is a TMA descriptor (CUtensorMap) over the buffer's bytes
// from <byte-offset> on, which the runner encodes with
// cuTensorMapEncodeTiled and copies to a 128-byte device allocation of its
// own; a t<tensormap> argument passes the map's 128 bytes to a 128-byte
// parameter (a __grid_constant__ CUtensorMap), else that allocation's
// address (8 bytes).
// <element> is u8 (FP8 data), u16, u32, f16, bf16 or f32; <rank> 1 to 5;
// then <rank> global dims, <rank> - 1 byte strides of dims 1 .. rank-1 and
// <rank> box dims, all innermost first (cuTensorMapEncodeTiled's order);
// <swizzle> is none, 32, 64 or 128 (bytes). Element strides are 1, without
// interleave, L2 promotion 256B, and out-of-bounds elements read as zero.
// TensorMap.cpp checks the encoder's rules and that the tensor lies within
// the buffer.
//
// A launch's 'cluster' suffix, after its arguments, gives its thread-block
// cluster shape (e.g. 2 1 1 for TMA multicast to a pair of blocks): each
// extent divides the grid's, and the cluster holds at most 8 blocks, the
// portable size. Without it (or with 1 1 1) the launch has no clusters.
//
// Each launch is checked against its kernel's PTX entry (LaunchChecks.cpp):
// the arguments against the parameters (count, sizes, tensor maps), the
// block and cluster shapes against the entry's directives, and its shared
// memory.
//
// Indices count 0, 1, 2, ... in order; everything is defined before use.
// Every problem is diagnosed with the plan's path and line: the plan comes
// from another machine, and a bad one must never reach the GPU.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"
#include "LaunchChecks.h"
#include "PlanParser.h"
#include "Ptx.h"
#include "TensorMap.h"

#include <cctype>
#include <cstring>

namespace qmmcuda {

namespace {

using detail::Token;

constexpr uint64_t kMaxPlanBytes = uint64_t(64) << 20;
constexpr uint64_t kMaxPtxBytes = uint64_t(1) << 30;

std::vector<Token> tokenize(const std::string &line) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start)
      tokens.push_back({line.substr(start, i - start), start});
  }
  return tokens;
}

std::string joinPath(const std::string &dir, const std::string &file) {
  if (dir.empty())
    return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

} // namespace

namespace detail {

Status PlanParser::parseField(const Token &token, const char *what,
                              uint64_t min, uint64_t max,
                              uint64_t &value) const {
  if (!parseUnsigned(token.text, max, value) || value < min)
    return error(formatString(
        "%s: expected an integer from %llu to %llu, got '%s'", what,
        static_cast<unsigned long long>(min),
        static_cast<unsigned long long>(max), token.text.c_str()));
  return Status::ok();
}

Status PlanParser::parseNextIndex(const Token &token, const char *what,
                                  size_t next, uint64_t &value) const {
  if (!parseUnsigned(token.text, kMaxIndex, value) || value != next)
    return error(formatString("expected %s index %zu, got '%s' (indices are "
                              "0, 1, 2, ... in order)",
                              what, next, token.text.c_str()));
  return Status::ok();
}

Status PlanParser::parseFileName(const Token &token, std::string &file,
                                 std::string &path) const {
  if (token.text[0] == '/')
    return error(formatString(
        "'%s': file names are relative to the plan's directory",
        token.text.c_str()));
  file = token.text;
  path = joinPath(plan.dir, file);
  return Status::ok();
}

Status PlanParser::expectTokens(const std::vector<Token> &tokens, size_t count,
                                const char *syntax) const {
  if (tokens.size() != count)
    return error(formatString("expected '%s', got %zu tokens", syntax,
                              tokens.size()));
  return Status::ok();
}

Status PlanParser::parseHeader(const std::string &text) {
  std::vector<Token> tokens = tokenize(text);
  if (tokens.size() == 2 && tokens[0].text == "qmm-launch-plan" &&
      tokens[1].text != "1")
    return error(formatString(
        "unsupported plan version '%s' (this runner reads version 1)",
        tokens[1].text.c_str()));
  if (text != "qmm-launch-plan 1")
    return error(formatString(
        "expected 'qmm-launch-plan 1' as the first line, got '%s'",
        text.substr(0, 80).c_str()));
  return Status::ok();
}

Status PlanParser::parseChip(const std::vector<Token> &tokens) {
  if (chipLine)
    return error(formatString("a second 'chip' line (the first is line %u)",
                              chipLine));
  if (Status status = expectTokens(tokens, 2, "chip sm_<major><minor>[a]");
      !status.isOk())
    return status;
  const std::string &chip = tokens[1].text;
  std::string digits;
  bool valid = chip.compare(0, 3, "sm_") == 0;
  size_t i = 3;
  while (valid && i < chip.size() && std::isdigit((unsigned char)chip[i]))
    digits += chip[i++];
  bool archSpecific = valid && i + 1 == chip.size() && chip[i] == 'a';
  valid = valid && (i == chip.size() || archSpecific) && digits.size() >= 2 &&
          digits.size() <= 3 && digits[0] != '0';
  if (!valid)
    return error(formatString(
        "chip: expected sm_<major><minor>[a] (e.g. sm_90a), got '%s'",
        chip.c_str()));
  plan.chip = chip;
  uint64_t major = 0;
  parseUnsigned(digits.substr(0, digits.size() - 1), 99, major);
  plan.ccMajor = static_cast<unsigned>(major);
  plan.ccMinor = static_cast<unsigned>(digits.back() - '0');
  plan.archSpecific = archSpecific;
  chipLine = line;
  return Status::ok();
}

Status PlanParser::parseModule(const std::vector<Token> &tokens) {
  if (Status status = expectTokens(tokens, 3, "module <index> <file>");
      !status.isOk())
    return status;
  uint64_t index = 0;
  PlanModule module;
  module.line = line;
  if (Status status =
          parseNextIndex(tokens[1], "module", plan.modules.size(), index);
      !status.isOk())
    return status;
  if (Status status = parseFileName(tokens[2], module.file, module.path);
      !status.isOk())
    return status;
  if (Status status =
          readTextFile(module.path, module.file, kMaxPtxBytes, module.ptx);
      !status.isOk())
    return error(status.getMessage());
  plan.modules.push_back(std::move(module));
  return Status::ok();
}

Status PlanParser::parseKernel(const std::vector<Token> &tokens) {
  if (Status status =
          expectTokens(tokens, 4, "kernel <index> <module-index> <entry-name>");
      !status.isOk())
    return status;
  uint64_t index = 0, module = 0;
  if (Status status =
          parseNextIndex(tokens[1], "kernel", plan.kernels.size(), index);
      !status.isOk())
    return status;
  if (!parseUnsigned(tokens[2].text, kMaxIndex, module) ||
      module >= plan.modules.size())
    return error(formatString("kernel %llu: module '%s' is not defined (%zu "
                              "defined so far)",
                              static_cast<unsigned long long>(index),
                              tokens[2].text.c_str(), plan.modules.size()));
  PlanKernel kernel;
  kernel.line = line;
  kernel.module = static_cast<unsigned>(module);
  kernel.entry = tokens[3].text;
  const PlanModule &planModule = plan.modules[kernel.module];
  // An unusual parameter list (EntryLookup::Unparsed) leaves the
  // arguments unchecked; the driver still checks the name.
  if (findPtxEntry(planModule.ptx, kernel.entry, kernel.ptx) ==
      EntryLookup::Missing)
    return error(formatString("kernel %llu: module %llu ('%s') has no "
                              "'.entry %s'",
                              static_cast<unsigned long long>(index),
                              static_cast<unsigned long long>(module),
                              planModule.file.c_str(), kernel.entry.c_str()));
  if (Status status = checkKernelDeclarations(plan, kernel, index);
      !status.isOk())
    return error(status.getMessage());
  plan.kernels.push_back(std::move(kernel));
  return Status::ok();
}

Status PlanParser::parseBuffer(const std::vector<Token> &tokens) {
  if (tokens.size() != 4 && tokens.size() != 5)
    return error(formatString(
        "expected 'buffer <index> <bytes> <fill> [<file>]', got %zu tokens",
        tokens.size()));
  uint64_t index = 0;
  PlanBuffer buffer;
  buffer.line = line;
  if (Status status =
          parseNextIndex(tokens[1], "buffer", plan.buffers.size(), index);
      !status.isOk())
    return status;
  if (Status status =
          parseField(tokens[2], "buffer bytes", 1, kMaxBufferBytes, buffer.bytes);
      !status.isOk())
    return status;
  static const Fill fills[] = {Fill::File,    Fill::Zero,    Fill::Poison,
                               Fill::Fp8E4M3, Fill::Fp8E5M2, Fill::Scale,
                               Fill::Bf16};
  bool known = false;
  for (Fill fill : fills)
    if (tokens[3].text == getFillName(fill)) {
      buffer.fill = fill;
      known = true;
    }
  if (!known)
    return error(formatString("unknown fill '%s' (expected file, zero, poison, "
                              "fp8e4m3, fp8e5m2, scale or bf16)",
                              tokens[3].text.c_str()));
  if (buffer.fill != Fill::File && tokens.size() == 5)
    return error(formatString("fill '%s' takes no file",
                              getFillName(buffer.fill)));
  if (buffer.fill == Fill::Scale && buffer.bytes % 4 != 0)
    return error(formatString("fill 'scale' needs a multiple of 4 bytes, got "
                              "%llu",
                              static_cast<unsigned long long>(buffer.bytes)));
  if (buffer.fill == Fill::Bf16 && buffer.bytes % 2 != 0)
    return error(formatString("fill 'bf16' needs a multiple of 2 bytes, got "
                              "%llu",
                              static_cast<unsigned long long>(buffer.bytes)));
  if (buffer.fill == Fill::File) {
    if (tokens.size() != 5)
      return error("fill 'file' needs a file name");
    if (Status status = parseFileName(tokens[4], buffer.file, buffer.path);
        !status.isOk())
      return status;
    uint64_t size = 0;
    if (Status status = getFileSize(buffer.path, buffer.file, size);
        !status.isOk())
      return error(status.getMessage());
    if (size != buffer.bytes)
      return error(formatString(
          "buffer %llu: '%s' holds %llu bytes, the buffer has %llu",
          static_cast<unsigned long long>(index), buffer.file.c_str(),
          static_cast<unsigned long long>(size),
          static_cast<unsigned long long>(buffer.bytes)));
  }
  plan.buffers.push_back(std::move(buffer));
  return Status::ok();
}

Status PlanParser::parseTensorMap(const std::vector<Token> &tokens) {
  // The full count depends on the rank (TensorMap.cpp checks it).
  if (tokens.size() < 6)
    return error(formatString(
        "expected 'tensormap <index> <buffer-index> <byte-offset> <element> "
        "<rank> <global-dims...> <global-strides...> <box-dims...> "
        "<swizzle>', got %zu tokens",
        tokens.size()));
  uint64_t index = 0, buffer = 0;
  if (Status status = parseNextIndex(tokens[1], "tensormap",
                                     plan.tensorMaps.size(), index);
      !status.isOk())
    return status;
  if (!parseUnsigned(tokens[2].text, kMaxIndex, buffer) ||
      buffer >= plan.buffers.size())
    return error(formatString("tensormap %llu: buffer '%s' is not defined "
                              "(%zu defined so far)",
                              static_cast<unsigned long long>(index),
                              tokens[2].text.c_str(), plan.buffers.size()));
  PlanTensorMap map;
  map.line = line;
  map.buffer = static_cast<unsigned>(buffer);
  std::vector<std::string> texts;
  for (const Token &token : tokens)
    texts.push_back(token.text);
  if (Status status =
          parseTensorMapFields(texts, static_cast<unsigned>(index),
                               plan.buffers[map.buffer].bytes, map);
      !status.isOk())
    return error(status.getMessage());
  plan.tensorMaps.push_back(map);
  return Status::ok();
}

Status PlanParser::parseLaunchArg(const Token &token, size_t position,
                                  LaunchArg &arg) {
  const std::string &text = token.text;
  uint64_t value = 0;
  if (text[0] == 'b') {
    if (!parseUnsigned(text.substr(1), kMaxIndex, value) ||
        value >= plan.buffers.size())
      return error(formatString("launch argument %zu: buffer '%s' is not "
                                "defined (%zu defined so far)",
                                position, text.substr(1).c_str(),
                                plan.buffers.size()));
    arg.kind = LaunchArg::Kind::Buffer;
  } else if (text[0] == 't') {
    if (!parseUnsigned(text.substr(1), kMaxIndex, value) ||
        value >= plan.tensorMaps.size())
      return error(formatString("launch argument %zu: tensor map '%s' is not "
                                "defined (%zu defined so far)",
                                position, text.substr(1).c_str(),
                                plan.tensorMaps.size()));
    arg.kind = LaunchArg::Kind::TensorMap;
  } else if (text.compare(0, 4, "u64:") == 0) {
    if (!parseUnsigned(text.substr(4), UINT64_MAX, value))
      return error(formatString("launch argument %zu: '%s' is not a 64-bit "
                                "unsigned value",
                                position, text.c_str()));
    arg.kind = LaunchArg::Kind::U64;
  } else if (text.compare(0, 4, "u32:") == 0) {
    if (!parseUnsigned(text.substr(4), UINT32_MAX, value))
      return error(formatString("launch argument %zu: '%s' is not a 32-bit "
                                "unsigned value",
                                position, text.c_str()));
    arg.kind = LaunchArg::Kind::U32;
  } else {
    return error(formatString("launch argument %zu: expected b<buffer>, "
                              "t<tensormap>, u64:<value> or u32:<value>, got "
                              "'%s'",
                              position, text.c_str()));
  }
  arg.value = value;
  return Status::ok();
}

Status PlanParser::parseLaunch(const std::vector<Token> &tokens) {
  if (tokens.size() < 10)
    return error(formatString("expected 'launch <kernel-index> <gx> <gy> <gz> "
                              "<bx> <by> <bz> <dynamic-shared-bytes> <nargs> "
                              "<arg>...', got %zu tokens",
                              tokens.size()));
  PlanLaunch launch;
  launch.line = line;
  uint64_t kernel = 0;
  if (!parseUnsigned(tokens[1].text, kMaxIndex, kernel) ||
      kernel >= plan.kernels.size())
    return error(formatString("launch: kernel '%s' is not defined (%zu "
                              "defined so far)",
                              tokens[1].text.c_str(), plan.kernels.size()));
  launch.kernel = static_cast<unsigned>(kernel);
  // CUDA's limits for sm_90: checked here for a clear message.
  static const char *const names[] = {"grid x", "grid y", "grid z",
                                      "block x", "block y", "block z"};
  static const uint64_t maxima[] = {0x7fffffff, 65535, 65535, 1024, 1024, 64};
  for (size_t i = 0; i < 6; ++i) {
    uint64_t value = 0;
    if (Status status = parseField(tokens[2 + i], names[i], 1, maxima[i], value);
        !status.isOk())
      return status;
    (i < 3 ? launch.grid[i] : launch.block[i - 3]) = static_cast<uint32_t>(value);
  }
  uint64_t threads = uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  if (threads > 1024)
    return error(formatString("launch: a block of %llu threads (over 1024)",
                              static_cast<unsigned long long>(threads)));
  uint64_t shared = 0, nargs = 0;
  if (Status status =
          parseField(tokens[8], "dynamic shared bytes", 0, UINT32_MAX, shared);
      !status.isOk())
    return status;
  launch.dynamicShared = static_cast<uint32_t>(shared);
  if (Status status = parseField(tokens[9], "nargs", 0, kMaxArgs, nargs);
      !status.isOk())
    return status;
  // The arguments run up to 'cluster' (no argument is spelled so) or the
  // end of the line.
  size_t clusterToken = 10;
  while (clusterToken < tokens.size() && tokens[clusterToken].text != "cluster")
    ++clusterToken;
  if (clusterToken - 10 != nargs)
    return error(formatString("launch: nargs is %llu but %zu arguments follow",
                              static_cast<unsigned long long>(nargs),
                              clusterToken - 10));
  for (size_t i = 0; i < nargs; ++i) {
    LaunchArg arg;
    if (Status status = parseLaunchArg(tokens[10 + i], i, arg); !status.isOk())
      return status;
    launch.args.push_back(arg);
  }
  if (clusterToken < tokens.size())
    if (Status status = parseCluster(tokens, clusterToken, launch);
        !status.isOk())
      return status;
  std::vector<std::string> argTexts;
  for (size_t i = 0; i < nargs; ++i)
    argTexts.push_back(tokens[10 + i].text);
  if (Status status = checkLaunch(plan, launch, argTexts); !status.isOk())
    return error(status.getMessage());
  PlanKernel &planKernel = plan.kernels[launch.kernel];
  if (launch.dynamicShared > planKernel.maxDynamicShared)
    planKernel.maxDynamicShared = launch.dynamicShared;
  plan.launches.push_back(std::move(launch));
  return Status::ok();
}

Status PlanParser::parseCluster(const std::vector<Token> &tokens, size_t first,
                                PlanLaunch &launch) const {
  for (size_t i = first + 1; i < tokens.size(); ++i)
    if (tokens[i].text == "cluster")
      return error("launch: a second 'cluster' (a launch has one cluster "
                   "shape)");
  // The suffix as written, for the messages about its shape.
  std::string written = "cluster";
  for (size_t i = first + 1; i < tokens.size() && i <= first + 3; ++i)
    written += " " + tokens[i].text;
  if (tokens.size() - first < 4)
    return error(formatString("launch: expected 'cluster <cx> <cy> <cz>' at "
                              "the end of the line, got '%s'",
                              written.c_str()));
  if (tokens.size() - first > 4)
    return error(formatString("launch: unexpected '%s' after '%s' (the "
                              "cluster shape ends the line)",
                              tokens[first + 4].text.c_str(), written.c_str()));
  static const char *const names[] = {"cluster x", "cluster y", "cluster z"};
  static const char *const gridNames[] = {"grid x", "grid y", "grid z"};
  for (size_t i = 0; i < 3; ++i) {
    uint64_t value = 0;
    // No extent of a portable cluster is larger than its whole size.
    if (Status status = parseField(tokens[first + 1 + i], names[i], 1,
                                   kMaxPortableClusterBlocks, value);
        !status.isOk())
      return status;
    launch.cluster[i] = static_cast<uint32_t>(value);
  }
  // The driver's own rules, checked here for a message that names the line.
  for (size_t i = 0; i < 3; ++i)
    if (launch.grid[i] % launch.cluster[i] != 0)
      return error(formatString("launch: %s %u is not a multiple of %s %u",
                                gridNames[i], launch.grid[i], names[i],
                                launch.cluster[i]));
  uint64_t blocks =
      uint64_t(launch.cluster[0]) * launch.cluster[1] * launch.cluster[2];
  if (blocks > kMaxPortableClusterBlocks)
    return error(formatString("launch: a cluster of %llu blocks (over %u, "
                              "the portable cluster size)",
                              static_cast<unsigned long long>(blocks),
                              kMaxPortableClusterBlocks));
  return Status::ok();
}

Status PlanParser::parse(const std::string &text) {
  size_t begin = 0;
  line = 0;
  while (begin < text.size() || line == 0) {
    size_t end = text.find('\n', begin);
    std::string content =
        text.substr(begin, end == std::string::npos ? std::string::npos
                                                    : end - begin);
    begin = end == std::string::npos ? text.size() : end + 1;
    ++line;
    if (!content.empty() && content.back() == '\r')
      content.pop_back(); // a plan edited on Windows
    if (content.find('\0') != std::string::npos)
      return error("the plan holds a NUL byte (not a text file?)");
    if (line == 1) {
      if (Status status = parseHeader(content); !status.isOk())
        return status;
      continue;
    }
    std::vector<Token> tokens = tokenize(content);
    if (tokens.empty() || tokens[0].text[0] == '#')
      continue;
    const std::string &keyword = tokens[0].text;
    Status status = Status::ok();
    if (keyword == "chip") {
      status = parseChip(tokens);
    } else if (keyword == "program") {
      if (programLine)
        return error(formatString(
            "a second 'program' line (the first is line %u)", programLine));
      if (tokens.size() < 2)
        return error("expected 'program <name>'");
      plan.program = trimRight(content.substr(tokens[1].offset));
      programLine = line;
    } else if (keyword == "flops") {
      if (flopsLine)
        return error(formatString(
            "a second 'flops' line (the first is line %u)", flopsLine));
      status = expectTokens(tokens, 2, "flops <number>");
      if (status.isOk() && (!parseFiniteDouble(tokens[1].text, plan.flops) ||
                            plan.flops < 0))
        return error(formatString("flops: expected a non-negative number, got "
                                  "'%s'",
                                  tokens[1].text.c_str()));
      plan.hasFlops = true;
      flopsLine = line;
    } else if (keyword == "module") {
      status = parseModule(tokens);
    } else if (keyword == "kernel") {
      status = parseKernel(tokens);
    } else if (keyword == "buffer") {
      status = parseBuffer(tokens);
    } else if (keyword == "tensormap") {
      status = parseTensorMap(tokens);
    } else if (keyword == "launch") {
      status = parseLaunch(tokens);
    } else if (keyword == "scaled") {
      status = parseScaled(tokens);
    } else if (keyword == "check") {
      status = parseCheck(tokens, content);
    } else {
      return error(formatString("unknown statement '%s' (expected chip, "
                                "program, flops, module, kernel, buffer, "
                                "tensormap, launch, scaled or check)",
                                keyword.substr(0, 40).c_str()));
    }
    if (!status.isOk())
      return status;
  }
  if (!chipLine)
    return Status::error(plan.planPath + ": no 'chip' line");
  if (plan.launches.empty())
    return Status::error(plan.planPath + ": no 'launch' line");
  return Status::ok();
}

} // namespace detail

uint64_t Plan::totalBufferBytes() const {
  uint64_t total = 0;
  for (const PlanBuffer &buffer : buffers)
    total += buffer.bytes;
  return total;
}

Status loadPlan(const std::string &dir, Plan &plan) {
  plan = Plan();
  plan.dir = dir;
  plan.planPath = joinPath(dir, "plan.txt");
  std::string text;
  if (Status status = readTextFile(plan.planPath, plan.planPath, kMaxPlanBytes,
                                   text);
      !status.isOk())
    return status;
  detail::PlanParser parser(plan);
  return parser.parse(text);
}

const char *getFillName(Fill fill) {
  switch (fill) {
  case Fill::File:
    return "file";
  case Fill::Zero:
    return "zero";
  case Fill::Poison:
    return "poison";
  case Fill::Fp8E4M3:
    return "fp8e4m3";
  case Fill::Fp8E5M2:
    return "fp8e5m2";
  case Fill::Scale:
    return "scale";
  case Fill::Bf16:
    return "bf16";
  }
  return "?";
}

const char *getElementName(ElementType element) {
  switch (element) {
  case ElementType::F32:
    return "f32";
  case ElementType::Bf16:
    return "bf16";
  case ElementType::F16:
    return "f16";
  case ElementType::F8E4M3FN:
    return "f8E4M3FN";
  case ElementType::F8E5M2:
    return "f8E5M2";
  case ElementType::F8E8M0FNU:
    return "f8E8M0FNU";
  }
  return "?";
}

unsigned getElementBytes(ElementType element) {
  switch (element) {
  case ElementType::F32:
    return 4;
  case ElementType::Bf16:
  case ElementType::F16:
    return 2;
  default:
    return 1;
  }
}

const char *getCheckKindName(CheckKind kind) {
  switch (kind) {
  case CheckKind::Bounds:
    return "bounds";
  case CheckKind::Sqnr:
    return "sqnr";
  case CheckKind::CalcDiff:
    return "calc_diff";
  }
  return "?";
}

std::string describeLaunch(const Plan &plan, size_t index) {
  const PlanLaunch &launch = plan.launches[index];
  return formatString("launch %zu (kernel '%s', %s:%u)", index,
                      plan.kernels[launch.kernel].entry.c_str(),
                      plan.planPath.c_str(), launch.line);
}

} // namespace qmmcuda
