//===- QMMOps.td - qmm operations --------------------------*- tablegen -*-===//

#ifndef QMM_OPS
#define QMM_OPS

include "qmm/Dialect/QMM/IR/QMMBase.td"
include "qmm/Dialect/QMM/IR/QMMAttrs.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Operands are ranked tensors (value semantics, destination-passing style) or
// memrefs (the bufferized form). Element types, ranks and shapes are checked
// by the C++ verifiers, which can name the offending operand precisely.
def QMM_TensorOrMemRef : AnyTypeOf<[AnyRankedTensor, AnyMemRef],
                                   "ranked tensor or memref">;

//===----------------------------------------------------------------------===//
// qmm.matmul
//===----------------------------------------------------------------------===//

def QMM_MatmulOp : QMM_Op<"matmul", [
    AttrSizedOperandSegments,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "scaled low-precision matrix multiplication";
  let description = [{
    Computes

    ```
    D[m, n] = sum_k dequant(A)[m, k] * dequant(B)[k, n]      (+ C[m, n])
    ```

    where `dequant(X)[r, k] = value(X[r, k]) * scale(X)[block(r, k)]`.

    Operands:
    * `a` [M, K] and `b` ([N, K] with `layout nk`, the default; [K, N] with
      `layout kn`) hold f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E2M3FN,
      f6E3M2FN or f4E2M1FN elements. A and B may use different formats
      (e.g. e4m3 x e5m2, e2m1 x e4m3) but not different FP8 families: FNUZ
      (gfx942) and OCP (gfx950, MX) FP8 are never mixed. FP4 and FP6 values
      mean the same in both worlds and may meet either family.
    * `a_scales` / `b_scales` are rank-2 scale tensors described by the
      `#qmm.scale` encodings that follow each operand pair; see
      `ScaleEncodingAttr` for shapes, partial blocks and majorness.
    * `init` [M, N] of f32, bf16 or f16 is the destination. Without
      `accumulate` its contents are ignored; with `accumulate` the result is
      D = C + A·B where C is the value of `init`.

    Semantics, which every lowering and the runner's references follow:
    * Each element is decoded exactly (`value`), multiplied by its block's
      scale and rounded to f32: dequant(x) = fl32(value(x) · s).
    * Products and the sum over K are accumulated in f32, in an unspecified
      order; in particular an implementation may apply block scales to f32
      partial sums of the raw products, once per K block (the DeepGEMM
      scheme), and per-tensor / per-row scales once in the epilogue. C, when
      accumulated, is added in f32. K = 0 is an empty sum: the product is
      0, so D = C (or 0) before the epilogue, as BLAS defines it.
    * The f32 result is rounded once to the output type, round to nearest
      even; bf16/f16 overflow gives ±Inf (no saturation).
    * NaN encodings of the inputs (0x7F/0xFF in f8E4M3FN, 0x80 in the FNUZ
      types, ...), NaN scales (f32 NaN or E8M0 0xFF) and Inf propagate
      through the arithmetic as in IEEE-754 f32.

    Epilogue, applied to the f32 result before its one rounding:
    * `bias(%b : [N] f32 or bf16)`: `bias[n]` is added (in f32) after C;
    * `activation gelu_tanh | gelu_erf` (see `#qmm.activation`) is applied
      to that sum, the pre-activation;
    * `aux(%aux : [M, N] f32, bf16 or f16)`, only with an activation: a
      second destination that receives the pre-activation, rounded to its
      type (what a backward pass needs).

    FP8 output, so that FP8 layers chain without a separate quantize kernel:
    when `init` holds f8E4M3FN, f8E5M2, f8E4M3FNUZ or f8E5M2FNUZ, the op
    also takes `out_scales(%s : [M, ceil(N / C)]) encoding` and the epilogue's
    f32 result (after bias and activation) is quantized exactly as
    `qmm.quantize` with that encoding would quantize it, rows = M and
    K = N: per-token `#qmm.scale<block 1xC>` scales (f32; DeepGEMM's
    1x128 activations) or `#qmm.scale<mx>` (E8M0 per 32 columns, OCP FP8
    only). `rounding` and `min_amax` after the encoding mean what they mean
    on `qmm.quantize`, with the same defaults. The output and its scales
    are the [rows, K] operand A of a following matmul, as they are. FP8
    outputs are not accumulated into (no `accumulate`).

    An optional `config` (`#qmm.config<...>`) fixes how the AMD pipeline maps
    the op onto the GPU; `qmm-select-config` fills it in otherwise.

    On tensors the op returns the new value of `init`; on memrefs (the
    bufferized form, produced by one-shot bufferization) it has no result and
    writes `init` in place.

    Example (DeepGEMM's blockwise FP8 GEMM, 1x128 activations x 128x128
    weights, B stored [N, K]):

    ```mlir
    %d = qmm.matmul
           a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
           outs(%init : tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
    ```

    The same GEMM writing FP8 activations for the next layer, GELU fused:

    ```mlir
    %d, %ds = qmm.matmul
           a(%a, %sa : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<1024x512xf8E4M3FN>, tensor<8x4xf32>) #qmm.scale<block 128x128>
           activation gelu_tanh
           outs(%init : tensor<256x1024xf8E4M3FN>)
           out_scales(%s0 : tensor<256x8xf32>) #qmm.scale<block 1x128>
           -> tensor<256x1024xf8E4M3FN>, tensor<256x8xf32>
    ```
  }];
  let arguments = (ins
    QMM_TensorOrMemRef:$a,
    QMM_TensorOrMemRef:$a_scales,
    QMM_TensorOrMemRef:$b,
    QMM_TensorOrMemRef:$b_scales,
    Optional<QMM_TensorOrMemRef>:$bias,
    QMM_TensorOrMemRef:$init,
    Optional<QMM_TensorOrMemRef>:$aux,
    Optional<QMM_TensorOrMemRef>:$out_scales,
    QMM_ScaleEncodingAttr:$a_encoding,
    QMM_ScaleEncodingAttr:$b_encoding,
    DefaultValuedAttr<QMM_OperandLayoutAttr, "OperandLayout::NK">:$b_layout,
    UnitAttr:$accumulate,
    DefaultValuedAttr<QMM_ActivationAttr, "Activation::None">:$activation,
    OptionalAttr<QMM_ConfigAttr>:$config,
    OptionalAttr<QMM_ScaleEncodingAttr>:$out_encoding,
    OptionalAttr<QMM_ScaleRoundingAttr>:$out_rounding,
    OptionalAttr<F32Attr>:$out_min_amax
  );
  // On tensors: the new values of `init` and, when given, `aux` and
  // `out_scales`.
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `a` `(` $a `,` $a_scales `:` type($a) `,` type($a_scales) `)` qualified($a_encoding)
    `b` `(` $b `,` $b_scales `:` type($b) `,` type($b_scales) `)` qualified($b_encoding)
    (`layout` custom<EnumKeyword>($b_layout)^)?
    (`accumulate` $accumulate^)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`activation` custom<EnumKeyword>($activation)^)?
    (`config` qualified($config)^)?
    `outs` `(` $init `:` type($init) (`,` `aux` $aux^ `:` type($aux))? `)`
    (`out_scales` `(` $out_scales^ `:` type($out_scales) `)`
       qualified($out_encoding)
       (`rounding` custom<EnumKeyword>($out_rounding)^)?
       (`min_amax` $out_min_amax^)?)?
    attr-dict (`->` type($results)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() {
      // `init`, `aux` and `out_scales` are the last operands.
      unsigned count = 1 + (getAux() ? 1 : 0) + (getOutScales() ? 1 : 0);
      return MutableOperandRange(getOperation(),
                                 getOperation()->getNumOperands() - count,
                                 count);
    }

    /// Checks bias, activation and aux against the [M, N] output.
    LogicalResult verifyEpilogue(int64_t m, int64_t n);
    /// Checks an FP8 output's scales, encoding and rule.
    LogicalResult verifyQuantizedOutput(int64_t m, int64_t n);

    /// FP8 output: the scale rule in force (the attributes, or the
    /// encoding's defaults as on qmm.quantize).
    ScaleRounding getEffectiveOutRounding();
    float getEffectiveOutMinAmax();

    /// Static or dynamic problem extents read off the operand shapes.
    int64_t getM();
    int64_t getN();
    int64_t getK();
  }];
}

//===----------------------------------------------------------------------===//
// qmm.grouped_matmul
//===----------------------------------------------------------------------===//

def QMM_GroupedMatmulOp : QMM_Op<"grouped_matmul", [
    AttrSizedOperandSegments,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "grouped (MoE) scaled low-precision matrix multiplication";
  let description = [{
    G independent products with one weight matrix per group (the experts of
    a mixture-of-experts layer), each with the semantics of qmm.matmul (B
    stored [N, K]; scales, rounding, NaN and `accumulate` as there):

    * `layout contiguous` (prefill): `a` is [M, K] with the rows of each
      group together; `groups` ([M], i32) holds each row's group, or -1
      for a padding row; `init` is [M, N]. Row m gets A[m] · B[groups[m]]^T.
      Padding rows are not written: they keep what `init` holds. Group
      segments start at multiples of the M alignment, 128
      (`qmm::getGroupedMatmulMAlignment()`), padded with -1 rows, so that a
      128-row tile of A belongs to one group; group indices are below G.
    * `layout masked` (decode): `a` is [G, Mmax, K]; `groups` ([G], i32)
      holds the number of valid rows of each group; `init` is [G, Mmax, N].
      Rows at or past the count are not computed and not written.

    Epilogue (as on qmm.matmul): `bias(%b : [G, N] f32 or bf16)`, each
    group's bias added after C; `activation gelu_tanh | gelu_erf`; with an
    activation, `aux` (shaped like `init`, f32, bf16 or f16) receives the
    pre-activation of the rows that are written, and keeps its values in
    the others.

    FP8 output (as on qmm.matmul): `init` of an FP8 type with
    `out_scales(%s) #qmm.scale<block 1xC> | #qmm.scale<mx>` (K-major, per
    row along N; [M, ceil(N / C)] contiguous, [G, Mmax, ceil(N / C)]
    masked) and optional `rounding` / `min_amax`. Each written row is
    quantized as `qmm.quantize` would quantize it; a row that is not
    written (padding, past a group's count) keeps its codes and its scales.
    No `accumulate`.

    `b` is [G, N, K]. Scales follow each operand's `#qmm.scale` encoding
    per group matrix: A's scales have the shape the encoding gives for
    [M, K] (contiguous) or a leading G for [Mmax, K] (masked); B's have a
    leading G for [N, K].

    ```mlir
    %d = qmm.grouped_matmul contiguous
           a(%a, %sa : tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) #qmm.scale<block 1x128>
           b(%b, %sb : tensor<4x384x256xf8E4M3FN>, tensor<4x3x2xf32>) #qmm.scale<block 128x128>
           groups(%g : tensor<512xi32>)
           outs(%init : tensor<512x384xbf16>) -> tensor<512x384xbf16>
    ```
  }];
  let arguments = (ins
    QMM_TensorOrMemRef:$a,
    QMM_TensorOrMemRef:$a_scales,
    QMM_TensorOrMemRef:$b,
    QMM_TensorOrMemRef:$b_scales,
    Optional<QMM_TensorOrMemRef>:$bias,
    QMM_TensorOrMemRef:$groups,
    QMM_TensorOrMemRef:$init,
    Optional<QMM_TensorOrMemRef>:$aux,
    Optional<QMM_TensorOrMemRef>:$out_scales,
    QMM_GroupedLayoutAttr:$layout,
    QMM_ScaleEncodingAttr:$a_encoding,
    QMM_ScaleEncodingAttr:$b_encoding,
    UnitAttr:$accumulate,
    DefaultValuedAttr<QMM_ActivationAttr, "Activation::None">:$activation,
    OptionalAttr<QMM_ConfigAttr>:$config,
    OptionalAttr<QMM_ScaleEncodingAttr>:$out_encoding,
    OptionalAttr<QMM_ScaleRoundingAttr>:$out_rounding,
    OptionalAttr<F32Attr>:$out_min_amax
  );
  // On tensors: the new values of `init` and, when given, `aux` and
  // `out_scales`.
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    custom<EnumKeyword>($layout)
    `a` `(` $a `,` $a_scales `:` type($a) `,` type($a_scales) `)` qualified($a_encoding)
    `b` `(` $b `,` $b_scales `:` type($b) `,` type($b_scales) `)` qualified($b_encoding)
    `groups` `(` $groups `:` type($groups) `)`
    (`accumulate` $accumulate^)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`activation` custom<EnumKeyword>($activation)^)?
    (`config` qualified($config)^)?
    `outs` `(` $init `:` type($init) (`,` `aux` $aux^ `:` type($aux))? `)`
    (`out_scales` `(` $out_scales^ `:` type($out_scales) `)`
       qualified($out_encoding)
       (`rounding` custom<EnumKeyword>($out_rounding)^)?
       (`min_amax` $out_min_amax^)?)?
    attr-dict (`->` type($results)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() {
      // `init`, `aux` and `out_scales` are the last operands.
      unsigned count = 1 + (getAux() ? 1 : 0) + (getOutScales() ? 1 : 0);
      return MutableOperandRange(getOperation(),
                                 getOperation()->getNumOperands() - count,
                                 count);
    }
    /// Checks an FP8 output's scales, encoding and rule; `lead` is the
    /// leading group extent of a masked output (empty for contiguous).
    LogicalResult verifyQuantizedOutput(ArrayRef<int64_t> lead, int64_t m,
                                        int64_t n);
    /// FP8 output: the scale rule in force (as on qmm.matmul).
    ScaleRounding getEffectiveOutRounding();
    float getEffectiveOutMinAmax();

    /// Number of groups (B's leading extent).
    int64_t getNumGroups();
    /// Rows, columns and K of one group's product.
    int64_t getM();
    int64_t getN();
    int64_t getK();
  }];
}

//===----------------------------------------------------------------------===//
// qmm.quantize
//===----------------------------------------------------------------------===//

def QMM_QuantizeOp : QMM_Op<"quantize", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "high precision to (low-precision data, scales)";
  let description = [{
    Quantizes a rank-2 f32, bf16 or f16 tensor into `quantized` (any qmm
    element type) and `scales` (shaped by `encoding`). `layout nk` (default)
    reads the input as [rows, K]; `layout kn` as [K, rows]. The quantized
    data has the shape of the input.

    For every block of the encoding (partial blocks cover what remains),
    with `fmax` the largest finite value of the element type and
    `emax_elem` its largest exponent (8 e4m3, 15 e5m2, 2 e2m3, 4 e3m2,
    2 e2m1; 7 e4m3fnuz, 15 e5m2fnuz):

    1. `amax` = max |x| over the block, computed in f32 (bf16/f16 inputs
       are widened exactly). `amax' = max(amax, min_amax)`.
    2. The scale, by `rounding` (default `none` for f32 scales, `pow2_floor`
       for E8M0 scales):
       * `none`: s = fl32(amax' / fmax); the elements are
         q = sat(rne(fl32(x · fl32(fmax / amax')))) — DeepGEMM's rule,
         bit for bit.
       * `pow2_floor` (OCP MX v1.0): s = 2^e with
         e = floor(log2(amax')) - emax_elem; q = sat(rne(x / s)). Elements
         above fmax · s saturate.
       * `pow2_ceil` (DeepGEMM UE8M0): s = 2^e with
         e = ceil(log2(amax' / fmax)); q = sat(rne(x / s)).
       Power-of-two exponents are clamped to [-127, 127], the E8M0 range,
       whichever the scale type.
    3. `sat` clamps to ±fmax (448 e4m3fn, 240 e4m3fnuz, 57344 e5m2 and
       e5m2fnuz, 7.5 e2m3, 28 e3m2, 6 e2m1); `rne` rounds to the nearest
       representable value, ties to even, subnormals included. -0 stays -0
       in formats that have it and becomes +0 in FNUZ formats.

    `min_amax` defaults to 1e-4 (DeepGEMM's clamp) for `none` and
    `pow2_ceil`, and to 0 for `pow2_floor`, whose all-zero blocks get the
    smallest scale 2^-127. `none` requires a positive `min_amax`.

    A block whose amax is NaN or Inf gets a NaN scale (f32 NaN, E8M0 0xFF);
    its elements become the element type's NaN where it has one, 0
    otherwise.

    Example:

    ```mlir
    %q, %s = qmm.quantize %x : tensor<256x512xbf16> encoding #qmm.scale<block 1x128>
               outs(%q0, %s0 : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>)
               -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
    ```
  }];
  let arguments = (ins
    QMM_TensorOrMemRef:$input,
    QMM_TensorOrMemRef:$quantized,
    QMM_TensorOrMemRef:$scales,
    QMM_ScaleEncodingAttr:$encoding,
    DefaultValuedAttr<QMM_OperandLayoutAttr, "OperandLayout::NK">:$layout,
    OptionalAttr<QMM_ScaleRoundingAttr>:$rounding,
    OptionalAttr<F32Attr>:$min_amax
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $input `:` type($input) `encoding` qualified($encoding)
    (`layout` custom<EnumKeyword>($layout)^)?
    (`rounding` custom<EnumKeyword>($rounding)^)?
    (`min_amax` $min_amax^)?
    `outs` `(` $quantized `,` $scales `:` type($quantized) `,` type($scales) `)`
    attr-dict (`->` type($results)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() {
      return MutableOperandRange(getOperation(), /*start=*/1, /*length=*/2);
    }

    /// The rounding rule in force: the attribute, or the encoding's default.
    ScaleRounding getEffectiveRounding();
    /// The amax floor in force: the attribute, or the rule's default.
    float getEffectiveMinAmax();
  }];
}

//===----------------------------------------------------------------------===//
// qmm.dequantize
//===----------------------------------------------------------------------===//

def QMM_DequantizeOp : QMM_Op<"dequantize", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "(low-precision data, scales) to high precision";
  let description = [{
    Computes `output[i] = rnd(fl32(value(q[i]) · s[block(i)]))` where `rnd`
    rounds the f32 product to the output type (f32, bf16 or f16) to nearest
    even. `layout` and `encoding` are read as for `qmm.quantize`. NaN
    encodings and NaN scales give NaN.

    Example:

    ```mlir
    %x = qmm.dequantize %q, %s : tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU>
           encoding #qmm.scale<mx>
           outs(%x0 : tensor<64x64xf32>) -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins
    QMM_TensorOrMemRef:$quantized,
    QMM_TensorOrMemRef:$scales,
    QMM_TensorOrMemRef:$init,
    QMM_ScaleEncodingAttr:$encoding,
    DefaultValuedAttr<QMM_OperandLayoutAttr, "OperandLayout::NK">:$layout
  );
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $quantized `,` $scales `:` type($quantized) `,` type($scales)
    `encoding` qualified($encoding)
    (`layout` custom<EnumKeyword>($layout)^)?
    `outs` `(` $init `:` type($init) `)`
    attr-dict (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
  }];
}

include "qmm/Dialect/QMM/IR/QMMWaveOps.td"

#endif // QMM_OPS
