//===- NestingLimit.h - bound the bracket nesting of program text -*- C++ -*-===//
//
// MLIR's parser (and the verifier and printer after it) recurses once per
// level of nesting: regions in regions, attributes in attributes, types in
// types, parenthesized expressions. A few thousand levels exhaust an 8 MB
// stack and the process dies (SIGSEGV) instead of reporting an error. Every
// entry point that parses user text (fp8-opt, fp8-run, qmm-compile and the
// C++ and Python APIs, the config options and tuning tables) first scans
// the text and refuses it, with a diagnostic, where brackets nest deeper
// than kMaxNestingDepth levels.
//
// The scan counts `{`, `(`, `[` and `<` that are still open, outside string
// literals ("..." with backslash escapes) and `//` comments. `>` closes only
// an open `<` (so `->` and `>=` do not count), and `}`, `)` and `]` close
// their own kind, together with any `<` left open inside (a `<` that was a
// less-than). The depth it reports is therefore never below the parser's.
// Real programs nest a few dozen levels at most; the limit is far above
// that and far below what the stack holds (see kMaxNestingDepth).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_SUPPORT_NESTINGLIMIT_H
#define QMM_SUPPORT_NESTINGLIMIT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;

namespace qmm {

/// The deepest bracket nesting accepted in program text. Measured with
/// fp8-opt (parse, verify, print) on an 8 MB stack, before this limit:
/// nested modules and scf.if regions (one `{` a level) overflowed at about
/// 3,950 levels, generic ops' regions at about 4,150 brackets (`({` a
/// level), dictionaries at 6,200, arrays and parentheses at 6,800, tuple
/// types at 15,900. 512 leaves the worst of them a margin of seven, and
/// is still far above real programs (a few dozen levels).
constexpr unsigned kMaxNestingDepth = 512;

/// Where text nests too deeply: the offset of the first bracket past the
/// limit, its 1-based line and column.
struct ExcessiveNesting {
  size_t offset;
  unsigned line, column;
};

/// The first place where brackets in `text` nest deeper than `limit`
/// levels, if any (see the file comment for what counts).
std::optional<ExcessiveNesting>
findExcessiveNesting(llvm::StringRef text,
                     unsigned limit = kMaxNestingDepth);

/// The one-line reason given when text nests deeper than kMaxNestingDepth.
std::string getExcessiveNestingMessage();

/// Emits an error located at `bufferName`:line:column in `context` and
/// fails when `text` nests too deeply. MLIR bytecode is not scanned (its
/// reader keeps its own stack of regions).
LogicalResult checkNestingDepth(llvm::StringRef text,
                                llvm::StringRef bufferName,
                                MLIRContext *context);

/// parseSourceString<ModuleOp> / parseSourceFile<ModuleOp> behind
/// checkNestingDepth: null (with the diagnostic) when the text nests too
/// deeply.
OwningOpRef<ModuleOp> parseModuleWithinLimits(llvm::StringRef text,
                                              MLIRContext *context,
                                              llvm::StringRef bufferName);
OwningOpRef<ModuleOp> parseModuleWithinLimits(llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context);

/// parseAttribute behind checkNestingDepth (`text` need not be null
/// terminated).
Attribute parseAttributeWithinLimits(llvm::StringRef text,
                                     MLIRContext *context);

} // namespace qmm
} // namespace mlir

#endif // QMM_SUPPORT_NESTINGLIMIT_H
