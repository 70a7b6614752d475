//===- ConfigSpace.cpp - legal configurations and tuning tables -----------===//

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"

#include <limits>
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Support/NestingLimit.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace mlir;
using namespace mlir::qmm;

static std::string printed(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

static std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

template <typename OpTy>
static FailureOr<ConfigQuery> getQueryOf(OpTy op, int64_t dynamicM) {
  ConfigQuery query;
  query.m = op.getM();
  query.n = op.getN();
  query.k = op.getK();
  if (ShapedType::isDynamic(query.n) || ShapedType::isDynamic(query.k))
    return op.emitOpError("qmm-select-config: needs static N and K (only M, "
                          "the rows of A, may be dynamic)");
  if (ShapedType::isDynamic(query.m)) {
    query.dynamicM = true;
    query.m = dynamicM;
    if (auto bound = op->template getAttrOfType<IntegerAttr>(kMaxMAttrName)) {
      if (bound.getInt() <= 0 ||
          bound.getInt() > std::numeric_limits<int32_t>::max())
        return op.emitOpError("qmm-select-config: qmm.max_m must be in [1, "
                              "2^31 - 1], got ")
               << bound.getInt();
      query.maxM = bound.getInt();
      query.m = query.maxM;
    }
  }
  Type a = getElementTypeOrSelf(op.getA().getType());
  Type b = getElementTypeOrSelf(op.getB().getType());
  query.operands = {a, b,
                    op.getAEncoding().isMX() && op.getBEncoding().isMX()};
  query.scaleBlockK =
      std::min(op.getAEncoding().getBlockExtent(query.m, query.k).second,
               op.getBEncoding().getBlockExtent(query.n, query.k).second);
  query.aType = printed(a);
  query.bType = printed(b);
  query.aScales = printed(op.getAEncoding());
  query.bScales = printed(op.getBEncoding());
  query.outType = printed(getElementTypeOrSelf(op.getInit().getType()));
  if (ScaleEncodingAttr out = op.getOutEncodingAttr())
    query.outputBlockN = out.getBlockExtent(query.m, query.n).second;
  if constexpr (!std::is_same_v<OpTy, MatmulOp>) {
    query.grouped = true;
    query.contiguousGroups = op.getLayout() == GroupedLayout::Contiguous;
    query.outType += op.getLayout() == GroupedLayout::Contiguous
                         ? " (grouped contiguous)"
                         : " (grouped masked)";
  }
  return query;
}

FailureOr<ConfigQuery> qmm::getConfigQuery(Operation *op, int64_t dynamicM) {
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return getQueryOf(matmul, dynamicM);
  if (auto grouped = dyn_cast<GroupedMatmulOp>(op))
    return getQueryOf(grouped, dynamicM);
  return op->emitOpError("is not a qmm.matmul or qmm.grouped_matmul");
}

LogicalResult
qmm::verifyConfigForMatmul(ConfigAttr config, const ChipInfo &chip,
                           const ConfigQuery &query,
                           function_ref<InFlightDiagnostic()> emitError) {
  // A contiguous tile of A must not straddle two groups' segments.
  int64_t alignment = getGroupedMatmulMAlignment();
  if (query.contiguousGroups && alignment % config.getTileM() != 0)
    return emitError() << "config: tile M (" << config.getTileM()
                       << ") must divide the M alignment of contiguous groups ("
                       << alignment << ")";
  if (query.outputBlockN &&
      !config.keepsOutputBlocksInWaves(query.n, query.outputBlockN))
    return emitError() << "config: the FP8 output's blocks of "
                       << query.outputBlockN
                       << " columns must lie within one wave's sub-tile ("
                       << config.getWaveTileN()
                       << " columns), starting at a multiple of the block; use "
                          "waves = [W, 1] or a tile N that is a multiple of "
                          "the block";
  if (query.dynamicM && !query.maxM && config.getSplit() > 1)
    return emitError() << "config: split = " << config.getSplit()
                       << ": split-K needs a static or bounded M (the grid "
                          "sizes its workspace and arrival counters)";
  if (failed(verifySplitK(config, query.k, query.scaleBlockK,
                          query.grouped, emitError)))
    return failure();
  // A direct load has no room for zeros past K: whole K tiles only.
  if (config.copiesDirectToLds() && query.k % config.getTileK() != 0)
    return emitError() << "config: lds_copy = direct needs K (" << query.k
                       << ") to be a multiple of tile K ("
                       << config.getTileK() << ")";
  return verifyConfigForChip(config, chip, query.operands, emitError);
}

/// Workgroups of a small grid: where 64x64 tiles make fewer than the
/// smallest chip has CUs (MI355X: 256).
constexpr int64_t kFewestCUs = 256;

/// `config` with split-K where its tiles make fewer than half of
/// kFewestCUs workgroups: the most ranges (8, 4 or 2) that keep the grid
/// within kFewestCUs workgroups and pass verifySplitK, with two K tiles per
/// range under double buffering.
static ConfigAttr withSplitK(MLIRContext *ctx, ConfigAttr config,
                             const ChipInfo &chip, const ConfigQuery &query) {
  int64_t tiles =
      llvm::divideCeil(std::max<int64_t>(query.m, 1), config.getTileM()) *
      llvm::divideCeil(std::max<int64_t>(query.n, 1), config.getTileN());
  if (query.grouped || (query.dynamicM && !query.maxM) || query.k == 0 ||
      2 * tiles >= kFewestCUs)
    return config;
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  auto emitSilently = [&]() { return emitError(UnknownLoc::get(ctx)); };
  for (int64_t split : {8, 4, 2}) {
    ConfigAttr candidate = config.withSplit(split);
    if (tiles * split > kFewestCUs ||
        !candidate.keepsTwoTilesPerRange(query.k))
      continue;
    if (succeeded(verifyConfigForMatmul(candidate, chip, query, emitSilently)))
      return candidate;
  }
  return config;
}

ConfigAttr qmm::selectConfig(MLIRContext *ctx, const ChipInfo &chip,
                             const ConfigQuery &query) {
  ConfigAttr config =
      selectConfig(ctx, chip, query.m, query.n, query.k, query.operands,
                   query.scaleBlockK, query.outputBlockN);
  return config ? withSplitK(ctx, config, chip, query) : config;
}

ConfigAttr qmm::fitTableEntry(ConfigAttr entry, const ChipInfo &chip,
                              const ConfigQuery &query) {
  if (!entry)
    return {};
  MLIRContext *ctx = entry.getContext();
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  auto emitSilently = [&]() { return emitError(UnknownLoc::get(ctx)); };
  for (int64_t split = entry.getSplit(); split >= 1; split /= 2) {
    ConfigAttr candidate = entry.withSplit(split);
    if (split > 1 && !candidate.keepsTwoTilesPerRange(query.k))
      continue;
    if (succeeded(verifyConfigForMatmul(candidate, chip, query, emitSilently)))
      return candidate;
  }
  return {};
}

/// Power-of-two tile extents for a matrix extent: from 64 (or the MFMA
/// size, when the extent is below 64 or the grid is `narrow`) up to 256, no
/// larger than the extent rounded up to a power of two.
static SmallVector<int64_t> getTileExtents(int64_t extent, int64_t mfma,
                                           bool narrow) {
  int64_t largest =
      std::clamp<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(extent, 1)),
                          mfma, 256);
  int64_t smallest =
      narrow ? mfma : std::min<int64_t>(std::max<int64_t>(64, mfma), largest);
  SmallVector<int64_t> extents;
  for (int64_t t = smallest; t <= largest; t *= 2)
    extents.push_back(t);
  return extents;
}

std::vector<ConfigAttr> qmm::enumerateConfigs(MLIRContext *ctx,
                                              const ChipInfo &chip,
                                              const ConfigQuery &query) {
  std::vector<ConfigAttr> configs;
  std::optional<MFMAKind> kind = getMFMAKindFor(chip, query.operands);
  if (!kind)
    return configs;
  // The scaled MFMA applies the block scales itself.
  int64_t scaleBlockK =
      *kind == MFMAKind::ScaledF8F6F4 ? query.k : query.scaleBlockK;
  SmallVector<MFMAKind, 2> kinds = {*kind};
  if (*kind == MFMAKind::F8F6F4 &&
      query.operands.a.getIntOrFloatBitWidth() == 8 &&
      query.operands.b.getIntOrFloatBitWidth() == 8)
    kinds.push_back(MFMAKind::FP8);
  // Small grids (decode, small M): where 64x64 tiles make fewer workgroups
  // than the smallest chip has CUs (MI355X: 256), narrower tiles (down to
  // the MFMA's), 512-deep K tiles and split-K (2, 4, 8 ranges) are
  // candidates too, to spread the work over more workgroups and fewer
  // trips.
  bool smallGrid = llvm::divideCeil(std::max<int64_t>(query.m, 1), 64) *
                       llvm::divideCeil(std::max<int64_t>(query.n, 1), 64) <
                   kFewestCUs;
  // Tiles copied through registers, and straight into LDS where the chip
  // loads that way (verifyConfigForChip says for which operands and
  // tiles).
  SmallVector<LdsCopy, 2> copies = {LdsCopy::Registers};
  if (chip.ldsDmaBytes > 0)
    copies.push_back(LdsCopy::Direct);
  // Diagnostics of rejected candidates are not for the user.
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  auto emitSilently = [&]() { return emitError(UnknownLoc::get(ctx)); };
  for (MFMAKind candidateKind : kinds) {
    // gfx950's fp8 forms (half the f8f6f4 rate) only where the f8f6f4
    // shapes cannot tile K.
    if (candidateKind == MFMAKind::FP8 && !configs.empty())
      break;
    for (const MMAIntrinsicInfo *shape : chip.getIntrinsics()) {
      if (shape->kind != candidateKind || shape->m != shape->n)
        continue;
      // 64/128/256, K itself where K is below 256, and for scale blocks
      // shorter than K the block and gcd(block, 128) (narrow blocks).
      SmallVector<int64_t> tileKs;
      int64_t wholeK = llvm::alignTo(std::max<int64_t>(query.k, 1), shape->k);
      SmallVector<int64_t> tried = {64, 128, 256};
      if (smallGrid && wholeK >= 1024)
        tried.push_back(512);
      if (wholeK < 256)
        tried.push_back(wholeK);
      if (scaleBlockK < query.k)
        tried.append({scaleBlockK, std::gcd(scaleBlockK, int64_t(128))});
      for (int64_t tk : tried)
        if (tk % shape->k == 0 && tk % getTileKMultiple(query.operands) == 0 &&
            tk <= std::max<int64_t>(wholeK, shape->k) &&
            (scaleBlockK >= query.k || scaleBlockK % tk == 0) &&
            !llvm::is_contained(tileKs, tk))
          tileKs.push_back(tk);
      for (int64_t tileM : getTileExtents(query.m, shape->m, smallGrid))
        for (int64_t tileN : getTileExtents(query.n, shape->n, smallGrid))
          for (int64_t wavesM : {1, 2, 4})
            for (int64_t wavesN : {1, 2, 4}) {
              if (wavesM * wavesN > 8 || tileM % (wavesM * shape->m) != 0 ||
                  tileN % (wavesN * shape->n) != 0)
                continue;
              // 4 or 8 waves (one or two per SIMD), fewer only where the
              // tile has fewer MFMA tiles.
              int64_t mfmaTiles = (tileM / shape->m) * (tileN / shape->n);
              if (wavesM * wavesN != 4 && wavesM * wavesN != 8 &&
                  wavesM * wavesN != std::min<int64_t>(mfmaTiles, 4))
                continue;
              // At most 128 accumulator registers per lane (a 128x64
              // sub-tile): larger ones spill next to the fragments.
              if ((tileM / wavesM) * (tileN / wavesN) / chip.waveSize > 128)
                continue;
              // Split-K for small grids: up to kMostSplitWorkgroups
              // workgroups (4 per CU of the smallest chip).
              int64_t tiles = llvm::divideCeil(std::max<int64_t>(query.m, 1),
                                               tileM) *
                              llvm::divideCeil(std::max<int64_t>(query.n, 1),
                                               tileN);
              SmallVector<int64_t, 4> splits = {1};
              if (smallGrid && !query.grouped && query.k > 0)
                for (int64_t split : {2, 4, 8})
                  if (tiles * split <= 4 * kFewestCUs)
                    splits.push_back(split);
              for (int64_t tileK : tileKs)
                for (int64_t split : splits)
                  for (int64_t stages : {1, 2})
                    for (LdsCopy copy : copies) {
                      ConfigAttr config = ConfigAttr::getChecked(
                          emitSilently, ctx,
                          ArrayRef<int64_t>{tileM, tileN, tileK},
                          ArrayRef<int64_t>{wavesM, wavesN}, candidateKind,
                          ArrayRef<int64_t>{shape->m, shape->n, shape->k},
                          stages, split, copy);
                      if (config && config.keepsTwoTilesPerRange(query.k) &&
                          succeeded(verifyConfigForMatmul(
                                        config, chip, query, emitSilently)))
                        configs.push_back(config);
                    }
            }
    }
  }
  return configs;
}

//===----------------------------------------------------------------------===//
// Tuning tables
//===----------------------------------------------------------------------===//

/// Extents are bucketed by rounding up to a power of two.
static int64_t bucketOf(int64_t extent) {
  return int64_t(llvm::PowerOf2Ceil(std::max<int64_t>(extent, 1)));
}

static llvm::json::Object keyFields(const ChipInfo &chip,
                                    const ConfigQuery &query) {
  return llvm::json::Object{{"chip", chip.name.str()},
                            {"a", query.aType},
                            {"b", query.bType},
                            {"a_scales", query.aScales},
                            {"b_scales", query.bScales},
                            {"out", query.outType},
                            {"m", bucketOf(query.m)},
                            {"n", bucketOf(query.n)},
                            {"k", bucketOf(query.k)}};
}

static std::string keyOf(const llvm::json::Object &fields) {
  std::string key;
  llvm::raw_string_ostream os(key);
  for (const char *name :
       {"chip", "a", "b", "a_scales", "b_scales", "out", "m", "n", "k"}) {
    const llvm::json::Value *value = fields.get(name);
    os << name << "=";
    if (value)
      os << *value;
    os << ";";
  }
  return key;
}

std::string TuningTable::getKey(const ChipInfo &chip,
                                const ConfigQuery &query) {
  return keyOf(keyFields(chip, query));
}

llvm::Expected<TuningTable> TuningTable::load(llvm::StringRef path,
                                              bool mayBeMissing) {
  if (mayBeMissing && !llvm::sys::fs::exists(path))
    return TuningTable();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("tuning table '" + path +
                                   "': " + buffer.getError().message());
  return parse((*buffer)->getBuffer(), path);
}

#include "BuiltinTuningTable.inc"

const TuningTable &TuningTable::getBuiltin() {
  static const TuningTable builtin = [] {
    llvm::Expected<TuningTable> table =
        parse(kBuiltinTuningTable, "built-in (BuiltinTuningTable.json)");
    // The build embeds a file the test suite parses: a broken one is a
    // build defect, not user input.
    if (!table)
      llvm::report_fatal_error(llvm::Twine(llvm::toString(table.takeError())));
    return std::move(*table);
  }();
  return builtin;
}

llvm::Expected<TuningTable> TuningTable::parse(llvm::StringRef text,
                                               llvm::StringRef path) {
  TuningTable table;
  // llvm::json's parser recurses once per level of nesting, like MLIR's.
  if (std::optional<ExcessiveNesting> deep = findExcessiveNesting(text))
    return llvm::createStringError("tuning table '" + path + "': line " +
                                   llvm::Twine(deep->line) + ": " +
                                   getExcessiveNestingMessage());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return llvm::createStringError("tuning table '" + path +
                                   "': " + llvm::toString(json.takeError()));
  auto bad = [&](const llvm::Twine &what) {
    return llvm::createStringError("tuning table '" + path + "': " + what);
  };
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getInteger("qmm_tuning_table") != 1)
    return bad("not a qmm tuning table (expected {\"qmm_tuning_table\": 1, "
               "\"entries\": [...]})");
  const llvm::json::Array *list = root->getArray("entries");
  if (!list)
    return bad("no \"entries\" array");
  for (auto [index, value] : llvm::enumerate(*list)) {
    const llvm::json::Object *entry = value.getAsObject();
    std::string where = "entry " + std::to_string(index);
    if (!entry)
      return bad(where + " is not an object");
    llvm::json::Object fields;
    for (const char *name : {"chip", "a", "b", "a_scales", "b_scales", "out"}) {
      std::optional<llvm::StringRef> text = entry->getString(name);
      if (!text)
        return bad(where + " has no string \"" + name + "\"");
      fields[name] = text->str();
    }
    for (const char *name : {"m", "n", "k"}) {
      std::optional<int64_t> extent = entry->getInteger(name);
      if (!extent || *extent <= 0 || !llvm::isPowerOf2_64(*extent))
        return bad(where + ": \"" + name +
                   "\" must be a positive power of two (a bucket)");
      fields[name] = *extent;
    }
    std::optional<llvm::StringRef> config = entry->getString("config");
    if (!config)
      return bad(where + " has no string \"config\"");
    if ((entry->get("modeled_us") && !entry->getNumber("modeled_us")) ||
        (entry->get("measured_us") && !entry->getNumber("measured_us")) ||
        (entry->get("device") && !entry->getString("device")))
      return bad(where + ": \"modeled_us\" and \"measured_us\" must be "
                         "numbers and \"device\" a string");
    Entry parsed{config->str(), entry->getNumber("modeled_us").value_or(0),
                 entry->getString("device").value_or("").str(),
                 entry->getNumber("measured_us").value_or(0)};
    std::string key = keyOf(fields);
    table.entries[key] = {std::move(fields), std::move(parsed)};
  }
  return table;
}

llvm::Error TuningTable::save(llvm::StringRef path) const {
  llvm::json::Array list;
  for (const auto &[key, value] : entries) {
    llvm::json::Object entry = value.first;
    entry["config"] = value.second.config;
    entry["modeled_us"] = value.second.modeledMicroseconds;
    entry["device"] = value.second.device;
    if (value.second.measuredMicroseconds > 0)
      entry["measured_us"] = value.second.measuredMicroseconds;
    list.push_back(std::move(entry));
  }
  // Written next to the table and renamed over it: a failed write leaves
  // the old table intact.
  std::string temporary = (path + ".tmp").str();
  {
    std::error_code error;
    llvm::raw_fd_ostream os(temporary, error);
    if (error)
      return llvm::createStringError("tuning table '" + path +
                                     "': " + error.message());
    os << llvm::formatv("{0:2}\n", llvm::json::Value(llvm::json::Object{
                                       {"qmm_tuning_table", 1},
                                       {"entries", std::move(list)}}));
    os.close();
    if (os.has_error())
      return llvm::createStringError("tuning table '" + path +
                                     "': " + os.error().message());
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path))
    return llvm::createStringError("tuning table '" + path +
                                   "': " + error.message());
  return llvm::Error::success();
}

const TuningTable::Entry *TuningTable::lookup(const ChipInfo &chip,
                                              const ConfigQuery &query) const {
  auto it = entries.find(getKey(chip, query));
  return it == entries.end() ? nullptr : &it->second.second;
}

/// The class of a scale encoding's text for findNear: "once" (per-tensor,
/// per-row), "mx", else the text itself (blockwise: the block matters).
static std::string getScaleClass(llvm::StringRef encoding) {
  if (encoding.contains("per_tensor") || encoding.contains("per_row"))
    return "once";
  if (encoding.contains("mx"))
    return "mx";
  return encoding.str();
}

/// Whether an output type's text names a grouped matmul, and which form.
static llvm::StringRef getGroupedForm(llvm::StringRef out) {
  size_t open = out.find(" (grouped");
  return open == llvm::StringRef::npos ? "" : out.substr(open);
}

std::vector<const TuningTable::Entry *>
TuningTable::findNear(const ChipInfo &chip, const ConfigQuery &query,
                      int maxDistance) const {
  llvm::json::Object want = keyFields(chip, query);
  auto text = [](const llvm::json::Object &fields, llvm::StringRef name) {
    return fields.getString(name).value_or("");
  };
  std::vector<std::pair<int, const Entry *>> near;
  for (const auto &[key, value] : entries) {
    const llvm::json::Object &have = value.first;
    if (text(have, "chip") != text(want, "chip") ||
        text(have, "a") != text(want, "a") ||
        text(have, "b") != text(want, "b") ||
        getGroupedForm(text(have, "out")) != getGroupedForm(text(want, "out")))
      continue;
    bool sameScales = true;
    for (const char *name : {"a_scales", "b_scales"})
      sameScales &= getScaleClass(text(have, name)) ==
                    getScaleClass(text(want, name));
    if (!sameScales)
      continue;
    int distance = 0;
    for (const char *name : {"m", "n", "k"})
      distance += std::abs(int(llvm::Log2_64(*have.getInteger(name))) -
                           int(llvm::Log2_64(*want.getInteger(name))));
    if (distance <= maxDistance)
      near.push_back({distance, &value.second});
  }
  std::stable_sort(near.begin(), near.end(),
                   [](auto &x, auto &y) { return x.first < y.first; });
  std::vector<const Entry *> result;
  for (auto &[distance, entry] : near)
    result.push_back(entry);
  return result;
}

void TuningTable::set(const ChipInfo &chip, const ConfigQuery &query,
                      Entry entry) {
  llvm::json::Object fields = keyFields(chip, query);
  std::string key = keyOf(fields);
  entries[key] = {std::move(fields), std::move(entry)};
}
