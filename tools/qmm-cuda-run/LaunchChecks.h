//===- LaunchChecks.h - launches against their kernels' PTX -----*- C++ -*-===//
//
// What makes a launch unable to run correctly, found before any GPU work
// (so by --dry-run too): arguments that do not match the entry's
// parameters (count, size, tensor map or not), a block or cluster shape
// that the entry's directives rule out, and shared memory past what it
// declares or what a block of the plan's chip may use.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_LAUNCHCHECKS_H
#define QMM_CUDA_RUN_LAUNCHCHECKS_H

#include "Plan.h"

#include <string>
#include <vector>

namespace qmmcuda {

/// The most static shared memory a kernel may declare (CUDA's 48 KiB on
/// every chip; more must be dynamic, after an opt-in).
constexpr uint64_t kMaxStaticSharedBytes = 48 * 1024;

/// Checks what \p kernel's entry declares by itself. The message starts
/// with "kernel <index>: "; the caller adds the plan's path and line.
Status checkKernelDeclarations(const Plan &plan, const PlanKernel &kernel,
                               size_t index);

/// Checks \p launch, whose arguments the plan spells \p argTexts, against
/// its kernel's entry and the limits of \p plan's chip. The message starts
/// with "launch"; the caller adds the plan's path and line.
Status checkLaunch(const Plan &plan, const PlanLaunch &launch,
                   const std::vector<std::string> &argTexts);

/// The most shared memory (static and dynamic) one block may use on the
/// plan's chip, after the opt-in; 0 where the runner does not know it.
uint32_t getMaxSharedBytesPerBlock(const Plan &plan);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_LAUNCHCHECKS_H
