//===- QMMIntrinsics.cpp - the matrix-instruction table -------------------===//

#include "qmm/Dialect/QMM/IR/QMMIntrinsics.h"

using namespace mlir;
using namespace mlir::qmm;

static const MMAIntrinsicInfo kIntrinsics[] = {
#define QMM_MMA_INTRINSIC(ID, SPELLING, FAMILY, ISA, M, N, K, BLOCKS, CYCLES, \
                          NARROW_CYCLES, OPERAND_BITS, RUNS_8, RUN_LENGTH_8,  \
                          RUNS_NARROW, RUN_LENGTH_NARROW, ACC_RUN_LENGTH,     \
                          SCALE_BLOCK_K, UPSTREAM_OP, MNEMONIC)               \
  {MMAIntrinsic::ID, SPELLING, MFMAKind::FAMILY, ISA, M, N, K, BLOCKS,         \
   CYCLES, NARROW_CYCLES, OPERAND_BITS, RUNS_8, RUN_LENGTH_8, RUNS_NARROW,     \
   RUN_LENGTH_NARROW, ACC_RUN_LENGTH, SCALE_BLOCK_K, UPSTREAM_OP, MNEMONIC},
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.def"
};

static const WgmmaIntrinsicInfo kWgmmaIntrinsics[] = {
#define QMM_WGMMA_INTRINSIC(ID, SPELLING, ISA, M, K, N_MIN, N_MAX, N_STEP,     \
                            THREADS, ROWS_PER_WARP, LANES_PER_ROW, SECOND_ROW, \
                            GROUP_COLUMNS, COLUMNS_PER_LANE, UPSTREAM_OP,      \
                            MNEMONIC)                                          \
  {WgmmaIntrinsic::ID, SPELLING,      ISA,           M,                        \
   K,                  N_MIN,         N_MAX,         N_STEP,                   \
   THREADS,            ROWS_PER_WARP, LANES_PER_ROW, SECOND_ROW,               \
   GROUP_COLUMNS,      COLUMNS_PER_LANE, UPSTREAM_OP, MNEMONIC},
#include "qmm/Dialect/QMM/IR/QMMIntrinsics.def"
};

llvm::ArrayRef<WgmmaIntrinsicInfo> qmm::getWgmmaIntrinsics() {
  return kWgmmaIntrinsics;
}

const WgmmaIntrinsicInfo *qmm::lookupWgmmaIntrinsic(unsigned isa) {
  for (const WgmmaIntrinsicInfo &info : kWgmmaIntrinsics)
    if (info.isa & isa)
      return &info;
  return nullptr;
}

llvm::ArrayRef<MMAIntrinsicInfo> qmm::getMMAIntrinsics() { return kIntrinsics; }

const MMAIntrinsicInfo &qmm::getMMAIntrinsicInfo(MMAIntrinsic id) {
  return kIntrinsics[static_cast<unsigned>(id)];
}

const MMAIntrinsicInfo *qmm::lookupMMAIntrinsic(MFMAKind kind, int64_t m,
                                                int64_t n, int64_t k) {
  for (const MMAIntrinsicInfo &info : kIntrinsics)
    if (info.kind == kind && info.m == m && info.n == n && info.k == k)
      return &info;
  return nullptr;
}

const MMAIntrinsicInfo *
qmm::lookupMMAIntrinsicByMnemonic(llvm::StringRef mnemonic) {
  for (const MMAIntrinsicInfo &info : kIntrinsics) {
    llvm::StringRef rest = mnemonic;
    if (!rest.consume_front(info.mnemonic))
      continue;
    if (rest.empty())
      return &info;
    // The fp8 forms name their operand types: _fp8_fp8 ... _bf8_bf8.
    if (info.kind == MFMAKind::FP8 &&
        (rest == "_fp8_fp8" || rest == "_fp8_bf8" || rest == "_bf8_fp8" ||
         rest == "_bf8_bf8"))
      return &info;
  }
  return nullptr;
}

OperandLaneLayout MMAIntrinsicInfo::getOperandLayout(unsigned elementBits,
                                                     bool forB) const {
  OperandLaneLayout layout;
  layout.rows = forB ? n : m;
  // Narrow data a form does not read natively is converted to FP8 in
  // registers, 8 values at a time, and placed as FP8.
  bool narrow = elementBits < 8 && readsNatively(elementBits);
  layout.elementBits = elementBits;
  layout.runs = narrow ? runsNarrow : runs8Bit;
  layout.runLength = narrow ? runLengthNarrow : runLength8Bit;
  layout.runStrideK = layout.runs > 1 ? k / layout.runs : 0;
  return layout;
}

std::pair<int64_t, int64_t>
MMAIntrinsicInfo::getAccumulatorPosition(int64_t lane, int64_t item) const {
  int64_t r = accumulatorRunLength;
  int64_t i = r * (lane / n) + item % r + r * (kWaveSize / n) * (item / r);
  return {i, lane % n};
}
