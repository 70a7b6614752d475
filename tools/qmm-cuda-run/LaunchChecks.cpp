//===- LaunchChecks.cpp - launches against their kernels' PTX -------------===//
//
// Sources: the PTX ISA's performance-tuning and cluster directives
// (.maxntid, .reqntid, .reqnctapercluster, .explicitcluster,
// .maxclusterrank) and the CUDA C++ programming guide's limits per compute
// capability (static shared memory at most 48 KiB; 227 KiB of shared
// memory per block on 9.0).
//
// .maxntid is read as the block a kernel is compiled for, not only as a
// bound: the PTX these plans carry comes from MLIR, which writes a
// kernel's gpu.known_block_size (a promise that every launch has exactly
// that block, which the code may rely on: qmm's wgmma kernel gives each of
// its three warpgroups a role) as .maxntid. A smaller block launches and
// then hangs or computes garbage.
//
//===----------------------------------------------------------------------===//

#include "LaunchChecks.h"

namespace qmmcuda {

/// A CUtensorMap passed by value.
constexpr unsigned kTensorMapParamBytes = 128;

namespace {

/// "'matmul' in 'kernel0.ptx'", as the messages name a kernel.
std::string describeKernel(const Plan &plan, const PlanKernel &kernel) {
  return formatString("'%s' in '%s'", kernel.entry.c_str(),
                      plan.modules[kernel.module].file.c_str());
}

std::string formatShape(const uint32_t dims[3]) {
  return formatString("%ux%ux%u", dims[0], dims[1], dims[2]);
}

std::string describeArgument(const LaunchArg &arg) {
  switch (arg.kind) {
  case LaunchArg::Kind::Buffer:
    return formatString("buffer %llu",
                        static_cast<unsigned long long>(arg.value));
  case LaunchArg::Kind::TensorMap:
    return formatString("tensor map %llu",
                        static_cast<unsigned long long>(arg.value));
  default:
    return "a value";
  }
}

Status checkArguments(const Plan &plan, const PlanLaunch &launch,
                      const std::vector<std::string> &argTexts) {
  const PlanKernel &kernel = plan.kernels[launch.kernel];
  const PtxEntry &entry = kernel.ptx;
  if (!entry.paramsKnown)
    return Status::ok();
  std::string name = describeKernel(plan, kernel);
  if (entry.params.size() != launch.args.size())
    return Status::error(formatString(
        "launch: %s takes %zu parameters, the launch passes %zu",
        name.c_str(), entry.params.size(), launch.args.size()));
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const LaunchArg &arg = launch.args[i];
    const PtxParam &param = entry.params[i];
    const char *text = argTexts[i].c_str();
    // A tensor map goes by value to a 128-byte parameter (CUDA's
    // __grid_constant__ CUtensorMap), else as its device copy's address.
    bool mapByValue = arg.kind == LaunchArg::Kind::TensorMap &&
                      param.bytes == kTensorMapParamBytes;
    if (param.bytes != arg.bytes() && !mapByValue)
      return Status::error(formatString(
          "launch argument %zu: '%s' passes %u bytes, parameter %zu of %s "
          "has %u%s",
          i, text, arg.bytes(), i, name.c_str(), param.bytes,
          arg.kind == LaunchArg::Kind::TensorMap
              ? " (a tensor map goes to a parameter of 8 bytes, its "
                "address, or 128, its bytes)"
          : param.bytes == kTensorMapParamBytes && param.isTensorMap()
              ? " (a tensor map by value): expected t<tensormap>"
              : ""));
    // Buffers and tensor maps are both device addresses of 8 bytes: only
    // the code tells them apart.
    if (arg.kind == LaunchArg::Kind::TensorMap && param.isPlain())
      return Status::error(formatString(
          "launch argument %zu: '%s' passes %s, but parameter %zu of %s is "
          "not a tensor map (its code reads it, never as the tensor-map "
          "operand of a TMA instruction)",
          i, text, describeArgument(arg).c_str(), i, name.c_str()));
    if (arg.kind != LaunchArg::Kind::TensorMap && param.isTensorMap())
      return Status::error(formatString(
          "launch argument %zu: '%s' passes %s, but parameter %zu of %s is "
          "a tensor map (its code reads it only as the tensor-map operand "
          "of TMA instructions): expected t<tensormap>",
          i, text, describeArgument(arg).c_str(), i, name.c_str()));
    // No address of the plan's own device memory is known when it is
    // written; 0 is a null pointer.
    if (arg.kind == LaunchArg::Kind::U64 && param.pointer && arg.value != 0)
      return Status::error(formatString(
          "launch argument %zu: '%s' passes a value, but parameter %zu of %s "
          "is a pointer (.ptr): expected b<buffer>, t<tensormap> or u64:0",
          i, text, i, name.c_str()));
  }
  return Status::ok();
}

Status checkBlock(const Plan &plan, const PlanLaunch &launch) {
  const PlanKernel &kernel = plan.kernels[launch.kernel];
  const PtxEntry &entry = kernel.ptx;
  std::string name = describeKernel(plan, kernel);
  std::string block = formatShape(launch.block);
  if (entry.reqntid.declared && !entry.reqntid.equals(launch.block))
    return Status::error(formatString(
        "launch: a block of %s threads, but %s requires %s (.reqntid)",
        block.c_str(), name.c_str(), formatShape(entry.reqntid.dims).c_str()));
  if (entry.maxntid.declared && !entry.maxntid.equals(launch.block))
    return Status::error(formatString(
        "launch: a block of %s threads, but %s is compiled for blocks of %s "
        "(.maxntid)",
        block.c_str(), name.c_str(), formatShape(entry.maxntid.dims).c_str()));
  return Status::ok();
}

Status checkCluster(const Plan &plan, const PlanLaunch &launch) {
  const PlanKernel &kernel = plan.kernels[launch.kernel];
  const PtxEntry &entry = kernel.ptx;
  std::string name = describeKernel(plan, kernel);
  const uint32_t *shape = launch.cluster;
  if (entry.reqCluster.declared) {
    // Without a cluster suffix the driver takes the entry's own shape.
    if (launch.hasCluster() && !entry.reqCluster.equals(launch.cluster))
      return Status::error(formatString(
          "launch: a cluster of %s blocks, but %s requires %s "
          "(.reqnctapercluster)",
          formatShape(launch.cluster).c_str(), name.c_str(),
          formatShape(entry.reqCluster.dims).c_str()));
    static const char axes[] = "xyz";
    for (size_t i = 0; i < 3; ++i)
      if (launch.grid[i] % entry.reqCluster.dims[i] != 0)
        return Status::error(formatString(
            "launch: grid %c %u is not a multiple of %u, the cluster %c that "
            "%s requires (.reqnctapercluster)",
            axes[i], launch.grid[i], entry.reqCluster.dims[i], axes[i],
            name.c_str()));
    shape = entry.reqCluster.dims;
  } else if (entry.explicitCluster && !launch.hasCluster()) {
    return Status::error(formatString(
        "launch: %s must be launched with a cluster shape (.explicitcluster), "
        "the launch has none ('cluster 1 1 1' launches without clusters)",
        name.c_str()));
  }
  uint64_t blocks = uint64_t(shape[0]) * shape[1] * shape[2];
  if (entry.maxClusterRank && blocks > entry.maxClusterRank)
    return Status::error(formatString(
        "launch: a cluster of %llu blocks, over the %u of %s "
        "(.maxclusterrank)",
        static_cast<unsigned long long>(blocks), entry.maxClusterRank,
        name.c_str()));
  return Status::ok();
}

Status checkSharedMemory(const Plan &plan, const PlanLaunch &launch) {
  const PlanKernel &kernel = plan.kernels[launch.kernel];
  const PtxEntry &entry = kernel.ptx;
  std::string name = describeKernel(plan, kernel);
  if (!entry.dynamicShared.empty() && launch.dynamicShared == 0)
    return Status::error(formatString(
        "launch: %s uses dynamic shared memory ('%s'), the launch gives it 0 "
        "bytes",
        name.c_str(), entry.dynamicShared.c_str()));
  uint64_t total = entry.staticSharedBytes + launch.dynamicShared;
  uint32_t limit = getMaxSharedBytesPerBlock(plan);
  if (limit && total > limit)
    return Status::error(formatString(
        "launch: %u bytes of dynamic shared memory and %llu of static (%s), "
        "%llu in all, over the %u bytes a block may use on %s",
        launch.dynamicShared,
        static_cast<unsigned long long>(entry.staticSharedBytes),
        name.c_str(), static_cast<unsigned long long>(total), limit,
        plan.chip.c_str()));
  return Status::ok();
}

} // namespace

uint32_t getMaxSharedBytesPerBlock(const Plan &plan) {
  // Compute capability 9.0 (H100, H200): 227 KiB.
  if (plan.ccMajor == 9 && plan.ccMinor == 0)
    return 227 * 1024;
  return 0;
}

Status checkKernelDeclarations(const Plan &plan, const PlanKernel &kernel,
                               size_t index) {
  if (kernel.ptx.staticSharedBytes > kMaxStaticSharedBytes)
    return Status::error(formatString(
        "kernel %zu: %s declares %llu bytes of static shared memory, over "
        "CUDA's %llu (more must be dynamic)",
        index, describeKernel(plan, kernel).c_str(),
        static_cast<unsigned long long>(kernel.ptx.staticSharedBytes),
        static_cast<unsigned long long>(kMaxStaticSharedBytes)));
  return Status::ok();
}

Status checkLaunch(const Plan &plan, const PlanLaunch &launch,
                   const std::vector<std::string> &argTexts) {
  if (Status status = checkArguments(plan, launch, argTexts); !status.isOk())
    return status;
  for (Status (*check)(const Plan &, const PlanLaunch &) :
       {checkBlock, checkCluster, checkSharedMemory})
    if (Status status = check(plan, launch); !status.isOk())
      return status;
  return Status::ok();
}

} // namespace qmmcuda
