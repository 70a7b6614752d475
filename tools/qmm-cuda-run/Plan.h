//===- Plan.h - the launch plan that qmm-cuda-run executes ------*- C++ -*-===//
//
// A saved plan is a directory: plan.txt (the format below, version 1), the
// PTX modules, input data and validation data. Plan.cpp describes the line
// syntax.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_PLAN_H
#define QMM_CUDA_RUN_PLAN_H

#include "Ptx.h"
#include "Support.h"

#include <cstdint>
#include <string>
#include <vector>

namespace qmmcuda {

/// How a buffer is initialized before the runs.
enum class Fill { File, Zero, Poison, Fp8E4M3, Fp8E5M2, Scale, Bf16 };

/// The element type of a checked output buffer: f32, bf16, f16, FP8 codes
/// (judged as code x scale, see PlanScaling) and E8M0 scales.
enum class ElementType { F32, Bf16, F16, F8E4M3FN, F8E5M2, F8E8M0FNU };

enum class CheckKind { Bounds, Sqnr, CalcDiff };

/// The element type of a TMA tensor map (a subset of CUtensorMapDataType;
/// FP8 data travels as U8).
enum class TensorMapElement { U8, U16, U32, F16, Bf16, F32 };

/// The shared-memory swizzle of a tensor map's boxes.
enum class TensorMapSwizzle { None, B32, B64, B128 };

/// The most dimensions cuTensorMapEncodeTiled takes.
constexpr unsigned kMaxTensorMapRank = 5;

/// The most blocks in a thread-block cluster that every GPU with clusters
/// runs (larger, non-portable sizes need a per-kernel opt-in).
constexpr unsigned kMaxPortableClusterBlocks = 8;

struct PlanModule {
  unsigned line = 0;
  std::string file; // as written in the plan, relative to the plan directory
  std::string path; // the path to open
  std::string ptx;  // loaded by loadPlan (null-terminated by std::string)
};

struct PlanKernel {
  unsigned line = 0;
  unsigned module = 0;
  std::string entry;
  /// What the entry declares (parameters, launch directives, shared
  /// memory) and which parameters its code uses as tensor maps: the
  /// launches are checked against it.
  PtxEntry ptx;
  /// The largest dynamic shared memory of its launches (> 48 KiB needs an
  /// opt-in through cuFuncSetAttribute).
  uint32_t maxDynamicShared = 0;
};

struct PlanBuffer {
  unsigned line = 0;
  uint64_t bytes = 0;
  Fill fill = Fill::Zero;
  std::string file, path; // for Fill::File only
};

/// A TMA tensor map over part of a buffer, encoded at run time (it holds
/// the buffer's device address) and passed to kernels by a pointer to its
/// own 128-byte device copy. The arrays are innermost dimension first, the
/// order cuTensorMapEncodeTiled takes; entries past the rank are unused.
struct PlanTensorMap {
  unsigned line = 0;
  unsigned buffer = 0;
  uint64_t offset = 0; // bytes into the buffer, a multiple of 16
  TensorMapElement element = TensorMapElement::U8;
  unsigned rank = 0;
  uint64_t dims[kMaxTensorMapRank] = {};
  /// The byte strides of dimensions 1 .. rank-1 (dimension 0 is dense).
  uint64_t strides[kMaxTensorMapRank - 1] = {};
  uint32_t box[kMaxTensorMapRank] = {};
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
};

struct LaunchArg {
  enum class Kind { Buffer, U64, U32, TensorMap };
  Kind kind = Kind::U64;
  /// The buffer index for Kind::Buffer, the tensor map's for Kind::TensorMap
  /// (a device pointer either way), else the value itself.
  uint64_t value = 0;
  unsigned bytes() const { return kind == Kind::U32 ? 4 : 8; }
};

struct PlanLaunch {
  unsigned line = 0;
  unsigned kernel = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t dynamicShared = 0;
  std::vector<LaunchArg> args;
  /// The thread-block cluster shape (sm_90 on); each extent divides the
  /// grid's. 1x1x1, the default, launches without clusters.
  uint32_t cluster[3] = {1, 1, 1};

  bool hasCluster() const {
    return uint64_t(cluster[0]) * cluster[1] * cluster[2] > 1;
  }
};

/// A buffer of FP8 codes [rows, columns] (row-major) whose checks judge
/// code x scale: each row's block of `blockColumns` columns takes its
/// scale from [rows, ceil(columns / blockColumns)] in `scalesBuffer`.
struct PlanScaling {
  unsigned line = 0;
  unsigned buffer = 0, scalesBuffer = 0;
  ElementType scaleElement = ElementType::F32; // F32 or F8E8M0FNU
  uint64_t rows = 0, columns = 0, blockColumns = 0;
  uint64_t scalesPerRow() const {
    return (columns + blockColumns - 1) / blockColumns;
  }
};

struct PlanCheck {
  unsigned line = 0;
  unsigned buffer = 0;
  /// The scaling of an FP8 buffer (index into Plan::scalings), or -1.
  int scaling = -1;
  ElementType element = ElementType::F32;
  uint64_t count = 0;
  std::string tier; // "exact" or "quality"
  CheckKind kind = CheckKind::Bounds;
  double threshold = 0;
  std::string file, path;
  std::string label;
};

struct Plan {
  std::string dir;
  std::string planPath; // dir/plan.txt, the name in diagnostics
  std::string program;
  std::string chip; // e.g. sm_90a
  unsigned ccMajor = 0, ccMinor = 0;
  bool archSpecific = false; // the 'a' suffix: exactly this compute capability
  double flops = 0;
  bool hasFlops = false;
  std::vector<PlanModule> modules;
  std::vector<PlanKernel> kernels;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanTensorMap> tensorMaps;
  std::vector<PlanLaunch> launches;
  std::vector<PlanScaling> scalings;
  std::vector<PlanCheck> checks;

  uint64_t totalBufferBytes() const;
};

/// Parses DIR/plan.txt and checks it and every file it names: indices,
/// ranges, file sizes, and each launch's arguments against the parameters
/// of its PTX entry. Touches no GPU. Loads the PTX text into the modules.
Status loadPlan(const std::string &dir, Plan &plan);

/// "launch I (kernel 'NAME', DIR/plan.txt:LINE)", for diagnostics.
std::string describeLaunch(const Plan &plan, size_t index);

const char *getFillName(Fill fill);
const char *getElementName(ElementType element);
unsigned getElementBytes(ElementType element);
const char *getCheckKindName(CheckKind kind);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_PLAN_H
