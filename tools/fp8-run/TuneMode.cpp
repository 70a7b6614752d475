//===- TuneMode.cpp - fp8-run --tune and --tuning-table -------------------===//
//
// Chooses the config a run compiles with. --tuning-table takes it from a
// table (qmm::TuningTable) when the table has the matmul's key. --tune
// compiles the program once per legal config (qmm::enumerateConfigs) and
// ranks them by the performance model's time: every figure MODELED, none
// measured. Configs whose code object spills or uses scratch rank last
// (marked in the JSON ranking) and are never chosen. Ties keep the enumeration's order, so the
// choice is deterministic.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "qmm/Conversion/AMDGPU/ConfigCost.h"
#include "qmm/Conversion/AMDGPU/ConfigSpace.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "qmm/Support/NestingLimit.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <optional>
#include <thread>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::fp8run;

namespace {
/// One ranked candidate.
struct Candidate {
  std::string config;
  double seconds = 0;
  /// The lower bound of its time and its estimated time (ConfigCost.h).
  double bound = 0, estimate = 0;
  /// The kernel that takes the most time (the matmul's).
  perf::KernelPrediction main;
  bool rejected = false; ///< spills or scratch
};
} // namespace

/// A candidate's time over the program's kernels, its slowest kernel, and
/// whether any of its code objects spills or uses scratch.
static Candidate summarize(std::string config,
                           llvm::ArrayRef<perf::KernelPrediction> kernels) {
  Candidate candidate;
  candidate.config = std::move(config);
  for (const perf::KernelPrediction &p : kernels) {
    candidate.seconds += p.seconds;
    if (p.seconds >= candidate.main.seconds)
      candidate.main = p;
    candidate.rejected |= p.spills || p.descriptor.scratchBytes > 0;
  }
  return candidate;
}

static std::string printConfig(ConfigAttr config) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Attribute(config).print(os);
  return text;
}

/// The product of the GEMM sizes from which fp8-run's default choice is
/// the model's among a few candidates (2 M N K >= 2^32 FLOP, e.g. 1290^3):
/// modeling them takes a fraction of a second, worth it where the kernel
/// runs long enough for its config to matter.
constexpr double kModelSelectionFlops = 4294967296.0;

void GemmRunner::chooseConfig() {
  const ChipInfo &chip = amdChip();
  kernelConfig = config.kernelConfig;
  // Sizes from the flags: the query (after legalization) decides.
  bool byModel = !config.tune && config.tuningTable.empty() &&
                 kernelConfig.empty() && config.selectByModel &&
                 config.inputFile.empty() &&
                 2.0 * double(config.m) * double(config.n) * double(config.k) >=
                     kModelSelectionFlops;
  if (!config.tune && config.tuningTable.empty() && !byModel)
    return;
  llvm::StringRef flag = config.tune               ? "--tune"
                         : !config.tuningTable.empty() ? "--tuning-table"
                                                       : "choosing a config";
  // The selector sees the matmul after qmm-legalize-for-chip (OCP FP8 on
  // gfx942 reinterpreted as FNUZ, B [K, N] transposed): so does the query,
  // and so the tuning table's key.
  OwningOpRef<ModuleOp> legalized = module->clone();
  PassManager pm(&context);
  pm.addPass(createQMMAttachTarget({chip.name.str()}));
  pm.addPass(createQMMLegalizeForChip());
  LogicalResult ran = success();
  std::string legalizeMessage =
      captureDiagnostics(&context, [&] { ran = pm.run(*legalized); });
  if (failed(ran))
    fail(flag + ": " + legalizeMessage);
  SmallVector<Operation *> matmuls;
  legalized->walk([&](Operation *op) {
    if (isa<MatmulOp, GroupedMatmulOp>(op))
      matmuls.push_back(op);
  });
  if (matmuls.size() != 1)
    fail(flag + ": the program must hold exactly one qmm.matmul or "
                "qmm.grouped_matmul (it holds " +
         std::to_string(matmuls.size()) + ")");
  FailureOr<ConfigQuery> query;
  std::string message = captureDiagnostics(
      &context, [&] { query = getConfigQuery(matmuls.front()); });
  if (failed(query))
    fail(flag + ": " + message);
  if (config.tune || byModel)
    pipelineChoice = getPipelineChoice(matmuls.front());
  if (config.tune)
    return tune(*query);
  if (byModel) {
    if (choosesByModel(*query))
      kernelConfig = getModelChoice(*query, selectionNote);
    return;
  }
  llvm::Expected<TuningTable> table = TuningTable::load(config.tuningTable);
  if (!table)
    fail("--tuning-table: " + llvm::toString(table.takeError()));
  if (const TuningTable::Entry *entry = table->lookup(chip, *query)) {
    // Checked as --config is: a malformed entry is bad input, not a
    // pipeline failure --device auto would fall back from.
    checkConfigText(entry->config, "--tuning-table (the entry for this GEMM)");
    kernelConfig = entry->config;
  }
}

namespace {
/// Models configs of one program on worker threads, each with its own
/// context and copy of the program (parsed from its text once per worker,
/// kept across batches), so that neither diagnostics nor the pipeline's
/// state are shared.
class ModelWorkers {
public:
  ModelWorkers(std::string program, const DialectRegistry &registry,
               const ChipInfo &chip, const ModelRequest &model,
               unsigned threads)
      : program(std::move(program)), registry(registry), chip(chip),
        model(model), workers(std::max(threads, 1u)) {}

  /// Models `configs`; results in order.
  std::vector<llvm::Expected<std::vector<perf::KernelPrediction>>>
  run(llvm::ArrayRef<std::string> configs) {
    std::vector<std::optional<
        llvm::Expected<std::vector<perf::KernelPrediction>>>>
        results(configs.size());
    std::atomic<size_t> next{0};
    auto work = [&](Worker &worker) {
      if (!worker.context) {
        worker.context = std::make_unique<MLIRContext>(
            registry, MLIRContext::Threading::DISABLED);
        worker.module =
            parseSourceString<ModuleOp>(program, worker.context.get());
      }
      for (size_t i = next++; i < configs.size(); i = next++) {
        if (!worker.module)
          results[i].emplace(llvm::createStringError(
              "the program does not parse in a worker's context"));
        else
          results[i].emplace(perf::modelQMMProgram(
              *worker.module, chip, *model.device, model.params,
              configs[i]));
      }
    };
    size_t used = std::min(workers.size(), configs.size());
    std::vector<std::thread> threads;
    for (size_t t = 1; t < used; ++t)
      threads.emplace_back(work, std::ref(workers[t]));
    if (used > 0)
      work(workers[0]);
    for (std::thread &thread : threads)
      thread.join();
    std::vector<llvm::Expected<std::vector<perf::KernelPrediction>>> out;
    for (auto &result : results)
      out.push_back(std::move(*result));
    return out;
  }

private:
  struct Worker {
    std::unique_ptr<MLIRContext> context;
    OwningOpRef<ModuleOp> module;
  };
  std::string program;
  const DialectRegistry &registry;
  const ChipInfo &chip;
  const ModelRequest &model;
  std::vector<Worker> workers;
};
} // namespace

/// A table entry's config text, parsed and fitted to the query (null when
/// it does not fit).
static ConfigAttr fitEntryText(MLIRContext &context, llvm::StringRef text,
                               const ChipInfo &chip, const ConfigQuery &query) {
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });
  return fitTableEntry(llvm::dyn_cast_or_null<ConfigAttr>(
                           parseAttributeWithinLimits(text, &context)),
                       chip, query);
}

ConfigAttr GemmRunner::getPipelineChoice(Operation *legalizedMatmul) {
  // qmm-select-config itself, on a copy of the legalized program: what the
  // pipeline compiles when fp8-run does not choose.
  OwningOpRef<Operation *> copy = legalizedMatmul->getParentOfType<ModuleOp>()->clone();
  PassManager pm(&context);
  pm.addPass(createQMMSelectConfig());
  LogicalResult ran = success();
  captureDiagnostics(&context, [&] { ran = pm.run(*copy); });
  ConfigAttr chosen;
  if (succeeded(ran))
    (*copy)->walk([&](Operation *op) {
      if (isa<MatmulOp, GroupedMatmulOp>(op))
        chosen = op->getAttrOfType<ConfigAttr>("config");
    });
  return chosen;
}

bool GemmRunner::choosesByModel(const ConfigQuery &query) const {
  return config.selectByModel && config.inputFile.empty() &&
         2.0 * double(query.m) * double(query.n) * double(query.k) >=
             kModelSelectionFlops;
}

std::vector<ConfigAttr>
GemmRunner::getDefaultCandidates(const ConfigQuery &query) {
  const ChipInfo &chip = amdChip();
  // qmm-select-config's choice, the entries tuned for the next nearest
  // shapes, the cheapest by estimated cost, the rule's choice.
  constexpr size_t kNearEntries = 2, kCheapest = 4;
  std::vector<ConfigAttr> candidates;
  auto add = [&](ConfigAttr c) {
    if (c && !llvm::is_contained(candidates, c))
      candidates.push_back(c);
  };
  add(pipelineChoice);
  size_t near = 0;
  for (const TuningTable::Entry *entry :
       TuningTable::getBuiltin().findNear(chip, query))
    if (near++ < kNearEntries)
      add(fitEntryText(context, entry->config, chip, query));
  std::vector<ConfigAttr> ranked = rankConfigsByCost(&context, chip, query);
  for (size_t i = 0; i < ranked.size() && i < kCheapest; ++i)
    add(ranked[i]);
  add(selectConfig(&context, chip, query));
  // The pass's and the cheapest estimated tile with the other legal wave
  // layouts, and transposed (M and N swapped): a nearby shape's best tile
  // is often right where its waves or its orientation are not (another
  // residency or grid rounds the work differently).
  std::vector<ConfigAttr> leaders;
  if (!candidates.empty())
    leaders.push_back(candidates.front());
  if (!ranked.empty())
    leaders.push_back(ranked.front());
  for (ConfigAttr leader : leaders)
    for (ConfigAttr c : ranked) {
      bool sameShape = c.getMfmaShape() == leader.getMfmaShape() &&
                       c.getStages() == leader.getStages() &&
                       c.getSplit() == leader.getSplit() &&
                       c.getTileK() == leader.getTileK();
      bool sameTile = c.getTileM() == leader.getTileM() &&
                      c.getTileN() == leader.getTileN();
      bool transposed = c.getTileM() == leader.getTileN() &&
                        c.getTileN() == leader.getTileM() &&
                        c.getWaves()[0] == leader.getWaves()[1] &&
                        c.getWaves()[1] == leader.getWaves()[0];
      if (sameShape && (sameTile || transposed))
        add(c);
    }
  return candidates;
}

std::string GemmRunner::getModelChoice(const ConfigQuery &query,
                                       std::string &note) {
  const ChipInfo &chip = amdChip();
  auto started = std::chrono::steady_clock::now();
  std::vector<ConfigAttr> candidates = getDefaultCandidates(query);
  if (candidates.empty())
    return ""; // the pipeline reports why nothing reads the operands
  const DeviceInfo *device =
      config.model.device ? config.model.device : getDefaultDevice(chip);
  ModelRequest request = config.model;
  request.device = device;
  if (!config.model.device)
    request.params = perf::getDefaultParameters(*device);
  std::string program;
  {
    llvm::raw_string_ostream os(program);
    module->print(os);
  }
  std::vector<std::string> texts;
  for (ConfigAttr c : candidates)
    texts.push_back(printConfig(c));
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  ModelWorkers workers(std::move(program), context.getDialectRegistry(),
                       chip, request, threads);
  auto results = workers.run(texts);
  // A candidate that does not compile or spills is not chosen; the
  // pipeline's own choice remains when none is left.
  std::string chosen = texts.front();
  double bestSeconds = std::numeric_limits<double>::infinity();
  for (auto [index, result] : llvm::enumerate(results)) {
    if (!result) {
      llvm::consumeError(result.takeError());
      continue;
    }
    Candidate candidate = summarize(texts[index], *result);
    if (!candidate.rejected && candidate.seconds < bestSeconds) {
      bestSeconds = candidate.seconds;
      chosen = texts[index];
    }
  }
  note = llvm::formatv(
      "config chosen by modeling {0} candidates on {1} ({2:f2} s): "
      "qmm-select-config's, the nearest tuned shapes', the cheapest by "
      "estimated cost, the rule's",
      texts.size(), device->name,
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    started)
          .count());
  return chosen;
}

std::vector<GemmRunner::SpaceRow>
GemmRunner::orderByBound(const ConfigQuery &query,
                         llvm::ArrayRef<ConfigAttr> space) const {
  const ModelRequest &model = config.model;
  double clockHz = model.params.clockGHz * 1e9;
  double launch = model.params.launchMicroseconds * 1e-6;
  std::vector<SpaceRow> rows;
  for (ConfigAttr c : space) {
    ConfigCost cost = estimateConfigCost(*model.device, query, c);
    // The bound holds for one matmul (a grouped one is costed as one
    // matmul of its rows: no bound).
    rows.push_back(
        {query.grouped ? 0.0 : cost.boundCycles / clockHz + launch,
         cost.estimateCycles / (model.device->nominalClockGHz * 1e9), c});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const SpaceRow &x, const SpaceRow &y) {
                     return x.bound < y.bound;
                   });
  return rows;
}

void GemmRunner::printTuneSpace(const ConfigQuery &query,
                                llvm::ArrayRef<SpaceRow> rows) const {
  const ChipInfo &chip = amdChip();
  if (config.json) {
    llvm::json::Array space;
    for (const SpaceRow &row : rows)
      space.push_back(llvm::json::Object{{"config", printConfig(row.config)},
                                         {"bound_us", row.bound * 1e6},
                                         {"estimate_us", row.estimate * 1e6}});
    llvm::outs() << llvm::formatv(
        "{0}\n", llvm::json::Value(llvm::json::Object{
                     {"tune_space", std::move(space)}}));
    return;
  }
  llvm::outs() << llvm::formatv(
      "tune: {0} legal configs of {1}x{2}x{3} on {4}, in the order --tune "
      "models them (lower bound and estimate on {5}, nothing compiled):\n",
      rows.size(), query.m, query.n, query.k, chip.name,
      config.model.device->name);
  for (const SpaceRow &row : rows)
    llvm::outs() << llvm::formatv("  {0,-88}  bound {1,10:f1} us  "
                                  "estimate {2,10:f1} us\n",
                                  printConfig(row.config), row.bound * 1e6,
                                  row.estimate * 1e6);
}

void GemmRunner::tune(const ConfigQuery &query) {
  const ChipInfo &chip = amdChip();
  const ModelRequest &model = config.model;
  auto started = std::chrono::steady_clock::now();
  // Every legal config and every config the default chooses among,
  // ordered by the lower bound of their modeled time: a config whose bound
  // is no better than the best time modeled so far cannot win and is not
  // compiled (--tune-all models them all).
  std::vector<ConfigAttr> space = rankConfigsByCost(&context, chip, query);
  // The configs the default chooses among join the space: a nearby shape's
  // table entry, fitted, may lie outside the enumeration.
  std::vector<ConfigAttr> defaults =
      choosesByModel(query) ? getDefaultCandidates(query)
                            : std::vector<ConfigAttr>{pipelineChoice};
  for (ConfigAttr c : defaults)
    if (c && !llvm::is_contained(space, c))
      space.push_back(c);
  if (space.empty())
    fail("--tune: no legal configuration reads " + query.aType + " x " +
         query.bType + " on " + chip.name.str());
  std::vector<SpaceRow> ordered = orderByBound(query, space);
  if (config.tuneSpace)
    return printTuneSpace(query, ordered);
  // The default choice: what fp8-run compiles without --tune.
  std::string ignored;
  std::string chosenText = choosesByModel(query)
                               ? getModelChoice(query, ignored)
                           : pipelineChoice ? printConfig(pipelineChoice)
                                            : std::string();
  auto chosen = llvm::dyn_cast_or_null<ConfigAttr>(
      parseAttributeWithinLimits(chosenText, &context));
  auto chosenRow = llvm::find_if(
      ordered, [&](const SpaceRow &row) { return row.config == chosen; });
  if (!chosen)
    fail("--tune: no legal configuration reads " + query.aType + " x " +
         query.bType + " on " + chip.name.str());
  // The default chooses among the configs added to the space above.
  if (chosenRow == ordered.end())
    fail("--tune: the default choice " + chosenText +
         " is not among the configs of the space");

  std::string program;
  {
    llvm::raw_string_ostream os(program);
    module->print(os, OpPrintingFlags().printGenericOpForm(false));
  }
  unsigned threads =
      config.tuneThreads ? config.tuneThreads
                         : std::max(1u, std::thread::hardware_concurrency());
  ModelWorkers workers(std::move(program), context.getDialectRegistry(), chip,
                       model, threads);
  std::vector<Candidate> candidates;
  size_t pruned = 0;
  double bestSeconds = std::numeric_limits<double>::infinity();
  auto record = [&](const SpaceRow &row,
                    llvm::Expected<std::vector<perf::KernelPrediction>> modeled) {
    if (!modeled)
      fail("--tune: " + printConfig(row.config) +
           " does not compile: " + llvm::toString(modeled.takeError()));
    Candidate candidate = summarize(printConfig(row.config), *modeled);
    candidate.bound = row.bound;
    candidate.estimate = row.estimate;
    if (!candidate.rejected)
      bestSeconds = std::min(bestSeconds, candidate.seconds);
    candidates.push_back(std::move(candidate));
  };
  // The default choice first, so that the bound prunes against it and the
  // ranking always reports it; then the rest in batches of `threads`.
  record(*chosenRow, perf::modelQMMProgram(*module, chip, *model.device,
                                           model.params, chosenText));
  for (size_t i = 0; i < ordered.size();) {
    std::vector<std::string> batch;
    std::vector<const SpaceRow *> batchRows;
    for (; i < ordered.size() && batch.size() < threads; ++i) {
      const SpaceRow &row = ordered[i];
      if (row.config == chosen)
        continue;
      if (!config.tuneAll && row.bound >= bestSeconds) {
        ++pruned;
        continue;
      }
      batch.push_back(printConfig(row.config));
      batchRows.push_back(&row);
    }
    if (batch.empty())
      continue;
    auto results = workers.run(batch);
    for (auto [index, result] : llvm::enumerate(results))
      record(*batchRows[index], std::move(result));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate &x, const Candidate &y) {
                     if (x.rejected != y.rejected)
                       return y.rejected;
                     return x.seconds < y.seconds;
                   });
  if (candidates.front().rejected)
    fail("--tune: every legal configuration spills or uses scratch");
  double elapsed = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - started)
                       .count();
  const Candidate &best = candidates.front();
  kernelConfig = best.config;

  // The ranking (JSON for --json --model-only, text otherwise).
  size_t defaultRank = 0;
  for (auto [rank, c] : llvm::enumerate(candidates)) {
    if (c.config == chosenText)
      defaultRank = rank + 1;
    tuneRanking.push_back(llvm::json::Object{
        {"rank", int64_t(rank + 1)},
        {"config", c.config},
        {"modeled_us", c.seconds * 1e6},
        {"modeled_tflops", c.main.tflops},
        {"registers", c.main.descriptor.registers},
        {"occupancy", c.main.occupancy},
        {"mfma_busy", c.main.mfmaBusy},
        {"bound", c.main.kernelBound},
        {"bound_us", c.bound * 1e6},
        {"estimate_us", c.estimate * 1e6},
        {"rejected", c.rejected},
        {"default", c.config == chosenText}});
  }
  if (!config.json) {
    llvm::outs() << llvm::formatv(
        "tune: {0} legal configs of {1}x{2}x{3} ({4} x {5}, scales {6} / "
        "{7}) on {8}: {10} ranked by MODELED time on {9}, {11} skipped "
        "(their lower bound is no better than the best time modeled; "
        "{12:f1} s, {13} thread(s)):\n",
        candidates.size() + pruned, query.m, query.n, query.k, query.aType,
        query.bType, query.aScales, query.bScales, chip.name,
        model.device->name, candidates.size(), pruned, elapsed, threads);
    llvm::outs() << llvm::formatv("  {0,4}  {1,-88}  {2,11}  {3,8}  {4,4}  "
                                  "{5,3}  {6,5}  {7}\n",
                                  "rank", "config", "modeled us", "TFLOP/s",
                                  "regs", "occ", "busy", "bound");
    constexpr size_t kShown = 10;
    for (auto [rank, c] : llvm::enumerate(candidates)) {
      bool isDefault = c.config == chosenText;
      if (rank >= kShown && !isDefault)
        continue;
      llvm::outs() << llvm::formatv(
          "  {0,4}  {1,-88}  {2,11:f1}  {3,8:f1}  {4,4}  {5,3}  {6,4:f0}%  "
          "{7}{8}{9}\n",
          rank + 1, c.config, c.seconds * 1e6, c.main.tflops,
          c.main.descriptor.registers, c.main.occupancy,
          100 * c.main.mfmaBusy, c.main.kernelBound,
          isDefault ? "  <- default (qmm-select-config without tables)" : "",
          c.rejected ? "  [rejected: spills/scratch]" : "");
    }
    llvm::outs() << llvm::formatv("tune: best {0}: {1:f1} us MODELED",
                                  best.config, best.seconds * 1e6);
    if (defaultRank)
      llvm::outs() << llvm::formatv(
          " ({0:f2}x faster than the default choice, rank {1})",
          candidates[defaultRank - 1].seconds / best.seconds, defaultRank);
    llvm::outs() << "\n";
  }

  tunedQuery = query;
  if (config.tuneMeasure) {
    // The GPU decides among the model's best (the table entry follows its
    // measurement, after the inputs exist).
    for (const Candidate &c : candidates)
      if (!c.rejected && measureCandidates.size() < config.tuneMeasure)
        measureCandidates.push_back({c.config, c.seconds});
    return;
  }
  saveTuningEntry({best.config, best.seconds * 1e6, model.device->name.str()});
}

void GemmRunner::tuneByMeasurement() {
  const ChipInfo &chip = amdChip();
  unsigned iterations = config.iterations ? config.iterations : 20;
  std::string fastest;
  double fastestSeconds = 0, fastestModeled = 0;
  bool emulated = config.device == DeviceKind::Emulator;
  if (!config.json)
    llvm::outs() << llvm::formatv(
        "tune: the model's {0} best, MEASURED on {1} ({2} calls each):\n",
        measureCandidates.size(),
        emulated ? "the emulator (wall-clock time of the emulation, not GPU "
                   "speed)"
                 : "the GPU",
        iterations);
  for (const auto &[candidate, modeledSeconds] : measureCandidates) {
    device = orFail(createDevice(config.device, chip, candidate));
    RunResult timed = runProgram(iterations);
    double seconds = timed.secondsPerIteration;
    if (!config.json)
      llvm::outs() << llvm::formatv("  {0,-88}  measured {1,9:f1} us  "
                                    "modeled {2,9:f1} us\n",
                                    candidate, seconds * 1e6,
                                    modeledSeconds * 1e6);
    if (fastest.empty() || seconds < fastestSeconds) {
      fastest = candidate;
      fastestSeconds = seconds;
      fastestModeled = modeledSeconds;
    }
  }
  if (!config.json)
    llvm::outs() << "tune: best MEASURED " << fastest << "\n";
  kernelConfig = fastest;
  device = orFail(createDevice(config.device, chip, kernelConfig));
  // The device timed, and the one modeled_us is for.
  saveTuningEntry({fastest, fastestModeled * 1e6,
                   (device->getName() + " (modeled as " +
                    config.model.device->name + ")")
                       .str(),
                   fastestSeconds * 1e6});
}

void GemmRunner::saveTuningEntry(const TuningTable::Entry &entry) {
  const ChipInfo &chip = amdChip();
  if (config.tuneTable.empty())
    return;
  llvm::Expected<TuningTable> table =
      TuningTable::load(config.tuneTable, /*mayBeMissing=*/true);
  if (!table)
    fail("--tune-table: " + llvm::toString(table.takeError()));
  table->set(chip, *tunedQuery, entry);
  if (llvm::Error error = table->save(config.tuneTable))
    fail("--tune-table: " + llvm::toString(std::move(error)));
  if (!config.json)
    llvm::outs() << "tune: wrote the entry to " << config.tuneTable << " ("
                 << table->size() << " entries)\n";
}
