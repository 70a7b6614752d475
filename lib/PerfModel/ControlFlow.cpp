//===- ControlFlow.cpp - basic blocks, the main loop and its branches -----===//
//
// The main loop is a natural loop (a back edge whose target dominates its
// source), found on the kernel's basic blocks: LLVM lays rotated loops out
// with blocks outside the header..latch address range (a loop-exit
// trampoline above the header, an out-of-line block below the latch), so an
// address range is not a loop. Of the innermost loops holding MFMAs, the one
// with the most is the main loop.
//
// How each conditional branch of the loop goes from trip to trip is read
// from the scalar code that decides it, where that is one of the patterns
// compilers emit for GEMM main loops:
//  - a compare of an induction variable (s += c every trip) with a
//    loop-invariant bound: true on every trip but one (a prefetch guard
//    skipped on the last trip) or on one trip only;
//  - a compare of a toggle (s ^= 1 every trip) with a constant: alternates
//    (which of two LDS buffers a trip reads);
//  - exec (s_cbranch_execz / execnz): full waves, unless the simulator knows
//    the wave's exec;
//  - anything else takes the caller's conditional share: the side that is
//    skippable (a then-block) runs on that share of the trips.
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

std::vector<std::string> perf::parseOperands(llvm::StringRef text) {
  text = text.trim();
  size_t space = text.find_first_of(" \t");
  std::vector<std::string> operands;
  if (space == llvm::StringRef::npos)
    return operands;
  llvm::SmallVector<llvm::StringRef, 6> parts;
  text.drop_front(space).split(parts, ',');
  for (llvm::StringRef part : parts) {
    part = part.trim();
    // The last operand carries the modifiers: "v5 bitop3:0x6c".
    operands.push_back(part.split(' ').first.str());
  }
  return operands;
}

llvm::SmallVector<llvm::StringRef, 6>
perf::getOperands(const Instruction &inst) {
  return llvm::SmallVector<llvm::StringRef, 6>(inst.operands.begin(),
                                               inst.operands.end());
}

std::optional<int64_t> perf::parseImmediate(llvm::StringRef operand) {
  operand = operand.trim();
  bool negative = operand.consume_front("-");
  uint64_t value;
  if (operand.empty() || operand.getAsInteger(0, value))
    return std::nullopt;
  return negative ? -int64_t(value) : int64_t(value);
}

std::optional<int> perf::parseScalarRegister(llvm::StringRef operand) {
  operand = operand.trim();
  if (!operand.consume_front("s"))
    return std::nullopt;
  int index;
  if (operand.consume_front("[")) {
    auto [first, rest] = operand.split(':');
    if (first.getAsInteger(10, index))
      return std::nullopt;
    return index;
  }
  if (operand.getAsInteger(10, index))
    return std::nullopt;
  return index;
}

//===----------------------------------------------------------------------===//
// Basic blocks
//===----------------------------------------------------------------------===//

static int indexAt(const DisassembledKernel &kernel, uint64_t address) {
  auto it = llvm::lower_bound(kernel.instructions, address,
                              [](const Instruction &inst, uint64_t a) {
                                return inst.address < a;
                              });
  if (it == kernel.instructions.end() || it->address != address)
    return -1;
  return int(it - kernel.instructions.begin());
}

int perf::getBranchTarget(const DisassembledKernel &kernel, int index) {
  const Instruction &inst = kernel.instructions[index];
  if (inst.kind != InstructionClass::Branch || !inst.target)
    return -1;
  return indexAt(kernel, *inst.target);
}

static bool endsFlow(const Instruction &inst) {
  return inst.mnemonic == "s_endpgm" || inst.mnemonic == "s_code_end" ||
         inst.mnemonic == "s_setpc_b64";
}

ControlFlowGraph perf::buildControlFlowGraph(const DisassembledKernel &kernel) {
  const auto &insts = kernel.instructions;
  int n = int(insts.size());
  std::vector<bool> starts(n + 1, false);
  starts[0] = true;
  for (int i = 0; i < n; ++i) {
    if (insts[i].kind == InstructionClass::Branch || endsFlow(insts[i]))
      starts[i + 1] = true;
    int target = getBranchTarget(kernel, i);
    if (target >= 0)
      starts[target] = true;
  }
  ControlFlowGraph cfg;
  cfg.blockOf.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    if (starts[i])
      cfg.blocks.push_back({i, i, {}});
    cfg.blocks.back().last = i;
    cfg.blockOf[i] = int(cfg.blocks.size()) - 1;
  }
  for (int b = 0, e = int(cfg.blocks.size()); b < e; ++b) {
    ControlFlowGraph::Block &block = cfg.blocks[b];
    const Instruction &last = insts[block.last];
    int target = getBranchTarget(kernel, block.last);
    if (target >= 0)
      block.successors.push_back(cfg.blockOf[target]);
    bool fallsThrough = !endsFlow(last) &&
                        (last.kind != InstructionClass::Branch ||
                         last.conditional);
    if (fallsThrough && b + 1 < e &&
        !llvm::is_contained(block.successors, b + 1))
      block.successors.push_back(b + 1);
  }
  return cfg;
}

/// Dominator sets (iterative data flow; kernels have at most a few hundred
/// blocks). Unreachable blocks dominate nothing and are dominated by all.
static std::vector<llvm::BitVector>
computeDominators(const ControlFlowGraph &cfg) {
  int n = int(cfg.blocks.size());
  std::vector<std::vector<int>> predecessors(n);
  for (int b = 0; b < n; ++b)
    for (int s : cfg.blocks[b].successors)
      predecessors[s].push_back(b);
  std::vector<llvm::BitVector> dom(n, llvm::BitVector(n, true));
  dom[0] = llvm::BitVector(n, false);
  dom[0].set(0);
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 1; b < n; ++b) {
      llvm::BitVector next(n, true);
      for (int p : predecessors[b])
        next &= dom[p];
      next.set(b);
      if (next != dom[b]) {
        dom[b] = std::move(next);
        changed = true;
      }
    }
  }
  return dom;
}

//===----------------------------------------------------------------------===//
// Branch patterns
//===----------------------------------------------------------------------===//

namespace {
/// What an SGPR does from trip to trip.
enum class ScalarKind { Invariant, Increasing, Decreasing, Toggle, Unknown };

struct Condition {
  llvm::StringRef predicate; ///< "eq", "lg", "lt", "le", "gt", "ge"
  ScalarKind lhs = ScalarKind::Unknown, rhs = ScalarKind::Unknown;
  bool negated = false;
};
} // namespace

/// The kind of SGPR `reg` in the loop: defined nowhere in it, or once by
/// one of the trip-to-trip updates compilers emit.
static ScalarKind classifyScalar(const DisassembledKernel &kernel,
                                 const std::vector<int> &body, int reg,
                                 int depth = 0) {
  int definitions = 0;
  ScalarKind kind = ScalarKind::Invariant;
  for (int i : body) {
    const Instruction &inst = kernel.instructions[i];
    if (inst.kind != InstructionClass::SALU &&
        inst.kind != InstructionClass::VALU &&
        inst.kind != InstructionClass::ScalarLoad)
      continue;
    auto ops = getOperands(inst);
    llvm::StringRef mnemonic = inst.mnemonic;
    if (ops.empty() || mnemonic.starts_with("s_cmp") ||
        mnemonic.starts_with("s_bitcmp"))
      continue;
    std::optional<int> dst = parseScalarRegister(ops[0]);
    int width = llvm::StringRef(inst.mnemonic).ends_with("_b64") ? 2 : 1;
    if (!dst || reg < *dst || reg >= *dst + width)
      continue;
    ++definitions;
    llvm::StringRef m = inst.mnemonic;
    auto same = [&](size_t k) {
      return ops.size() > k && parseScalarRegister(ops[k]) == reg;
    };
    auto immediate = [&](size_t k) {
      return ops.size() > k ? parseImmediate(ops[k]) : std::nullopt;
    };
    kind = ScalarKind::Unknown;
    if (m == "s_addk_i32" && immediate(1)) {
      kind = *immediate(1) > 0 ? ScalarKind::Increasing
                               : ScalarKind::Decreasing;
    } else if ((m == "s_add_i32" || m == "s_add_u32") &&
               ((same(1) && immediate(2)) || (same(2) && immediate(1)))) {
      int64_t step = same(1) ? *immediate(2) : *immediate(1);
      kind = step > 0 ? ScalarKind::Increasing : ScalarKind::Decreasing;
    } else if ((m == "s_sub_i32" || m == "s_sub_u32") && same(1) &&
               immediate(2)) {
      kind = *immediate(2) > 0 ? ScalarKind::Decreasing
                               : ScalarKind::Increasing;
    } else if (m == "s_xor_b32" && ((same(1) && immediate(2) == 1) ||
                                    (same(2) && immediate(1) == 1))) {
      kind = ScalarKind::Toggle;
    } else if (m == "s_mov_b32" && depth < 4) {
      if (std::optional<int> source = parseScalarRegister(ops[1]))
        if (*source != reg)
          kind = classifyScalar(kernel, body, *source, depth + 1);
    }
  }
  return definitions > 1 ? ScalarKind::Unknown : kind;
}

static ScalarKind classifyOperand(const DisassembledKernel &kernel,
                                  const std::vector<int> &body,
                                  llvm::StringRef operand) {
  if (parseImmediate(operand))
    return ScalarKind::Invariant;
  if (std::optional<int> reg = parseScalarRegister(operand))
    return classifyScalar(kernel, body, *reg);
  return ScalarKind::Unknown;
}

/// Whether `inst` writes SCC (compares and most SALU arithmetic; moves,
/// selects and program control do not).
static bool writesSCC(const Instruction &inst) {
  if (inst.kind != InstructionClass::SALU)
    return false;
  llvm::StringRef m = inst.mnemonic;
  for (llvm::StringRef keeps : {"s_mov", "s_cmov", "s_cselect", "s_getpc",
                                "s_setreg", "s_getreg", "s_nop", "s_set"})
    if (m.starts_with(keeps))
      return false;
  return true;
}

/// The compare behind SCC just before instruction `before`, in its block.
static std::optional<Condition>
findSCCCompare(const DisassembledKernel &kernel, const ControlFlowGraph &cfg,
               const std::vector<int> &body, int before) {
  int first = cfg.blocks[cfg.blockOf[before]].first;
  for (int i = before - 1; i >= first; --i) {
    const Instruction &inst = kernel.instructions[i];
    if (!writesSCC(inst))
      continue;
    llvm::StringRef m = inst.mnemonic;
    if (!m.consume_front("s_cmp_"))
      return std::nullopt;
    auto ops = getOperands(inst);
    if (ops.size() < 2)
      return std::nullopt;
    Condition c;
    c.predicate = m.split('_').first;
    c.lhs = classifyOperand(kernel, body, ops[0]);
    c.rhs = classifyOperand(kernel, body, ops[1]);
    return c;
  }
  return std::nullopt;
}

/// The condition under which the branch at `index` is taken.
static std::optional<Condition>
findBranchCondition(const DisassembledKernel &kernel,
                    const ControlFlowGraph &cfg, const std::vector<int> &body,
                    int index) {
  llvm::StringRef m = kernel.instructions[index].mnemonic;
  if (m == "s_cbranch_scc0" || m == "s_cbranch_scc1") {
    auto c = findSCCCompare(kernel, cfg, body, index);
    if (c)
      c->negated = m == "s_cbranch_scc0";
    return c;
  }
  if (m != "s_cbranch_vccz" && m != "s_cbranch_vccnz")
    return std::nullopt;
  // vcc = exec & s[k] (andn2: exec & ~s[k]), s[k] = scc ? -1 : 0.
  int first = cfg.blocks[cfg.blockOf[index]].first;
  for (int i = index - 1; i >= first; --i) {
    const Instruction &inst = kernel.instructions[i];
    auto ops = getOperands(inst);
    if (ops.empty() || ops[0] != "vcc")
      continue;
    bool andn2 = inst.mnemonic == "s_andn2_b64";
    if ((!andn2 && inst.mnemonic != "s_and_b64") || ops.size() < 3 ||
        ops[1] != "exec")
      return std::nullopt;
    std::optional<int> mask = parseScalarRegister(ops[2]);
    if (!mask)
      return std::nullopt;
    for (int j = i - 1; j >= first; --j) {
      const Instruction &def = kernel.instructions[j];
      auto defOps = getOperands(def);
      if (defOps.empty() || parseScalarRegister(defOps[0]) != mask)
        continue;
      if (def.mnemonic != "s_cselect_b64" || defOps.size() < 3 ||
          parseImmediate(defOps[1]) != -1 || parseImmediate(defOps[2]) != 0)
        return std::nullopt;
      auto c = findSCCCompare(kernel, cfg, body, j);
      if (c)
        c->negated = andn2 != (m == "s_cbranch_vccz");
      return c;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

static BranchPattern negate(BranchPattern p) {
  switch (p) {
  case BranchPattern::Never: return BranchPattern::Always;
  case BranchPattern::Always: return BranchPattern::Never;
  case BranchPattern::OnceOnly: return BranchPattern::AllButOnce;
  case BranchPattern::AllButOnce: return BranchPattern::OnceOnly;
  default: return p;
  }
}

/// The pattern of a condition that is true (before negation) on trips of a
/// loop.
static BranchPattern patternOf(const Condition &c) {
  ScalarKind moving = c.lhs, fixed = c.rhs;
  llvm::StringRef pred = c.predicate;
  if (c.lhs == ScalarKind::Invariant) {
    std::swap(moving, fixed);
    pred = llvm::StringSwitch<llvm::StringRef>(pred)
               .Case("lt", "gt").Case("gt", "lt").Case("le", "ge")
               .Case("ge", "le").Default(pred);
  }
  BranchPattern p = BranchPattern::Unknown;
  if (fixed != ScalarKind::Invariant)
    return p;
  if (moving == ScalarKind::Toggle && (pred == "eq" || pred == "lg"))
    p = BranchPattern::Alternates;
  if (moving == ScalarKind::Increasing || moving == ScalarKind::Decreasing) {
    // A counter below (above) its bound on every trip but the last: the
    // compare that holds while the loop runs, and its opposite.
    bool whileRunning = pred == "lg" ||
                        (moving == ScalarKind::Increasing
                             ? (pred == "lt" || pred == "le")
                             : (pred == "gt" || pred == "ge"));
    p = whileRunning ? BranchPattern::AllButOnce : BranchPattern::OnceOnly;
  }
  return c.negated ? negate(p) : p;
}

//===----------------------------------------------------------------------===//
// The main loop
//===----------------------------------------------------------------------===//

std::optional<LoopRegion> perf::findMainLoop(const DisassembledKernel &kernel,
                                             const ControlFlowGraph &cfg) {
  const auto &insts = kernel.instructions;
  int numBlocks = int(cfg.blocks.size());
  std::vector<llvm::BitVector> dom = computeDominators(cfg);
  std::vector<std::vector<int>> predecessors(numBlocks);
  for (int b = 0; b < numBlocks; ++b)
    for (int s : cfg.blocks[b].successors)
      predecessors[s].push_back(b);
  // Natural loops, by header: the blocks that reach a back edge's source
  // without passing the header.
  std::map<int, llvm::BitVector> loops;
  for (int b = 0; b < numBlocks; ++b)
    for (int h : cfg.blocks[b].successors) {
      if (!dom[b].test(h) || dom[b].count() == size_t(numBlocks))
        continue; // not a back edge (or b unreachable)
      llvm::BitVector &body =
          loops.try_emplace(h, llvm::BitVector(numBlocks)).first->second;
      body.set(h);
      std::vector<int> work = {b};
      while (!work.empty()) {
        int x = work.back();
        work.pop_back();
        if (body.test(x))
          continue;
        body.set(x);
        for (int p : predecessors[x])
          work.push_back(p);
      }
    }
  auto mfmasIn = [&](const llvm::BitVector &body) {
    int mfmas = 0;
    for (int b : body.set_bits())
      for (int i = cfg.blocks[b].first; i <= cfg.blocks[b].last; ++i)
        mfmas += insts[i].kind == InstructionClass::MFMA;
    return mfmas;
  };
  int bestHeader = -1, bestMfmas = 0;
  size_t bestSize = 0;
  bool nested = false;
  for (auto &[header, body] : loops) {
    int mfmas = mfmasIn(body);
    bool hasInner = false;
    for (auto &[h, inner] : loops)
      if (h != header && body.test(h) && mfmasIn(inner) > 0)
        hasInner = true;
    if (mfmas > 0 && hasInner) {
      nested = true;
      continue;
    }
    size_t size = body.count();
    if (mfmas > bestMfmas ||
        (bestMfmas == 0 && mfmas == 0 && size > bestSize)) {
      bestHeader = header;
      bestMfmas = mfmas;
      bestSize = size;
    }
  }
  if (bestHeader < 0)
    return std::nullopt;
  const llvm::BitVector &blocks = loops[bestHeader];

  LoopRegion loop;
  loop.nested = nested;
  loop.headerBlock = bestHeader;
  loop.header = cfg.blocks[bestHeader].first;
  loop.inLoop.assign(insts.size(), false);
  loop.blockInLoop.assign(numBlocks, false);
  for (int b : blocks.set_bits()) {
    loop.blockInLoop[b] = true;
    for (int i = cfg.blocks[b].first; i <= cfg.blocks[b].last; ++i) {
      loop.inLoop[i] = true;
      loop.body.push_back(i);
    }
    if (llvm::is_contained(cfg.blocks[b].successors, bestHeader))
      loop.latch = std::max(loop.latch, cfg.blocks[b].last);
  }
  // Inner loops (without MFMAs): their back edges are passed over.
  for (auto &[h, inner] : loops)
    if (h != bestHeader && blocks.test(h))
      for (int b : inner.set_bits())
        if (llvm::is_contained(cfg.blocks[b].successors, h))
          loop.innerBackEdges.push_back(cfg.blocks[b].last);

  // The pattern of every conditional branch in the loop.
  for (int b : blocks.set_bits()) {
    int i = cfg.blocks[b].last;
    const Instruction &inst = insts[i];
    if (inst.kind != InstructionClass::Branch || !inst.conditional)
      continue;
    int target = getBranchTarget(kernel, i);
    bool targetInside = target >= 0 && loop.inLoop[target];
    bool fallInside = i + 1 < int(insts.size()) && loop.inLoop[i + 1] &&
                      cfg.blockOf[i + 1] != bestHeader;
    BranchPattern p = BranchPattern::Unknown;
    llvm::StringRef m = inst.mnemonic;
    if (llvm::is_contained(loop.innerBackEdges, i))
      p = BranchPattern::Never;
    else if (!targetInside)
      p = BranchPattern::Never; // an exit: the loop goes on
    else if (!fallInside && target != loop.header)
      p = BranchPattern::Always;
    else if (m == "s_cbranch_execz" || m == "s_cbranch_execnz")
      p = BranchPattern::Exec;
    else if (auto c = findBranchCondition(kernel, cfg, loop.body, i))
      p = patternOf(*c);
    else if (target == loop.header)
      p = BranchPattern::Always; // a latch deciding on unknown terms
    if (p == BranchPattern::Unknown) {
      // The skippable side (the one that reaches the other) runs on the
      // conditional share of the trips.
      auto reaches = [&](int from, int to) {
        std::vector<bool> seen(numBlocks, false);
        std::vector<int> work = {from};
        while (!work.empty()) {
          int x = work.back();
          work.pop_back();
          if (x == to)
            return true;
          if (seen[x] || !loop.blockInLoop[x] || x == bestHeader)
            continue;
          seen[x] = true;
          for (int s : cfg.blocks[x].successors)
            work.push_back(s);
        }
        return false;
      };
      int targetBlock = cfg.blockOf[target];
      p = reaches(targetBlock, b + 1) ? BranchPattern::ShareTaken
                                      : BranchPattern::ShareNotTaken;
    }
    loop.branches[i] = p;
  }
  return loop;
}

double perf::getTakenShare(BranchPattern pattern, double share,
                           int64_t trips) {
  double once = trips > 0 ? 1.0 / double(trips) : 0.0;
  switch (pattern) {
  case BranchPattern::Never: return 0;
  case BranchPattern::Always: return 1;
  case BranchPattern::Alternates: return 0.5;
  case BranchPattern::OnceOnly: return once;
  case BranchPattern::AllButOnce: return 1 - once;
  case BranchPattern::ShareTaken: return share;
  case BranchPattern::ShareNotTaken: return 1 - share;
  case BranchPattern::Exec: return 0.5; // replaced by the exec's own
  case BranchPattern::Unknown: return 0.5;
  }
  return 0.5;
}

bool perf::takesBranch(BranchPattern pattern, int iteration, double share) {
  auto onShare = [&](double s) {
    return std::floor((iteration + 1) * s) > std::floor(iteration * s);
  };
  switch (pattern) {
  case BranchPattern::Never:
  case BranchPattern::OnceOnly: // the steady state: not the odd trip
    return false;
  case BranchPattern::Always:
  case BranchPattern::AllButOnce:
    return true;
  case BranchPattern::Alternates:
    return iteration % 2 == 1;
  case BranchPattern::ShareTaken:
    return onShare(share);
  case BranchPattern::ShareNotTaken:
    return !onShare(share);
  case BranchPattern::Exec:
  case BranchPattern::Unknown:
    return false;
  }
  return false;
}

std::vector<double> perf::computeLoopWeights(const DisassembledKernel &kernel,
                                             const ControlFlowGraph &cfg,
                                             const LoopRegion &loop,
                                             double share, int64_t trips) {
  const auto &insts = kernel.instructions;
  int numBlocks = int(cfg.blocks.size());
  // The loop's blocks without the edges back to the header (and the inner
  // loops' back edges) are acyclic: frequencies per trip flow from the
  // header in topological order (Kahn), split at each conditional branch by
  // its taken share.
  auto edges = [&](int b) {
    llvm::SmallVector<std::pair<int, bool>, 2> out; // (successor, taken)
    int last = cfg.blocks[b].last;
    int target = getBranchTarget(kernel, last);
    for (int s : cfg.blocks[b].successors) {
      if (s == loop.headerBlock || !loop.blockInLoop[s] ||
          llvm::is_contained(loop.innerBackEdges, last))
        continue;
      bool taken = target >= 0 && s == cfg.blockOf[target] &&
                   insts[last].kind == InstructionClass::Branch;
      out.push_back({s, taken});
    }
    return out;
  };
  std::vector<int> indegree(numBlocks, 0);
  for (int b = 0; b < numBlocks; ++b)
    if (loop.blockInLoop[b])
      for (auto [s, taken] : edges(b))
        ++indegree[s];
  std::vector<double> frequency(numBlocks, 0);
  frequency[loop.headerBlock] = 1;
  std::vector<int> ready = {loop.headerBlock};
  while (!ready.empty()) {
    int b = ready.back();
    ready.pop_back();
    int last = cfg.blocks[b].last;
    const Instruction &inst = insts[last];
    double taken = 1;
    if (inst.kind == InstructionClass::Branch && inst.conditional) {
      auto it = loop.branches.find(last);
      BranchPattern p =
          it == loop.branches.end() ? BranchPattern::Unknown : it->second;
      taken = p == BranchPattern::Exec
                  ? (inst.mnemonic == "s_cbranch_execnz" ? 1.0 : 0.0)
                  : getTakenShare(p, share, trips);
    }
    for (auto [s, isTaken] : edges(b)) {
      bool conditional =
          inst.kind == InstructionClass::Branch && inst.conditional;
      frequency[s] += frequency[b] *
                      (conditional ? (isTaken ? taken : 1 - taken) : 1.0);
      if (--indegree[s] == 0)
        ready.push_back(s);
    }
  }
  std::vector<double> weights(insts.size(), 0);
  for (int b = 0; b < numBlocks; ++b)
    if (loop.blockInLoop[b])
      for (int i = cfg.blocks[b].first; i <= cfg.blocks[b].last; ++i)
        weights[i] = std::min(1.0, frequency[b]);
  return weights;
}
