//===- LaunchPlan.h - a host program saved for a GPU elsewhere ---*- C++ -*-===//
//
// An NVIDIA GPU is only reachable from a machine without MLIR, so a
// compiled qmm function travels as a launch plan: its kernels' PTX, its
// buffers (inputs, scratch, results), its launches in order and the checks
// that validate the results. The host program is walked once here, by the
// same interpreter the emu and hip devices use, with a launcher that
// records instead of running; `qmm-cuda-run` (tools/, no MLIR needed)
// replays the plan on the GPU. The text format is documented in README.md
// ("Running on an H100").
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_LAUNCHPLAN_H
#define QMM_RUNTIME_LAUNCHPLAN_H

#include "qmm/Runtime/HostProgram.h"
#include "qmm/Runtime/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace qmm {

struct NVVMPipelineOptions;

struct LaunchPlan {
  struct Buffer {
    size_t bytes = 0;
    /// How the runner fills the buffer: "file" (`data`), "poison" (0xFF
    /// bytes before the validated run), or a random fill of an input's
    /// element type ("fp8e4m3", "fp8e5m2", "scale", "bf16").
    std::string fill;
    std::vector<uint8_t> data;
  };
  struct Argument {
    enum class Kind { Buffer, U32, U64, TensorMap } kind = Kind::Buffer;
    /// The buffer index, the scalar's bits or the tensor map's index.
    uint64_t value = 0;
  };
  struct Launch {
    size_t kernel = 0;
    std::array<int64_t, 3> grid{}, block{};
    /// The thread-block cluster (written only when not 1 x 1 x 1).
    std::array<int64_t, 3> cluster{1, 1, 1};
    int64_t dynamicSharedBytes = 0;
    std::vector<Argument> args;
  };
  /// A check of a result: "bounds" (per element [lo, hi] pairs), "sqnr"
  /// (reference values, pass at >= threshold dB) or "calc_diff" (reference
  /// values, pass below threshold).
  /// FP8 results are checked as code x scale: `buffer` holds [rows,
  /// columns] codes, row-major, whose blocks of `blockColumns` columns
  /// take their scale from [rows, ceil(columns / blockColumns)] in
  /// `scalesBuffer` (of `scaleElement`, f32 or f8E8M0FNU).
  struct Scaling {
    size_t buffer = 0, scalesBuffer = 0;
    std::string scaleElement;
    int64_t rows = 0, columns = 0, blockColumns = 0;
  };
  struct Check {
    size_t buffer = 0;
    /// f32, bf16, f16, f8E8M0FNU (scales), or f8E4M3FN / f8E5M2 (codes
    /// of a buffer with a Scaling, judged as code x scale)
    std::string element;
    size_t count = 0;
    std::string tier, kind;
    double threshold = 0;
    std::vector<double> data;
    std::string label;
  };

  std::string chip, program;
  double flops = 0;
  std::vector<std::string> modules; ///< PTX text per gpu.module
  /// Per kernel: its module's index and its entry name.
  std::vector<std::pair<size_t, std::string>> kernels;
  std::vector<Buffer> buffers;
  /// TMA tensor maps of the buffers, encoded by the runner
  /// (cuTensorMapEncodeTiled) and passed as pointers to device copies.
  std::vector<HostTensorMap> tensorMaps;
  std::vector<Launch> launches;
  /// The buffers function `program` returns, in order.
  std::vector<size_t> results;
  std::vector<Scaling> scalings;
  std::vector<Check> checks;
};

/// Walks host function `function` of `lowered` (the NVIDIA pipeline's
/// format `gpu`) on `args`, compiling each launched kernel's gpu.module
/// with `options` and recording the launches. With `withData`, the inputs
/// travel as files; without, as random fills of their element type (for
/// benchmarks of sizes whose data would not travel), but for integer
/// inputs (a grouped matmul's row groups), which travel as files. Fails
/// on host code a plan cannot replay (host copies after a launch).
llvm::Expected<LaunchPlan>
recordLaunchPlan(ModuleOp lowered, llvm::StringRef function,
                 llvm::ArrayRef<const host::HostTensor *> args,
                 const NVVMPipelineOptions &options, bool withData);

/// Writes `plan` to directory `dir` (created): plan.txt, kernel<i>.ptx,
/// buffer<i>.bin and check<i>.f64.
llvm::Error writeLaunchPlan(const LaunchPlan &plan, llvm::StringRef dir);

} // namespace qmm
} // namespace mlir

#endif
