//===- LowerPackedTransposes.cpp - transposes of packed FP4/FP6 data ------===//
//
// B stored [K, N] (`layout kn`) is transposed to [N, K] on the device
// before the matmul (qmm-legalize-for-chip). FP4 and FP6 rows are packed
// (a row of E elements of w bits takes ceil(E * w / 8) bytes), and an
// index into such a memref names a byte slot, so the element-wise loop a
// linalg.transpose becomes would read and write the wrong bits. Here each
// iteration moves a u x u block, u = 8 / gcd(w, 8) elements being the
// fewest that fill whole bytes: u vector loads of u elements from
// consecutive source rows, u vector stores of the transposed columns.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/AMDGPU/KernelIndexing.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/StorageSize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERPACKEDTRANSPOSES
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// `memref` as a flat memref of its elements, addressed by byte slot.
static Value flatView(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto flatType =
      MemRefType::get({type.getNumElements()}, type.getElementType());
  return memref::ReinterpretCastOp::create(
      b, loc, flatType, memref, /*offset=*/0,
      /*sizes=*/ArrayRef<int64_t>{type.getNumElements()},
      /*strides=*/ArrayRef<int64_t>{1});
}

/// Rewrites `transpose` (memrefs [K, N] -> [N, K] of a sub-byte type).
static LogicalResult lowerPackedTranspose(linalg::TransposeOp transpose) {
  auto source = dyn_cast<MemRefType>(transpose.getInput().getType());
  auto target = dyn_cast<MemRefType>(transpose.getInit().getType());
  if (!source || !target)
    return transpose.emitOpError(
        "qmm-lower-packed-transposes: runs after bufferization (memrefs)");
  Type element = source.getElementType();
  unsigned bits = getStorageBitWidth(element);
  if (!source.hasStaticShape() || source.getRank() != 2 ||
      !source.getLayout().isIdentity() || !target.getLayout().isIdentity())
    return transpose.emitOpError("qmm-lower-packed-transposes: a transpose "
                                 "of packed ")
           << element << " data needs a static 2-D identity-layout memref";
  // The block: u elements fill groupBytes whole bytes.
  int64_t u = 8 / std::gcd<int64_t>(bits, 8);
  int64_t groupBytes = u * bits / 8;
  int64_t k = source.getDimSize(0), n = source.getDimSize(1);
  if (k % u != 0)
    return transpose.emitOpError("qmm-lower-packed-transposes: the rows of ")
           << element << " data must pack into whole bytes after the "
           << "transpose (K = " << k << " is not a multiple of " << u << ")";
  int64_t sourceRowBytes = getStorageBytes(n, bits);
  int64_t targetRowBytes = getStorageBytes(k, bits);

  OpBuilder b(transpose);
  Location loc = transpose.getLoc();
  IndexMath im{b, loc};
  Value from = flatView(b, loc, transpose.getInput());
  Value to = flatView(b, loc, transpose.getInit());
  // Columns n0 .. n0 + cols - 1 (group `group`) of rows k0 .. k0 + u - 1
  // (block `block`): a tail group of fewer columns reads only its bytes.
  auto moveBlock = [&](OpBuilder &b, Value group, Value block, int64_t cols) {
    IndexMath im{b, loc};
    auto rowType = VectorType::get({cols}, element);
    SmallVector<Value> rows;
    for (int64_t r = 0; r < u; ++r) {
      Value row = im.add(im.mul(block, u), r);
      Value slot = im.add(im.mul(row, sourceRowBytes), im.mul(group, groupBytes));
      rows.push_back(vector::LoadOp::create(b, loc, rowType, from, slot));
    }
    auto columnType = VectorType::get({u}, element);
    for (int64_t c = 0; c < cols; ++c) {
      SmallVector<Value> column;
      for (Value row : rows)
        column.push_back(vector::ExtractOp::create(b, loc, row, c));
      Value packed =
          vector::FromElementsOp::create(b, loc, columnType, column);
      Value targetRow = im.add(im.mul(group, u), c);
      Value slot = im.add(im.mul(targetRow, targetRowBytes),
                          im.mul(block, groupBytes));
      vector::StoreOp::create(b, loc, packed, to, slot);
    }
  };
  Value zero = im.cst(0), one = im.cst(1);
  Value blocks = im.cst(k / u);
  if (n / u > 0)
    scf::ParallelOp::create(
        b, loc, ValueRange{zero, zero}, ValueRange{im.cst(n / u), blocks},
        ValueRange{one, one},
        [&](OpBuilder &b, Location, ValueRange ivs) {
          moveBlock(b, ivs[0], ivs[1], u);
          scf::ReduceOp::create(b, loc);
        });
  if (n % u != 0)
    scf::ParallelOp::create(
        b, loc, ValueRange{zero}, ValueRange{blocks}, ValueRange{one},
        [&](OpBuilder &b, Location, ValueRange ivs) {
          IndexMath im{b, loc};
          moveBlock(b, im.cst(n / u), ivs[0], n % u);
          scf::ReduceOp::create(b, loc);
        });
  transpose.erase();
  return success();
}

namespace {
struct QMMLowerPackedTransposesPass
    : public qmm::impl::QMMLowerPackedTransposesBase<
          QMMLowerPackedTransposesPass> {
  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation()->walk([&](linalg::TransposeOp transpose) {
      Type element = getElementTypeOrSelf(transpose.getInput().getType());
      if (element.isIntOrFloat() && getStorageBitWidth(element) < 8)
        transposes.push_back(transpose);
    });
    for (linalg::TransposeOp transpose : transposes) {
      if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0}) {
        transpose.emitOpError("qmm-lower-packed-transposes: only 2-D "
                              "transposes of packed data are supported");
        return signalPassFailure();
      }
      if (failed(lowerPackedTranspose(transpose)))
        return signalPassFailure();
    }
  }
};
} // namespace
