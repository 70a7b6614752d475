//===- NestingLimit.cpp - bound the bracket nesting of program text -------===//

#include "qmm/Support/NestingLimit.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::qmm;

/// 1-based line and column of `offset` in `text`.
static ExcessiveNesting locate(llvm::StringRef text, size_t offset) {
  llvm::StringRef before = text.take_front(offset);
  size_t lineStart = before.rfind('\n');
  unsigned column = lineStart == llvm::StringRef::npos
                        ? offset + 1
                        : offset - lineStart;
  return {offset, unsigned(before.count('\n')) + 1, column};
}

std::optional<ExcessiveNesting>
qmm::findExcessiveNesting(llvm::StringRef text, unsigned limit) {
  // The closer each open bracket waits for, innermost last. It never holds
  // more than limit + 1 entries.
  llvm::SmallVector<char, 64> open;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '"':
      // A string literal: brackets inside are text. An unterminated one
      // runs to the end (the parser rejects it).
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (i + 1 < e && text[i + 1] == '/') {
        i = text.find('\n', i);
        if (i == llvm::StringRef::npos)
          return std::nullopt;
      }
      break;
    case '{':
    case '(':
    case '[':
    case '<':
      open.push_back(c == '{' ? '}' : c == '(' ? ')' : c == '[' ? ']' : '>');
      if (open.size() > limit)
        return locate(text, i);
      break;
    case '}':
    case ')':
    case ']':
      while (!open.empty() && open.pop_back_val() != c) {
      }
      break;
    case '>':
      // `->` is an arrow; elsewhere `>` closes only an open `<`.
      if ((i == 0 || text[i - 1] != '-') && !open.empty() &&
          open.back() == '>')
        open.pop_back();
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

std::string qmm::getExcessiveNestingMessage() {
  return "brackets nest deeper than " + std::to_string(kMaxNestingDepth) +
         " levels; such input is rejected before parsing, whose recursion "
         "would overflow the stack";
}

LogicalResult qmm::checkNestingDepth(llvm::StringRef text,
                                     llvm::StringRef bufferName,
                                     MLIRContext *context) {
  if (isBytecode(llvm::MemoryBufferRef(text, bufferName)))
    return success();
  std::optional<ExcessiveNesting> deep = findExcessiveNesting(text);
  if (!deep)
    return success();
  return emitError(FileLineColLoc::get(context, bufferName, deep->line,
                                       deep->column))
         << getExcessiveNestingMessage();
}

OwningOpRef<ModuleOp> qmm::parseModuleWithinLimits(llvm::StringRef text,
                                                   MLIRContext *context,
                                                   llvm::StringRef bufferName) {
  if (failed(checkNestingDepth(text, bufferName, context)))
    return {};
  return parseSourceString<ModuleOp>(text, context, bufferName);
}

OwningOpRef<ModuleOp>
qmm::parseModuleWithinLimits(llvm::SourceMgr &sourceMgr,
                             MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (failed(checkNestingDepth(buffer->getBuffer(),
                               buffer->getBufferIdentifier(), context)))
    return {};
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

Attribute qmm::parseAttributeWithinLimits(llvm::StringRef text,
                                          MLIRContext *context) {
  if (failed(checkNestingDepth(text, "<attribute>", context)))
    return {};
  return parseAttribute(text, context, Type(), nullptr,
                        /*isKnownNullTerminated=*/false);
}
