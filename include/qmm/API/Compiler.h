//===- Compiler.h - embedding the qmm compiler ------------------*- C++ -*-===//
//
// The compiler as a library: a qmm program (a module of func.func around
// qmm ops) in, for a chip, code objects and everything a runtime needs to
// launch them out. Errors come back as llvm::Error values carrying the
// diagnostics; nothing is printed and nothing aborts.
//
//   mlir::qmm::api::CompileOptions options;
//   options.chip = "gfx950";
//   llvm::Expected<mlir::qmm::api::CompiledProgram> program =
//       mlir::qmm::api::compile(sourceText, options);
//   if (!program) { report(llvm::toString(program.takeError())); ... }
//   for (auto &kernel : program->kernels) load(kernel.codeObject);
//
//===----------------------------------------------------------------------===//

#ifndef QMM_API_COMPILER_H
#define QMM_API_COMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;

namespace qmm {
namespace api {

struct CompileOptions {
  /// gfx942 (MI300) or gfx950 (MI350/MI355).
  std::string chip = "gfx942";
  /// A #qmm.config<...> forced on every matmul; empty: the heuristic.
  std::string config;
};

/// What the backend reports for one kernel (AMDHSA metadata).
struct KernelResourceUsage {
  int vgprs = 0, agprs = 0, sgprs = 0;
  int vgprSpills = 0, sgprSpills = 0;
  int64_t ldsBytes = 0, scratchBytes = 0;
  /// Waves per SIMD with these resources.
  int occupancy = 0;
};

/// One kernel: its symbol in the code object, its arguments in order (MLIR
/// types: memrefs are passed as bare device pointers, scalars by value),
/// its resources and its code object (an AMDGPU ELF, hsaco).
struct Kernel {
  std::string module;
  std::string name;
  std::vector<std::string> argumentTypes;
  KernelResourceUsage resources;
  std::vector<uint8_t> codeObject;
};

/// One kernel launch of a host function, in program order.
struct Launch {
  /// Index into CompiledProgram::kernels.
  size_t kernel = 0;
  /// Workgroups; -1 where the extent is known only at run time (a dynamic
  /// M), which gridExpressions then spells out.
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// Each grid extent as a constant or an expression of the arguments'
  /// extents: "2", "dim(arg0, 0) ceildiv 128".
  std::array<std::string, 3> gridExpressions;
  std::array<int64_t, 3> block = {1, 1, 1};
  /// Each argument's source in the host function: "arg<N>" for the
  /// function's N-th argument (a dynamic one passed as its base pointer
  /// too), "alloc<N>" for its N-th temporary buffer, "dim(arg<N>, d)" for
  /// a dynamic extent, or a constant's value.
  std::vector<std::string> arguments;
  /// What must hold for the host function to reach the launch, outermost
  /// first: the conditions of the scf.if ops around it ("dim(arg0, 0) ugt
  /// 0", or "!(dim(arg0, 0) ule 64)" in an else branch: a matmul versioned
  /// by a dynamic M); empty when it always runs.
  std::vector<std::string> conditions;
};

/// A buffer the host function allocates ("alloc<N>" in launch arguments):
/// a temporary, freed after its last launch, or one of its results.
struct Temporary {
  std::string type;
  /// Whether it must be zero before the first launch (gpu.memset to 0 in
  /// the host function: split-K's arrival counters).
  bool zeroed = false;
};

/// One host function of the program (a qmm function after compilation).
struct HostFunction {
  std::string name;
  /// Types of its arguments and results (memrefs).
  std::vector<std::string> argumentTypes, resultTypes;
  std::vector<Temporary> temporaries;
  std::vector<Launch> launches;
};

struct CompiledProgram {
  std::string chip;
  std::vector<Kernel> kernels;
  std::vector<HostFunction> functions;
  /// The program after the AMD pipeline, as GPU-level IR (what the
  /// emulator runs and the kernels were compiled from).
  std::string gpuIR;
};

/// Compiles `module` (not modified). Its context must have the qmm
/// dialects loaded (see registerDialects). A launch whose extents the chip
/// cannot take (a grid past HIP's limits, for a GEMM too large) is an
/// error; extents known only at run time are left to the runtime.
llvm::Expected<CompiledProgram> compile(ModuleOp module,
                                        const CompileOptions &options);

/// Parses `source` (MLIR text; diagnostics name it `sourceName`) in a
/// context of its own and compiles it.
llvm::Expected<CompiledProgram> compile(llvm::StringRef source,
                                        const CompileOptions &options,
                                        llvm::StringRef sourceName = "<source>");

/// Adds every dialect, extension and translation compile() needs.
void registerDialects(DialectRegistry &registry);

/// Registers the upstream and qmm passes and pipelines (once; the textual
/// pipelines the devices build need them). compile() does it itself.
void registerPasses();

} // namespace api
} // namespace qmm
} // namespace mlir

#endif
