//===- qmm-cuda-run.cpp - run a saved launch plan on an NVIDIA GPU --------===//
//
// Runs a launch plan that the compiler saved (plan.txt, PTX modules, input
// and validation data; Plan.cpp has the format) through the CUDA driver
// API: loads the PTX, runs every launch once, checks the outputs against
// the saved validation data, and optionally times runs of the whole plan.
// It depends on neither MLIR/LLVM nor the CUDA toolkit (libcuda.so.1 is
// dlopen'd), so a GPU machine builds it with cmake and a C++17 compiler.
//
// Exit codes: 0 every check passed, 1 a check failed, 2 usage, plan, file
// or CUDA errors, 3 skipped (no driver, no device, another architecture).
//
//===----------------------------------------------------------------------===//

#include "Fill.h"
#include "Plan.h"
#include "PlanRunner.h"
#include "Report.h"
#include "TensorMap.h"
#include "Timing.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

using namespace qmmcuda;

namespace {

constexpr int kExitPass = 0, kExitFail = 1, kExitError = 2, kExitSkipped = 3;
constexpr unsigned kWarmupRuns = 3;

const char kUsage[] =
    "usage: qmm-cuda-run [options] DIR\n"
    "\n"
    "Runs the launch plan DIR/plan.txt (saved by the compiler) on an NVIDIA\n"
    "GPU through the CUDA driver API, checks the outputs against the saved\n"
    "validation data and optionally times the whole plan.\n"
    "\n"
    "options:\n"
    "  --iters N       after validation, time runs of the whole plan (each\n"
    "                  method after 3 warm-up runs) and report the median\n"
    "                  and min ms per run and TFLOP/s (default 0: no timing)\n"
    "                  by these methods:\n"
    "                    per-run       N samples of event, 1 run, event (the\n"
    "                                  launch latency included)\n"
    "                    back-to-back  R samples of N runs between two events\n"
    "                    graph         N runs captured in a CUDA graph, R\n"
    "                                  samples of one replay between two\n"
    "                                  events (GPU time alone: the method to\n"
    "                                  compare with libraries timed by graphs)\n"
    "  --rounds R      samples of the back-to-back and graph methods (default\n"
    "                  5)\n"
    "  --timing LIST   the methods, comma-separated, or all (default all)\n"
    "  --rotate C      time C copies of the plan's buffers and tensor maps\n"
    "                  in turn (run i reads copy i mod C), so that the timed\n"
    "                  runs read more bytes than the L2 cache holds, as a\n"
    "                  model's layers read their weights (default 1; the\n"
    "                  checks and saved buffers use the first copy)\n"
    "  --save-inputs DIR\n"
    "                  write every input buffer, as filled before the first\n"
    "                  launch, to DIR/buffer<I>.bin (other libraries can then\n"
    "                  be run on the same bytes)\n"
    "  --save-outputs DIR\n"
    "                  write every output buffer after the checked runs to\n"
    "                  DIR/buffer<I>.bin (to be judged elsewhere)\n"
    "  --runs N        run the plan N times before the checks (default 1);\n"
    "                  between runs the checked outputs and the poisoned\n"
    "                  buffers are restored, the others keep what the last\n"
    "                  run left, as for a caller launching again (a kernel\n"
    "                  must leave its workspace's counters at zero)\n"
    "  --no-validate   run, but skip the plan's checks (benchmark mode)\n"
    "  --dry-run       check the plan, every file it names and each launch\n"
    "                  against its PTX entry, without the CUDA driver, print\n"
    "                  a summary and exit\n"
    "  --check-files   run nothing: evaluate the checks on the buffers' file\n"
    "                  contents, without the CUDA driver (outputs computed\n"
    "                  elsewhere, or tests of the checks themselves)\n"
    "  --seed S        seed of the random fills (default 1)\n"
    "  --device I      CUDA device ordinal (default 0)\n"
    "  --json FILE     also write the results as JSON to FILE\n"
    "  --help          print this help\n"
    "\n"
    "exit codes: 0 all checks pass, 1 a check failed, 2 usage, plan, file or\n"
    "CUDA error, 3 skipped (no CUDA driver or device, or a device of another\n"
    "architecture than the plan's chip)\n";

struct Options {
  std::string dir;
  unsigned long long iters = 0;
  unsigned rounds = 5;
  unsigned copies = 1;
  std::vector<TimingMethod> timingMethods = {
      TimingMethod::PerRun, TimingMethod::BackToBack, TimingMethod::Graph};
  std::string saveInputs, saveOutputs;
  unsigned long long runs = 1;
  unsigned long long seed = 1;
  int device = 0;
  std::string json;
  bool validate = true;
  bool dryRun = false;
  bool checkFiles = false;
  bool help = false;
};

/// --timing: a comma-separated list of methods, or "all".
Status parseTimingMethods(const std::string &text,
                          std::vector<TimingMethod> &methods) {
  const TimingMethod all[] = {TimingMethod::PerRun, TimingMethod::BackToBack,
                              TimingMethod::Graph};
  methods.clear();
  if (text == "all") {
    methods.assign(std::begin(all), std::end(all));
    return Status::ok();
  }
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos)
      end = text.size();
    std::string name = text.substr(begin, end - begin);
    const TimingMethod *found =
        std::find_if(std::begin(all), std::end(all), [&](TimingMethod m) {
          return name == getTimingMethodName(m);
        });
    if (found == std::end(all))
      return Status::error(formatString(
          "--timing: expected per-run, back-to-back, graph or all (a "
          "comma-separated list), got '%s'",
          name.c_str()));
    if (std::find(methods.begin(), methods.end(), *found) == methods.end())
      methods.push_back(*found);
    begin = end + 1;
  }
  return Status::ok();
}

Status parseOptions(int argc, char **argv, Options &options) {
  bool endOfOptions = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (endOfOptions || arg.empty() || arg[0] != '-' || arg == "-") {
      if (!options.dir.empty())
        return Status::error(formatString(
            "more than one plan directory: '%s' and '%s'",
            options.dir.c_str(), arg.c_str()));
      options.dir = arg;
      continue;
    }
    if (arg == "--") {
      endOfOptions = true;
      continue;
    }
    std::string name = arg, value;
    bool hasValue = false;
    if (size_t equals = arg.find('='); equals != std::string::npos) {
      name = arg.substr(0, equals);
      value = arg.substr(equals + 1);
      hasValue = true;
    }
    bool isFlag = name == "--help" || name == "-h" || name == "--check-files" ||
                  name == "--no-validate" || name == "--dry-run";
    bool takesValue = name == "--iters" || name == "--runs" ||
                      name == "--seed" || name == "--rounds" ||
                      name == "--rotate" ||
                      name == "--timing" || name == "--save-inputs" ||
                      name == "--save-outputs" ||
                      name == "--device" || name == "--json";
    if (!isFlag && !takesValue)
      return Status::error(
          formatString("unknown option '%s' (see --help)", name.c_str()));
    if (isFlag && hasValue)
      return Status::error(
          formatString("%s takes no value", name.c_str()));
    if (takesValue && !hasValue) {
      if (i + 1 >= argc)
        return Status::error(formatString("%s needs a value", name.c_str()));
      value = argv[++i];
    }
    uint64_t number = 0;
    if (name == "--help" || name == "-h") {
      options.help = true;
    } else if (name == "--no-validate") {
      options.validate = false;
    } else if (name == "--dry-run") {
      options.dryRun = true;
    } else if (name == "--check-files") {
      options.checkFiles = true;
    } else if (name == "--json") {
      if (value.empty())
        return Status::error("--json needs a file name");
      options.json = value;
    } else if (name == "--iters") {
      if (!parseUnsigned(value, 1000000, number))
        return Status::error(formatString(
            "--iters: expected an integer from 0 to 1000000, got '%s'",
            value.c_str()));
      options.iters = number;
    } else if (name == "--rounds") {
      if (!parseUnsigned(value, 10000, number) || number == 0)
        return Status::error(formatString(
            "--rounds: expected an integer from 1 to 10000, got '%s'",
            value.c_str()));
      options.rounds = static_cast<unsigned>(number);
    } else if (name == "--rotate") {
      if (!parseUnsigned(value, 1024, number) || number == 0)
        return Status::error(formatString(
            "--rotate: expected an integer from 1 to 1024, got '%s'",
            value.c_str()));
      options.copies = static_cast<unsigned>(number);
    } else if (name == "--timing") {
      if (Status status = parseTimingMethods(value, options.timingMethods);
          !status.isOk())
        return status;
    } else if (name == "--save-inputs") {
      if (value.empty())
        return Status::error("--save-inputs needs a directory");
      options.saveInputs = value;
    } else if (name == "--save-outputs") {
      if (value.empty())
        return Status::error("--save-outputs needs a directory");
      options.saveOutputs = value;
    } else if (name == "--runs") {
      if (!parseUnsigned(value, 1000, number) || number == 0)
        return Status::error(formatString(
            "--runs: expected an integer from 1 to 1000, got '%s'",
            value.c_str()));
      options.runs = number;
    } else if (name == "--seed") {
      if (!parseUnsigned(value, UINT64_MAX, number))
        return Status::error(formatString(
            "--seed: expected a non-negative integer, got '%s'",
            value.c_str()));
      options.seed = number;
    } else if (name == "--device") {
      if (!parseUnsigned(value, 1023, number))
        return Status::error(formatString(
            "--device: expected an integer from 0 to 1023, got '%s'",
            value.c_str()));
      options.device = static_cast<int>(number);
    }
  }
  if (!options.help && options.dir.empty())
    return Status::error("expected a plan directory (see --help)");
  if (options.copies > 1 && options.iters == 0)
    return Status::error("--rotate: applies to the timed runs (--iters N)");
  return Status::ok();
}

void printPlanSummary(const Plan &plan) {
  std::printf("program: %s, chip %s, %s flops\n",
              plan.program.empty() ? "(unnamed)" : plan.program.c_str(),
              plan.chip.c_str(),
              plan.hasFlops ? formatDouble(plan.flops, 15).c_str() : "unknown");
  // Tensor maps only where there are some: the line of a plan without them
  // reads as it always has.
  std::string tensorMaps =
      plan.tensorMaps.empty()
          ? std::string()
          : formatString(", %zu tensor maps", plan.tensorMaps.size());
  // Likewise the launches in clusters.
  size_t clusterLaunches = std::count_if(
      plan.launches.begin(), plan.launches.end(),
      [](const PlanLaunch &launch) { return launch.hasCluster(); });
  std::string clusters =
      clusterLaunches ? formatString(" (%zu with clusters)", clusterLaunches)
                      : std::string();
  std::printf("plan: %zu modules, %zu kernels, %zu buffers (%llu bytes)%s, "
              "%zu launches%s, %zu checks\n",
              plan.modules.size(), plan.kernels.size(), plan.buffers.size(),
              static_cast<unsigned long long>(plan.totalBufferBytes()),
              tensorMaps.c_str(), plan.launches.size(), clusters.c_str(),
              plan.checks.size());
}

/// --dry-run: every statement as the runner understood it.
void printPlanDetails(const Plan &plan) {
  for (size_t i = 0; i < plan.modules.size(); ++i)
    std::printf("module %zu: %s (%zu bytes of PTX)\n", i,
                plan.modules[i].file.c_str(), plan.modules[i].ptx.size());
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const PlanKernel &kernel = plan.kernels[i];
    std::printf("kernel %zu: %s in module %u (%s)\n", i, kernel.entry.c_str(),
                kernel.module, describePtxEntry(kernel.ptx).c_str());
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlanBuffer &buffer = plan.buffers[i];
    std::printf("buffer %zu: %llu bytes, %s%s%s\n", i,
                static_cast<unsigned long long>(buffer.bytes),
                getFillName(buffer.fill), buffer.file.empty() ? "" : " ",
                buffer.file.c_str());
  }
  for (size_t i = 0; i < plan.tensorMaps.size(); ++i)
    std::printf("tensormap %zu: %s\n", i,
                describeTensorMap(plan.tensorMaps[i]).c_str());
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const PlanLaunch &launch = plan.launches[i];
    std::string args;
    for (const LaunchArg &arg : launch.args) {
      const char *prefix = arg.kind == LaunchArg::Kind::Buffer      ? "b"
                           : arg.kind == LaunchArg::Kind::TensorMap ? "t"
                           : arg.kind == LaunchArg::Kind::U64       ? "u64:"
                                                                    : "u32:";
      args += formatString(" %s%llu", prefix,
                           static_cast<unsigned long long>(arg.value));
    }
    // The cluster only where there is one: other launches read as before.
    std::string cluster =
        launch.hasCluster()
            ? formatString(", cluster %ux%ux%u", launch.cluster[0],
                           launch.cluster[1], launch.cluster[2])
            : std::string();
    std::printf("launch %zu: %s, grid %ux%ux%u, block %ux%ux%u%s, dynamic "
                "shared %u, args%s\n",
                i, plan.kernels[launch.kernel].entry.c_str(), launch.grid[0],
                launch.grid[1], launch.grid[2], launch.block[0],
                launch.block[1], launch.block[2], cluster.c_str(),
                launch.dynamicShared, args.empty() ? " none" : args.c_str());
  }
  for (size_t i = 0; i < plan.checks.size(); ++i) {
    const PlanCheck &check = plan.checks[i];
    std::string threshold =
        check.kind == CheckKind::Bounds
            ? std::string()
            : " " + std::string(check.kind == CheckKind::Sqnr ? ">= " : "< ") +
                  formatDouble(check.threshold);
    std::string scaled;
    if (check.scaling >= 0) {
      const PlanScaling &scaling = plan.scalings[check.scaling];
      scaled = formatString(
          " x %s scales of buffer %u (1x%llu blocks)",
          getElementName(scaling.scaleElement), scaling.scalesBuffer,
          static_cast<unsigned long long>(scaling.blockColumns));
    }
    std::printf("check %zu: %s [%s]: %s%s of %llu %s in buffer %u%s against "
                "%s\n",
                i, check.label.c_str(), check.tier.c_str(),
                getCheckKindName(check.kind), threshold.c_str(),
                static_cast<unsigned long long>(check.count),
                getElementName(check.element), check.buffer, scaled.c_str(),
                check.file.c_str());
  }
}

/// --iters: the plan timed by each method; prints a line per method.
Status timeRuns(PlanRunner &runner, const Plan &plan, const Options &options,
                RunReport &report) {
  CudaDriver &driver = runner.getDriver();
  if (Status status = driver.openGraphs(); !status.isOk())
    return status;
  // Run i on copy i mod C (--rotate): captured into a graph, the runs keep
  // their copies.
  if (runner.getCopies() > 1)
    std::printf("rotate: %u copies of %llu bytes of buffers\n",
                runner.getCopies(),
                static_cast<unsigned long long>(plan.totalBufferBytes()));
  unsigned next = 0;
  PlanLauncher runPlan = [&](CUstream stream) {
    unsigned copy = next;
    next = (next + 1) % runner.getCopies();
    return runner.launchAll(stream, /*synchronizeEach=*/false, copy);
  };
  for (TimingMethod method : options.timingMethods) {
    TimingResult result;
    if (Status status = timePlan(driver, runPlan, method, options.iters,
                                 options.rounds, kWarmupRuns, result);
        !status.isOk())
      return status;
    std::string samples =
        method == TimingMethod::PerRun
            ? formatString("%zu runs", result.msPerRun.size())
            : formatString("%zu samples of %llu runs", result.msPerRun.size(),
                           result.runsPerSample);
    std::printf("time (%s): median %.4f ms, min %.4f ms per run over %s",
                getTimingMethodName(method), result.medianMs, result.minMs,
                samples.c_str());
    if (plan.hasFlops && plan.flops > 0 && result.medianMs > 0)
      std::printf(": %.4g TFLOP/s (measured)",
                  plan.flops / (result.medianMs * 1e-3) / 1e12);
    std::printf("\n");
    report.timings.push_back(std::move(result));
  }
  return Status::ok();
}

/// RESULT from the checks evaluated: the exit code.
int finishChecks(RunReport &report) {
  bool pass = true;
  for (const CheckResult &result : report.checks)
    pass = pass && result.pass;
  // Nothing checked is not a pass: a plan without data only times.
  report.result = report.checks.empty() ? "NOT VALIDATED"
                  : pass                ? "PASS"
                                        : "FAIL";
  std::printf("RESULT: %s\n", report.result.c_str());
  return pass ? kExitPass : kExitFail;
}

/// --check-files: each check's buffer (and an FP8 buffer's scales) as
/// its file holds it.
Status checkFileContents(const Plan &plan, RunReport &report) {
  std::mt19937_64 unused;
  return evaluateChecks(
      plan,
      [&](unsigned index, uint64_t, unsigned, HostBytes &host) -> Status {
        const PlanBuffer &buffer = plan.buffers[index];
        if (buffer.fill != Fill::File)
          return Status::error(formatString(
              "--check-files: buffer %u (line %u) has no file to check",
              index, buffer.line));
        return makeHostFill(buffer, unused, host);
      },
      report);
}

/// Everything after the options: returns the exit code.
int run(const Options &options, Plan &plan, RunReport &report) {
  if (Status status = loadPlan(options.dir, plan); !status.isOk()) {
    report.message = status.getMessage();
    return kExitError;
  }
  report.plan = &plan;
  if (options.dryRun) {
    printPlanDetails(plan);
    printPlanSummary(plan);
    report.result = "DRY_RUN";
    return kExitPass;
  }

  if (options.checkFiles) {
    if (Status status = checkFileContents(plan, report); !status.isOk()) {
      report.message = status.getMessage();
      return kExitError;
    }
    return finishChecks(report);
  }

  RunnerOptions runnerOptions;
  runnerOptions.device = options.device;
  runnerOptions.seed = options.seed;
  runnerOptions.runs = options.runs;
  runnerOptions.copies = options.copies;
  PlanRunner runner(plan, runnerOptions, report);
  Status status = runner.openDevice();
  if (status.isOk()) {
    printPlanSummary(plan);
    std::fflush(stdout);
    status = runner.prepare();
  }
  if (status.isOk() && !options.saveInputs.empty())
    status = runner.saveInputs(options.saveInputs);
  if (status.isOk())
    status = runner.runChecked();
  if (status.isOk() && !options.saveOutputs.empty())
    status = runner.saveOutputs(options.saveOutputs);
  if (status.isOk() && options.validate)
    status = runner.validate();
  if (status.isOk() && options.iters > 0)
    status = timeRuns(runner, plan, options, report);
  if (!status.isOk()) {
    report.message = status.getMessage();
    if (status.isSkipped()) {
      report.result = "SKIPPED";
      return kExitSkipped;
    }
    return kExitError;
  }

  if (!options.validate)
    std::printf("checks: skipped (--no-validate)\n");
  else if (plan.checks.empty())
    std::printf("checks: none in the plan\n");
  return finishChecks(report);
}


} // namespace

int main(int argc, char **argv) {
  Options options;
  if (Status status = parseOptions(argc, argv, options); !status.isOk()) {
    std::fprintf(stderr, "qmm-cuda-run: error: %s\n",
                 status.getMessage().c_str());
    return kExitError;
  }
  if (options.help) {
    std::fputs(kUsage, stdout);
    return kExitPass;
  }

  Plan plan;
  RunReport report;
  report.seed = options.seed;
  int exitCode = run(options, plan, report);
  std::fflush(stdout);
  if (exitCode == kExitSkipped)
    std::fprintf(stderr, "qmm-cuda-run: skipped: %s\n", report.message.c_str());
  else if (exitCode == kExitError)
    std::fprintf(stderr, "qmm-cuda-run: error: %s\n", report.message.c_str());

  if (!options.json.empty()) {
    if (Status status = writeJsonReport(options.json, report); !status.isOk()) {
      std::fprintf(stderr, "qmm-cuda-run: error: %s\n",
                   status.getMessage().c_str());
      return kExitError;
    }
  }
  return exitCode;
}
