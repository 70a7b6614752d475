//===- Passes.td - qmm conversion passes -------------------*- tablegen -*-===//

#ifndef QMM_CONVERSION_PASSES
#define QMM_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Reference lowering
//===----------------------------------------------------------------------===//

def QMMLinalgToQMM : Pass<"qmm-linalg-to-qmm", "ModuleOp"> {
  let summary = "Raise dequantize-then-matmul linalg IR (what frontends "
                "emit) into qmm.matmul";
  let description = [{
    The entry for frontend compilers (torch-mlir or StableHLO lowered to
    linalg): a contraction whose operands are both dequantized by an
    element-wise linalg.generic becomes one qmm.matmul on the quantized
    data, with the scale encoding read off the dequantization.

    A dequantization is a linalg.generic with two parallel loops whose body
    is `arith.mulf(arith.extf(q), s)` (either order) and nothing else,
    reading `q` (any qmm element type) through the identity map; or such a
    dequantization in element-wise steps (generics of their own, e.g.
    extf, then the multiplication), which are read fused (upstream's
    elementwise fusion, at most three steps). The scale
    `s` is a scalar defined outside the generic (per tensor: a constant,
    an element of a one-element tensor by tensor.extract, or an argument of
    the function; any other scalar computed outside is left alone), or an
    input read through a broadcasting map, which gives the encoding (rows
    are M for A and N for B):
    * `(r, k) -> ()` on a 0-d tensor: per tensor;
    * `(r, k) -> (r)`: per row;
    * `(r, k) -> (r floordiv R, k floordiv C)`: block RxC (`r` alone is
      R = 1), K-major; the transposed map gives the MN-major encoding;
    * the same with f8E8M0FNU scales widened by `arith.extf` and C = 32:
      `#qmm.scale<mx>`.
    Scale tensors are reshaped (tensor.expand_shape) to the encoding's
    shape where they differ (0-d and 1-d scales); scalars become [1, 1]
    tensors by reshapes or dense constants (a function argument by
    tensor.from_elements), never by host-side scalar arithmetic. A scale
    converted in the body (`arith.extf` of bf16, f16 or E8M0,
    `arith.truncf` of f64, also before the body for a scalar) is converted
    by an element-wise generic with a clone of that op (its rounding mode
    and fast-math flags kept), a 0-d one after reshaping it to [1, 1].

    Contractions: linalg.matmul with its default maps (B is [K, N], `layout
    kn`) or with B transposed by `indexing_maps` ([N, K], `layout nk`), any
    linalg.generic whose body is a multiply-add contraction with the same
    maps, and linalg.batch_matmul (unrolled into one qmm.matmul per batch
    on tensor slices; scales with a leading batch extent are sliced too).
    The result must be f32 (a bf16/f16 linalg.matmul accumulates in its own
    type, which qmm does not); an init produced by `linalg.fill` of +0 (or
    the linalg.generic linalg-generalize-named-ops makes of one) is ignored
    (the fill goes away), any other init is accumulated into
    (`accumulate`).

    Dequantization fused into the contraction (what
    linalg-fuse-elementwise-ops makes of the above, after
    linalg-generalize-named-ops): each factor of the body's product may be
    a dequantization itself (`extf(q) * s`, `scaling_extf(q, s)`, or
    `extf(q)` alone: a unit scale), with `q` and `s` inputs of the
    contraction and the scale's map read in the contraction's loops (m or n
    for the rows, k for K). Factors dequantized by their own generics and
    factors dequantized in the body may be mixed.

    Blockwise scales on reshaped views (`[R, K/128, 128]` data through
    tensor.expand_shape, scales read by the outer loop, collapsed back by
    tensor.collapse_shape; or, after fusion, a contraction over the split
    loops): the op is read as the op on the unsplit loops, a scale indexed
    by a split loop's outer part becoming `loop floordiv inner extent`; a
    view collapsed back in steps (fusion's half-fused B) is read through
    the composed collapse.
    Size-1 scale dimensions read at a constant 0 beyond the two the
    encoding has (torch's `[R, K/128, 1]`) are collapsed away.

    Scales applied after the product (torch._scaled_mm, `(A_q @ B_q) * sa
    * sb`): a contraction straight on quantized tensors becomes a
    qmm.matmul with unit scales, and an element-wise linalg.generic whose
    body is only a product of that result (read whole, by nothing else)
    with f32 scales, per tensor (scalars, or one-element tensors read at
    constant zeros), per token (`(m)`, `(m, 0)` on [M, 1]) or per channel
    (`(n)`, `(n, 0)`, `(0, n)` on [1, N]: B MN-major), is folded into it.

    A dynamic M (A's and the output's rows `?`, unbatched) raises to a
    qmm.matmul with `?` rows.

    Loops grouped: a contraction with more loops is read with consecutive
    loops of one iterator type grouped into (batch,) m, n, k: K split into
    blocks in the operands' types ([R, K/32, 32], scales [R, K/32]), M over
    several loops ([batch, seq, K] against a 2-D weight); the data is
    collapsed, the result expanded back. Blocks flattened across rows
    ([R*K/32, 32] with a rank-1 scale, reshaped to [R, K]) are read with
    the dequantization's first loop split into rows and blocks.

    Scale spellings: a zero point of +0 subtracted first (ONNX's
    DequantizeLinear for FP8: `x - 0` is `x`); division (`extf(q) / s`: the scale becomes 1 / s, by a
    clone of the division); E8M0 bits decoded arithmetically
    (`select(e == 255, NaN, 2^(extui(e) - 127))`, by math.powf or
    math.exp2; the bits become the MX scale); a scale copied to the data's
    shape by a generic of its own (fused first); scales after the product
    combined by generics of their own (an M x N outer product, fused
    first), or after a batch_matmul (per batch, into that batch's
    qmm.matmul). Quantized data widened in steps (f8 -> bf16 -> f32, exact),
    also by a bf16 x bf16 -> f32 matmul's own extf.

    Everything else is left alone: a single quantized operand, integer
    dequantization, extra arithmetic (zero points), scales varying along K
    per element, A transposed, values rounded to bf16 before the product,
    and any rewrite the qmm verifier would reject (e.g. FNUZ x OCP, MX
    scales on FNUZ data). Nothing is said unless asked: with
    `--remarks-filter-missed=qmm-linalg-to-qmm`, a missed remark per
    contraction left alone names the first construct that stopped it.
  }];
  let dependentDialects = [
    "::mlir::qmm::QMMDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def QMMLowerToReference : Pass<"qmm-lower-to-reference", "ModuleOp"> {
  let summary = "Lower qmm ops to linalg/arith: the executable definition of "
                "the dialect's semantics";
  let description = [{
    Rewrites `qmm.matmul`, `qmm.quantize` and `qmm.dequantize` into
    `linalg.generic` ops whose bodies follow the op descriptions literally:

    * matmul: one generic over (m, n, k) that decodes each element
      (`arith.extf` to f32), multiplies it by its block's scale, and
      accumulates the products in an f32 buffer (initialised with C when the
      op accumulates, else 0); a second generic rounds the f32 result to the
      output type.
    * quantize: a reduction computing each block's amax, an elementwise
      generic deriving the scale and its reciprocal by the op's rounding rule
      (powers of two and their logarithms are computed exactly from the f32
      bit pattern), and an elementwise generic that multiplies, saturates and
      rounds (`arith.truncf`).
    * dequantize: one elementwise generic.

    Scale tensors are indexed through affine maps with `floordiv`, so
    partial blocks need no special case. Works on the tensor form (run
    before bufferization) and on the memref form (temporaries are allocated
    and freed around the op). Dynamic shapes are rejected with a diagnostic.

    The result is target independent; on the CPU, conversions from and to
    the small float types are then expanded by
    `qmm-expand-float-conversions`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// AMD pipeline
//===----------------------------------------------------------------------===//

def QMMAttachTarget : Pass<"qmm-attach-target", "ModuleOp"> {
  let summary = "Record the chip the module is compiled for, once, in the IR";
  let description = [{
    Sets `qmm.target = #rocdl.target<chip = "...">` (AMD chips) or
    `#nvvm.target<chip = "...">` (NVIDIA chips) on the module. Every later
    stage of either pipeline reads its chip from there (through
    `getTargetChip` / `getNvidiaTargetChip`, which also find the target of
    a gpu.module), so two stages cannot compile for different chips; a pass
    that needs a chip and finds none says so, and IR that names two chips
    is rejected. A module that already carries a target keeps it when the
    option names the same chip and is rejected when it names another.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "target chip: gfx942, gfx950 or sm_90a">
  ];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def QMMLegalizeForChip : Pass<"qmm-legalize-for-chip", "ModuleOp"> {
  let summary = "Rewrite qmm.matmul operands into forms the chip's matrix "
                "cores read, exactly";
  let description = [{
    Runs on the tensor form, before bufferization:

    * gfx942 reads FNUZ FP8 only. OCP operands (f8E4M3FN, f8E5M2) become
      f8E4M3FNUZ / f8E5M2FNUZ by reinterpreting their bits: the same bits
      are worth exactly half in the FNUZ type (bias one larger, subnormals
      included), so the operand's f32 scales are doubled. Codes whose
      meaning differs are remapped: OCP -0 (0x80, NaN in FNUZ) becomes +0,
      and OCP NaN (and e5m2's Inf, which FNUZ lacks) becomes FNUZ NaN (0x80).
      The product dequant(A) * dequant(B) is unchanged bit for bit.
    * B given as [K, N] (`layout kn`) is transposed to [N, K], the layout
      whose rows the MFMA operands read contiguously; its scales keep their
      (N, K) view and do not move.

    * MX operands on gfx942 (E8M0 scales, which gfx942's MFMAs cannot
      apply): each E8M0 scale becomes an f32 scale of a `block 1x32`
      encoding (the same blocks), so the kernel scales each 32-wide K
      block's f32 partial sums: 2^(e - 126) for OCP FP8 data, reinterpreted
      as above, and 2^(e - 127) for FP4/FP6 data, which stays (the kernel
      converts it exactly to e4m3fnuz in registers). The one inexact case:
      an FP8 operand's scale of 2^127 (E8M0 0xFE), whose double does not
      fit in f32, turns its block into Inf/NaN. Quantizing f32 data never
      produces it (the largest is 2^119).
    * FP4/FP6 B given as [K, N] is transposed the same way; after
      bufferization, qmm-lower-packed-transposes moves its packed rows.

    FNUZ data on gfx950 is left as it is: no single factor maps every
    e4m3fnuz code onto e4m3fn (240 would need 480), so the configuration
    selects an exact in-register conversion to bf16 instead. MX operands on
    gfx950, which the scaled MFMA reads, are left as they are.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (gfx942 or gfx950); default: the IR's target "
           "(qmm-attach-target), which a chip given here must match">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def QMMSelectConfig : Pass<"qmm-select-config", "ModuleOp"> {
  let summary = "Choose the #qmm.config of every qmm.matmul for a chip";
  let description = [{
    Gives each qmm.matmul without a `config` one chosen from its shape,
    operand types and scales; a `config` already on the op (the user's) is
    kept and checked against the chip. The `override` option forces one
    configuration on every matmul. With `tuning-table`, a matmul whose key
    (chip, A and B element types, scale encodings, output type, M, N and K
    each rounded up to a power of two) has an entry takes the entry's
    config (checked like a user's); the table is what `fp8-run --tune
    --tune-table FILE` writes after ranking every legal configuration
    (qmm::enumerateConfigs) by the performance model. Next comes the
    built-in table (`builtin-tuning`, on by default): the model's best for
    the GEMMs of benchmarks/perf_table.sh on both chips
    (lib/Conversion/AMDGPU/BuiltinTuningTable.json, regenerated by
    benchmarks/tune_table.sh); an entry covers a bucket of shapes, so where
    its split-K ranges do not fit this K (whole scale blocks, and two K
    tiles per range under double buffering) it is taken with half the
    ranges (down to none), and where it does not fit at all the heuristic
    decides. A matmul with no entry of its own takes the entry of the
    nearest shape (TuningTable::findNear: the user's table, then the
    built-in one; same chip, operand types, grouped form and class of
    scales, any output type, buckets at most 4 powers of two apart in
    total), fitted the same way: a tuning run for a nearby shape is a
    better guide than the rule below, which the performance model puts
    up to 2.5x off on shapes no table covers (benchmarks/selector.sh).
    Otherwise the heuristic decides:

    * instruction: gfx942 reads FNUZ FP8 with v_mfma_f32_*_fp8; gfx950 OCP
      FP8 with the f8f6f4 forms (16x16x128, 32x32x64), and FNUZ FP8 with
      the bf16 forms (16x16x32, 32x32x16) after an exact conversion in
      registers (no FP8 scaling maps every FNUZ value onto OCP);
    * MFMA shape: 32x32 when M and N are both at least 128 (half the LDS
      traffic per flop of 16x16), 16x16 otherwise;
    * tile M and N: the next power of two of the extent, from the MFMA size
      up to 128, so small problems do not pay for empty rows;
    * tile K: 128 (one K tile per 128-wide scale block), the extent
      rounded up to the MFMA's K when K is smaller; when the scale blocks
      along K are shorter than K, its greatest common divisor with the
      block (so no K tile straddles two blocks: 32 for block-32 scales; when
      the preferred MFMA's K step does not divide that, the other shape, or
      on gfx950 the fp8 forms, is taken; blocks not a multiple of 16 deep
      are a diagnostic), then halved (while it stays a multiple of the MFMA's K) until two
      workgroups' tiles fit in one CU's LDS, so that one workgroup's copies
      can overlap another's MFMAs (gfx942 128x128 tiles: tile K 64,
      occupancy 2 instead of 1);
    * waves: up to 2 x 2, each wave holding at least one MFMA tile. An FP8
      output reduces each scale block's amax within one wave: when the
      sub-tiles would split a block (1x128 scales on 64-column sub-tiles),
      all waves go along M (up to 4 x 1), and when N spans several tiles
      the tile is widened to lcm(C, MFMA N) columns (at most 256; 16-wide
      MFMAs when 32-wide ones would exceed it), so that every block starts
      at a multiple of C inside one wave;
    * stages: 2 (double buffering: tile i + 1's global loads are in
      flight during tile i's MFMAs) when K spans at least two tiles and two
      workgroups' double-buffered tiles still fit one CU's LDS (gfx950's
      160 KiB holds two 128x128x128 FP8 workgroups of 2 x 36 KiB each);
      1 otherwise (gfx942's 64 KiB: double buffering would halve the
      occupancy that the tile K rule above bought);
    * split-K (qmm.matmul only): when those tiles make fewer than 128
      workgroups (half the 256 CUs of the smallest chip; decode and other
      small-M shapes), the K tiles are split into 8, 4 or 2 ranges (the
      most that keeps the grid within 256 workgroups, each range whole
      scale blocks and, with stages = 2, at least two K tiles).

    A matmul whose M is dynamic and that has no config of the user's (nor
    an `override`) is versioned by M: `scf.if M <= 64` of a copy marked
    `qmm.max_m = 64` and configured as if M were 64 (decode and small
    batches: narrow tiles and, for small grids, split-K, whose workspace
    the bound sizes), else a copy configured as if M were `dynamic-m`
    (default 256), which never splits (its workspace would depend on M).
    A user's config on a dynamic M is used for every M, without split-K
    (refused) unless the op carries `qmm.max_m`.

    Checks (user configurations included): the chip has the MFMA and it
    reads the operand types, tile K is a multiple of 16, the padded A
    and B tiles fit in the chip's LDS, and an FP8 output's scale blocks lie
    within one wave's sub-tile.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (gfx942 or gfx950); default: the IR's target "
           "(qmm-attach-target), which a chip given here must match">,
    Option<"override", "override", "std::string", /*default=*/"\"\"",
           "a #qmm.config<...> forced on every qmm.matmul">,
    Option<"tuningTable", "tuning-table", "std::string", /*default=*/"\"\"",
           "a tuning table (JSON, written by fp8-run --tune --tune-table): "
           "a matmul without a config whose chip, formats, scales, output "
           "and M/N/K buckets (powers of two) have an entry takes its "
           "config instead of the heuristic's">,
    Option<"builtinTuning", "builtin-tuning", "bool", /*default=*/"true",
           "consult the built-in tuning table (after tuning-table, before "
           "the heuristic)">,
    Option<"dynamicM", "dynamic-m", "int64_t",
           /*default=*/"::mlir::qmm::kDefaultDynamicMBucket",
           "the M a matmul with a dynamic M (A's rows `?`) is configured "
           "for: the heuristic and the tuning tables see this M, and the "
           "one kernel then serves every M (no split-K)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def QMMTileMatmul : Pass<"qmm-tile-matmul", "ModuleOp"> {
  let summary = "Tile configured, bufferized qmm.matmul ops into grids of "
                "workgroups and waves (pipeline stage 3)";
  let description = [{
    Replaces each qmm.matmul (memref form, B as [N, K], operand types native
    to the chip or converted by `mfma = bf16`, a `config`) with a gpu.launch
    of ceil(N / tile N) x ceil(M / tile M) workgroups of 64 x waves threads
    (along x). Wave w works on the sub-tile (w / waves N, w % waves N) of
    (tile M / waves M) x (tile N / waves N) outputs.

    The body is one loop along K. qmm.wave_mma multiplies the workgroup's A
    and B tiles of one K tile (read from global memory; rows past M and N
    clamped, columns past K zeros) into f32 partial sums, and
    qmm.wave_scale_accumulate scales a block's partial sums (128 of K for
    blockwise scales, all of K for per-tensor and per-row scales) into the
    accumulators:

    * a block spanning K: the loop over K tiles only multiplies; the scales
      are applied once, after it;
    * blocks of B K tiles, B dividing the number of tiles: one trip per
      block, its B qmm.wave_mma ops chained from zero and scaled at the end
      of the trip (no branch, no partial sums carried across trips);
    * otherwise (a shorter last block, K not a multiple of the block): one
      trip per K tile, carrying the block's partial sums, scaled and
      restarted from zero in an scf.if at the end of each block.

    qmm.wave_store writes the accumulators after the loop (masked past M
    and N).

    qmm.grouped_matmul gets the same tiles: contiguous, each workgroup tile
    of A reads its group from its first row (segments are aligned to the
    128-row M alignment, so a tile is one group's or padding), padding
    tiles do nothing and padding rows are not stored; masked, grid z runs
    over the groups, tiles at or past a group's count do nothing and rows
    past it are not stored. A and B stay whole [G, rows, K] operands read
    with a leading group index; scales and output are the group's views.

    With `mfma = scaled_f8f6f4` (MX operands on gfx950) the instruction
    applies the E8M0 scales: qmm.wave_mma takes the scale tensors, indexed
    at the tile's first row and 32-wide K block, and accumulates straight
    into the accumulators; there is no qmm.wave_scale_accumulate.

    Split-K (`split = S` in the config, qmm.matmul only): the K tiles are
    cut into S equal ranges of whole scale blocks, one per workgroup along
    grid z. Each wave stores its range's scaled f32 accumulators, in their
    register layout, to a workspace (memref.alloc'd by the host code around
    the launch), releases them and counts itself in at its sub-tile's
    arrival counter (zeroed by gpu.memset, reset by the kernel); the wave
    that arrives last adds ranges 0, 1, ..., S - 1 in that order (so the
    result does not depend on scheduling) and runs qmm.wave_store with the
    whole epilogue. The K loop's bounds stay constants; the range's first
    tile enters through its indices.

    A dynamic M (qmm.matmul with A's rows `?`; N and K stay static): the
    host code reads M from A (memref.dim), checks with cf.assert that the
    output's, aux's and the M-following scales' extents agree with it,
    and launches ceil(M / tile M) rows of workgroups inside an scf.if
    (no launch for M = 0). The kernel reads M where it masks or clamps
    rows (memref.dim on its operands), so one kernel serves every M.
    Split-K needs an upper bound of M (`qmm.max_m = B`, which
    qmm-select-config sets on the small-M version of a matmul it versions):
    the host asserts M <= B and sizes the workspace and counters for
    ceil(B / tile M) rows of tiles. Grouped matmuls take a dynamic M too:
    contiguous, the rows of A (and the row groups with them); masked, each
    group's row capacity Mmax (dimension 1, behind a static G), the groups'
    views taken with memref.dim.

    FP8 outputs of grouped matmuls: the group's view of the output scales
    (masked) or the whole [M, ceil(N / C)] scales (contiguous) go to
    qmm.wave_store with the output; rows that are not stored keep their
    scales too.

    Checks: static N, K and G (M static or bounded by qmm.max_m for
    split-K), a
    configuration the chip runs, scale blocks
    along K that nest, and a tile K that divides the scale block (a K tail
    is allowed, as the last block is then shorter); MX scales on both
    operands or neither, K-major; packed FP4/FP6 operands with K a
    multiple of 32; with split-K, S dividing the K tiles into ranges of
    whole scale blocks, and no grouped matmul.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (gfx942 or gfx950); default: the IR's target "
           "(qmm-attach-target), which a chip given here must match">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

def QMMPromoteOperandsToLds : Pass<"qmm-promote-operands-to-lds"> {
  let summary = "Stage the operand tiles of qmm.wave_mma through LDS "
                "(pipeline stage 4)";
  let description = [{
    Gives the enclosing gpu.launch one workgroup buffer per operand,
    [stages,] tile rows x (tile K + padding) bytes, copies the workgroup's
    A and B tiles into them and points qmm.wave_mma at the copies.

    * Copies: 16-byte vector loads (consecutive threads on consecutive
      chunks of a row, so a wave reads whole rows of global memory) and
      16-byte LDS stores. Rows past the operand's last row read the last
      row. Past K the copy stores zeros; a chunk that crosses K (K not a
      multiple of 16) is loaded byte by byte.
    * Packed FP4/FP6 operands (see the dialect's storage rules): rows of
      K * w / 8 bytes, read through a flat view at byte row * (K * w / 8) +
      k * w / 8 in chunks of 32 values (16 bytes of FP4, 24 of FP6); the
      LDS tile's columns are bytes. K and tile K must be multiples of 32.
    * Layout: rows are padded by the smallest whole number of MFMA fragment
      pieces for which one wave's fragment reads are free of bank conflicts
      (evaluated against the chip's banks). When one LDS phase of 16-byte
      writes covers two rows, the threads of a phase write rows r and
      r + D, D chosen so that the two rows fill the banks exactly once.
    * Each copy issues all its global loads before its LDS stores, so their
      latencies overlap. When the chunks do not divide evenly among the
      threads, the last round's surplus threads load the last chunk again
      and only their store is predicated (no branch around the loads).
      Packed FP4/FP6 chunks are stored as soon as they are loaded (holding
      them would need scratch memory for the sub-byte vectors).
    * `stages = 1`: copy, barrier, multiply, barrier, for every K tile.
    * `stages = 2` (the qmm.wave_mma must be in the body of an scf.for with
      constant bounds whose induction variable its indices depend on): the
      first tile is copied before the loop. Iteration i issues the global
      loads of the next tile before its MFMAs, multiplies tile i out of
      buffer i % 2, stores the loaded tile into buffer (i + 1) % 2 after the
      MFMAs and ends with one barrier, which both publishes tile i + 1 and
      frees buffer i % 2. The loads' latency is thereby hidden under one
      tile of MFMAs; the last iteration reloads its own tile into the
      buffer nobody reads again instead of branching (the next trip is
      `iv == last ? iv : iv + step`, a compare LLVM peels the last trip
      for). The index computations of the next tile are cloned from the
      loop body.
    * Several qmm.wave_mma ops in one block with the same config and
      operand types (the K tiles of one scale block, which qmm-tile-matmul
      unrolls into one trip) share one set of buffers. With `stages = 2`
      they form one prefetch chain: op j loads op j + 1's tile (the last op
      the next trip's first), K tile t of the chain uses buffer t % 2, and
      each op ends with a barrier (the last op's ends the trip).
    * `lds_copy = direct` (8-bit or packed FP4 operands, K a multiple of
      tile K): no registers in between. Rows are unpadded; each wave's 64
      lanes fill 64 chunks of the tile in lane order with
      `amdgpu.gather_to_lds` (the chip's widest: 16 bytes on gfx950, 4 on
      gfx942), lane l of round r taking chunk s = 64 w + l + r T, i.e. row
      s / C, chunk s mod C (C chunks per row), and loading the global bytes
      that the tile's XOR swizzle (getLdsSwizzle) moves there (packed rows
      through a flat byte view of the operand, as the register copies).
      The next tile's loads are issued before the MFMAs and nothing is
      stored after them; the barrier that ends the trip waits for them.
      The last trip loads nothing (an `scf.if` LLVM peels off the loop).

    Operands already in workgroup memory are left alone.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (gfx942 or gfx950); default: the IR's target "
           "(qmm-attach-target), which a chip given here must match">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::ROCDL::ROCDLDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMLowerWaveMmaToMFMA : Pass<"qmm-lower-wave-mma-to-mfma"> {
  let summary = "Lower qmm.wave_mma on LDS tiles to amdgpu.mfma "
                "(pipeline stage 5)";
  let description = [{
    For each MFMA step along the tile's K, each lane reads its A and B
    fragments from LDS where the ISA guides put its K items (8 consecutive
    values for gfx942's fp8 forms 16x16x32 and 32x32x16; for gfx950's
    f8f6f4 forms 16x16x128 and 32x32x64, two runs of 16 half the
    instruction's K apart for FP8, one run of 32 for FP4/FP6) and issues
    one amdgpu.mfma per MFMA tile of the wave, or amdgpu.scaled_mfma with
    MX scales: each lane then loads the E8M0 scale of its fragment row and
    of the (l / m)-th 32-wide K block of the step from the [rows, K / 32]
    scale tensors, the lanes and bytes the instruction reads them from
    (CDNA4 ISA guide), clamped to the last row and block. The B
    fragment is the instruction's first operand, so the instruction
    computes the transposed tile: a lane's accumulator items are runs of 4
    consecutive output columns (the layout documented on qmm.wave_mma).

    With `mfma = bf16` (FNUZ FP8 data on gfx950), the FP8 fragments are
    converted exactly to bf16 in registers (integer field moves for normal
    numbers, an exact f32 product for subnormals, 0x80 to NaN) and fed to
    the bf16 forms 16x16x32 and 32x32x16.

    FP4/FP6 data on gfx942 (`mfma = fp8`, which reads neither) is
    converted exactly to e4m3fnuz in registers: every FP4/FP6 value is a
    normal e4m3fnuz value; normal codes rebias their exponent, subnormal
    ones take the exponent of their mantissa as an f32, zeros become +0.

    The operands must be in workgroup memory (qmm-promote-operands-to-lds).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (gfx942 or gfx950); default: the IR's target "
           "(qmm-attach-target), which a chip given here must match">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMLowerWaveScales : Pass<"qmm-lower-wave-scales"> {
  let summary = "Lower qmm.wave_scale_accumulate to scale loads and FMAs "
                "(pipeline stage 6)";
  let description = [{
    Applies one K block's scales to a wave's f32 partial sums, DeepGEMM's
    scheme: acc = fma(partial, scale_a(row) * scale_b(col), acc), one
    rounding of each partial sum per block. Each lane loads the A scale of
    its row once per MFMA tile row and the B scale of each of its columns
    once per MFMA tile column, so every scale a lane needs is loaded once
    per block; where a scale block holds the wave's whole sub-tile rows
    (128x128 B blocks, say) that operand's scale is loaded once per wave
    and its product with each row's scale broadcast; per-tensor and per-row scales, whose block spans K, are
    applied once, in the epilogue. Rows and columns past M and N read the
    last row's or column's scale. MX (E8M0) scales are applied by the
    scaled MFMA (gfx950) or turned into f32 scales by qmm-legalize-for-chip
    (gfx942), and are not lowered here.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (gfx942 or gfx950); default: the IR's target "
           "(qmm-attach-target), which a chip given here must match">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMPrefetchScales : Pass<"qmm-prefetch-scales"> {
  let summary = "Load the K loop's scales one iteration ahead "
                "(pipeline stage 6b)";
  let description = [{
    The scales a K tile needs (block scales applied by the FMAs of
    qmm-lower-wave-scales, E8M0 scales read by the scaled MFMAs) are
    scalar loads from global memory in the K loop; left in place, every
    trip waits a full global-memory latency for them at its end. This pass
    rotates them: iteration i loads the scales of iteration
    min(i + 1, last) at the top of its body and carries them to the next
    iteration as loop-carried values; the first iteration's are loaded
    before the loop. The last iteration loads its own scales again
    (always in bounds) instead of branching.

    A `memref.load` is rotated when it sits directly in the body of an
    `scf.for` with an index induction variable, constant bounds and at
    least two trips, reads a memref defined above the loop outside
    workgroup memory, has indices computed in the loop from its induction
    variable and values from above without side effects, and no operation
    of the loop may write memory other than workgroup memory (LDS stores
    and barriers are fine; an op that declares no memory effects counts as
    a writer unless it is a barrier, a scheduling hint or
    `rocdl.readfirstlane`, which direct-to-LDS copies use for their row).
    Loads of the same memref at the same indices are carried once. Anything else is left
    alone: the pass only moves loads earlier, never changes what they
    read.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def QMMLowerWaveStore : Pass<"qmm-lower-wave-store"> {
  let summary = "Lower qmm.wave_store to masked vector stores "
                "(pipeline stage 7, the epilogue)";
  let description = [{
    Each run of accumulator items of a lane (4 for the MFMAs in use; the
    intrinsic table's accumulator layout) is consecutive columns of one
    output row: with `accumulate` the output's values there are loaded
    and added in f32, then the bias of those columns; the pre-activation
    goes to `aux` when there is one, the activation (GELU) is applied, and
    the results are converted to the output type (f32, bf16 or f16, round
    to nearest even) and stored with one vector store when all the run's
    columns are inside the matrix, element by element at the right edge,
    not at all below the last row. Where the op's `in_bounds` says the
    wave's sub-tile lies inside the output along a dimension (qmm-tile-matmul
    sets it when the tile divides M or N), no test is emitted for it.

    FP8 outputs (`out_scales`): for each row of each block of C columns
    (C = 32 for MX), the lane's f32 results (bias, aux and activation as
    above) are reduced to a local amax over the columns inside the matrix,
    then across the lanes that hold the same row with `gpu.shuffle xor` (m,
    2m, ... apart for an m x m MFMA; the backend picks ds_bpermute or
    v_permlane32_swap). The block's scale and reciprocal follow
    qmm.quantize's rule (`none`, `pow2_floor`, `pow2_ceil`, min_amax), the
    codes are sat(rne(x * reciprocal)) stored 4 to a vector, and the row's
    first lane stores the scale. Conversions to FP8 and E8M0 are integer
    arithmetic on the f32 bits (LLVM has no such types), the same on both
    chips and bit-exact.

    GELU's tanh and erf stay math ops and the conversions to FP8 stay
    `arith.truncf`: qmm-expand-kernel-math expands them for the device.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (gfx942 or gfx950); default: the IR's target "
           "(qmm-attach-target), which a chip given here must match">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMKernelSizeArguments : Pass<"qmm-kernel-size-arguments", "ModuleOp"> {
  let summary = "Pass the dynamic extents, offsets and strides of a kernel's "
                "memref operands as index arguments (pipeline stage 7b, "
                "after outlining)";
  let description = [{
    The code objects use the bare-pointer calling convention (one pointer
    per memref, what HIP launches take), which only memref types of static
    shape and layout have. A kernel outlined from a matmul with a dynamic M
    takes `memref<?xKxT>` operands, and one of a batched program whose
    slices are placed at run time takes `memref<..., strided<[...],
    offset: ?>>`; this pass rewrites each such kernel argument into its
    base pointer, typed `memref<0xT>` (an extent-less handle: the kernel
    never reads it directly), and appends `index` arguments, per operand:
    its offset if dynamic, its dynamic extents, its dynamic strides. The
    kernel's entry rebuilds the view with `memref.reinterpret_cast` (for
    the identity layout: offset 0, row-major strides from the extents), so
    every `memref.dim` in it folds to the new argument. Every
    `gpu.launch_func` of the kernel passes `memref.reinterpret_cast` of its
    operand to `memref<0xT>` (the buffer's start, whatever the operand's
    offset) and the operand's `memref.dim`s, or for a strided layout the
    results of `memref.extract_strided_metadata`.

    Kernels whose operands have static shapes and layouts are left as they
    are. A dynamic operand whose layout is not strided is an error.

    ```mlir
    gpu.func @k(%a: memref<?x256xf8E4M3FN>) kernel { ... }
    // becomes
    gpu.func @k(%a: memref<0xf8E4M3FN>, %m: index) kernel {
      %view = memref.reinterpret_cast %a to offset: [0], sizes: [%m, 256],
                strides: [256, 1] : memref<0xf8E4M3FN> to memref<?x256xf8E4M3FN>
      ...
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def QMMExpandKernelMath : Pass<"qmm-expand-kernel-math"> {
  let summary = "Expand the math kernels cannot call into arithmetic "
                "(pipeline stage 8, on each gpu.module)";
  let description = [{
    What the chip has no instruction or library for becomes plain f32 and
    integer arithmetic, so that the kernels need no device math library and
    the emulator runs exactly what the chip runs:
    - `math.tanh` and `math.erf` (GELU) become MLIR's f32 polynomial
      approximations (`populatePolynomialApproximate{Tanh,Erf}Pattern`),
      whose `math.absf` becomes the bits with the sign cleared (the NVVM
      lowering would call libdevice for it; other `math.absf` stay);
    - `arith.truncf` to FP8, FP6, FP4 and E8M0 (LLVM has no such types)
      becomes integer arithmetic on the f32 bits, round to nearest even with
      saturation as qmm.quantize defines it, bit-exact on every chip;
    - `arith.extf` from those types becomes the exact decoding of their
      bits (fields moved into an f32, subnormals as m * 2^(emin - mbits),
      NaN and Inf codes read off the type's semantics), then a rounding to
      f16 / bf16 where the result is one (what `qmm.dequantize` kernels
      read).
    The pipeline runs it on each gpu.module after outlining; it works on any
    op, so tests can run it on kernels still inside gpu.launch. Truncations
    with another rounding mode, or from types other than f32/f16/bf16, are
    errors.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMExpandIndexMaps : Pass<"qmm-expand-index-maps"> {
  let summary = "Expand the kernels' affine.apply index maps into unsigned "
                "arith (pipeline stage 9, before lower-affine)";
  let description = [{
    The wave lowerings build every index as one affine.apply, composed and
    folded (the LDS copy's placement, a lane's operand and accumulator
    positions, tile origins). This pass turns each into arith for the ROCDL
    conversion, for the indices of a kernel:

    - A floordiv or mod whose dividend is non-negative whenever the map's
      operands are becomes `arith.divui` / `arith.remui` (ceildiv:
      `arith.ceildivui`). upstream lower-affine's signed expansion would
      add compares and selects per division that the backend cannot remove,
      since it does not know the indices are non-negative. A dividend that
      may be negative (a negative coefficient or constant that is not part
      of a restored mod) keeps the exact signed expansion.
    - Composition writes `k * (x mod c)` as `k * x - k * c * (x floordiv
      c)`; the mod is restored, so indices need no 64-bit subtraction.
    - Sums add their operand-only terms (ids, loop invariants) first and
      subtract last, so a partial sum is never negative.

    Precondition: every operand of an affine.apply is non-negative (thread,
    block and lane ids, loop counters from 0, offsets into buffers). An
    operand that is a negative constant is reported as an error.

    ```mlir
    // (tid mod 64) floordiv 32 * 8, a lane's K offset:
    %k = affine.apply affine_map<()[s0] -> (((s0 mod 64) floordiv 32) * 8)>()[%tid]
    // becomes
    %0 = arith.remui %tid, %c64 : index
    %1 = arith.divui %0, %c32 : index
    %k = arith.muli %1, %c8 : index
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def QMMScopeLdsDma : Pass<"qmm-scope-lds-dma"> {
  let summary = "Give a kernel's direct-to-LDS loads and its LDS reads "
                "disjoint alias scopes (pipeline stage 10, after the ROCDL "
                "conversion)";
  let description = [{
    LLVM's wait-count insertion makes an LDS read wait for every direct
    (DMA) load to LDS still in flight (`s_waitcnt vmcnt(0)`) unless alias
    scopes tell it the two do not overlap. With tiles copied directly
    (`lds_copy = direct`), that wait would stall each K tile's first LDS
    read until the next tile's loads, issued just before, arrive: the loads
    would no longer overlap the MFMAs.

    In the kernels this pipeline emits, no LDS read between two barriers
    touches bytes that a direct load between the same barriers writes: the
    loads fill the stage that is read only after the next barrier, and a
    barrier waits for every load (gfx9 executes `s_waitcnt vmcnt(0)`
    before `s_barrier`). So, in every function that holds a direct load,
    this pass puts the loads (`rocdl.load.to.lds`, `rocdl.global.load.lds`)
    in one scope and the LDS `llvm.load`s in another that is declared not
    to alias it. Functions without direct loads are left alone.

    ```mlir
    rocdl.load.to.lds %g, %l, 16, 0, 0 {alias_scopes = [#dma]} : !llvm.ptr<1>
    %v = llvm.load %p {alias_scopes = [#reads], noalias_scopes = [#dma]}
        : !llvm.ptr<3> -> vector<16xi8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def QMMCopyStridedOperands
    : Pass<"qmm-copy-strided-operands", "func::FuncOp"> {
  let summary = "Copy operands whose rows are strided into contiguous "
                "buffers";
  let description = [{
    The AMD kernels move rows with vector loads and stores (A and B tiles
    into LDS, D and aux out, C and the bias in), which need a unit stride
    along the last dimension. After one-shot bufferization, a view inside
    a function may lack one: a tensor.extract_slice with a stride along K
    (qmm-linalg-to-qmm raises a dequantized slice to it), a rank-reducing
    slice that drops the last dimension, a transposed memref. Each such
    memref operand of qmm.matmul and qmm.grouped_matmul (bytes or wider),
    and each operand of qmm.quantize and qmm.dequantize that is not a whole
    buffer (their loops index whole buffers), is replaced by a new buffer
    with the identity layout, filled by a linalg.copy before the op; an
    init is copied back into the view after the op. The copies become
    kernels through convert-linalg-to-parallel-loops and
    qmm-parallel-loops-to-gpu. The matmuls' views with a unit last stride
    (offsets, row strides: batch slices) are left as they are. Packed
    FP4/FP6 views are not copied (two values share a byte):
    qmm-tile-matmul and qmm-lower-quantization-to-loops refuse them unless
    they are whole buffers.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def QMMLowerPackedTransposes
    : Pass<"qmm-lower-packed-transposes", "func::FuncOp"> {
  let summary = "Transpose packed FP4/FP6 data (B in layout kn) block by "
                "block";
  let description = [{
    qmm-legalize-for-chip turns B stored [K, N] (`layout kn`) into [N, K]
    with a linalg.transpose. FP4 and FP6 rows are packed (E elements of w
    bits take ceil(E * w / 8) bytes, each row starting on a byte) and an
    index into such a memref names a byte slot, so the element-wise loops
    convert-linalg-to-parallel-loops would make of the transpose read and
    write the wrong bits. This pass (after bufferization) rewrites each
    2-D linalg.transpose of a sub-byte element type into scf.parallel
    loops over u x u blocks, u = 8 / gcd(w, 8) (2 for FP4, 4 for FP6): u
    vector loads of u elements from consecutive source rows, u vector
    stores of the transposed columns, through flat byte-slot views. A last
    group of N % u columns reads only the bytes its rows have.
    qmm-parallel-loops-to-gpu then runs the loops as kernels. K must be a
    multiple of u (the transposed rows fill whole bytes); shapes must be
    static.
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMLowerQuantizationToLoops
    : Pass<"qmm-lower-quantization-to-loops", "func::FuncOp"> {
  let summary = "qmm.quantize and qmm.dequantize as scf.parallel loops the "
                "device runs as kernels";
  let description = [{
    After bufferization, each `qmm.quantize` and `qmm.dequantize` (memrefs,
    identity layouts) becomes top-level `scf.parallel` loops that
    `qmm-parallel-loops-to-gpu` turns into kernels. `qmm.quantize`
    (DeepGEMM's `per_token_cast_to_fp8` role):

    1. partial amax: one iteration per (row, K block), a serial max over the
       block's K extent (the whole of K for per-tensor and per-row scales);
    2. where a block spans several rows (per-tensor, `block RxC` with
       R > 1), one iteration per scale, a serial max over the block's rows'
       partial amaxes into a temporary `memref.alloc`; blocks one row high
       (per-row, 1xC, MX) compute their scale in step 1;
    3. one iteration per group of u stored elements, u = 8 / gcd(w, 8)
       (1 for FP8, 2 for FP4, 4 for FP6), so that no two iterations write
       the same byte: packed FP4/FP6 rows are stored as vectors of u
       elements through a flat byte-slot view, a row's last group of
       `extent % u` elements writing only its bytes.

    The scale and the element cast are `qmm.quantize`'s rule, built by the
    same functions as the reference lowering and the FP8 matmul epilogue,
    so the device quantizes bit for bit as the host quantizer; the max is
    exact and order-free (NaN propagates whichever order), so the two-pass
    amax changes nothing. The scale per block is stored in the encoding's
    order (MN-major transposed).

    `qmm.dequantize`: one iteration per group of u stored codes (read as a
    vector of u through the byte-slot view where packed), each element
    `fl32(value(q) * s)` rounded to the output type, as the reference
    lowering computes it (`arith.extf` of the codes and E8M0 scales, which
    `qmm-expand-kernel-math` decodes with integer arithmetic in kernels).

    Rows may be dynamic (a dynamic M, FP8 data); packed FP4/FP6 data needs
    static shapes (its rows are addressed by byte).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QMMParallelLoopsToGPU : Pass<"qmm-parallel-loops-to-gpu", "ModuleOp"> {
  let summary = "Run the element-wise scf.parallel loops of host functions "
                "as GPU kernels";
  let description = [{
    The legalization's element-wise conversions and transposes reach the
    host function as scf.parallel loops (convert-linalg-to-parallel-loops,
    qmm-lower-packed-transposes), and so do the quantization kernels
    (qmm-lower-quantization-to-loops), and qmm-copy-strided-operands'
    copies. Each outermost loop nest of host code (in the function body or
    in a branch of its scf.if, such as a dynamic M's versions) with
    constant lower bounds and steps becomes a gpu.launch of 256-thread
    workgroups, one thread per iteration over the flattened iteration space,
    guarded against the tail; a dynamic upper bound sizes the grid at run
    time (an empty iteration space launches nothing).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

//===----------------------------------------------------------------------===//
// NVVM pipeline (NVIDIA Hopper)
//===----------------------------------------------------------------------===//

def QMMCheckNvidiaSupport : Pass<"qmm-check-nvidia-support", "ModuleOp"> {
  let summary = "Refuse what the NVVM pipeline does not compile for the "
                "chip (pipeline stage 0 for NVIDIA)";
  let description = [{
    Runs first in `qmm-to-nvvm-pipeline`, on qmm ops, so that what the
    pipeline cannot compile for an NVIDIA chip is a diagnostic on the op
    rather than wrong code or an abort in the NVPTX backend:

    * A and B must be OCP FP8 (`f8E4M3FN`, `f8E5M2`, mixed allowed): what
      Hopper's tensor cores read (`wgmma ... .e4m3` / `.e5m2`). FNUZ FP8,
      FP6 and FP4 are refused.
    * MX scales (E8M0 per 32 elements) are refused: they need the
      block-scaled MMA of Blackwell.
    * FP8 outputs must be OCP FP8 too: they are the next layer's A. FNUZ
      outputs are refused.
    * Not compiled yet: `qmm.grouped_matmul`, `qmm.quantize` /
      `qmm.dequantize` and dynamic shapes (the cpu device runs them).

    The chip comes from the option and is looked up in the NVIDIA target
    description (`qmm/Target/NvidiaChip.h`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (sm_90a); empty: the IR's target (qmm-attach-target)">
  ];
}

def QMMLowerMatmulToWgmma : Pass<"qmm-lower-matmul-to-wgmma", "ModuleOp"> {
  let summary = "Lower bufferized qmm.matmul ops to warp-specialized wgmma "
                "kernels with TMA loads (NVIDIA Hopper main loop)";
  let description = [{
    Replaces each eligible bufferized `qmm.matmul` by a kernel of its own
    (`gpu.module @<function>_wgmma`, `gpu.func @matmul`) and, on the host,
    the tensor maps it reads and writes (passed as pointers: the runtime
    encodes them) and a `gpu.launch_func` with the dynamic shared memory of
    the ring and D's staging.

    The kernel is warp-specialized and persistent, as Hopper's fastest
    GEMMs are: one producer thread copies A's and B's K tiles into a ring
    of shared-memory stages with TMA (`full` / `empty` mbarriers), two
    consumer warpgroups run `wgmma.mma_async` on them and promote the
    partial sums into f32 registers (every K tile with block scales, which
    is DeepSeek's recipe; every `promotion-k-tiles` otherwise, because
    wgmma's FP8 accumulation keeps about 14 bits), and the epilogue applies
    scales, C, bias, activation and rounding (or quantizes an FP8 output)
    and stores through shared memory and TMA where D's tensor map allows.
    The blocks walk tiles (128 x 128; smaller where M or the tile count
    is small: `tile-m`, `tile-n`) in raster groups (L2 reuse); a small
    last round is split along K across idle blocks (`stream-k`), whose
    parts add their sums through a global workspace or, where every block
    takes one part, in one cluster's shared memory (`cluster-reduction`);
    clusters share B's tiles (`cluster-rows`) or A's (`cluster-columns`)
    through TMA multicast; blocks may draw tiles from a counter
    (`dynamic-schedule`).

    Eligible: static shapes, OCP FP8, B stored [N, K], identity layouts, K
    a multiple of 16, block scales in whole kernel tiles, no auxiliary
    output. Others are left for the reference lowering; with
    `--remarks-filter-missed=qmm-lower-matmul-to-wgmma` a remark says why.
    docs/wgmma-kernel.md has the design, part by part.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "target chip (sm_90a); empty: the IR's target (qmm-attach-target)">,
    Option<"stages", "stages", "int64_t",
           /*default=*/"::mlir::qmm::kDefaultWgmmaStages",
           "shared-memory stages of the TMA ring of 128 x 128 tiles (32 KiB "
           "each); smaller tiles keep the ring's bytes in more stages "
           "(unscaled 128 x 64 tiles its products: twice the stages where "
           "they fit), tiles of two waves or of 192 columns take this many "
           "of their own 40-48 KiB where they fit; block-scaled 128 x 128 "
           "tiles that stream B (few tile rows, long K) one more where it "
           "fits">,
    Option<"rasterRows", "raster-rows", "int64_t", /*default=*/"8",
           "rows of tiles the persistent blocks walk together, column by "
           "column (L2 reuse)">,
    Option<"clusterRows", "cluster-rows", "int64_t", /*default=*/"0",
           "blocks of a cluster, consecutive tiles of one column, that "
           "share B's tile: each loads a part and multicasts it to all "
           "(a power of two up to 8; 0, the default: 2 for tiles of two "
           "waves, where they pay, else none; 1: no clusters)">,
    Option<"clusterColumns", "cluster-columns", "int64_t", /*default=*/"1",
           "blocks of a cluster, consecutive tiles of one row, that share "
           "A's tile: each loads a part of its rows and multicasts it to "
           "all (a power of two up to 8; 1, the default: none; not with "
           "cluster-rows above 1)">,
    Option<"streamK", "stream-k", "bool", /*default=*/"true",
           "split a last round of tiles at most half as many as the blocks "
           "along K across the idle blocks (unclustered kernels)">,
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"0",
           "the most persistent blocks (0, the default: one per "
           "multiprocessor); smaller grids exercise the split rounds in "
           "small tests">,
    Option<"promotionKTiles", "promotion-k-tiles", "int64_t",
           /*default=*/"::mlir::qmm::kDefaultWgmmaPromotionKTiles",
           "K tiles (128 products each) wgmma sums between promotions into "
           "f32 for per-tensor and per-row scales (block-scaled kernels "
           "promote every K tile): 1 matches cuBLASLt's default FP8 mode; "
           "more is faster and looser (fp8-run's exact tier follows)">,
    Option<"dynamicSchedule", "dynamic-schedule", "bool",
           /*default=*/"false",
           "blocks draw their tiles after the first from a global counter "
           "as they free up, on every multiprocessor (unclustered kernels "
           "of several rounds without a split last round; off by default: "
           "measured slower on an H200)">,
    Option<"tileM", "tile-m", "int64_t", /*default=*/"0",
           "a kernel tile's rows: 64 (one consumer warpgroup), 128 (two) or "
           "256 (two of two waves each; block scales only, not grouped); "
           "0, the default: 64 where M fits in 64 rows, else 128">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"0",
           "a kernel tile's columns, 64, 128 or 192 (192: not with "
           "tile-m 256); 0, the default: 64 where 128-column tiles would "
           "leave more than half the multiprocessors idle and the scale "
           "blocks allow it, 192 where its rounds keep the "
           "multiprocessors about as busy as 128's, else 128">,
    Option<"checkScalesAhead", "check-scales-ahead", "bool",
           /*default=*/"true",
           "with block scales on both operands, idle producer warps check "
           "every scale once per launch; where all are in range, the "
           "consumers promote a block's tiles after its first without the "
           "per-K-tile exactness test (static schedules of enough K tiles)">,
    Option<"stageScales", "stage-scales", "bool", /*default=*/"true",
           "block scales (f32, rows 16-byte aligned) go through the ring: "
           "TMA copies each K tile's scales into its stage beside the "
           "tiles, so that the consumers read them from shared memory, "
           "not from global memory each K tile">,
    Option<"clusterReduction", "cluster-reduction", "bool",
           /*default=*/"true",
           "where every block takes one Stream-K part, the parts of a tile "
           "run as one cluster and add their sums in distributed shared "
           "memory rather than through a global workspace">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def QMMExternDynamicSharedMemory
    : Pass<"qmm-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare a kernel's dynamic shared memory extern and "
                "atom-aligned in NVVM modules";
  let description = [{
    `convert-gpu-to-nvvm` turns `gpu.dynamic_shared_memory` into an
    internal zero-sized `llvm.mlir.global` in address space 3. The NVPTX
    backend then emits a 1-byte static `.shared` variable, which other
    shared variables (the mbarriers) may follow directly: the kernel's
    dynamic shared memory then overlaps them, silently. This pass gives
    every zero-sized address-space-3 global of the module external linkage
    and an alignment of `alignment` bytes, so that the PTX declares
    `.extern .shared .align <alignment> .b8 name[]`: the dynamic window
    starting after the static variables, as CUDA's `extern __shared__`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"1024",
           "alignment of the dynamic shared memory in bytes">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def QMMTensorMapsByValue
    : Pass<"qmm-tensor-maps-by-value", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass a kernel's TMA tensor maps as 128-byte grid constants";
  let description = [{
    After `convert-gpu-to-nvvm`: in each kernel carrying
    `qmm.tensor_map_arguments` (the indices of its parameters that hold
    tensor maps, which `qmm-lower-matmul-to-wgmma` records), those
    pointer parameters become `llvm.byval` 128-byte arrays, 64-byte
    aligned and `nvvm.grid_constant`: in PTX, `.param .align 64 .b8
    name[128]` parameters whose address TMA reads (`cvta.param`), as
    CUDA's `const __grid_constant__ CUtensorMap`. The launch passes the
    maps' bytes with the other arguments.

    A map in global memory, written by the host, needs
    `fence.proxy.tensormap::generic.acquire` at system scope before TMA
    reads it (CUDA Programming Guide); issued by every block, that fence
    was most of a small kernel's fixed cost (benchmarks/results/
    2026-11-30-h200-launch-costs.md). A grid constant needs none. The attribute is removed; a function that is not a kernel, or
    an index that is not a pointer parameter, is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

//===----------------------------------------------------------------------===//
// CPU
//===----------------------------------------------------------------------===//

def QMMExpandFloatConversions : Pass<"qmm-expand-float-conversions", "ModuleOp"> {
  let summary = "Expand conversions from/to 8-bit and smaller floats into "
                "integer arithmetic (for the CPU)";
  let description = [{
    LLVM has no FP8, FP6, FP4 or E8M0 types; the CPU backend stores them as
    integers of their width. This pass rewrites every `arith.extf` from and
    `arith.truncf` to such a type so that the result is bit-exact without
    any runtime library (`arith.scaling_extf` / `scaling_truncf`, OCP MX,
    first become the extf, truncf and mulf they stand for, by upstream's
    `populateExpandScalingExtTruncPatterns`):

    * `extf` reads a constant table (`memref.global`) of the 2^w decoded f32
      values, built from the type's APFloat semantics, indexed by the bits.
    * `truncf` from f32 rounds to nearest even with integer arithmetic on the
      f32 bit pattern (normal range) and an exact power-of-two scaling plus
      the 2^23 rounding trick (subnormal range). Values beyond the largest
      finite value become Inf where the type has it, else NaN, else (FP4/FP6,
      which have neither) the largest finite value. NaN becomes the type's
      NaN, or 0 for types without NaN. Types without negative zero (the FNUZ
      types) produce +0 for -0. `f8E8M0FNU` takes the f32 exponent (the
      value rounded down to a power of two), NaN and Inf giving 0xFF.

    Other operations on these types (arithmetic, constants) are not
    expected on this path and are left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // QMM_CONVERSION_PASSES
