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
    families assign different values to the same bits. FP4 and FP6 values
    mean the same everywhere and may meet either FP8 family.

    Storage of FP4 and FP6 data: rows (the last dimension) are packed into a
    little-endian bit stream, element j of a row in bits [j*w, (j+1)*w) of
    the row's bytes (w = 4 or 6): FP4 element 2i is the low nibble of byte
    i, four FP6 elements fill three bytes, a row of K elements takes
    ceil(K*w/8) bytes. This is how the AMD pipeline's programs hold them in
    device memory, how fp8-run's host quantizer hands them to a device and
    how .npy files store them. Inside the AMD pipeline's kernels a memref of
    FP4/FP6 elements addresses that storage by byte, as LLVM lays out i4/i6
    in memory: element slot i is byte i, and a vector of N FP4/FP6 elements
    loaded or stored at slot i moves the N*w/8 packed bytes from byte i.
    (The CPU reference pipeline, which runs qmm programs on the host, keeps
    one element per byte; the runtime converts.)
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
