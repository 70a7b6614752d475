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

#include "qmm/Conversion/AMDGPU/ConfigSpace.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::fp8run;

namespace {
/// One ranked candidate.
struct Candidate {
  std::string config;
  double seconds = 0;
  /// The kernel that takes the most time (the matmul's).
  perf::KernelPrediction main;
  bool rejected = false; ///< spills or scratch
};
} // namespace

static std::string printConfig(ConfigAttr config) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Attribute(config).print(os);
  return text;
}

void GemmRunner::chooseConfig() {
  kernelConfig = config.kernelConfig;
  if (!config.tune && config.tuningTable.empty())
    return;
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
    fail((config.tune ? "--tune: " : "--tuning-table: ") + legalizeMessage);
  SmallVector<Operation *> matmuls;
  legalized->walk([&](Operation *op) {
    if (isa<MatmulOp, GroupedMatmulOp>(op))
      matmuls.push_back(op);
  });
  llvm::StringRef flag = config.tune ? "--tune" : "--tuning-table";
  if (matmuls.size() != 1)
    fail(flag + ": the program must hold exactly one qmm.matmul or "
                "qmm.grouped_matmul (it holds " +
         std::to_string(matmuls.size()) + ")");
  FailureOr<ConfigQuery> query;
  std::string message = captureDiagnostics(
      &context, [&] { query = getConfigQuery(matmuls.front()); });
  if (failed(query))
    fail(flag + ": " + message);
  if (config.tune)
    return tune(*query);
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

void GemmRunner::tune(const ConfigQuery &query) {
  const ModelRequest &model = config.model;
  auto started = std::chrono::steady_clock::now();
  std::vector<ConfigAttr> space = enumerateConfigs(&context, chip, query);
  ConfigAttr heuristic = selectConfig(&context, chip, query);
  std::string heuristicText = heuristic ? printConfig(heuristic) : "";
  // The heuristic may pick outside the enumerated space (2 waves for
  // decode tiles): it is always a candidate, so the best is never worse.
  if (heuristic && !llvm::is_contained(space, heuristic))
    space.push_back(heuristic);
  if (space.empty())
    fail("--tune: no legal configuration reads " + query.aType + " x " +
         query.bType + " on " + chip.name.str());

  std::vector<Candidate> candidates;
  for (ConfigAttr config : space) {
    Candidate candidate;
    candidate.config = printConfig(config);
    llvm::Expected<std::vector<perf::KernelPrediction>> modeled =
        perf::modelQMMProgram(*module, chip, *model.device, model.params,
                              candidate.config);
    if (!modeled)
      fail("--tune: " + candidate.config +
           " does not compile: " + llvm::toString(modeled.takeError()));
    for (const perf::KernelPrediction &p : *modeled) {
      candidate.seconds += p.seconds;
      if (p.seconds >= candidate.main.seconds)
        candidate.main = p;
      candidate.rejected |= p.spills || p.descriptor.scratchBytes > 0;
    }
    candidates.push_back(std::move(candidate));
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
  size_t heuristicRank = 0;
  for (auto [rank, c] : llvm::enumerate(candidates)) {
    if (c.config == heuristicText)
      heuristicRank = rank + 1;
    tuneRanking.push_back(llvm::json::Object{
        {"rank", int64_t(rank + 1)},
        {"config", c.config},
        {"modeled_us", c.seconds * 1e6},
        {"modeled_tflops", c.main.tflops},
        {"registers", c.main.descriptor.registers},
        {"occupancy", c.main.occupancy},
        {"mfma_busy", c.main.mfmaBusy},
        {"bound", c.main.kernelBound},
        {"rejected", c.rejected},
        {"heuristic", c.config == heuristicText}});
  }
  if (!config.json) {
    llvm::outs() << llvm::formatv(
        "tune: {0} legal configs of {1}x{2}x{3} ({4} x {5}, scales {6} / "
        "{7}) on {8}, ranked by MODELED time on {9} ({10:f1} s to compile "
        "and model them all):\n",
        candidates.size(), query.m, query.n, query.k, query.aType,
        query.bType, query.aScales, query.bScales, chip.name,
        model.device->name, elapsed);
    llvm::outs() << llvm::formatv("  {0,4}  {1,-88}  {2,11}  {3,8}  {4,4}  "
                                  "{5,3}  {6,5}  {7}\n",
                                  "rank", "config", "modeled us", "TFLOP/s",
                                  "regs", "occ", "busy", "bound");
    constexpr size_t kShown = 10;
    for (auto [rank, c] : llvm::enumerate(candidates)) {
      bool isHeuristic = c.config == heuristicText;
      if (rank >= kShown && !isHeuristic)
        continue;
      llvm::outs() << llvm::formatv(
          "  {0,4}  {1,-88}  {2,11:f1}  {3,8:f1}  {4,4}  {5,3}  {6,4:f0}%  "
          "{7}{8}{9}\n",
          rank + 1, c.config, c.seconds * 1e6, c.main.tflops,
          c.main.descriptor.registers, c.main.occupancy,
          100 * c.main.mfmaBusy, c.main.kernelBound,
          isHeuristic ? "  <- heuristic (qmm-select-config without tables)" : "",
          c.rejected ? "  [rejected: spills/scratch]" : "");
    }
    if (heuristicText.empty())
      llvm::outs() << "  (the heuristic has no choice for this matmul)\n";
    llvm::outs() << llvm::formatv("tune: best {0}: {1:f1} us MODELED",
                                  best.config, best.seconds * 1e6);
    if (heuristicRank)
      llvm::outs() << llvm::formatv(
          " ({0:f2}x the heuristic's choice, rank {1})",
          candidates[heuristicRank - 1].seconds / best.seconds, heuristicRank);
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
