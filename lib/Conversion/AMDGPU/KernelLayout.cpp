//===- KernelLayout.cpp - how a configured matmul sits on the chip --------===//

#include "qmm/Conversion/AMDGPU/KernelLayout.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::qmm;

static MFMAKind toTargetKind(MFMAKindAttrValue kind) {
  switch (kind) {
  case MFMAKindAttrValue::FP8:
    return MFMAKind::FP8;
  case MFMAKindAttrValue::F8F6F4:
    return MFMAKind::F8F6F4;
  case MFMAKindAttrValue::ScaledF8F6F4:
  case MFMAKindAttrValue::BF16:
    break;
  }
  return MFMAKind::ScaledF8F6F4;
}

MFMAOperandLayout qmm::getMFMAOperandLayout(ConfigAttr config) {
  ArrayRef<int64_t> shape = config.getMfmaShape();
  MFMAOperandLayout layout;
  layout.m = shape[0];
  layout.n = shape[1];
  layout.k = shape[2];
  layout.accElements = layout.m * layout.n / 64;
  if (config.getMfmaKind() == MFMAKindAttrValue::FP8) {
    // v_mfma_f32_{16x16x32,32x32x16}_fp8: 8 consecutive K values per lane.
    layout.pieces = 1;
    layout.itemsPerPiece = 8;
    layout.pieceStrideK = 0;
  } else {
    // gfx950 f8f6f4 with FP8 operands (CDNA4 ISA guide): items 0-15 at
    // k = 16 * (l / m), items 16-31 half the instruction's K further.
    layout.pieces = 2;
    layout.itemsPerPiece = 16;
    layout.pieceStrideK = layout.k / 2;
  }
  return layout;
}

int64_t qmm::getLdsRowPadding(const ChipInfo &chip, ConfigAttr config) {
  // One fragment piece per row: with 128-byte K tiles, the rows the lanes of
  // one LDS phase read then start on successive groups of banks, and a row
  // written by one phase still covers each bank once.
  (void)chip;
  return getMFMAOperandLayout(config).itemsPerPiece;
}

int64_t qmm::getLdsFootprint(const ChipInfo &chip, ConfigAttr config,
                             Type aType, Type bType) {
  int64_t rowBytes = config.getTileK() + getLdsRowPadding(chip, config);
  (void)aType;
  (void)bType; // 8-bit formats only: one byte per element
  return config.getStages() * rowBytes *
         (config.getTileM() + config.getTileN());
}

std::optional<MFMAKind> qmm::getMFMAKindFor(const ChipInfo &chip, Type aType,
                                            Type bType) {
  for (Type t : {aType, bType})
    if (t.getIntOrFloatBitWidth() != 8 ||
        getFormatFamily(t) != chip.nativeFP8)
      return std::nullopt;
  return chip.hasScaledMFMA ? MFMAKind::F8F6F4 : MFMAKind::FP8;
}

LogicalResult
qmm::verifyConfigForChip(ConfigAttr config, const ChipInfo &chip, Type aType,
                         Type bType,
                         function_ref<InFlightDiagnostic()> emitError) {
  ArrayRef<int64_t> s = config.getMfmaShape();
  MFMAKindAttrValue kind = config.getMfmaKind();
  if (kind == MFMAKindAttrValue::ScaledF8F6F4 ||
      kind == MFMAKindAttrValue::BF16)
    return emitError() << "config: mfma = " << stringifyEnum(kind)
                       << " is not implemented by the AMD pipeline yet";
  if (!chip.findMFMA(toTargetKind(kind), s[0], s[1], s[2]))
    return emitError() << "config: " << chip.name << " has no "
                       << stringifyEnum(kind) << " MFMA " << s[0] << "x"
                       << s[1] << "x" << s[2];
  if (!getMFMAKindFor(chip, aType, bType))
    return emitError() << "config: mfma = " << stringifyEnum(kind)
                       << " does not read " << aType << " x " << bType
                       << " on " << chip.name;
  if (config.getTileK() % 16 != 0)
    return emitError() << "config: tile K (" << config.getTileK()
                       << ") must be a multiple of 16";
  int64_t lds = getLdsFootprint(chip, config, aType, bType);
  if (lds > chip.ldsBytesPerWorkgroup)
    return emitError() << "config: the tiles take " << lds
                       << " bytes of LDS; " << chip.name << " has "
                       << chip.ldsBytesPerWorkgroup;
  return success();
}

/// Smallest power of two >= `v`, clamped to [lo, hi].
static int64_t powerOfTwoTile(int64_t v, int64_t lo, int64_t hi) {
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(v), lo, hi);
}

ConfigAttr qmm::selectConfig(MLIRContext *ctx, const ChipInfo &chip,
                             int64_t m, int64_t n, int64_t k, Type aType,
                             Type bType, int64_t scaleBlockK) {
  std::optional<MFMAKind> kind = getMFMAKindFor(chip, aType, bType);
  if (!kind)
    return {};
  // 32x32 instructions read half the LDS bytes per flop of the 16x16 ones;
  // they pay off once both tile extents can hold two of them per wave.
  bool large = m >= 128 && n >= 128;
  int64_t mn = large ? 32 : 16;
  const MFMAShape *shape = nullptr;
  for (const MFMAShape &candidate : chip.mfmaShapes)
    if (candidate.kind == *kind && candidate.m == mn && candidate.n == mn)
      shape = &candidate;
  if (!shape)
    return {};
  int64_t tileM = powerOfTwoTile(m, mn, 128);
  int64_t tileN = powerOfTwoTile(n, mn, 128);
  // 128-byte K tiles: one LDS row per phase of 16-byte writes, and one
  // K tile per 128-wide scale block.
  int64_t tileK = std::max<int64_t>(shape->k, 128);
  if (k < tileK)
    tileK = llvm::alignTo(k, shape->k);
  while (scaleBlockK < k && scaleBlockK % tileK != 0 && tileK > shape->k)
    tileK /= 2;
  int64_t wavesM = std::min<int64_t>(2, tileM / mn);
  int64_t wavesN = std::min<int64_t>(2, tileN / mn);
  MFMAKindAttrValue attrKind = *kind == MFMAKind::FP8
                                   ? MFMAKindAttrValue::FP8
                                   : MFMAKindAttrValue::F8F6F4;
  return ConfigAttr::get(ctx, {tileM, tileN, tileK}, {wavesM, wavesN},
                         attrKind, {shape->m, shape->n, shape->k},
                         /*stages=*/1);
}
