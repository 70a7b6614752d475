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

#include "CudaDriver.h"
#include "Fill.h"
#include "Plan.h"
#include "Report.h"
#include "TensorMap.h"
#include "Validate.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

using namespace qmmcuda;

namespace {

constexpr int kExitPass = 0, kExitFail = 1, kExitError = 2, kExitSkipped = 3;
constexpr unsigned kWarmupRuns = 3;
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;

const char kUsage[] =
    "usage: qmm-cuda-run [options] DIR\n"
    "\n"
    "Runs the launch plan DIR/plan.txt (saved by the compiler) on an NVIDIA\n"
    "GPU through the CUDA driver API, checks the outputs against the saved\n"
    "validation data and optionally times the whole plan.\n"
    "\n"
    "options:\n"
    "  --iters N       after validation, time N runs of the whole plan (after\n"
    "                  3 warm-up runs) and report median/min ms and TFLOP/s\n"
    "                  (default 0: no timing)\n"
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
  unsigned long long runs = 1;
  unsigned long long seed = 1;
  int device = 0;
  std::string json;
  bool validate = true;
  bool dryRun = false;
  bool checkFiles = false;
  bool help = false;
};

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
                      name == "--seed" ||
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

std::string describeLaunch(const Plan &plan, size_t index) {
  const PlanLaunch &launch = plan.launches[index];
  return formatString("launch %zu (kernel '%s', %s:%u)", index,
                      plan.kernels[launch.kernel].entry.c_str(),
                      plan.planPath.c_str(), launch.line);
}

/// Reads `bytes` of buffer `buffer` (for the check of plan line `line`)
/// into `host`: the device's copy after a run, or the buffer's file.
using BufferReader = std::function<Status(unsigned buffer, uint64_t bytes,
                                          unsigned line, HostBytes &host)>;

/// Evaluates and prints every check of the plan on buffers `read` gives
/// (an FP8 buffer's checks with its scales).
Status evaluateChecks(const Plan &plan, const BufferReader &read,
                      RunReport &report) {
  for (const PlanCheck &check : plan.checks) {
    HostBytes output, scales;
    if (Status status =
            read(check.buffer, check.count * getElementBytes(check.element),
                 check.line, output);
        !status.isOk())
      return status;
    const PlanScaling *scaling =
        check.scaling >= 0 ? &plan.scalings[check.scaling] : nullptr;
    if (scaling)
      if (Status status =
              read(scaling->scalesBuffer,
                   scaling->rows * scaling->scalesPerRow() *
                       getElementBytes(scaling->scaleElement),
                   check.line, scales);
          !status.isOk())
        return status;
    CheckResult result;
    if (Status status = evaluateCheck(check, output.data(), result, scaling,
                                      scaling ? scales.data() : nullptr);
        !status.isOk())
      return status;
    printCheckResult(result, stdout);
    report.checks.push_back(result);
  }
  report.validated = true;
  return Status::ok();
}

/// The GPU side of a run: the driver, the device, and what the plan put
/// on it.
class Runner {
public:
  Runner(const Plan &plan, const Options &options, RunReport &report)
      : plan(plan), options(options), report(report) {}
  ~Runner();

  /// Opens the driver and the device; prints the device line.
  Status openDevice();
  /// Loads the modules, makes the buffers and the launches' parameters.
  Status prepare();
  /// --runs N runs of the plan with a synchronization after every launch,
  /// so a failing launch is named; the checked outputs and poisoned
  /// buffers restored between runs.
  Status runChecked();
  /// Evaluates and prints every check.
  Status validate();
  /// --iters N timed runs after the warm-up.
  Status time();

private:
  Status call(CUresult result, const std::string &what) const {
    return driver.check(result, what);
  }
  Status launchAll(bool synchronizeEach);
  /// Gives buffer `index` its fill (the file, zeros, poison or random).
  Status fillBuffer(size_t index, std::mt19937_64 &random);
  /// Launches plan.launches[index], with cuLaunchKernelEx where it has a
  /// cluster shape, else cuLaunchKernel.
  Status launchOne(size_t index);
  /// Encodes every tensor map over its buffer (already allocated) and
  /// copies it to the device, where the kernels read it.
  Status prepareTensorMaps();

  const Plan &plan;
  const Options &options;
  RunReport &report;
  CudaDriver driver;
  bool haveContext = false;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;
  std::vector<CUdeviceptr> buffers;
  /// One allocation for all tensor maps, 128 bytes each (cuMemAlloc's
  /// 256-byte alignment keeps each at the 64 bytes TMA needs).
  CUdeviceptr tensorMapBlock = 0;
  CUevent start = nullptr, stop = nullptr;
  /// Per launch: 8 bytes of storage per argument and the pointers to them
  /// (cuLaunchKernel reads each parameter's size from the kernel).
  std::vector<std::vector<uint64_t>> argStorage;
  std::vector<std::vector<void *>> argPointers;
};

Runner::~Runner() {
  // Best effort: the process is about to exit, which frees it all anyway.
  if (!haveContext)
    return;
  if (start)
    driver.cuEventDestroy(start);
  if (stop)
    driver.cuEventDestroy(stop);
  for (CUdeviceptr buffer : buffers)
    driver.cuMemFree(buffer);
  if (tensorMapBlock)
    driver.cuMemFree(tensorMapBlock);
  for (CUmodule module : modules)
    driver.cuModuleUnload(module);
}

Status Runner::openDevice() {
  if (Status status = driver.open(); !status.isOk())
    return status;
  CUresult result = driver.cuInit(0);
  if (result == CUDA_ERROR_NO_DEVICE || result == CUDA_ERROR_STUB_LIBRARY)
    return Status::skipped("no CUDA device (" +
                           driver.check(result, "cuInit").getMessage() + ")");
  if (Status status = call(result, "cuInit"); !status.isOk())
    return status;
  int count = 0;
  if (Status status = call(driver.cuDeviceGetCount(&count), "cuDeviceGetCount");
      !status.isOk())
    return status;
  if (options.device >= count)
    return Status::skipped(formatString("no device %d (the driver sees %d)",
                                        options.device, count));
  CUdevice device = 0;
  if (Status status = call(driver.cuDeviceGet(&device, options.device),
                           "cuDeviceGet");
      !status.isOk())
    return status;
  char name[256] = {};
  int driverVersion = 0, major = 0, minor = 0, sms = 0;
  Status status = call(driver.cuDeviceGetName(name, sizeof(name) - 1, device),
                       "cuDeviceGetName");
  if (status.isOk())
    status = call(driver.cuDriverGetVersion(&driverVersion),
                  "cuDriverGetVersion");
  if (status.isOk())
    status = call(driver.cuDeviceGetAttribute(
                      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                      device),
                  "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
  if (status.isOk())
    status = call(driver.cuDeviceGetAttribute(
                      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                      device),
                  "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
  if (status.isOk())
    status = call(driver.cuDeviceGetAttribute(
                      &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
                  "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
  if (!status.isOk())
    return status;
  report.haveDevice = true;
  report.deviceIndex = options.device;
  report.deviceName = name;
  report.ccMajor = major;
  report.ccMinor = minor;
  report.multiprocessors = sms;
  report.driverVersion = driverVersion;
  std::printf("device: %s, sm_%d%d, %d SMs, driver %s\n", name, major, minor,
              sms, formatDriverVersion(driverVersion).c_str());
  std::fflush(stdout);

  // sm_90a code runs on compute capability 9.0 only; plain sm_XY PTX is
  // JIT-compiled for any later device.
  unsigned deviceCc = unsigned(major) * 10 + unsigned(minor);
  unsigned planCc = plan.ccMajor * 10 + plan.ccMinor;
  if (plan.archSpecific ? deviceCc != planCc : deviceCc < planCc)
    return Status::skipped(formatString("device %d is sm_%d%d, the plan needs %s",
                                        options.device, major, minor,
                                        plan.chip.c_str()));

  CUcontext context = nullptr;
  status = call(driver.cuDevicePrimaryCtxRetain(&context, device),
                "cuDevicePrimaryCtxRetain");
  if (status.isOk())
    status = call(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  if (!status.isOk())
    return status;
  haveContext = true;
  return Status::ok();
}

Status Runner::prepare() {
  for (const PlanModule &planModule : plan.modules) {
    // ptxas's error log: a JIT failure is otherwise just
    // CUDA_ERROR_INVALID_PTX.
    static char log[16384];
    log[0] = '\0';
    int jitOptions[] = {CU_JIT_ERROR_LOG_BUFFER,
                        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *jitValues[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    CUmodule module = nullptr;
    CUresult result = driver.cuModuleLoadDataEx(
        &module, planModule.ptx.c_str(), 2, jitOptions, jitValues);
    if (result != CUDA_SUCCESS) {
      std::string message =
          driver.check(result, formatString("cuModuleLoadDataEx('%s')",
                                            planModule.file.c_str()))
              .getMessage();
      log[sizeof(log) - 1] = '\0';
      if (log[0])
        message += formatString("\nptxas log:\n%s", log);
      return Status::error(message);
    }
    modules.push_back(module);
  }
  for (const PlanKernel &kernel : plan.kernels) {
    CUfunction function = nullptr;
    if (Status status = call(
            driver.cuModuleGetFunction(&function, modules[kernel.module],
                                       kernel.entry.c_str()),
            formatString("cuModuleGetFunction('%s')", kernel.entry.c_str()));
        !status.isOk())
      return status;
    // Dynamic shared memory above 48 KiB is opt-in, per function.
    if (kernel.maxDynamicShared > kDefaultSharedLimit)
      if (Status status = call(
              driver.cuFuncSetAttribute(
                  function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                  static_cast<int>(kernel.maxDynamicShared)),
              formatString("cuFuncSetAttribute('%s', "
                           "MAX_DYNAMIC_SHARED_SIZE_BYTES, %u)",
                           kernel.entry.c_str(), kernel.maxDynamicShared));
          !status.isOk())
        return status;
    functions.push_back(function);
  }

  std::mt19937_64 random(options.seed);
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlanBuffer &buffer = plan.buffers[i];
    CUdeviceptr pointer = 0;
    if (Status status = call(driver.cuMemAlloc(&pointer, buffer.bytes),
                             formatString("cuMemAlloc(buffer %zu, %llu bytes)",
                                          i, static_cast<unsigned long long>(
                                                 buffer.bytes)));
        !status.isOk())
      return status;
    buffers.push_back(pointer);
    if (Status status = fillBuffer(i, random); !status.isOk())
      return status;
  }

  if (Status status = prepareTensorMaps(); !status.isOk())
    return status;

  // cuLaunchKernelEx only where a launch needs it, so that a driver
  // without it still runs the other plans.
  if (std::any_of(plan.launches.begin(), plan.launches.end(),
                  [](const PlanLaunch &launch) { return launch.hasCluster(); }))
    if (Status status = driver.openClusterLaunch(); !status.isOk())
      return status;

  for (const PlanLaunch &launch : plan.launches) {
    std::vector<uint64_t> storage(launch.args.size());
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const LaunchArg &arg = launch.args[i];
      uint64_t value = arg.value;
      if (arg.kind == LaunchArg::Kind::Buffer)
        value = buffers[arg.value];
      else if (arg.kind == LaunchArg::Kind::TensorMap)
        value = tensorMapBlock + arg.value * sizeof(CUtensorMap);
      if (arg.kind == LaunchArg::Kind::U32) {
        auto narrow = static_cast<uint32_t>(value);
        std::memcpy(&storage[i], &narrow, 4); // the low address holds it
      } else {
        storage[i] = value;
      }
    }
    argStorage.push_back(std::move(storage));
  }
  // Pointers taken after every vector is in place (moves keep the heap
  // blocks, but this keeps it obvious).
  for (std::vector<uint64_t> &storage : argStorage) {
    std::vector<void *> pointers;
    for (uint64_t &slot : storage)
      pointers.push_back(&slot);
    argPointers.push_back(std::move(pointers));
  }
  return call(driver.cuCtxSynchronize(), "cuCtxSynchronize (after the fills)");
}

Status Runner::prepareTensorMaps() {
  if (plan.tensorMaps.empty())
    return Status::ok();
  if (Status status = driver.openTensorMaps(); !status.isOk())
    return status;
  size_t bytes = plan.tensorMaps.size() * sizeof(CUtensorMap);
  if (Status status =
          call(driver.cuMemAlloc(&tensorMapBlock, bytes),
               formatString("cuMemAlloc(%zu tensor maps, %zu bytes)",
                            plan.tensorMaps.size(), bytes));
      !status.isOk())
    return status;
  for (size_t i = 0; i < plan.tensorMaps.size(); ++i) {
    const PlanTensorMap &map = plan.tensorMaps[i];
    // The plan's checks leave the encoder little to refuse; what it still
    // refuses (e.g. a rule of a newer driver) is named by the plan's line.
    CUtensorMap tensorMap = {};
    if (Status status = call(
            encodeTensorMap(driver, map, buffers[map.buffer], tensorMap),
            formatString("cuTensorMapEncodeTiled(tensormap %zu, %s:%u)", i,
                         plan.planPath.c_str(), map.line));
        !status.isOk())
      return status;
    CUdeviceptr address = tensorMapBlock + i * sizeof(CUtensorMap);
    if (Status status =
            call(driver.cuMemcpyHtoD(address, &tensorMap, sizeof(tensorMap)),
                 formatString("cuMemcpyHtoD(tensormap %zu)", i));
        !status.isOk())
      return status;
  }
  return Status::ok();
}

Status Runner::launchOne(size_t index) {
  const PlanLaunch &launch = plan.launches[index];
  void **params =
      argPointers[index].empty() ? nullptr : argPointers[index].data();
  CUresult result = CUDA_SUCCESS;
  if (!launch.hasCluster()) {
    result = driver.cuLaunchKernel(
        functions[launch.kernel], launch.grid[0], launch.grid[1],
        launch.grid[2], launch.block[0], launch.block[1], launch.block[2],
        launch.dynamicShared, nullptr, params, nullptr);
  } else {
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = launch.cluster[0];
    attribute.value.clusterDim.y = launch.cluster[1];
    attribute.value.clusterDim.z = launch.cluster[2];
    CUlaunchConfig config = {};
    config.gridDimX = launch.grid[0];
    config.gridDimY = launch.grid[1];
    config.gridDimZ = launch.grid[2];
    config.blockDimX = launch.block[0];
    config.blockDimY = launch.block[1];
    config.blockDimZ = launch.block[2];
    config.sharedMemBytes = launch.dynamicShared;
    config.hStream = nullptr; // the legacy default stream, as cuLaunchKernel's
    config.attrs = &attribute;
    config.numAttrs = 1;
    result = driver.cuLaunchKernelEx(&config, functions[launch.kernel], params,
                                     nullptr);
  }
  // The message only on failure: the timed runs format nothing.
  if (result == CUDA_SUCCESS)
    return Status::ok();
  std::string what = launch.hasCluster()
                         ? formatString("cuLaunchKernelEx(cluster %ux%ux%u)",
                                        launch.cluster[0], launch.cluster[1],
                                        launch.cluster[2])
                         : std::string("cuLaunchKernel");
  return call(result, what + ": " + describeLaunch(plan, index));
}

Status Runner::launchAll(bool synchronizeEach) {
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    if (Status status = launchOne(i); !status.isOk())
      return status;
    if (synchronizeEach)
      if (Status status = call(driver.cuCtxSynchronize(),
                               "cuCtxSynchronize: " + describeLaunch(plan, i));
          !status.isOk())
        return status;
  }
  return Status::ok();
}

Status Runner::fillBuffer(size_t index, std::mt19937_64 &random) {
  const PlanBuffer &buffer = plan.buffers[index];
  CUdeviceptr pointer = buffers[index];
  if (isHostFill(buffer.fill)) {
    HostBytes bytes;
    if (Status status = makeHostFill(buffer, random, bytes); !status.isOk())
      return status;
    return call(driver.cuMemcpyHtoD(pointer, bytes.data(), buffer.bytes),
                formatString("cuMemcpyHtoD(buffer %zu)", index));
  }
  // Poison: 0xFF bytes are NaN in f32, bf16 and f16, so outputs the
  // kernels never write show up in the checks.
  unsigned char value = buffer.fill == Fill::Poison ? 0xff : 0;
  return call(driver.cuMemsetD8(pointer, value, buffer.bytes),
              formatString("cuMemsetD8(buffer %zu)", index));
}

Status Runner::runChecked() {
  // What the checks read (an accumulated output's C included) starts
  // again from the plan's contents each run; workspaces do not.
  std::vector<bool> restored(plan.buffers.size(), false);
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    restored[i] = plan.buffers[i].fill == Fill::Poison;
  for (const PlanCheck &check : plan.checks) {
    restored[check.buffer] = true;
    if (check.scaling >= 0)
      restored[plan.scalings[check.scaling].scalesBuffer] = true;
  }
  for (unsigned long long run = 0; run < options.runs; ++run) {
    if (run > 0) {
      // Restored buffers hold files or poison: no random fill is drawn.
      std::mt19937_64 random(options.seed);
      for (size_t i = 0; i < plan.buffers.size(); ++i) {
        if (!restored[i])
          continue;
        if (Status status = fillBuffer(i, random); !status.isOk())
          return status;
      }
    }
    if (Status status = launchAll(/*synchronizeEach=*/true); !status.isOk())
      return status;
  }
  return Status::ok();
}

Status Runner::validate() {
  return evaluateChecks(
      plan,
      [&](unsigned buffer, uint64_t bytes, unsigned line,
          HostBytes &host) -> Status {
        if (!host.allocate(bytes))
          return Status::error(formatString(
              "cannot allocate %llu bytes of host memory for the check of "
              "line %u",
              static_cast<unsigned long long>(bytes), line));
        return call(driver.cuMemcpyDtoH(host.data(), buffers[buffer], bytes),
                    formatString("cuMemcpyDtoH(buffer %u)", buffer));
      },
      report);
}

Status Runner::time() {
  if (Status status = call(driver.cuEventCreate(&start, 0), "cuEventCreate");
      !status.isOk())
    return status;
  if (Status status = call(driver.cuEventCreate(&stop, 0), "cuEventCreate");
      !status.isOk())
    return status;
  for (unsigned i = 0; i < kWarmupRuns; ++i)
    if (Status status = launchAll(false); !status.isOk())
      return status;
  if (Status status =
          call(driver.cuCtxSynchronize(), "cuCtxSynchronize (warm-up runs)");
      !status.isOk())
    return status;
  std::vector<double> times;
  for (unsigned long long i = 0; i < options.iters; ++i) {
    if (Status status = call(driver.cuEventRecord(start, nullptr),
                             "cuEventRecord");
        !status.isOk())
      return status;
    if (Status status = launchAll(false); !status.isOk())
      return status;
    if (Status status = call(driver.cuEventRecord(stop, nullptr),
                             "cuEventRecord");
        !status.isOk())
      return status;
    if (Status status = call(driver.cuEventSynchronize(stop),
                             "cuEventSynchronize (timed run)");
        !status.isOk())
      return status;
    float ms = 0;
    if (Status status = call(driver.cuEventElapsedTime(&ms, start, stop),
                             "cuEventElapsedTime");
        !status.isOk())
      return status;
    times.push_back(ms);
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  double median =
      n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  report.timed = true;
  report.timesMs = times;
  report.medianMs = median;
  report.minMs = sorted.front();
  std::printf("time: median %.4f ms, min %.4f ms over %zu runs", median,
              sorted.front(), n);
  if (plan.hasFlops && plan.flops > 0 && median > 0) {
    report.tflops = plan.flops / (median * 1e-3) / 1e12;
    std::printf(": %.4g TFLOP/s (measured)", report.tflops);
  }
  std::printf("\n");
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

  Runner runner(plan, options, report);
  Status status = runner.openDevice();
  if (status.isOk()) {
    printPlanSummary(plan);
    std::fflush(stdout);
    status = runner.prepare();
  }
  if (status.isOk())
    status = runner.runChecked();
  if (status.isOk() && options.validate)
    status = runner.validate();
  if (status.isOk() && options.iters > 0)
    status = runner.time();
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
