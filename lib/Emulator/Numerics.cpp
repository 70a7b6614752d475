//===- Numerics.cpp - element values as bit patterns ----------------------===//

#include "Numerics.h"

#include "qmm/Dialect/QMM/IR/StorageSize.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

using namespace mlir;
using namespace mlir::qmm::emu;
using llvm::APFloat;
using llvm::APInt;

unsigned mlir::qmm::emu::getBitWidth(Type type) {
  return getStorageBitWidth(type);
}

unsigned mlir::qmm::emu::getStorageBytes(Type type) {
  return qmm::getStorageBytes(1, type);
}

double mlir::qmm::emu::floatValue(FloatType type, uint64_t bits) {
  if (type.isF32())
    return f32Value(bits);
  if (type.isF64()) {
    double value;
    __builtin_memcpy(&value, &bits, 8);
    return value;
  }
  if (type.getWidth() <= 8)
    return getDecodeTable(type)[bits & ((1u << type.getWidth()) - 1)];
  APFloat value(type.getFloatSemantics(),
                APInt(type.getWidth(), truncateBits(bits, type.getWidth())));
  if (value.isNaN())
    return std::numeric_limits<double>::quiet_NaN();
  bool losesInfo;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

uint64_t mlir::qmm::emu::floatBits(FloatType type, double value) {
  if (type.isF32())
    return f32Bits(float(value));
  if (type.isF64()) {
    uint64_t bits;
    __builtin_memcpy(&bits, &value, 8);
    return bits;
  }
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  if (std::isnan(value)) {
    if (!APFloat::semanticsHasNaN(sem))
      return 0;
    return APFloat::getQNaN(sem).bitcastToAPInt().getZExtValue();
  }
  APFloat converted(value);
  bool losesInfo;
  APFloat::opStatus status =
      converted.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
  if ((status & APFloat::opOverflow) && !APFloat::semanticsHasInf(sem) &&
      !APFloat::semanticsHasNaN(sem))
    converted = APFloat::getLargest(sem, value < 0);
  return converted.bitcastToAPInt().getZExtValue();
}

uint64_t mlir::qmm::emu::fusedMultiplyAdd(FloatType type, uint64_t a,
                                          uint64_t b, uint64_t c) {
  if (type.isF32())
    return f32Bits(std::fma(f32Value(a), f32Value(b), f32Value(c)));
  return floatBits(type, std::fma(floatValue(type, a), floatValue(type, b),
                                  floatValue(type, c)));
}

const float *mlir::qmm::emu::getDecodeTable(FloatType type) {
  static std::mutex mutex;
  static llvm::DenseMap<Type, std::unique_ptr<std::vector<float>>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<std::vector<float>> &table = tables[type];
  if (!table) {
    unsigned width = type.getWidth();
    table = std::make_unique<std::vector<float>>();
    for (uint64_t code = 0; code < (uint64_t(1) << width); ++code) {
      APFloat value(type.getFloatSemantics(), APInt(width, code));
      if (value.isNaN()) {
        table->push_back(std::numeric_limits<float>::quiet_NaN());
        continue;
      }
      bool losesInfo;
      value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
      table->push_back(value.convertToFloat());
    }
  }
  return table->data();
}
