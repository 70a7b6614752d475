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
//   block's dot product before it is accumulated; 0xFF is NaN. The scaling
//   is by exponent ("exponent block scaling"): the dot product times
//   2^(ea + eb) in one step, so two large (or small) scales never overflow
//   (underflow) on their own where the scaled product is in f32's range.
// * LLVM selects the unscaled instruction when both scale operands are the
//   constant 0; their scale is then 1.0, not 2^-127. The emulator does the
//   same, since it emulates the code object.
// * MFMA ignores the exec mask: all 64 lanes take part.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "Numerics.h"
#include "qmm/Emulator/IsaLayouts.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::emu;

// The lane formulas above live in IsaLayouts.cpp (a test compares them with
// the compiler's intrinsic table).
using MatrixShape = IsaMatrixShape;

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

/// The power of two an E8M0 scale byte stands for, or none for 0xFF (NaN).
static std::optional<int> scaleExponent(uint8_t code) {
  if (code == 0xFF)
    return std::nullopt;
  return int(code) - 127;
}

static bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType>(t);
}

namespace {
/// One MFMA, decoded: the instruction it is (or why it cannot run) and where
/// each register item sits in the logical matrices.
struct MatrixInfo {
  std::string error; ///< reported when the op runs
  MatrixShape shape;
  std::string name;
  FloatType aType, bType;
  bool scaled = false;
  unsigned indexA = 0, indexB = 0;
  /// Flat A / B / C index of item `lane * width + item`.
  std::vector<int32_t> aIndex, bIndex, cIndex;
  /// Counted on first use, so that --stats lists executed MFMAs only.
  int64_t *counter = nullptr;
};
} // namespace

/// Checks the MFMA against the chip; names the instruction.
static void classifyMFMA(const ChipInfo &chip, amdgpu::MFMAOp mfma,
                         MatrixInfo &info) {
  if (mfma.getCbsz() || mfma.getAbid() ||
      mfma.getBlgp() != amdgpu::MFMAPermB::none || mfma.getNegateA() ||
      mfma.getNegateB() || mfma.getNegateC() || mfma.getReducePrecision()) {
    info.error = "broadcast, negation and reduced-precision modifiers are not "
                 "supported";
    return;
  }
  Type aType = getElementTypeOrSelf(mfma.getSourceA().getType());
  Type bType = getElementTypeOrSelf(mfma.getSourceB().getType());
  MatrixShape &shape = info.shape;
  shape = decodeIsaMatrixShape(int(mfma.getM()), int(mfma.getN()),
                               int(mfma.getK()), int(mfma.getBlocks()),
                               getBitWidth(aType));
  std::string dims = std::to_string(shape.m) + "x" + std::to_string(shape.n) +
                     "x" + std::to_string(shape.k);
  if (shape.f8f6f4) {
    if (!chip.findMFMA(MFMAKind::F8F6F4, shape.m, shape.n, shape.k)) {
      info.error =
          "the f8f6f4 MFMA " + dims + " does not exist on " + chip.name.str();
      return;
    }
    info.name = "v_mfma_f32_" + dims + "_f8f6f4";
  } else if (isFp8(aType) || isFp8(bType)) {
    if (!chip.findMFMA(MFMAKind::FP8, shape.m, shape.n, shape.k)) {
      info.error =
          "the FP8 MFMA " + dims + " does not exist on " + chip.name.str();
      return;
    }
    bool fnuz = isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(aType);
    if (fnuz != (chip.nativeFP8 == FormatFamily::FNUZ)) {
      info.error = "FP8 MFMA on " + chip.name.str() + " takes " +
                   (chip.nativeFP8 == FormatFamily::FNUZ ? "FNUZ" : "OCP") +
                   " FP8 operands";
      return;
    }
    info.name =
        "v_mfma_f32_" + dims + "_" + fp8Name(aType) + "_" + fp8Name(bType);
  } else if (isa<FloatType>(aType)) {
    if (aType.isBF16() &&
        !chip.findMFMA(MFMAKind::BF16, shape.m, shape.n, shape.k)) {
      info.error = "the bf16 MFMA " + dims +
                   " is not in the target description of " + chip.name.str();
      return;
    }
    std::string typeName;
    llvm::raw_string_ostream os(typeName);
    os << aType;
    info.name = "v_mfma_f32_" + dims + "_" + typeName;
  } else {
    info.error = "integer MFMA is not supported by the emulator";
  }
}

static void classifyScaledMFMA(const ChipInfo &chip, amdgpu::ScaledMFMAOp op,
                               MatrixInfo &info) {
  MatrixShape &shape = info.shape;
  shape = MatrixShape{int(op.getM()), int(op.getN()), int(op.getK()), 1, true};
  std::string dims = std::to_string(shape.m) + "x" + std::to_string(shape.n) +
                     "x" + std::to_string(shape.k);
  if (!chip.findMFMA(MFMAKind::ScaledF8F6F4, shape.m, shape.n, shape.k)) {
    info.error =
        "scaled MFMA " + dims + " does not exist on " + chip.name.str();
    return;
  }
  if (isConstantZero(op.getScalesA()) && isConstantZero(op.getScalesB())) {
    info.name = "v_mfma_f32_" + dims + "_f8f6f4";
    return;
  }
  info.scaled = true;
  info.indexA = op.getScalesIdxA();
  info.indexB = op.getScalesIdxB();
  info.name = "v_mfma_scale_f32_" + dims + "_f8f6f4";
}

/// Operands 0-2 of both ops are A, B and C.
static void decodeMatrix(DecodedKernel &kernel, Instr &inst) {
  MatrixInfo &info = kernel.allocate<MatrixInfo>();
  inst.data = &info;
  if (auto mfma = dyn_cast<amdgpu::MFMAOp>(inst.op))
    classifyMFMA(*kernel.chip, mfma, info);
  else
    classifyScaledMFMA(*kernel.chip, cast<amdgpu::ScaledMFMAOp>(inst.op), info);
  if (!info.error.empty())
    return;
  Operation *op = inst.op;
  info.aType =
      cast<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType()));
  info.bType =
      cast<FloatType>(getElementTypeOrSelf(op->getOperand(1).getType()));
  Type cType = getElementTypeOrSelf(op->getOperand(2).getType());
  if (!cType.isF32()) {
    info.error = "only f32 accumulators are supported";
    return;
  }
  const MatrixShape &shape = info.shape;
  auto operandTable = [&](Value operand, unsigned bits, int rows,
                          std::vector<int32_t> &table) {
    unsigned width = widthOf(operand.getType());
    for (int lane = 0; lane < 64; ++lane)
      for (unsigned item = 0; item < width; ++item) {
        int index, k, block;
        getIsaOperandPosition(shape, bits, lane, item, index, k, block);
        table.push_back((block * rows + index) * shape.k + k);
      }
  };
  operandTable(op->getOperand(0), getBitWidth(info.aType), shape.m,
               info.aIndex);
  operandTable(op->getOperand(1), getBitWidth(info.bType), shape.n,
               info.bIndex);
  unsigned cWidth = widthOf(op->getOperand(2).getType());
  for (int lane = 0; lane < 64; ++lane)
    for (unsigned item = 0; item < cWidth; ++item) {
      int block, row, col;
      getIsaOutputPosition(shape, lane, item, block, row, col);
      info.cIndex.push_back((block * shape.m + row) * shape.n + col);
    }
}

/// Decodes the items of `lanes` into `matrix` at `index` (f32 holds every
/// input format exactly).
static void gatherOperand(const Lanes &lanes, FloatType type,
                          ArrayRef<int32_t> index, std::vector<float> &matrix) {
  unsigned width = type.getWidth();
  const float *table = width <= 8 ? getDecodeTable(type) : nullptr;
  for (size_t i = 0; i < index.size(); ++i) {
    uint64_t bits = lanes.bits[lanes.uniform ? i % lanes.width : i];
    matrix[index[i]] = table ? table[bits & ((1u << width) - 1)]
                             : float(floatValue(type, bits));
  }
}

/// partial[c] = sum over k in [kBegin, kEnd) of aRow[k] * Bt[k][j + c] for
/// J columns from j, each summed in k order; J sums at once stay in
/// registers.
template <int J>
static void dotColumns(const float *aRow, const float *Bt, int n, int j,
                       int kBegin, int kEnd, float *partial) {
  float sums[J] = {};
  for (int k = kBegin; k < kEnd; ++k) {
    float a = aRow[k];
    const float *bRow = Bt + size_t(k) * n + j;
    for (int c = 0; c < J; ++c)
      sums[c] += a * bRow[c];
  }
  std::copy(sums, sums + J, partial);
}

static LogicalResult execMatrix(WaveInterpreter &wave, const Instr &inst,
                                ExecMask) {
  auto &info = *static_cast<MatrixInfo *>(inst.data);
  if (!info.error.empty())
    return wave.fail(inst.op, info.error);
  const MatrixShape &shape = info.shape;
  const Lanes &lc = wave.operand(2);

  // Logical operands: A[block][row][k], B[block][column][k],
  // C[block][row][col].
  std::vector<float> A(size_t(shape.blocks) * shape.m * shape.k, NAN);
  std::vector<float> B(size_t(shape.blocks) * shape.n * shape.k, NAN);
  std::vector<float> C(size_t(shape.blocks) * shape.m * shape.n);
  gatherOperand(wave.operand(0), info.aType, info.aIndex, A);
  gatherOperand(wave.operand(1), info.bType, info.bIndex, B);
  for (size_t i = 0; i < info.cIndex.size(); ++i)
    C[info.cIndex[i]] = f32Value(lc.bits[lc.uniform ? i % lc.width : i]);

  // Scales per (row, K block) and (column, K block).
  int kBlocks = shape.f8f6f4 ? shape.k / 32 : 1;
  int kPerBlock = shape.k / kBlocks;
  // A scale is a power of two (its exponent; none for NaN). The block's
  // dot product is scaled by 2^(ea + eb) in one step: E8M0 scales adjust
  // exponents, so their product never overflows or underflows on its own
  // (two scales of 2^100 scale a block's sum of 2^-190 to 2^10).
  std::vector<std::optional<int>> scaleA(size_t(shape.m) * kBlocks, 0);
  std::vector<std::optional<int>> scaleB(size_t(shape.n) * kBlocks, 0);
  if (info.scaled) {
    const Lanes &scalesA = wave.operand(3);
    const Lanes &scalesB = wave.operand(4);
    for (int lane = 0; lane < 64; ++lane) {
      int row, block;
      getIsaScalePosition(shape, /*forB=*/false, lane, row, block);
      scaleA[size_t(row) * kBlocks + block] =
          scaleExponent(scaleByte(scalesA, lane, info.indexA));
      getIsaScalePosition(shape, /*forB=*/true, lane, row, block);
      scaleB[size_t(row) * kBlocks + block] =
          scaleExponent(scaleByte(scalesB, lane, info.indexB));
    }
  }

  // D[i][j] = C[i][j] + sum over K blocks of (scale * the block's partial
  // sum, accumulated in k order). The j loop is innermost so that the
  // columns' sums advance together; each one is still summed in k order.
  std::vector<float> Bt(size_t(shape.k) * shape.n);
  SmallVector<float, 64> partial(shape.n), sum(shape.n);
  std::vector<float> D(C.size());
  for (int blk = 0; blk < shape.blocks; ++blk) {
    for (int j = 0; j < shape.n; ++j)
      for (int k = 0; k < shape.k; ++k)
        Bt[size_t(k) * shape.n + j] =
            B[(size_t(blk) * shape.n + j) * shape.k + k];
    for (int i = 0; i < shape.m; ++i) {
      const float *aRow = &A[(size_t(blk) * shape.m + i) * shape.k];
      const float *cRow = &C[(size_t(blk) * shape.m + i) * shape.n];
      for (int j = 0; j < shape.n; ++j)
        sum[j] = cRow[j];
      for (int kb = 0; kb < kBlocks; ++kb) {
        int kBegin = kb * kPerBlock, kEnd = (kb + 1) * kPerBlock;
        int j = 0;
        for (; j + 16 <= shape.n; j += 16)
          dotColumns<16>(aRow, Bt.data(), shape.n, j, kBegin, kEnd,
                         &partial[j]);
        for (; j < shape.n; ++j)
          dotColumns<1>(aRow, Bt.data(), shape.n, j, kBegin, kEnd,
                        &partial[j]);
        for (int j = 0; j < shape.n; ++j) {
          std::optional<int> ea = scaleA[size_t(i) * kBlocks + kb];
          std::optional<int> eb = scaleB[size_t(j) * kBlocks + kb];
          if (!ea || !eb)
            sum[j] += NAN;
          else
            sum[j] += std::ldexp(partial[j], *ea + *eb);
        }
      }
      std::copy(sum.begin(), sum.end(),
                &D[(size_t(blk) * shape.m + i) * shape.n]);
    }
  }

  Lanes &out = wave.defineResult(0, lc.width);
  for (size_t i = 0; i < info.cIndex.size(); ++i)
    out.bits[i] = f32Bits(D[info.cIndex[i]]);
  if (!info.counter)
    info.counter = &wave.kernel.stats.mfmaCounts[info.name];
  ++*info.counter;
  return success();
}

void mlir::qmm::emu::registerMatrixHandlers(Registry &registry) {
  registry.add<amdgpu::MFMAOp, amdgpu::ScaledMFMAOp>(execMatrix, decodeMatrix);
}
