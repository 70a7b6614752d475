//===- GemmProgram.h - the GEMM a runner executes ---------------*- C++ -*-===//
//
// One description of a quantized GEMM shared by the IR generator, the host
// quantizer, the references and every device: shapes, element types, scale
// encodings, layouts, and the argument order of the function that computes
// it.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_RUNTIME_GEMMPROGRAM_H
#define QMM_RUNTIME_GEMMPROGRAM_H

#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Runtime/ElementType.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
namespace qmm {

/// One quantized operand: element type, scale encoding, storage layout.
struct OperandSpec {
  Type elementType;
  ScaleEncodingAttr encoding;
  OperandLayout layout = OperandLayout::NK;

  /// Storage shape of the data for `rows` x `k` logical extents.
  std::vector<int64_t> getDataShape(int64_t rows, int64_t k) const;
  /// Storage shape of the scales.
  std::vector<int64_t> getScaleShape(int64_t rows, int64_t k) const;
};

struct GemmSpec {
  int64_t m = 0, n = 0, k = 0;
  OperandSpec a, b;
  Type outputType;
  bool accumulate = false;
  /// The epilogue: a bias of this type (null: none), the activation, and a
  /// pre-activation output of this type (null: none).
  Type biasType, auxType;
  Activation activation = Activation::None;
  /// An FP8 output's scales (null encoding: the output is f32/bf16/f16),
  /// by qmm.quantize's rule `outRounding` with `outMinAmax`.
  ScaleEncodingAttr outEncoding;
  ScaleRounding outRounding = ScaleRounding::None;
  float outMinAmax = 1e-4f;
  std::string functionName = "qmm_gemm";

  /// The output as a quantized [M, N] operand (FP8 outputs).
  OperandSpec getOutputOperand() const {
    return {outputType, outEncoding, OperandLayout::NK};
  }

  /// Element types and shapes of the function's arguments, in order:
  /// a, a_scales, b, b_scales, [bias,] init[, aux][, out_scales].
  struct Argument {
    std::string name;
    ElementType elementType;
    std::vector<int64_t> shape;
  };
  std::vector<Argument> getArguments() const;

  /// "256x512x1024 A f8E4M3FN #qmm.scale<...> ..." for reports.
  std::string describe() const;
};

/// Builds `func.func @<name>(%a, %a_scales, %b, %b_scales[, %bias], %init
/// [, %aux][, %out_scales]) -> D[, aux][, scales]` around one qmm.matmul. Verified before it is
/// returned.
OwningOpRef<ModuleOp> buildGemmModule(MLIRContext *ctx, const GemmSpec &spec);

/// Builds `func.func @<name>(%a, %a_scales, %b, %b_scales[, %bias], %groups,
/// %init[, %aux]) -> D[, aux]` around one qmm.grouped_matmul with `numGroups` groups: A is
/// [M, K] (contiguous) or [G, M, K] (masked), B [G, N, K], scales per group
/// with a leading G. Verified before it is returned.
OwningOpRef<ModuleOp> buildGroupedGemmModule(MLIRContext *ctx,
                                             const GemmSpec &spec,
                                             int64_t numGroups,
                                             GroupedLayout layout);

/// Adds `func.func @<name>(%x: tensor<f32>) -> (data, scales)` computing one
/// operand's quantization with qmm.quantize, `x` in the operand's storage
/// order.
void addQuantizeFunction(ModuleOp module, llvm::StringRef name,
                         const OperandSpec &operand, int64_t rows, int64_t k,
                         ScaleRounding rounding, float minAmax);

/// Reads the GEMM of a user module: the one func.func containing a
/// qmm.matmul on tensors whose operands are, in order, the function's
/// arguments (a, a_scales, b, b_scales[, bias], init[, aux][, out_scales]).
/// The function returns tensors of init's (aux's, out_scales') type, which fp8-run validates
/// against that qmm.matmul's semantics (normally its results).
llvm::Expected<GemmSpec> extractGemmSpec(ModuleOp module);

/// MLIR spelling of a type ("f8E4M3FN").
std::string getTypeName(Type type);

/// A scale encoding from its short spelling, as fp8-run and the Python API
/// take it: `tensor`, `row`, `mx32` or `RxC` (e.g. 1x128, 128x128), with
/// scale tensors K-major or, with `mnMajor`, MN-major.
llvm::Expected<ScaleEncodingAttr> parseScaleSpec(MLIRContext *ctx,
                                                 llvm::StringRef text,
                                                 bool mnMajor);

} // namespace qmm
} // namespace mlir

#endif
