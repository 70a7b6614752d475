//===- QMMBase.td - qmm dialect definition -----------------*- tablegen -*-===//
//
// The quantized-matmul dialect: FP8 / MX matrix multiplication for AMD
// Instinct GPUs (gfx942, gfx950).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_BASE
#define QMM_BASE

include "mlir/IR/OpBase.td"

def QMM_Dialect : Dialect {
  let name = "qmm";
  let cppNamespace = "::mlir::qmm";
  let summary = "Quantized (FP8, FP6, FP4) matrix multiplication with scales";
  let description = [{
    The `qmm` dialect describes matrix multiplications whose operands are
    stored in low-precision floating-point formats together with scale
    tensors, as used for FP8 training and inference (DeepSeek-V3 /
    DeepGEMM blockwise scaling, torchao per-row scaling, OCP MX v1.0).

    Element types are MLIR's builtin float types:

    | type          | family | max finite | notes                         |
    |---------------|--------|------------|-------------------------------|
    | `f8E4M3FN`    | OCP    | 448        | gfx950 native                 |
    | `f8E5M2`      | OCP    | 57344      | gfx950 native                 |
    | `f8E4M3FNUZ`  | FNUZ   | 240        | gfx942 (MI300) native         |
    | `f8E5M2FNUZ`  | FNUZ   | 57344      | gfx942 (MI300) native         |
    | `f6E2M3FN`    | OCP MX | 7.5        | MX element                    |
    | `f6E3M2FN`    | OCP MX | 28         | MX element                    |
    | `f4E2M1FN`    | OCP MX | 6          | MX element                    |
    | `f8E8M0FNU`   | -      | 2^127      | MX scale (power of two)       |

    A quantized operand is a pair (data, scales) whose relation is described
    by a `#qmm.scale<...>` encoding attribute. The "rows" of an operand are
    the non-reduction dimension (M for A, N for B); the encoding's blocks are
    expressed along (rows, K) whatever the storage layout of the data.

    OCP and FNUZ FP8 encodings are never mixed within one operation: the two
    families assign different values to the same bits.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    void registerAttributes();
  public:
  }];
}

class QMM_Op<string mnemonic, list<Trait> traits = []>
    : Op<QMM_Dialect, mnemonic, traits>;

#endif // QMM_BASE
