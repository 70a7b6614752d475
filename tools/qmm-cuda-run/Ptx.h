//===- Ptx.h - what a PTX entry declares and how it uses its params -*- C++ -*-===//
//
// Just enough of PTX to check a plan's launches against the kernels they
// launch before any GPU work: the .param list (count, sizes, .ptr), the
// launch directives (.maxntid, .reqntid, .reqnctapercluster,
// .explicitcluster, .maxclusterrank), the shared memory the entry
// references, and which parameters its code uses as TMA tensor maps. A
// launch that contradicts them would pass garbage to the GPU or run code
// built for another block, often silently or as a hang.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_PTX_H
#define QMM_CUDA_RUN_PTX_H

#include <cstdint>
#include <string>
#include <vector>

namespace qmmcuda {

enum class EntryLookup {
  Found,    // the entry and the byte size of each of its parameters
  Unparsed, // the entry, with a parameter list of a form not understood
  Missing,  // no `.entry <name>`
};

struct PtxParam {
  std::string name;
  unsigned bytes = 0;
  /// Declared with the `.ptr` attribute: a pointer (LLVM's NVPTX backend
  /// writes it on every pointer parameter of a kernel).
  bool pointer = false;
  /// Its value (after copies) is the tensor-map operand of a TMA
  /// instruction (cp.async.bulk.tensor, prefetch.tensormap,
  /// fence.proxy.tensormap, ...), or takes part in anything else.
  bool usedAsTensorMap = false;
  bool usedOtherwise = false;

  bool isTensorMap() const { return usedAsTensorMap && !usedOtherwise; }
  bool isPlain() const { return usedOtherwise && !usedAsTensorMap; }
};

/// An x, y, z directive; missing trailing extents are 1.
struct PtxShape {
  bool declared = false;
  uint32_t dims[3] = {1, 1, 1};

  uint64_t count() const { return uint64_t(dims[0]) * dims[1] * dims[2]; }
  bool equals(const uint32_t other[3]) const {
    return dims[0] == other[0] && dims[1] == other[1] && dims[2] == other[2];
  }
};

struct PtxEntry {
  std::vector<PtxParam> params;
  /// False when the parameter list has a form the scanner does not know:
  /// then only the name is checked (by the driver).
  bool paramsKnown = false;
  PtxShape maxntid, reqntid, reqCluster;
  bool explicitCluster = false;
  uint32_t maxClusterRank = 0; // 0: not declared
  /// The .shared variables the entry declares or references, in bytes
  /// (alignment padding left out).
  uint64_t staticSharedBytes = 0;
  /// The `.extern .shared` array (dynamic shared memory) it references, if
  /// any.
  std::string dynamicShared;
};

/// Finds `.entry <name>` in \p ptx and reads what it declares.
EntryLookup findPtxEntry(const std::string &ptx, const std::string &name,
                         PtxEntry &entry);

/// For --dry-run: "6 parameters: 8 8 8 8 8 8 bytes; tensor maps at 0 1 5;
/// .maxntid 384x1x1; dynamic shared memory (name)", the parts that apply;
/// "unchecked" for a parameter list not understood.
std::string describePtxEntry(const PtxEntry &entry);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_PTX_H
