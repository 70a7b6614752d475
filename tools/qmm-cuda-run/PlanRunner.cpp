//===- PlanRunner.cpp - a launch plan on the GPU --------------------------===//

#include "PlanRunner.h"

#include "Fill.h"
#include "TensorMap.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace qmmcuda {

namespace {
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;
} // namespace

PlanRunner::~PlanRunner() {
  // Best effort: the process is about to exit, which frees it all anyway.
  if (!haveContext)
    return;
  for (PlanCopy &copy : copies) {
    for (CUdeviceptr buffer : copy.buffers)
      driver.cuMemFree(buffer);
    if (copy.tensorMapBlock)
      driver.cuMemFree(copy.tensorMapBlock);
  }
  for (CUmodule module : modules)
    driver.cuModuleUnload(module);
}

Status PlanRunner::openDevice() {
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

Status PlanRunner::prepare() {
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

  // Copy 0: the plan's buffers, filled; the others start as device copies
  // of them.
  copies.resize(std::max(1u, options.copies));
  std::mt19937_64 random(options.seed);
  for (size_t c = 0; c < copies.size(); ++c) {
    PlanCopy &copy = copies[c];
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const PlanBuffer &buffer = plan.buffers[i];
      CUdeviceptr pointer = 0;
      if (Status status = call(
              driver.cuMemAlloc(&pointer, buffer.bytes),
              formatString("cuMemAlloc(buffer %zu, %llu bytes%s)", i,
                           static_cast<unsigned long long>(buffer.bytes),
                           c ? formatString(", copy %zu", c).c_str() : ""));
          !status.isOk())
        return status;
      copy.buffers.push_back(pointer);
      Status status =
          c == 0 ? fillBuffer(i, random)
                 : call(driver.cuMemcpyDtoD(pointer, buffers()[i],
                                            buffer.bytes),
                        formatString("cuMemcpyDtoD(buffer %zu, copy %zu)", i,
                                     c));
      if (!status.isOk())
        return status;
    }
    if (Status status = prepareTensorMaps(copy); !status.isOk())
      return status;
    prepareArguments(copy);
  }

  // cuLaunchKernelEx only where a launch needs it, so that a driver
  // without it still runs the other plans.
  if (std::any_of(plan.launches.begin(), plan.launches.end(),
                  [](const PlanLaunch &launch) { return launch.hasCluster(); }))
    if (Status status = driver.openClusterLaunch(); !status.isOk())
      return status;
  return call(driver.cuCtxSynchronize(), "cuCtxSynchronize (after the fills)");
}

void PlanRunner::prepareArguments(PlanCopy &copy) const {
  for (const PlanLaunch &launch : plan.launches) {
    std::vector<uint64_t> storage(launch.args.size());
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const LaunchArg &arg = launch.args[i];
      uint64_t value = arg.value;
      if (arg.kind == LaunchArg::Kind::Buffer)
        value = copy.buffers[arg.value];
      else if (arg.kind == LaunchArg::Kind::TensorMap)
        value = copy.tensorMapBlock + arg.value * sizeof(CUtensorMap);
      if (arg.kind == LaunchArg::Kind::U32) {
        auto narrow = static_cast<uint32_t>(value);
        std::memcpy(&storage[i], &narrow, 4); // the low address holds it
      } else {
        storage[i] = value;
      }
    }
    copy.argStorage.push_back(std::move(storage));
  }
  // Pointers taken after every vector is in place (moves keep the heap
  // blocks, but this keeps it obvious). A tensor map passed by value (a
  // 128-byte parameter, checked by checkArguments) points at the map's
  // bytes instead of its slot.
  for (size_t l = 0; l < plan.launches.size(); ++l) {
    const PlanLaunch &launch = plan.launches[l];
    const PtxEntry &entry = plan.kernels[launch.kernel].ptx;
    std::vector<void *> pointers;
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const LaunchArg &arg = launch.args[i];
      bool byValue = arg.kind == LaunchArg::Kind::TensorMap &&
                     entry.paramsKnown &&
                     entry.params[i].bytes == sizeof(CUtensorMap);
      pointers.push_back(byValue ? static_cast<void *>(
                                       &copy.hostTensorMaps[arg.value])
                                 : &copy.argStorage[l][i]);
    }
    copy.argPointers.push_back(std::move(pointers));
  }
}

Status PlanRunner::prepareTensorMaps(PlanCopy &copy) {
  if (plan.tensorMaps.empty())
    return Status::ok();
  if (Status status = driver.openTensorMaps(); !status.isOk())
    return status;
  size_t bytes = plan.tensorMaps.size() * sizeof(CUtensorMap);
  if (Status status =
          call(driver.cuMemAlloc(&copy.tensorMapBlock, bytes),
               formatString("cuMemAlloc(%zu tensor maps, %zu bytes)",
                            plan.tensorMaps.size(), bytes));
      !status.isOk())
    return status;
  copy.hostTensorMaps.resize(plan.tensorMaps.size());
  for (size_t i = 0; i < plan.tensorMaps.size(); ++i) {
    const PlanTensorMap &map = plan.tensorMaps[i];
    // The plan's checks leave the encoder little to refuse; what it still
    // refuses (e.g. a rule of a newer driver) is named by the plan's line.
    CUtensorMap tensorMap = {};
    if (Status status = call(
            encodeTensorMap(driver, map, copy.buffers[map.buffer], tensorMap),
            formatString("cuTensorMapEncodeTiled(tensormap %zu, %s:%u)", i,
                         plan.planPath.c_str(), map.line));
        !status.isOk())
      return status;
    copy.hostTensorMaps[i] = tensorMap;
    CUdeviceptr address = copy.tensorMapBlock + i * sizeof(CUtensorMap);
    if (Status status =
            call(driver.cuMemcpyHtoD(address, &tensorMap, sizeof(tensorMap)),
                 formatString("cuMemcpyHtoD(tensormap %zu)", i));
        !status.isOk())
      return status;
  }
  return Status::ok();
}

Status PlanRunner::launchOne(size_t index, CUstream stream,
                             PlanCopy &copy) {
  const PlanLaunch &launch = plan.launches[index];
  void **params = copy.argPointers[index].empty()
                      ? nullptr
                      : copy.argPointers[index].data();
  CUresult result = CUDA_SUCCESS;
  if (!launch.hasCluster()) {
    result = driver.cuLaunchKernel(
        functions[launch.kernel], launch.grid[0], launch.grid[1],
        launch.grid[2], launch.block[0], launch.block[1], launch.block[2],
        launch.dynamicShared, stream, params, nullptr);
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
    config.hStream = stream;
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

Status PlanRunner::launchAll(CUstream stream, bool synchronizeEach,
                             unsigned copy) {
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    if (Status status = launchOne(i, stream, copies[copy]); !status.isOk())
      return status;
    if (synchronizeEach)
      if (Status status = call(driver.cuCtxSynchronize(),
                               "cuCtxSynchronize: " + describeLaunch(plan, i));
          !status.isOk())
        return status;
  }
  return Status::ok();
}

Status PlanRunner::fillBuffer(size_t index, std::mt19937_64 &random) {
  const PlanBuffer &buffer = plan.buffers[index];
  CUdeviceptr pointer = buffers()[index];
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

Status PlanRunner::runChecked() {
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
    if (Status status = launchAll(/*stream=*/nullptr, /*synchronizeEach=*/true); !status.isOk())
      return status;
  }
  return Status::ok();
}

Status PlanRunner::validate() {
  return evaluateChecks(
      plan,
      [&](unsigned buffer, uint64_t bytes, unsigned line,
          HostBytes &host) -> Status {
        if (!host.allocate(bytes))
          return Status::error(formatString(
              "cannot allocate %llu bytes of host memory for the check of "
              "line %u",
              static_cast<unsigned long long>(bytes), line));
        return call(driver.cuMemcpyDtoH(host.data(), buffers()[buffer], bytes),
                    formatString("cuMemcpyDtoH(buffer %u)", buffer));
      },
      report);
}

Status PlanRunner::saveBuffers(const std::string &dir, const char *option,
                               bool (*selected)(Fill fill)) {
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlanBuffer &buffer = plan.buffers[i];
    if (!selected(buffer.fill))
      continue;
    HostBytes host;
    if (!host.allocate(buffer.bytes))
      return Status::error(
          formatString("%s: cannot allocate %llu bytes of host memory",
                       option, static_cast<unsigned long long>(buffer.bytes)));
    if (Status status =
            call(driver.cuMemcpyDtoH(host.data(), buffers()[i], buffer.bytes),
                 formatString("cuMemcpyDtoH(buffer %zu)", i));
        !status.isOk())
      return status;
    std::string path = formatString("%s/buffer%zu.bin", dir.c_str(), i);
    std::FILE *file = std::fopen(path.c_str(), "wb");
    if (!file)
      return Status::error(formatString("%s: cannot write '%s': %s", option,
                                        path.c_str(), std::strerror(errno)));
    bool written =
        std::fwrite(host.data(), 1, buffer.bytes, file) == buffer.bytes;
    written = std::fclose(file) == 0 && written;
    if (!written)
      return Status::error(
          formatString("%s: cannot write '%s'", option, path.c_str()));
  }
  return Status::ok();
}

static bool isInput(Fill fill) {
  return fill != Fill::Zero && fill != Fill::Poison;
}

Status PlanRunner::saveInputs(const std::string &dir) {
  if (Status status = saveBuffers(dir, "--save-inputs", isInput);
      !status.isOk())
    return status;
  std::printf("inputs: saved to %s\n", dir.c_str());
  return Status::ok();
}

Status PlanRunner::saveOutputs(const std::string &dir) {
  if (Status status = saveBuffers(
          dir, "--save-outputs", [](Fill fill) { return !isInput(fill); });
      !status.isOk())
    return status;
  std::printf("outputs: saved to %s\n", dir.c_str());
  return Status::ok();
}

} // namespace qmmcuda
