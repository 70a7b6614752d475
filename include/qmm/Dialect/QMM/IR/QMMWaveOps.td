//===- QMMWaveOps.td - wave-level ops of the AMD pipeline --*- tablegen -*-===//
//
// The contract between the stages of the AMD pipeline. qmm-tile-matmul
// replaces a qmm.matmul by a grid of workgroups whose waves use these ops;
// qmm-promote-operands-to-lds moves the operand tiles of qmm.wave_mma into
// LDS; the MFMA, scale and epilogue lowerings each replace one op.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_WAVE_OPS
#define QMM_WAVE_OPS

include "qmm/Dialect/QMM/IR/QMMBase.td"
include "qmm/Dialect/QMM/IR/QMMAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def QMM_AccumulatorVector : VectorOfRankAndType<[1], [F32]>;

//===----------------------------------------------------------------------===//
// qmm.wave_mma
//===----------------------------------------------------------------------===//

def QMM_WaveMmaOp : QMM_Op<"wave_mma", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a wave's share of one workgroup tile product, in registers";
  let description = [{
    Executed by every thread of a workgroup of `config.waves` waves (thread
    ids along x). The operands are the workgroup's A tile (tile M rows) and
    B tile (tile N rows), each `tile K` wide along K, read from `a` and `b`
    ([rows, K] memrefs; [G, rows, K] operands of grouped matmuls, the
    leading index selecting the group; [stage, rows, K] buffers after LDS
    promotion) at the given indices. The wave whose sub-tile starts `wave_offset` = [row
    of A tile, row of B tile] into the tiles adds the product of its
    (tile M / waves M) x tile K slice of A and (tile N / waves N) x tile K
    slice of B, transposed (`sum_k A[i, k] * B[j, k]`), to its accumulators
    `acc`, in f32.

    With `scales` (MX operands, `mfma = scaled_f8f6f4`), every value of A
    and B is multiplied by its E8M0 scale: `a_scales` and `b_scales` are
    the [rows, K / 32] scale tensors, indexed from the given indices (the
    scales of the workgroup tile's first row and first 32-wide K block), and
    the instruction applies them.

    Reads of a global operand past its last row return unspecified values
    (the products land in output rows or columns that are never stored);
    reads past its last K column return zeros, so a K tail adds nothing.

    **Accumulator layout** (shared by qmm.wave_mma, qmm.wave_scale_accumulate
    and qmm.wave_store): a wave's sub-tile is a grid of repeats M x repeats N
    MFMA output tiles of m x n (`config.mfma` shape); accumulator
    `rm * repeats N + rn` holds tile (rm, rn) as a vector of m * n / 64 f32
    items per lane. Item i of lane l is at row l % m of the tile and column
    4 * (l / n) + i % 4 + 4 * (64 / n) * (i / 4): the MFMA computes the
    transposed product, so every 4 consecutive items are 4 consecutive
    columns of one row.

    ```mlir
    %p:4 = qmm.wave_mma %a[%row0, %k], %b[%col0, %k] wave_offset [%wr, %wc]
             config #qmm.config<tile = [128, 128, 64], waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>
             acc(%p0, %p1, %p2, %p3)
             : memref<1000x1024xf8E4M3FNUZ>, memref<1000x1024xf8E4M3FNUZ>,
               vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "A operand", [MemRead]>:$a,
    Variadic<Index>:$a_indices,
    Arg<AnyMemRef, "B operand", [MemRead]>:$b,
    Variadic<Index>:$b_indices,
    Index:$wave_row,
    Index:$wave_col,
    Variadic<QMM_AccumulatorVector>:$acc,
    Arg<Optional<AnyMemRef>, "E8M0 scales of A", [MemRead]>:$a_scales,
    Variadic<Index>:$a_scale_indices,
    Arg<Optional<AnyMemRef>, "E8M0 scales of B", [MemRead]>:$b_scales,
    Variadic<Index>:$b_scale_indices,
    QMM_ConfigAttr:$config
  );
  let results = (outs Variadic<QMM_AccumulatorVector>:$result);
  let assemblyFormat = [{
    $a `[` $a_indices `]` `,` $b `[` $b_indices `]`
    `wave_offset` `[` $wave_row `,` $wave_col `]`
    (`scales` `(` $a_scales^ `[` $a_scale_indices `]` `,`
                  $b_scales `[` $b_scale_indices `]` `:`
                  type($a_scales) `,` type($b_scales) `)`)?
    `config` qualified($config) `acc` `(` $acc `)` attr-dict
    `:` type($a) `,` type($b) `,` type($acc)
  }];
  let builders = [
    // Without scales.
    OpBuilder<(ins "Value":$a, "ValueRange":$aIndices, "Value":$b,
                   "ValueRange":$bIndices, "Value":$waveRow,
                   "Value":$waveCol, "ValueRange":$acc,
                   "ConfigAttr":$config), [{
      build($_builder, $_state, a, aIndices, b, bIndices, waveRow, waveCol,
            acc, /*aScales=*/Value(), ValueRange(), /*bScales=*/Value(),
            ValueRange(), config);
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// qmm.wave_scale_accumulate
//===----------------------------------------------------------------------===//

def QMM_WaveScaleAccumulateOp : QMM_Op<"wave_scale_accumulate", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "acc += partial * scale_a(row) * scale_b(col) for one K block";
  let description = [{
    Applies the scales of one block along K to a wave's f32 partial sums
    (of the same types as the accumulators, which the syntax lists once) and
    adds them to its accumulators (both in the layout described on
    qmm.wave_mma): for each item at output row r and column c,

    ```
    p    = scale_a(r, k) * scale_b(c, k)
    acc' = fma(partial * p, 1, acc)                       if p is a normal
                                                          f32 or a zero scale
    acc' = fma(partial * scale_a(r, k), scale_b(c, k), acc)  otherwise
    ```

    (each step rounds once; the scaled partial is finite, and accurate,
    wherever partial * scale_a * scale_b is, even where the scales' own
    product overflows or underflows f32).

    where the wave's sub-tile starts at output row `row` and column `col`,
    and scale_x(i, k) is the scale of row i in the block holding column `k`
    of the `#qmm.scale` encodings (`problem_size` = [M, N, K] gives the
    extents the encodings are read against; a dynamic M is
    ShapedType::kDynamic, printed as its value -9223372036854775808). Rows
    and columns past M and N read the last row's or column's scale (with a
    dynamic M, the last row or block the scale operand has); their items
    are never stored.
    `row` and `col` are multiples of the wave sub-tile's extents (tile /
    waves of `config`), as qmm-tile-matmul places waves: a scale block
    whose extent is a multiple of the sub-tile's then holds the whole
    sub-tile, and its scale is read once.

    ```mlir
    %acc:4 = qmm.wave_scale_accumulate %p#0, %p#1, %p#2, %p#3
               into %a0, %a1, %a2, %a3 at [%row, %col, %k]
               problem_size [1000, 1000, 1024] config #qmm.config<...>
               a_scales(%sa : memref<1000x8xf32>, #qmm.scale<block 1x128>)
               b_scales(%sb : memref<8x8xf32>, #qmm.scale<block 128x128>)
               : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
    ```
  }];
  let arguments = (ins
    Variadic<QMM_AccumulatorVector>:$partials,
    Variadic<QMM_AccumulatorVector>:$acc,
    Index:$row,
    Index:$col,
    Index:$k,
    Arg<AnyMemRef, "scales of A", [MemRead]>:$a_scales,
    Arg<AnyMemRef, "scales of B", [MemRead]>:$b_scales,
    QMM_ScaleEncodingAttr:$a_encoding,
    QMM_ScaleEncodingAttr:$b_encoding,
    DenseI64ArrayAttr:$problem_size,
    QMM_ConfigAttr:$config
  );
  let results = (outs Variadic<QMM_AccumulatorVector>:$result);
  let assemblyFormat = [{
    $partials `into` $acc `at` `[` $row `,` $col `,` $k `]`
    `problem_size` $problem_size `config` qualified($config)
    `a_scales` `(` $a_scales `:` type($a_scales) `,` qualified($a_encoding) `)`
    `b_scales` `(` $b_scales `:` type($b_scales) `,` qualified($b_encoding) `)`
    attr-dict
    `:` type($acc) custom<SameTypes>(type($partials), ref(type($acc)))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// qmm.wave_store
//===----------------------------------------------------------------------===//

def QMM_WaveStoreOp : QMM_Op<"wave_store", [AttrSizedOperandSegments]> {
  let summary = "store a wave's f32 accumulators into the output";
  let description = [{
    Writes a wave's accumulators (layout described on qmm.wave_mma) into
    the [M, N] output `out` at the wave's sub-tile, which starts at row
    `row` and column `col`: each value is converted to the output element
    type (f32, bf16 or f16; round to nearest even). With `accumulate`, the
    value `out` holds there is added in f32 first. Items past row M or
    column N are not written. `in_bounds` (rows, columns), as on
    vector.transfer_write, records what the producer guarantees: `true`
    says the wave's sub-tile lies inside the output along that dimension,
    and no bounds test is emitted for it (the tiling sets it where the
    workgroup tile divides M or N).

    The qmm.matmul epilogue: `bias` ([N]) is added in f32 after that, the
    `activation` is applied to the sum (the pre-activation) before the
    conversion, and `aux` ([M, N]) receives the pre-activation, converted
    to its own type.

    Grouped matmuls: rows whose entry in `row_groups` (i32, one per output
    row) is negative, and rows from `valid_rows` on, are not written (nor
    their FP8 output scales).

    FP8 outputs (`out` of f8E4M3FN, f8E5M2, f8E4M3FNUZ or f8E5M2FNUZ): the
    epilogue's f32 values are quantized by qmm.quantize's rule with
    `out_encoding` (per token, `block 1xC`, or `mx`), `rounding` and
    `min_amax`, and each block's scale is written to `out_scales`
    ([M, ceil(N / C)]). A block's amax is reduced across the lanes that
    hold its row, so each block of C columns must lie within one wave's
    sub-tile (see ConfigAttr::keepsOutputBlocksInWaves).

    ```mlir
    qmm.wave_store %acc#0, %acc#1 into %d[%row, %col]
      config(#qmm.config<...>) : memref<1000x1000xbf16>, vector<16xf32>, vector<16xf32>
    ```
  }];
  let arguments = (ins
    Variadic<QMM_AccumulatorVector>:$acc,
    Arg<AnyMemRef, "output", [MemRead, MemWrite]>:$out,
    Index:$row,
    Index:$col,
    Arg<Optional<AnyMemRef>, "bias", [MemRead]>:$bias,
    Arg<Optional<AnyMemRef>, "pre-activation output", [MemWrite]>:$aux,
    Arg<Optional<AnyMemRef>, "group index per output row", [MemRead]>:$row_groups,
    Optional<Index>:$valid_rows,
    Arg<Optional<AnyMemRef>, "scales of an FP8 output", [MemWrite]>:$out_scales,
    UnitAttr:$accumulate,
    DefaultValuedAttr<QMM_ActivationAttr, "Activation::None">:$activation,
    QMM_ConfigAttr:$config,
    OptionalAttr<QMM_ScaleEncodingAttr>:$out_encoding,
    OptionalAttr<QMM_ScaleRoundingAttr>:$out_rounding,
    OptionalAttr<F32Attr>:$out_min_amax,
    OptionalAttr<DenseBoolArrayAttr>:$in_bounds
  );
  let assemblyFormat = [{
    $acc `into` $out `[` $row `,` $col `]` (`in_bounds` $in_bounds^)?
    (`accumulate` $accumulate^)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`activation` custom<EnumKeyword>($activation)^)?
    (`aux` `(` $aux^ `:` type($aux) `)`)?
    (`row_groups` `(` $row_groups^ `:` type($row_groups) `)`)?
    (`valid_rows` `(` $valid_rows^ `)`)?
    (`out_scales` `(` $out_scales^ `:` type($out_scales) `)`
       qualified($out_encoding) `rounding` custom<EnumKeyword>($out_rounding)
       `min_amax` $out_min_amax)?
    `config` `(` qualified($config) `)` attr-dict `:` type($out) `,` type($acc)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the sub-tile is known to lie inside the output's rows
    /// (dimension 0) or columns (dimension 1).
    bool isInBounds(unsigned dim) {
      std::optional<ArrayRef<bool>> inBounds = getInBounds();
      return inBounds && (*inBounds)[dim];
    }
  }];
}

#endif // QMM_WAVE_OPS
