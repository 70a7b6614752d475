//===- IsaLayouts.cpp - matrix-instruction lane layouts from the ISA guides -===//

#include "qmm/Emulator/IsaLayouts.h"

using namespace mlir::qmm;
using namespace mlir::qmm::emu;

IsaMatrixShape emu::decodeIsaMatrixShape(int m, int n, int k, int blocks,
                                         unsigned aBits) {
  bool f8f6f4 = (k == 128 && m == 16) || (k == 64 && m == 32 && aBits <= 8);
  return IsaMatrixShape{m, n, k, blocks, f8f6f4};
}

void emu::getIsaOperandPosition(const IsaMatrixShape &shape,
                                unsigned elementBits, int lane, int item,
                                int &index, int &k, int &block) {
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

void emu::getIsaOutputPosition(const IsaMatrixShape &shape, int lane, int item,
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

void emu::getIsaScalePosition(const IsaMatrixShape &shape, bool forB,
                              int lane, int &index, int &kBlock) {
  int rows = forB ? shape.n : shape.m;
  index = lane % rows;
  kBlock = lane / rows;
}
