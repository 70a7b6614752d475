//===- KernelResources.cpp - what a code object's kernel uses -------------===//

#include "qmm/Runtime/KernelResources.h"
#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qmm;

std::string KernelResources::format() const {
  return llvm::formatv("  code object: {0} VGPR, {1} AGPR, {2} SGPR, spills "
                       "{3} VGPR / {4} SGPR, scratch {5} bytes, LDS {6} "
                       "bytes, occupancy {7} waves/SIMD\n",
                       vgprs, agprs, sgprs, vgprSpills, sgprSpills,
                       scratchBytes, ldsBytes, occupancy)
      .str();
}

/// The integer after `.key:` in the kernel's metadata, or -1.
static int64_t readMetadata(llvm::StringRef isa, llvm::StringRef key) {
  std::string needle = ("." + key + ":").str();
  size_t at = isa.find(needle);
  if (at == llvm::StringRef::npos)
    return -1;
  llvm::StringRef rest = isa.drop_front(at + needle.size()).ltrim();
  int64_t value;
  if (rest.consumeInteger(10, value))
    return -1;
  return value;
}

llvm::Expected<std::map<std::string, KernelResources>>
qmm::getKernelResources(ModuleOp module, const ChipInfo &chip) {
  OwningOpRef<ModuleOp> clone = module.clone();
  if (llvm::Error error = runGPUToBinary(*clone, chip.name, "isa"))
    return std::move(error);
  std::map<std::string, KernelResources> result;
  for (auto binary : clone->getOps<gpu::BinaryOp>()) {
    llvm::StringRef isa;
    for (Attribute object : binary.getObjects())
      isa = cast<gpu::ObjectAttr>(object).getObject().getValue();
    // The kernels of the module this binary came from.
    auto original = module.lookupSymbol<gpu::GPUModuleOp>(binary.getName());
    if (!original)
      continue;
    for (auto kernel : original.getOps<gpu::GPUFuncOp>()) {
      if (!kernel.isKernel())
        continue;
      KernelResources r;
      r.vgprs = readMetadata(isa, "vgpr_count");
      r.agprs = std::max<int64_t>(0, readMetadata(isa, "agpr_count"));
      r.sgprs = readMetadata(isa, "sgpr_count");
      r.vgprSpills = readMetadata(isa, "vgpr_spill_count");
      r.sgprSpills = readMetadata(isa, "sgpr_spill_count");
      r.ldsBytes = readMetadata(isa, "group_segment_fixed_size");
      r.scratchBytes = readMetadata(isa, "private_segment_fixed_size");
      if (r.vgprs < 0 || r.sgprs < 0 || r.ldsBytes < 0 || r.scratchBytes < 0)
        return llvm::createStringError(
            "no AMDHSA kernel metadata in the assembly of @%s",
            binary.getName().str().c_str());
      int64_t threads = readMetadata(isa, "max_flat_workgroup_size");
      if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize())
        threads = int64_t((*known)[0]) * (*known)[1] * (*known)[2];
      r.wavesPerWorkgroup =
          int(std::max<int64_t>(1, (threads + chip.waveSize - 1) /
                                       chip.waveSize));
      r.occupancy = chip.getOccupancy(r.vgprs, r.agprs, r.ldsBytes,
                                      r.wavesPerWorkgroup);
      result[(binary.getName() + "::" + kernel.getName()).str()] = r;
    }
  }
  return result;
}
