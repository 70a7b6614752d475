//===- WgmmaOperands.cpp - the op as the wgmma kernel reads it ------------===//
//
// Part of qmm-lower-matmul-to-wgmma: what the kernel reads of a qmm.matmul
// or a qmm.grouped_matmul (MatmulOperands), a masked matmul's operands as
// [G Mmax, ...] views, and the matmul described for the plan
// (describeMatmul), or why the kernel cannot take it.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernel.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

/// What qmm.matmul and qmm.grouped_matmul have alike.
template <typename MatmulLike>
static MatmulOperands getSharedOperands(MatmulLike op) {
  MatmulOperands operands;
  operands.op = op;
  operands.a = op.getA();
  operands.b = op.getB();
  operands.aScales = op.getAScales();
  operands.bScales = op.getBScales();
  operands.bias = op.getBias();
  operands.init = op.getInit();
  operands.aux = op.getAux();
  operands.outScales = op.getOutScales();
  operands.aEncoding = op.getAEncoding();
  operands.bEncoding = op.getBEncoding();
  operands.accumulate = op.getAccumulate();
  operands.activation = op.getActivation();
  if (operands.outScales) {
    operands.outEncoding = op.getOutEncodingAttr();
    operands.outRounding = op.getEffectiveOutRounding();
    operands.outMinAmax = op.getEffectiveOutMinAmax();
  }
  return operands;
}

MatmulOperands MatmulOperands::get(MatmulOp op) {
  MatmulOperands operands = getSharedOperands(op);
  operands.bStoredNK = op.getBLayout() == OperandLayout::NK;
  return operands;
}

MatmulOperands MatmulOperands::get(GroupedMatmulOp op) {
  MatmulOperands operands = getSharedOperands(op);
  operands.groupLayout = op.getGroups();
  operands.masked = op.getLayout() == GroupedLayout::Masked;
  return operands;
}

void MatmulOperands::collapseMaskedOperands(ImplicitLocOpBuilder &b) {
  assert(masked && "only a masked matmul's operands are collapsed");
  groupRows = cast<MemRefType>(a.getType()).getDimSize(1);
  auto collapse = [&](Value &operand) {
    if (operand)
      operand = memref::CollapseShapeOp::create(
          b, operand, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  };
  collapse(a);
  collapse(init);
  collapse(outScales);
  // (Per-tensor scales stay [G, 1, 1]: one per group, loaded per tile.)
  if (aEncoding.getKind() != ScaleKind::PerTensor)
    collapse(aScales);
}

/// `op` described for planWgmmaKernel, or why it cannot be.
llvm::Expected<WgmmaProblem> wgmma::describeMatmul(const MatmulOperands &op) {
  auto refuse = [](StringRef reason) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), reason);
  };
  auto aType = dyn_cast<MemRefType>(op.a.getType());
  auto bType = dyn_cast<MemRefType>(op.b.getType());
  auto dType = dyn_cast<MemRefType>(op.init.getType());
  if (!aType || !bType || !dType)
    return refuse("not bufferized");
  // A masked matmul's A is [G, Mmax, K]: each group's Mmax rows. M, the
  // rows of A and D, may be known at run time only.
  int64_t rowDim = op.masked ? 1 : 0;
  auto staticButRows = [&](MemRefType type) {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d) && d != rowDim)
        return false;
    return true;
  };
  if (!bType.hasStaticShape() || !staticButRows(aType) ||
      !staticButRows(dType))
    return refuse("dynamic shapes other than M");
  WgmmaProblem problem;
  problem.runtimeRows = aType.isDynamicDim(rowDim);
  problem.m = problem.runtimeRows ? 0 : aType.getDimSize(rowDim);
  problem.k = aType.getDimSize(rowDim + 1);
  problem.n = dType.getDimSize(rowDim + 1);
  if (op.isGrouped()) {
    problem.groups = bType.getDimSize(0);
    problem.masked = op.masked;
    if (problem.groups == 0)
      return refuse("no groups");
  }
  problem.bStoredNK = op.bStoredNK;
  problem.ocpFP8 = llvm::all_of(TypeRange{aType, bType}, [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(
        cast<MemRefType>(type).getElementType());
  });
  problem.contiguous = llvm::all_of(TypeRange{aType, bType, dType},
                                    [](Type type) {
                                      return cast<MemRefType>(type)
                                          .getLayout()
                                          .isIdentity();
                                    });
  problem.auxOutputs = static_cast<bool>(op.aux);
  for (auto [encoding, rows, scales, memref] :
       {std::tuple{op.aEncoding, problem.m, &problem.aScales, op.aScales},
        {op.bEncoding, problem.n, &problem.bScales, op.bScales}}) {
    if (auto type = dyn_cast<MemRefType>(memref.getType())) {
      scales->elementBytes =
          llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      scales->contiguous = type.getLayout().isIdentity();
    }
    scales->mnMajor = encoding.isMNMajor();
    if (encoding.isMX()) {
      scales->kind = WgmmaScales::Kind::MX;
      continue;
    }
    switch (encoding.getKind()) {
    case ScaleKind::PerTensor:
      scales->kind = WgmmaScales::Kind::PerTensor;
      break;
    case ScaleKind::PerRow:
      scales->kind = WgmmaScales::Kind::PerRow;
      break;
    default:
      scales->kind = WgmmaScales::Kind::Block;
      std::tie(scales->blockRows, scales->blockK) =
          encoding.getBlockExtent(rows, problem.k);
      break;
    }
  }
  Type dElement = dType.getElementType();
  problem.outElementBytes =
      llvm::divideCeil(dElement.getIntOrFloatBitWidth(), 8);
  // (FP8 outputs: the codes; their scales are stored from registers. A
  // grouped matmul's padding rows stage D's own values.)
  problem.outTmaStorable =
      dElement.isBF16() || dElement.isF16() || dElement.isF32() ||
      (op.outScales && dElement.getIntOrFloatBitWidth() == 8);
  if (op.outScales)
    problem.outScaleBlockColumns =
        op.outEncoding.getBlockExtent(problem.m, problem.n).second;
  // A masked matmul's A scales are read through a [G Mmax, ...] view: a
  // block of rows must not reach into the next group's.
  if (op.masked && problem.aScales.kind == WgmmaScales::Kind::Block &&
      problem.m % problem.aScales.blockRows != 0)
    return refuse("A's scale blocks crossing a masked group's rows");
  return problem;
}

