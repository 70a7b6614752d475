//===- Fill.h - the host data of a plan's buffers ---------------*- C++ -*-===//

#ifndef QMM_CUDA_RUN_FILL_H
#define QMM_CUDA_RUN_FILL_H

#include "Plan.h"

#include <random>

namespace qmmcuda {

/// Whether the buffer's fill is made on the host and uploaded (file and
/// random fills); zero and poison are device memsets.
bool isHostFill(Fill fill);

/// Makes the bytes of a host fill: the file's contents or random values
/// drawn from \p random (buffers draw in index order, so a seed fixes all).
Status makeHostFill(const PlanBuffer &buffer, std::mt19937_64 &random,
                    HostBytes &bytes);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_FILL_H
