//===- Ptx.h - the parameters of a PTX entry --------------------*- C++ -*-===//
//
// Just enough of PTX to check a plan's launches against the kernels they
// launch: a launch whose arguments do not match the .param list would pass
// garbage to the GPU silently, so the dry run (no driver) catches it.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_PTX_H
#define QMM_CUDA_RUN_PTX_H

#include <string>
#include <vector>

namespace qmmcuda {

enum class EntryLookup {
  Found,    // the entry and the byte size of each of its parameters
  Unparsed, // the entry, with a parameter list of a form not understood
  Missing,  // no `.entry <name>`
};

/// Finds `.entry <name>` in \p ptx and the sizes of its parameters.
EntryLookup findPtxEntry(const std::string &ptx, const std::string &name,
                         std::vector<unsigned> &paramSizes);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_PTX_H
