//===- QMMWaveOps.cpp - wave-level ops of the AMD pipeline ----------------===//

#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::qmm;


/// Accumulators of one wave: as many vectors as the configuration has MFMA
/// tiles per wave, all of the length its instruction gives each lane.
static LogicalResult verifyAccumulators(Operation *op, ConfigAttr config,
                                        TypeRange types, StringRef what) {
  int64_t expected = config.getNumAccumulators();
  if ((int64_t)types.size() != expected)
    return op->emitOpError() << "expects " << expected << " " << what
                             << " (repeats " << config.getMfmaRepeatsM()
                             << " x " << config.getMfmaRepeatsN()
                             << " of the configuration), got " << types.size();
  ArrayRef<int64_t> shape = config.getMfmaShape();
  int64_t items = config.getIntrinsic().getAccumulatorItems();
  for (Type t : types)
    if (cast<VectorType>(t).getNumElements() != items)
      return op->emitOpError()
             << what << " must be vector<" << items << "xf32> for a " << shape[0]
             << "x" << shape[1] << " MFMA, got " << t;
  return success();
}

/// A rank-2 [rows, K] operand tile source, or a rank-3 [stage, rows, K]
/// buffer, indexed by as many indices as it has dimensions.
static LogicalResult verifyOperandTile(Operation *op, StringRef name,
                                       MemRefType type, size_t numIndices) {
  if (type.getRank() != 2 && type.getRank() != 3)
    return op->emitOpError()
           << name << " must be [rows, K] or [stage, rows, K], got " << type;
  if ((int64_t)numIndices != type.getRank())
    return op->emitOpError() << name << " takes " << type.getRank()
                             << " indices, got " << numIndices;
  unsigned bits = isa<FloatType>(type.getElementType())
                      ? type.getElementTypeBitWidth()
                      : 0;
  if (bits != 8 && bits != 6 && bits != 4)
    return op->emitOpError()
           << name << " must hold FP8, FP6 or FP4 elements, got "
           << type.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// qmm.wave_mma
//===----------------------------------------------------------------------===//

LogicalResult WaveMmaOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  WaveMmaOp::Adaptor adaptor(operands, {}, properties);
  llvm::append_range(inferred, adaptor.getAcc().getTypes());
  return success();
}

LogicalResult WaveMmaOp::verify() {
  if (failed(verifyOperandTile(*this, "A", getA().getType(),
                               getAIndices().size())) ||
      failed(verifyOperandTile(*this, "B", getB().getType(),
                               getBIndices().size())))
    return failure();
  if (getAScales()) {
    for (auto [name, scales, indices] :
         {std::tuple{"A", getAScales(), getAScaleIndices()},
          std::tuple{"B", getBScales(), getBScaleIndices()}}) {
      auto type = cast<MemRefType>(scales.getType());
      if (type.getRank() != 2 || !isa<Float8E8M0FNUType>(type.getElementType()))
        return emitOpError() << "scales of " << name
                             << " must be a rank-2 f8E8M0FNU memref, got "
                             << type;
      if (indices.size() != 2)
        return emitOpError() << "scales of " << name << " take 2 indices, got "
                             << indices.size();
    }
    if (!getConfig().getIntrinsic().hasBlockScales())
      return emitOpError("scales need a scaled MFMA (mfma = scaled_f8f6f4)");
  } else if (getConfig().getIntrinsic().hasBlockScales()) {
    return emitOpError("mfma = scaled_f8f6f4 needs scales");
  }
  return verifyAccumulators(*this, getConfig(), getAcc().getTypes(),
                            "accumulators");
}

//===----------------------------------------------------------------------===//
// qmm.wave_scale_accumulate
//===----------------------------------------------------------------------===//

LogicalResult WaveScaleAccumulateOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  WaveScaleAccumulateOp::Adaptor adaptor(operands, {}, properties);
  llvm::append_range(inferred, adaptor.getAcc().getTypes());
  return success();
}

LogicalResult WaveScaleAccumulateOp::verify() {
  if (getPartials().getTypes() != getAcc().getTypes())
    return emitOpError("partial sums and accumulators must have the same "
                       "types");
  ArrayRef<int64_t> size = getProblemSize();
  if (size.size() != 3 ||
      !(size[0] > 0 || ShapedType::isDynamic(size[0])) ||
      llvm::any_of(size.drop_front(), [](int64_t v) { return v <= 0; }))
    return emitOpError("problem_size must be three positive extents [M, N, "
                       "K] (M may be dynamic)");
  for (auto [name, scales] :
       {std::pair{"A", getAScales()}, std::pair{"B", getBScales()}}) {
    auto type = cast<MemRefType>(scales.getType());
    if (type.getRank() != 2 || !type.getElementType().isF32())
      return emitOpError() << "scales of " << name
                           << " must be a rank-2 f32 memref, got " << type;
  }
  return verifyAccumulators(*this, getConfig(), getAcc().getTypes(),
                            "accumulators");
}

//===----------------------------------------------------------------------===//
// qmm.wave_store
//===----------------------------------------------------------------------===//

LogicalResult WaveStoreOp::verify() {
  MemRefType type = getOut().getType();
  Type element = type.getElementType();
  bool fp8 = isQuantizedElementType(element) &&
             element.getIntOrFloatBitWidth() == 8;
  if (type.getRank() != 2 ||
      !(element.isF32() || element.isBF16() || element.isF16() || fp8))
    return emitOpError("output must be a rank-2 memref of f32, bf16, f16 or "
                       "FP8, got ")
           << type;
  bool hasScaleRule = getOutEncoding() && getOutRounding() && getOutMinAmax();
  if (fp8 != bool(getOutScales()) || (fp8 && !hasScaleRule))
    return emitOpError("an FP8 output and out_scales (with encoding, rounding "
                       "and min_amax) go together");
  if (fp8) {
    if (getAccumulate())
      return emitOpError("an FP8 output is not accumulated into");
    ScaleEncodingAttr encoding = *getOutEncoding();
    bool perToken = encoding.getKind() == ScaleKind::Block &&
                    encoding.getBlockShape()[0] == 1;
    if (!(perToken || encoding.isMX()) || encoding.isMNMajor())
      return emitOpError("output scales must be per token (block 1xC) or mx, "
                         "got ")
             << encoding;
    int64_t n = type.getDimSize(1);
    int64_t blockN = encoding.getBlockExtent(type.getDimSize(0), n).second;
    if (!getConfig().keepsOutputBlocksInWaves(n, blockN))
      return emitOpError("output blocks of ")
             << blockN << " columns must lie within one wave's sub-tile of "
             << getConfig().getWaveTileN()
             << " columns, starting at a multiple of the block";
  }
  if (std::optional<ArrayRef<bool>> inBounds = getInBounds()) {
    if (inBounds->size() != 2)
      return emitOpError("in_bounds needs 2 entries (rows, columns), got ")
             << inBounds->size();
    // A sub-tile larger than the output cannot lie inside it.
    int64_t waveExtent[2] = {getConfig().getWaveTileM(),
                             getConfig().getWaveTileN()};
    for (unsigned dim = 0; dim < 2; ++dim)
      if ((*inBounds)[dim] && !type.isDynamicDim(dim) &&
          waveExtent[dim] > type.getDimSize(dim))
        return emitOpError("in_bounds claims a wave sub-tile of ")
               << waveExtent[dim] << " inside dimension " << dim << " of "
               << type.getDimSize(dim);
  }
  if (Value bias = getBias()) {
    auto biasType = cast<MemRefType>(bias.getType());
    if (biasType.getRank() != 1 || !(biasType.getElementType().isF32() ||
                                     biasType.getElementType().isBF16()))
      return emitOpError("bias must be a rank-1 memref of f32 or bf16, got ")
             << biasType;
  }
  if (Value aux = getAux()) {
    auto auxType = cast<MemRefType>(aux.getType());
    Type auxElement = auxType.getElementType();
    if (auxType.getRank() != 2 ||
        !(auxElement.isF32() || auxElement.isBF16() || auxElement.isF16()))
      return emitOpError("aux must be a rank-2 memref of f32, bf16 or f16, "
                         "got ")
             << auxType;
  }
  return verifyAccumulators(*this, getConfig(), getAcc().getTypes(),
                            "accumulators");
}
