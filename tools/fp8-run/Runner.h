//===- Runner.h - pieces of fp8-run shared by its modes ---------*- C++ -*-===//

#ifndef QMM_TOOLS_FP8RUN_RUNNER_H
#define QMM_TOOLS_FP8RUN_RUNNER_H

#include "qmm/PerfModel/PerfModel.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostQuantizer.h"
#include "qmm/Runtime/HostTensor.h"
#include "qmm/Runtime/Validation.h"
#include "qmm/Target/Chip.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace qmm {
namespace fp8run {

/// The data options (defined with the others in fp8-run.cpp).
extern llvm::cl::opt<std::string> distribution, roundingName, loadDir, saveDir;
extern llvm::cl::opt<float> minAmax;
extern llvm::cl::opt<unsigned> seed;

/// Bad input: reported on one line, exit code 2.
[[noreturn]] void fail(const llvm::Twine &message);
void failOn(llvm::Error error);

template <typename T> T orFail(llvm::Expected<T> value) {
  if (!value)
    fail(llvm::toString(value.takeError()));
  return std::move(*value);
}

/// Verifies a module fp8-run built or read; fails with the first error.
void verifyOrFail(ModuleOp module, llvm::StringRef what);

/// `count` values of the --dist distribution from one seeded stream.
std::vector<float> generate(int64_t count, unsigned streamSeed);

/// The scale rule (--rounding, or the encoding's default) and amax floor.
ScaleRounding getRounding(const OperandSpec &operand);
float getMinAmax(ScaleRounding rounding);

/// C in the output type ([spec.m, spec.n]): generated when accumulating
/// (or loaded as c.npy), zeros otherwise.
host::HostTensor prepareAccumulator(const GemmSpec &spec);

/// One operand's data: the unquantized values when known, and the
/// quantized pair.
struct OperandData {
  std::optional<std::vector<float>> highPrecision;
  host::QuantizedOperand quantized;
};

/// f32 values as a tensor of `shape`, and back.
host::HostTensor toTensor(llvm::ArrayRef<float> values,
                          llvm::ArrayRef<int64_t> shape);
std::vector<float> toFloats(const host::HostTensor &tensor);

/// Operand `name` ("a" or "b"): loaded (--load) or generated from
/// `streamSeed`, and quantized by the host quantizer unless loaded so.
OperandData prepareOperand(llvm::StringRef name, const OperandSpec &operand,
                           int64_t rows, int64_t k, unsigned streamSeed);

/// How the device's qmm.quantize agreed with the host quantizer.
struct QuantizerCheck {
  bool ran = false;
  int64_t codeMismatches = 0, codes = 0;
  int64_t scaleMismatches = 0, scales = 0;
};

/// Quantizes the operand's unquantized data with the device's qmm.quantize,
/// compares the result with the host quantizer's and keeps the device's.
void quantizeOnDevice(Device &device, ModuleOp module, llvm::StringRef function,
                      OperandData &data, const OperandSpec &operand,
                      int64_t rows, int64_t k, QuantizerCheck &check);

/// A bias per output column: generated values rounded to the bias type.
host::HostTensor generateBias(const GemmSpec &spec);

/// --save: the operands, C and D as .npy files.
void saveAll(const GemmSpec &spec, const OperandData &a, const OperandData &b,
             const host::HostTensor &c, const host::HostTensor &d);

/// One validation tier as reported.
struct Tier {
  std::string name;
  host::ErrorMetrics metrics;
  std::string criterion;
  bool pass = false;
  bool skipped = false;
};

/// The exact tier's criterion for an output of `type`: f32 within
/// 80 dB SQNR, bf16/f16 within one output ulp plus the f32 accumulation
/// bound everywhere; NaN where the reference has it and nowhere else.
void judgeExactTier(Tier &tier, ElementType type);
void printTier(const Tier &tier);
llvm::json::Object tierJson(const Tier &tier);

/// The inputs' values that are NaN or infinite (unquantized data, scales,
/// NaN codes, C, bias), by name, in input order; empty when all are finite.
llvm::SmallVector<std::pair<std::string, int64_t>>
countNonFiniteInputs(const OperandData &a, const OperandData &b,
                     const host::HostTensor &c, const host::HostTensor *bias);

/// The report's line about non-finite inputs (nothing when there are none):
/// what each holds and how outputs depending on them are judged.
void printNonFiniteInputs(
    llvm::ArrayRef<std::pair<std::string, int64_t>> counts);

/// --model, --model-only and --model-param, checked.
struct ModelRequest {
  const DeviceInfo *device = nullptr; ///< null: no model asked for
  perf::ModelParameters params;
  bool only = false; ///< compile and model; generate and run nothing
};
ModelRequest parseModelRequest(const ChipInfo &chip, bool requested,
                               llvm::StringRef deviceName, bool only,
                               llvm::ArrayRef<std::string> params);
/// Models the kernels of `module` (a qmm program); bad input on failure.
std::vector<perf::KernelPrediction> modelOrFail(ModuleOp module,
                                                const ChipInfo &chip,
                                                const ModelRequest &request,
                                                llvm::StringRef config);
llvm::json::Array
modelJson(llvm::ArrayRef<perf::KernelPrediction> predictions);
/// The predictions; with `measured` on a hip device, the measured time
/// next to them.
void printModel(llvm::ArrayRef<perf::KernelPrediction> predictions,
                const RunResult *measured, llvm::StringRef device);

/// What the grouped mode takes from the command line.
struct GroupedRun {
  unsigned groups;
  bool masked;
  unsigned seed;
  std::string device, config;
  unsigned iterations;
  bool emitIR;
  ModelRequest model;
  bool json = false; ///< with model.only
};

/// --groups: the grouped (MoE) GEMM of `spec` (per group) with
/// `run.groups` groups. Returns the exit code.
int runGrouped(MLIRContext &context, GemmSpec spec, const ChipInfo &chip,
               const GroupedRun &run);

} // namespace fp8run
} // namespace qmm
} // namespace mlir

#endif
