//===- TensorMap.h - the TMA tensor maps of a launch plan -------*- C++ -*-===//
//
// A 'tensormap' statement describes a CUtensorMap over part of a buffer
// (Plan.cpp has the syntax). Its fields are checked here against the rules
// of cuTensorMapEncodeTiled and the buffer's size, so that a bad map is a
// plan error on any machine, not a CUDA_ERROR_INVALID_VALUE on the GPU one.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_TENSORMAP_H
#define QMM_CUDA_RUN_TENSORMAP_H

#include "CudaDriver.h"
#include "Plan.h"

#include <string>
#include <vector>

namespace qmmcuda {

/// Parses a whole 'tensormap' statement's \p tokens from <byte-offset> on
/// (tokens[3], ...) into \p map, whose buffer the caller has checked and
/// set, and checks them against \p bufferBytes. The message starts with
/// "tensormap <index>: "; the caller adds the plan's path and line.
Status parseTensorMapFields(const std::vector<std::string> &tokens,
                            unsigned index, uint64_t bufferBytes,
                            PlanTensorMap &map);

const char *getTensorMapElementName(TensorMapElement element);
unsigned getTensorMapElementBytes(TensorMapElement element);
/// "none", "32", "64" or "128", as the plan spells it.
const char *getTensorMapSwizzleName(TensorMapSwizzle swizzle);

/// For --dry-run, e.g. "buffer 1 +0 u8 rank 2 dims 4096x4096 strides 4096
/// box 128x128 swizzle 128".
std::string describeTensorMap(const PlanTensorMap &map);

/// Encodes \p map over the buffer at \p bufferAddress on the device with
/// the fixed parameters (element strides 1, no interleave, L2 promotion
/// 256B, out-of-bounds elements read as zero). driver.openTensorMaps() must
/// have succeeded.
CUresult encodeTensorMap(const CudaDriver &driver, const PlanTensorMap &map,
                         CUdeviceptr bufferAddress, CUtensorMap &tensorMap);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_TENSORMAP_H
