//===- MatrixCore.cpp - MFMA and scaled MFMA ------------------------------===//
//
// Wave-collective matrix instructions with the register layouts of AMD's
// CDNA3 / CDNA4 ISA guides:
//
// * Section 7.1.4 (general layout): with K_L = K / (64 / (M * B)), A[b,i,k] is
//   item k % K_L of lane i + M * (b + B * (k / K_L)); B[b,k,j] likewise with
//   j and N. D[b,i,j] (H = 4, B_I = ceil(64 / (N * M / H)),
//   M_I = (64 / B_I) / N, G = M / (H * M_I)) is item
//   (i % H) + H * (i / (H * M_I) + G * (b / B_I)) of lane
//   j + N * ((i / H) % M_I + M_I * (b % B_I)).
// * Section 7.1.5.1 (F8F6F4 tables): FP4 and FP6 operands hold 32 consecutive
//   K per lane (k = 32 * g + item, g = lane / M), but FP8 operands do not:
//   items 0-15 hold k = 16 * g + item and items 16-31 hold
//   k = K / 2 + 16 * g + (item - 16).
// * Section 7.2 (block scales): one E8M0 scale per 32 K per row of A and per
//   column of B; lane l supplies the scale of row (column) l % M for K block
//   l / M, from the byte that scalesIdx (OPSEL) selects. Scales multiply each
//   block's dot product before it is accumulated; 0xFF is NaN.
// * LLVM selects the unscaled instruction when both scale operands are the
//   constant 0; their scale is then 1.0, not 2^-127. The emulator does the
//   same, since it emulates the code object.
// * MFMA ignores the exec mask: all 64 lanes take part.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::emu;

namespace {
struct MatrixShape {
  int m, n, k, blocks;
  bool f8f6f4; ///< the gfx950 16x16x128 / 32x32x64 family
};
} // namespace

/// Logical (row or column, k, block) of item `item` of lane `lane` of the A
/// (or B) operand.
static void operandPosition(const MatrixShape &shape, unsigned elementBits,
                            int lane, int item, int &index, int &k,
                            int &block) {
  if (shape.f8f6f4) {
    int group = lane / shape.m;
    index = lane % shape.m;
    block = 0;
    if (elementBits == 8)
      k = item < 16 ? 16 * group + item
                    : shape.k / 2 + 16 * group + (item - 16);
    else
      k = 32 * group + item;
    return;
  }
  int kPerLane = shape.k / (64 / (shape.m * shape.blocks));
  index = lane % shape.m;
  int rest = lane / shape.m;
  block = rest % shape.blocks;
  k = (rest / shape.blocks) * kPerLane + item;
}

/// Logical (block, row, column) of item `item` of lane `lane` of C / D.
static void outputPosition(const MatrixShape &shape, int lane, int item,
                           int &block, int &row, int &col) {
  const int h = 4;
  int blocksPerItem = (64 + shape.n * shape.m / h - 1) / (shape.n * shape.m / h);
  int rowsPerItem = (64 / blocksPerItem) / shape.n;
  int groups = shape.m / (h * rowsPerItem);
  col = lane % shape.n;
  int t = lane / shape.n;
  int rowGroup = t % rowsPerItem;
  int blockLow = t / rowsPerItem;
  int rowInGroup = item % h;
  int q = item / h;
  int high = q % groups;
  int blockHigh = q / groups;
  row = high * h * rowsPerItem + rowGroup * h + rowInGroup;
  block = blockHigh * blocksPerItem + blockLow;
}

static std::string fp8Name(Type type) {
  return isa<Float8E5M2Type, Float8E5M2FNUZType>(type) ? "bf8" : "fp8";
}

/// Is `value` the constant 0 (scalar or splat)?
static bool isConstantZero(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(dense.getElementType())) {
      for (APFloat v : dense.getValues<APFloat>())
        if (!v.bitcastToAPInt().isZero())
          return false;
      return true;
    }
    for (APInt v : dense.getValues<APInt>())
      if (!v.isZero())
        return false;
    return true;
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue().bitcastToAPInt().isZero();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isZero();
  return false;
}

/// The E8M0 scale byte a lane supplies.
static uint8_t scaleByte(const Lanes &scales, int lane, unsigned index) {
  if (scales.width == 1) // a scalar scale is zero-extended into the VGPR
    return index == 0 ? uint8_t(scales.at(lane, 0)) : 0;
  return uint8_t(scales.at(lane, index));
}

static float scaleValue(uint8_t code) {
  return code == 0xFF ? NAN : std::ldexp(1.0f, int(code) - 127);
}

static LogicalResult execMatrix(WaveInterpreter &wave, Operation *op,
                                MatrixShape shape, Value a, Value b, Value c,
                                Value result, const Lanes *scalesA,
                                const Lanes *scalesB, unsigned indexA,
                                unsigned indexB, const std::string &name) {
  auto aType = cast<FloatType>(getElementTypeOrSelf(a.getType()));
  auto bType = cast<FloatType>(getElementTypeOrSelf(b.getType()));
  auto cType = getElementTypeOrSelf(c.getType());
  if (!cType.isF32())
    return wave.fail(op, "only f32 accumulators are supported");
  Lanes la = wave.get(a), lb = wave.get(b), lc = wave.get(c);
  unsigned aBits = getBitWidth(aType), bBits = getBitWidth(bType);

  // Logical operands, decoded to f32 (every input format fits exactly).
  std::vector<float> A(size_t(shape.blocks) * shape.m * shape.k, NAN);
  std::vector<float> B(size_t(shape.blocks) * shape.n * shape.k, NAN);
  for (int lane = 0; lane < 64; ++lane) {
    for (unsigned item = 0; item < la.width; ++item) {
      int index, k, block;
      operandPosition(shape, aBits, lane, item, index, k, block);
      A[(size_t(block) * shape.m + index) * shape.k + k] =
          float(floatValue(aType, la.at(lane, item)));
    }
    for (unsigned item = 0; item < lb.width; ++item) {
      int index, k, block;
      operandPosition(shape, bBits, lane, item, index, k, block);
      B[(size_t(block) * shape.n + index) * shape.k + k] =
          float(floatValue(bType, lb.at(lane, item)));
    }
  }
  std::vector<float> C(size_t(shape.blocks) * shape.m * shape.n);
  for (int lane = 0; lane < 64; ++lane)
    for (unsigned item = 0; item < lc.width; ++item) {
      int block, row, col;
      outputPosition(shape, lane, item, block, row, col);
      C[(size_t(block) * shape.m + row) * shape.n + col] =
          f32Value(lc.at(lane, item));
    }

  // Scales per (row, K block) and (column, K block).
  int kBlocks = shape.f8f6f4 ? shape.k / 32 : 1;
  int kPerBlock = shape.k / kBlocks;
  std::vector<float> scaleA(size_t(shape.m) * kBlocks, 1.0f);
  std::vector<float> scaleB(size_t(shape.n) * kBlocks, 1.0f);
  if (scalesA && scalesB)
    for (int lane = 0; lane < 64; ++lane) {
      scaleA[size_t(lane % shape.m) * kBlocks + lane / shape.m] =
          scaleValue(scaleByte(*scalesA, lane, indexA));
      scaleB[size_t(lane % shape.n) * kBlocks + lane / shape.n] =
          scaleValue(scaleByte(*scalesB, lane, indexB));
    }

  std::vector<float> D(C.size());
  for (int blk = 0; blk < shape.blocks; ++blk)
    for (int i = 0; i < shape.m; ++i)
      for (int j = 0; j < shape.n; ++j) {
        const float *aRow = &A[(size_t(blk) * shape.m + i) * shape.k];
        const float *bCol = &B[(size_t(blk) * shape.n + j) * shape.k];
        float sum = C[(size_t(blk) * shape.m + i) * shape.n + j];
        for (int kb = 0; kb < kBlocks; ++kb) {
          float partial = 0.0f;
          for (int k = kb * kPerBlock; k < (kb + 1) * kPerBlock; ++k)
            partial += aRow[k] * bCol[k];
          float scale = scaleA[size_t(i) * kBlocks + kb] *
                        scaleB[size_t(j) * kBlocks + kb];
          sum += scale == 1.0f ? partial : partial * scale;
        }
        D[(size_t(blk) * shape.m + i) * shape.n + j] = sum;
      }

  Lanes &out = wave.define(result, lc.width);
  for (int lane = 0; lane < 64; ++lane)
    for (unsigned item = 0; item < lc.width; ++item) {
      int block, row, col;
      outputPosition(shape, lane, item, block, row, col);
      out.at(lane, item) =
          f32Bits(D[(size_t(block) * shape.m + row) * shape.n + col]);
    }
  ++wave.kernel.stats.mfmaCounts[name];
  return success();
}

static bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType>(t);
}

LogicalResult mlir::qmm::emu::execMatrixOp(WaveInterpreter &wave,
                                           Operation *op, ExecMask mask,
                                           bool &handled) {
  (void)mask;
  handled = true;
  const ChipInfo &chip = wave.kernel.chip;
  if (auto mfma = dyn_cast<amdgpu::MFMAOp>(op)) {
    if (mfma.getCbsz() || mfma.getAbid() ||
        mfma.getBlgp() != amdgpu::MFMAPermB::none || mfma.getNegateA() ||
        mfma.getNegateB() || mfma.getNegateC() || mfma.getReducePrecision())
      return wave.fail(op, "broadcast, negation and reduced-precision "
                           "modifiers are not supported");
    Type aType = getElementTypeOrSelf(mfma.getSourceA().getType());
    Type bType = getElementTypeOrSelf(mfma.getSourceB().getType());
    MatrixShape shape{int(mfma.getM()), int(mfma.getN()), int(mfma.getK()),
                      int(mfma.getBlocks()), false};
    std::string name;
    auto dims = [&] {
      return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
             std::to_string(shape.k);
    };
    if ((shape.k == 128 && shape.m == 16) || (shape.k == 64 && shape.m == 32 &&
                                              getBitWidth(aType) <= 8)) {
      if (!chip.findMFMA(MFMAKind::F8F6F4, shape.m, shape.n, shape.k))
        return wave.fail(op, "the f8f6f4 MFMA " + dims() +
                                 " does not exist on " + chip.name.str());
      shape.f8f6f4 = true;
      name = "v_mfma_f32_" + std::to_string(shape.m) + "x" +
             std::to_string(shape.n) + "x" + std::to_string(shape.k) +
             "_f8f6f4";
    } else if (isFp8(aType) || isFp8(bType)) {
      if (!chip.findMFMA(MFMAKind::FP8, shape.m, shape.n, shape.k))
        return wave.fail(op, "the FP8 MFMA " + dims() + " does not exist on " +
                                 chip.name.str());
      bool fnuz = isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(aType);
      if (fnuz != (chip.nativeFP8 == FormatFamily::FNUZ))
        return wave.fail(op, "FP8 MFMA on " + chip.name.str() + " takes " +
                                 (chip.nativeFP8 == FormatFamily::FNUZ
                                      ? "FNUZ"
                                      : "OCP") +
                                 " FP8 operands");
      name = "v_mfma_f32_" + std::to_string(shape.m) + "x" +
             std::to_string(shape.n) + "x" + std::to_string(shape.k) + "_" +
             fp8Name(aType) + "_" + fp8Name(bType);
    } else if (isa<FloatType>(aType)) {
      if (aType.isBF16() &&
          !chip.findMFMA(MFMAKind::BF16, shape.m, shape.n, shape.k))
        return wave.fail(op, "the bf16 MFMA " + dims() +
                                 " is not in the target description of " +
                                 chip.name.str());
      std::string typeName;
      llvm::raw_string_ostream os(typeName);
      os << aType;
      name = "v_mfma_f32_" + std::to_string(shape.m) + "x" +
             std::to_string(shape.n) + "x" + std::to_string(shape.k) + "_" +
             typeName;
    } else {
      return wave.fail(op, "integer MFMA is not supported by the emulator");
    }
    return execMatrix(wave, op, shape, mfma.getSourceA(), mfma.getSourceB(),
                      mfma.getDestC(), mfma.getDestD(), nullptr, nullptr, 0, 0,
                      name);
  }
  if (auto scaled = dyn_cast<amdgpu::ScaledMFMAOp>(op)) {
    MatrixShape shape{int(scaled.getM()), int(scaled.getN()),
                      int(scaled.getK()), 1, true};
    if (!chip.findMFMA(MFMAKind::ScaledF8F6F4, shape.m, shape.n, shape.k))
      return wave.fail(op, "scaled MFMA " + std::to_string(shape.m) + "x" +
                               std::to_string(shape.n) + "x" +
                               std::to_string(shape.k) + " does not exist on " +
                               chip.name.str());
    std::string dims = std::to_string(shape.m) + "x" +
                       std::to_string(shape.n) + "x" + std::to_string(shape.k);
    if (isConstantZero(scaled.getScalesA()) &&
        isConstantZero(scaled.getScalesB()))
      return execMatrix(wave, op, shape, scaled.getSourceA(),
                        scaled.getSourceB(), scaled.getDestC(),
                        scaled.getDestD(), nullptr, nullptr, 0, 0,
                        "v_mfma_f32_" + dims + "_f8f6f4");
    Lanes scalesA = wave.get(scaled.getScalesA());
    Lanes scalesB = wave.get(scaled.getScalesB());
    return execMatrix(wave, op, shape, scaled.getSourceA(),
                      scaled.getSourceB(), scaled.getDestC(),
                      scaled.getDestD(), &scalesA, &scalesB,
                      scaled.getScalesIdxA(), scaled.getScalesIdxB(),
                      "v_mfma_scale_f32_" + dims + "_f8f6f4");
  }
  handled = false;
  return failure();
}
