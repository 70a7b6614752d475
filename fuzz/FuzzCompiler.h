//===- FuzzCompiler.h - what the fuzz targets do with a program -*- C++ -*-===//
//
// The part of the compiler the libFuzzer targets exercise: parsing,
// verification, the cpu pipeline and the AMD pipeline for both chips.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_FUZZ_FUZZCOMPILER_H
#define QMM_FUZZ_FUZZCOMPILER_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace qmm {
namespace fuzz {

/// Registers the passes and pipelines, reads QMM_FUZZ_AMD_FORMAT (the AMD
/// pipeline's format: gpu, the default, llvm or isa) and compiles one small
/// program so that one-time initialization is not attributed to the first
/// input. Call once, from LLVMFuzzerInitialize.
void initializeCompiler();

/// Parses `text` as MLIR (qmm and every upstream dialect registered, as in
/// fp8-opt) in a fresh context, and when it verifies runs the cpu pipeline
/// (unless the module already holds gpu dialect ops) and the AMD pipeline
/// for gfx942 and for gfx950, each on its own clone of the module. Diagnostics are dropped: rejecting a program is a correct
/// outcome. Aborts, naming the pass, when a pass that succeeded leaves IR
/// that does not verify; crashes, aborts, fatal errors and hangs are
/// libFuzzer's findings.
void compileForFuzzing(llvm::StringRef text);

} // namespace fuzz
} // namespace qmm
} // namespace mlir

#endif // QMM_FUZZ_FUZZCOMPILER_H
