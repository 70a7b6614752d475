//===- QMMAttrs.td - qmm attributes and enums --------------*- tablegen -*-===//

#ifndef QMM_ATTRS
#define QMM_ATTRS

include "qmm/Dialect/QMM/IR/QMMBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def QMM_ScaleKind : I32EnumAttr<"ScaleKind", "granularity of a scale encoding", [
    I32EnumAttrCase<"PerTensor", 0, "per_tensor">,
    I32EnumAttrCase<"PerRow", 1, "per_row">,
    I32EnumAttrCase<"Block", 2, "block">,
    I32EnumAttrCase<"MX", 3, "mx">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_ScaleMajorness : I32EnumAttr<"ScaleMajorness",
    "which dimension of the scale tensor is contiguous", [
    I32EnumAttrCase<"KMajor", 0, "k_major">,
    I32EnumAttrCase<"MNMajor", 1, "mn_major">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_OperandLayout : I32EnumAttr<"OperandLayout",
    "storage order of a 2-D operand relative to its reduction dimension K", [
    I32EnumAttrCase<"NK", 0, "nk">,
    I32EnumAttrCase<"KN", 1, "kn">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_GroupedLayout : I32EnumAttr<"GroupedLayout",
    "how the rows of a grouped (MoE) matmul's A belong to groups", [
    I32EnumAttrCase<"Contiguous", 0, "contiguous">,
    I32EnumAttrCase<"Masked", 1, "masked">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_GroupedLayoutAttr : EnumAttr<QMM_Dialect, QMM_GroupedLayout, "grouped_layout"> {
  let summary = "row grouping of a qmm.grouped_matmul";
}

def QMM_Activation : I32EnumAttr<"Activation",
    "elementwise function a matmul epilogue applies", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"GeluTanh", 1, "gelu_tanh">,
    I32EnumAttrCase<"GeluErf", 2, "gelu_erf">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_ActivationAttr : EnumAttr<QMM_Dialect, QMM_Activation, "activation"> {
  let summary = "activation of a qmm.matmul epilogue";
  let description = [{
    `gelu_tanh`: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), the
    tanh approximation; `gelu_erf`: 0.5 x (1 + erf(x / sqrt(2))), the exact
    form. Computed in f32.
  }];
}

def QMM_OperandLayoutAttr : EnumAttr<QMM_Dialect, QMM_OperandLayout, "layout"> {
  let summary = "storage layout of a quantized operand";
  let description = [{
    `nk`: the operand is stored as [rows, K], K contiguous. This is the only
    layout of A ([M, K], row-major) and the DeepGEMM "NT" / hipBLASLt "TN"
    form of B ([N, K]).

    `kn`: the operand is stored as [K, rows]; for B this is the plain [K, N]
    row-major matrix.
  }];
}

def QMM_ScaleRounding : I32EnumAttr<"ScaleRounding",
    "how qmm.quantize derives a scale from a block's amax", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Pow2Floor", 1, "pow2_floor">,
    I32EnumAttrCase<"Pow2Ceil", 2, "pow2_ceil">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_ScaleRoundingAttr : EnumAttr<QMM_Dialect, QMM_ScaleRounding, "scale_rounding"> {
  let summary = "scale derivation rule of qmm.quantize";
  let description = [{
    * `none`: s = amax' / fmax, rounded to f32 (DeepGEMM, torchao).
    * `pow2_floor`: s = 2^(floor(log2(amax)) - emax_elem), the OCP MX v1.0
      rule; values near amax may saturate.
    * `pow2_ceil`: s = 2^ceil(log2(amax' / fmax)), the DeepGEMM UE8M0 rule;
      nothing saturates.
  }];
}

//===----------------------------------------------------------------------===//
// Scale encoding
//===----------------------------------------------------------------------===//

def QMM_ScaleEncodingAttr : AttrDef<QMM_Dialect, "ScaleEncoding"> {
  let mnemonic = "scale";
  let summary = "how a scale tensor relates to the data of a quantized operand";
  let description = [{
    Describes the granularity, element type and majorness of the scales of a
    quantized operand. Blocks are expressed along (rows, K), where rows is M
    for A and N for B, whatever the storage layout of the data.

    | form                          | block (rows x K)  | scale shape (K-major)       |
    |-------------------------------|-------------------|-----------------------------|
    | `#qmm.scale<per_tensor>`      | whole tensor      | [1, 1]                      |
    | `#qmm.scale<per_row>`         | 1 x K             | [rows, 1]                   |
    | `#qmm.scale<block RxC>`       | R x C             | [ceil(rows/R), ceil(K/C)]   |
    | `#qmm.scale<mx>`              | 1 x 32            | [rows, K/32]                |

    Scale tensors are always rank 2. With `mn_major` the scale tensor is
    stored transposed: shape [ceil(K/C), ceil(rows/R)], so that consecutive
    rows' scales are contiguous (DeepGEMM's "MN-major" activation scales,
    torch's [1, N] row-wise weight scales).

    The scale element type is `f32` for every kind but `mx`, whose scales are
    `f8E8M0FNU` (powers of two, OCP MX v1.0). It is printed only when it
    differs from the kind's default; a mismatching type is rejected.

    Partial blocks: when rows or K is not a multiple of the block, the last
    block along that dimension covers only the remaining elements and has a
    scale of its own. MX blocks are exactly 32 elements: K must be a multiple
    of 32 for an `mx` operand.

    Syntax:

    ```
    #qmm.scale<per_tensor>
    #qmm.scale<per_row>
    #qmm.scale<block 1x128>
    #qmm.scale<block 128x128>
    #qmm.scale<block 1x128, mn_major>
    #qmm.scale<mx>
    ```
  }];
  let parameters = (ins
    EnumParameter<QMM_ScaleKind>:$kind,
    ArrayRefParameter<"int64_t", "block shape (rows, K); empty for per_tensor and per_row">:$blockShape,
    "Type":$scaleType,
    EnumParameter<QMM_ScaleMajorness>:$majorness
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Convenience constructors for each kind with its default scale type.
    static ScaleEncodingAttr getPerTensor(MLIRContext *ctx);
    static ScaleEncodingAttr getPerRow(MLIRContext *ctx,
        ScaleMajorness majorness = ScaleMajorness::KMajor);
    static ScaleEncodingAttr getBlock(MLIRContext *ctx, int64_t rows,
        int64_t k, ScaleMajorness majorness = ScaleMajorness::KMajor);
    static ScaleEncodingAttr getMX(MLIRContext *ctx,
        ScaleMajorness majorness = ScaleMajorness::KMajor);

    /// The scale element type a kind uses unless told otherwise.
    static Type getDefaultScaleType(MLIRContext *ctx, ScaleKind kind);

    /// Number of elements of one block along (rows, K) for an operand of the
    /// given extents. Dynamic extents give ShapedType::kDynamic where the
    /// block depends on them.
    std::pair<int64_t, int64_t> getBlockExtent(int64_t rows, int64_t k) const;

    /// Shape of the scale tensor for an operand of the given extents, in
    /// storage order (transposed when mn_major).
    SmallVector<int64_t, 2> getScaleShape(int64_t rows, int64_t k) const;

    /// K must be a multiple of this for the encoding to be valid (1 when any
    /// K is accepted).
    int64_t getRequiredKMultiple() const;

    bool isMX() const { return getKind() == ScaleKind::MX; }
    bool isMNMajor() const { return getMajorness() == ScaleMajorness::MNMajor; }
  }];
}

//===----------------------------------------------------------------------===//
// Kernel configuration
//===----------------------------------------------------------------------===//

def QMM_MFMAKind : I32EnumAttr<"MFMAKind",
    "matrix-core instruction family of a kernel configuration", [
    I32EnumAttrCase<"FP8", 0, "fp8">,
    I32EnumAttrCase<"F8F6F4", 1, "f8f6f4">,
    I32EnumAttrCase<"ScaledF8F6F4", 2, "scaled_f8f6f4">,
    I32EnumAttrCase<"BF16", 3, "bf16">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_LdsCopy : I32EnumAttr<"LdsCopy",
    "how a kernel configuration copies operand tiles into LDS", [
    I32EnumAttrCase<"Registers", 0, "registers">,
    I32EnumAttrCase<"Direct", 1, "direct">
  ]> {
  let cppNamespace = "::mlir::qmm";
  let genSpecializedAttr = 0;
}

def QMM_LdsCopyParameter : EnumParameter<QMM_LdsCopy> {
  let defaultValue = "::mlir::qmm::LdsCopy::Registers";
}

def QMM_ConfigAttr : AttrDef<QMM_Dialect, "Config"> {
  let mnemonic = "config";
  let summary = "how a qmm.matmul is mapped onto an AMD GPU";
  let description = [{
    The kernel configuration the AMD pipeline follows for one qmm.matmul:

    * `tile`: the workgroup tile [M, N, K] (K is consumed per main-loop
      iteration);
    * `waves`: waves per workgroup along [M, N]; each wave computes a
      (tile M / waves M) x (tile N / waves N) sub-tile;
    * `mfma`: the instruction family (`fp8`: v_mfma_f32_*_fp8 forms,
      `f8f6f4` / `scaled_f8f6f4`: gfx950's 16x16x128 and 32x32x64 forms,
      `bf16`: FP8 data converted exactly to bf16 in registers, for FNUZ data
      on gfx950) and its shape [m, n, k];
    * `stages`: LDS buffers per operand (2 = double buffering);
    * `split` (optional, default 1): split-K. The K tiles are divided into
      `split` equal, consecutive ranges, one per workgroup along grid z;
      each writes its f32 partial sums (its K blocks' scales applied) to a
      workspace, and a second kernel adds the ranges' partials in a fixed
      order (range 0 first, so the result is deterministic) and runs the
      epilogue. For grids too small to fill the GPU (decode, small M).
    * `lds_copy` (optional, default `registers`): how the tiles reach LDS.
      `registers`: each thread loads 16-byte chunks into registers and
      writes them to rows padded against bank conflicts. `direct`:
      `global_load_lds_dword*` (16 bytes per lane on gfx950, 4 on gfx942)
      writes each wave's 64 chunks to LDS in lane order, no registers or
      LDS writes in between; rows are unpadded and their units (one
      fragment run) XOR-swizzled by row so that the fragment reads stay
      free of bank conflicts (each lane loads the global bytes that belong
      at its LDS slot). 8-bit operands, K a multiple of tile K.

    Chosen by `qmm-select-config`, or written by the user on the op (the
    pass then only checks it against the chip; the LDS footprint, padding
    included, is computed in lib/Conversion/AMDGPU/KernelLayout.cpp).

    ```mlir
    #qmm.config<tile = [128, 128, 64], waves = [2, 2], mfma = fp8 [16, 16, 32], stages = 2>
    #qmm.config<tile = [16, 32, 512], waves = [1, 2], mfma = fp8 [16, 16, 32], stages = 2, split = 4>
    #qmm.config<tile = [256, 256, 128], waves = [4, 2], mfma = f8f6f4 [32, 32, 64], stages = 2, lds_copy = direct>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "workgroup tile [M, N, K]">:$tile,
    ArrayRefParameter<"int64_t", "waves along [M, N]">:$waves,
    EnumParameter<QMM_MFMAKind>:$mfmaKind,
    ArrayRefParameter<"int64_t", "MFMA shape [m, n, k]">:$mfmaShape,
    "int64_t":$stages,
    DefaultValuedParameter<"int64_t", "1", "split-K factor">:$split,
    QMM_LdsCopyParameter:$ldsCopy
  );
  let assemblyFormat = [{
    `<` `tile` `=` `[` $tile `]` `,` `waves` `=` `[` $waves `]` `,`
    `mfma` `=` $mfmaKind ` ` `[` $mfmaShape `]` `,` `stages` `=` $stages ``
    custom<ConfigOptions>($split, $ldsCopy) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getTileM() const { return getTile()[0]; }
    int64_t getTileN() const { return getTile()[1]; }
    int64_t getTileK() const { return getTile()[2]; }
    int64_t getNumWaves() const { return getWaves()[0] * getWaves()[1]; }
    /// The instruction the config names: its row of the intrinsic table
    /// (QMMIntrinsics.def; the verifier checks that there is one).
    const ::mlir::qmm::MMAIntrinsicInfo &getIntrinsic() const;
    /// The sub-tile one wave computes.
    int64_t getWaveTileM() const { return getTileM() / getWaves()[0]; }
    int64_t getWaveTileN() const { return getTileN() / getWaves()[1]; }
    /// MFMA output tiles per wave along M and N, and in all: the number of
    /// accumulator vectors each lane carries.
    int64_t getMfmaRepeatsM() const { return getWaveTileM() / getMfmaShape()[0]; }
    int64_t getMfmaRepeatsN() const { return getWaveTileN() / getMfmaShape()[1]; }
    /// Whether every block of `blockN` columns of an [M, n] output lies
    /// within one wave's sub-tile, starting at a multiple of the block from
    /// the sub-tile's first column (what an FP8 output's per-block amax,
    /// reduced across lanes, needs): sub-tiles a multiple of the block
    /// wide, or one wave holding all n columns.
    bool keepsOutputBlocksInWaves(int64_t n, int64_t blockN) const {
      return getWaveTileN() % blockN == 0 ||
             (getWaves()[1] == 1 && n <= getTileN());
    }
    int64_t getNumAccumulators() const {
      return getMfmaRepeatsM() * getMfmaRepeatsN();
    }
    /// The same config with `split` ranges of K.
    ConfigAttr withSplit(int64_t split) const {
      return ConfigAttr::get(getContext(), getTile(), getWaves(),
                             getMfmaKind(), getMfmaShape(), getStages(),
                             split, getLdsCopy());
    }
    /// The same config with tiles copied into LDS by `copy`.
    ConfigAttr withLdsCopy(LdsCopy copy) const {
      return ConfigAttr::get(getContext(), getTile(), getWaves(),
                             getMfmaKind(), getMfmaShape(), getStages(),
                             getSplit(), copy);
    }
    bool copiesDirectToLds() const { return getLdsCopy() == LdsCopy::Direct; }
    /// Whether double buffering (stages = 2) has at least two K tiles to
    /// alternate between in each split-K range of a K-deep matmul.
    bool keepsTwoTilesPerRange(int64_t k) const {
      return getStages() != 2 || k >= 2 * getTileK() * getSplit();
    }
  }];
}

#endif // QMM_ATTRS
