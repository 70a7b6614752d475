//===- MissedRaise.h - why a contraction was not raised ---------*- C++ -*-===//
//
// qmm-linalg-to-qmm says, on request (a missed-optimization remark per
// contraction it leaves alone), what stopped it. The matchers record the
// first construct that failed them; of several attempts on one op (the op
// as written, its loops grouped), the one that got furthest speaks.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_LINALGTOQMM_MISSEDRAISE_H
#define QMM_LIB_CONVERSION_LINALGTOQMM_MISSEDRAISE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace mlir::qmm::linalg_to_qmm {

/// The reason an attempt to raise an op failed.
class MissedRaise {
public:
  /// How far an attempt got: its loops and maps, the contraction's body,
  /// the operands' dequantizations and scales, qmm.matmul's own rules.
  enum class Stage { Loops, Body, Operands, Rules };

  /// Records `reason` unless this attempt has one already (the first
  /// construct that stopped it). Returns nullopt, for `return why.fail(..)`.
  std::nullopt_t fail(Stage stage, const llvm::Twine &reason) {
    if (text.empty()) {
      text = reason.str();
      this->stage = stage;
    }
    return std::nullopt;
  }

  /// Records `inner`'s reason, at its stage, after `prefix`.
  std::nullopt_t fail(const llvm::Twine &prefix, const MissedRaise &inner) {
    return fail(inner.stage, prefix + inner.text);
  }

  /// Keeps `other`'s reason where that attempt got further.
  void keepFurthest(const MissedRaise &other) {
    if (!other.text.empty() && (text.empty() || other.stage > stage)) {
      text = other.text;
      stage = other.stage;
    }
  }

  bool empty() const { return text.empty(); }
  llvm::StringRef str() const { return text; }

private:
  std::string text;
  Stage stage = Stage::Loops;
};

/// `op` named in a reason: "`arith.subf`".
std::string describeOp(Operation *op);

/// `type` as MLIR prints it.
std::string describeType(Type type);

/// What produces `value`, in a reason: "`linalg.fill`", "a function
/// argument", "a block argument".
std::string describeProducer(Value value);

} // namespace mlir::qmm::linalg_to_qmm

#endif
