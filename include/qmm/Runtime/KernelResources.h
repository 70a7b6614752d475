//===- KernelResources.h - what a code object's kernel uses -----*- C++ -*-===//

#ifndef QMM_RUNTIME_KERNELRESOURCES_H
#define QMM_RUNTIME_KERNELRESOURCES_H

#include "qmm/Target/Chip.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace mlir {
namespace qmm {

/// Register, LDS and scratch use of one kernel, read from the AMDHSA
/// metadata the backend writes into the code object.
struct KernelResources {
  int vgprs = 0, agprs = 0, sgprs = 0;
  int vgprSpills = 0, sgprSpills = 0;
  int64_t ldsBytes = 0, scratchBytes = 0;
  int wavesPerWorkgroup = 1;
  /// Waves per SIMD (ChipInfo::getOccupancy).
  int occupancy = 0;

  std::string format() const;
};

/// Compiles every gpu.module of `module` (GPU-level IR) for `chip` to
/// assembly and reads each kernel's resources, keyed "module::kernel".
llvm::Expected<std::map<std::string, KernelResources>>
getKernelResources(ModuleOp module, const ChipInfo &chip);

} // namespace qmm
} // namespace mlir

#endif
