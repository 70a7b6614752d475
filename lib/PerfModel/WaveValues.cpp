//===- WaveValues.cpp - the values a wave's control and LDS addresses use -===//
//
// Which waves take a branch on exec (the conditional barrier that offsets
// ping-pong waves) and which LDS banks a ds_read hits (bank conflicts from
// the code's own address patterns) depend on values that are functions of
// the work-item id and constants only. This evaluates the integer VALU and
// SALU instructions such values flow through, per lane, for one wave; every
// other write makes its register unknown.
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

WaveValues::WaveValues(int waveInWorkgroup, std::array<int64_t, 3> block,
                       int waveSize)
    : waveSize(waveSize) {
  // gfx90a and later pass packed work-item ids in v0: x | y << 10 | z << 20.
  Lanes id;
  for (int lane = 0; lane < waveSize; ++lane) {
    int64_t t = int64_t(waveInWorkgroup) * waveSize + lane;
    int64_t x = t % block[0], y = t / block[0] % block[1],
            z = t / (block[0] * block[1]);
    id[lane] = uint32_t(x | y << 10 | z << 20);
  }
  vgprs[0] = id;
  exec = waveSize >= 64 ? ~uint64_t(0) : (uint64_t(1) << waveSize) - 1;
}

std::optional<WaveValues::Lanes>
WaveValues::read(llvm::StringRef operand) const {
  Lanes lanes;
  if (std::optional<int64_t> imm = parseImmediate(operand)) {
    lanes.fill(uint32_t(*imm));
    return lanes;
  }
  if (std::optional<int> s = parseScalarRegister(operand)) {
    auto it = sgprs.find(*s);
    if (it == sgprs.end())
      return std::nullopt;
    lanes.fill(it->second);
    return lanes;
  }
  if (operand.consume_front("v")) {
    int index;
    if (operand.getAsInteger(10, index))
      return std::nullopt;
    auto it = vgprs.find(index);
    if (it == vgprs.end())
      return std::nullopt;
    return it->second;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>>
WaveValues::getLaneAddresses(llvm::StringRef operand) const {
  auto lanes = read(operand);
  if (!lanes)
    return std::nullopt;
  std::vector<int64_t> result;
  uint64_t active = exec.value_or(~uint64_t(0));
  for (int lane = 0; lane < waveSize; ++lane)
    if (active >> lane & 1)
      result.push_back(int64_t((*lanes)[lane]));
  return result;
}

/// The registers `inst` writes, by its first operand (or all of them for
/// an MFMA/load), forgotten.
void WaveValues::forgetDefinitions(const Instruction &inst) {
  for (const RegisterRange &r : inst.defs)
    for (int i = r.first; i < r.first + r.count; ++i)
      (r.file == 's' ? (void)sgprs.erase(i) : (void)vgprs.erase(i));
  auto ops = getOperands(inst);
  if (!ops.empty()) {
    if (std::optional<int> s = parseScalarRegister(ops[0])) {
      sgprs.erase(*s);
      sgprs.erase(*s + 1);
    }
    if (ops[0] == "vcc")
      vcc.reset();
    if (ops[0] == "exec")
      exec.reset();
  }
}

static uint32_t bitop3(uint32_t a, uint32_t b, uint32_t c, unsigned table) {
  uint32_t r = 0;
  for (int bit = 0; bit < 32; ++bit) {
    unsigned index = (a >> bit & 1) << 2 | (b >> bit & 1) << 1 | (c >> bit & 1);
    r |= uint32_t(table >> index & 1) << bit;
  }
  return r;
}

std::optional<uint64_t> WaveValues::readMask(llvm::StringRef op) const {
  if (op == "exec")
    return exec;
  if (op == "vcc")
    return vcc;
  if (auto imm = parseImmediate(op))
    return uint64_t(*imm);
  if (auto s = parseScalarRegister(op)) {
    auto lo = sgprs.find(*s), hi = sgprs.find(*s + 1);
    if (lo == sgprs.end() || hi == sgprs.end())
      return std::nullopt;
    return uint64_t(lo->second) | uint64_t(hi->second) << 32;
  }
  return std::nullopt;
}

void WaveValues::writeMask(llvm::StringRef op,
                           std::optional<uint64_t> value) {
  if (op == "exec") {
    exec = value;
  } else if (op == "vcc") {
    vcc = value;
  } else if (auto s = parseScalarRegister(op)) {
    if (value) {
      sgprs[*s] = uint32_t(*value);
      sgprs[*s + 1] = uint32_t(*value >> 32);
    } else {
      sgprs.erase(*s);
      sgprs.erase(*s + 1);
    }
  }
}

namespace {
using IntegerOp = uint32_t (*)(uint32_t, uint32_t, uint32_t, unsigned);
} // namespace

/// The lane function of an integer VALU opcode (sources in operand order;
/// the bitop3 truth table), or null.
static IntegerOp getIntegerOp(llvm::StringRef base) {
  using U = uint32_t;
  static const llvm::StringMap<IntegerOp> ops = {
      {"v_mov_b32", [](U a, U, U, unsigned) { return a; }},
      {"v_and_b32", [](U a, U b, U, unsigned) { return a & b; }},
      {"v_or_b32", [](U a, U b, U, unsigned) { return a | b; }},
      {"v_xor_b32", [](U a, U b, U, unsigned) { return a ^ b; }},
      {"v_not_b32", [](U a, U, U, unsigned) { return ~a; }},
      {"v_lshlrev_b32", [](U a, U b, U, unsigned) { return b << (a & 31); }},
      {"v_lshrrev_b32", [](U a, U b, U, unsigned) { return b >> (a & 31); }},
      {"v_ashrrev_i32",
       [](U a, U b, U, unsigned) { return U(int32_t(b) >> (a & 31)); }},
      {"v_add_u32", [](U a, U b, U, unsigned) { return a + b; }},
      {"v_sub_u32", [](U a, U b, U, unsigned) { return a - b; }},
      {"v_subrev_u32", [](U a, U b, U, unsigned) { return b - a; }},
      {"v_mul_lo_u32", [](U a, U b, U, unsigned) { return a * b; }},
      {"v_mul_u32_u24",
       [](U a, U b, U, unsigned) { return (a & 0xffffff) * (b & 0xffffff); }},
      {"v_and_or_b32", [](U a, U b, U c, unsigned) { return (a & b) | c; }},
      {"v_or3_b32", [](U a, U b, U c, unsigned) { return a | b | c; }},
      {"v_add3_u32", [](U a, U b, U c, unsigned) { return a + b + c; }},
      {"v_lshl_or_b32",
       [](U a, U b, U c, unsigned) { return (a << (b & 31)) | c; }},
      {"v_lshl_add_u32",
       [](U a, U b, U c, unsigned) { return (a << (b & 31)) + c; }},
      {"v_add_lshl_u32",
       [](U a, U b, U c, unsigned) { return (a + b) << (c & 31); }},
      {"v_xad_u32", [](U a, U b, U c, unsigned) { return (a ^ b) + c; }},
      {"v_bfe_u32",
       [](U a, U b, U c, unsigned) {
         return (a >> (b & 31)) & ((c & 31) ? ((1u << (c & 31)) - 1) : 0u);
       }},
      {"v_bitop3_b32",
       [](U a, U b, U c, unsigned table) { return bitop3(a, b, c, table); }},
  };
  auto it = ops.find(base);
  return it == ops.end() ? nullptr : it->second;
}

void WaveValues::execute(const Instruction &inst) {
  llvm::StringRef m = inst.mnemonic;
  auto ops = getOperands(inst);
  if (inst.kind == InstructionClass::VALU && !ops.empty()) {
    llvm::StringRef base = m;
    base.consume_back("_e32");
    base.consume_back("_e64");
    // Compares: a lane mask in vcc (e32) or an SGPR pair.
    if (base.starts_with("v_cmp_") && ops.size() >= 3) {
      auto a = read(ops[1]), b = read(ops[2]);
      llvm::StringRef pred = base.drop_front(6).split('_').first;
      bool isSigned = base.ends_with("_i32");
      std::optional<uint64_t> mask;
      if (a && b) {
        mask = 0;
        for (int lane = 0; lane < waveSize; ++lane) {
          int64_t x = isSigned ? int64_t(int32_t((*a)[lane])) : (*a)[lane];
          int64_t y = isSigned ? int64_t(int32_t((*b)[lane])) : (*b)[lane];
          bool r = pred == "eq"   ? x == y
                   : pred == "ne" || pred == "lg" ? x != y
                   : pred == "lt" ? x < y
                   : pred == "le" ? x <= y
                   : pred == "gt" ? x > y
                   : pred == "ge" ? x >= y
                                  : false;
          *mask |= uint64_t(r) << lane;
        }
      }
      writeMask(ops[0], mask);
      return;
    }
    if (base == "v_readfirstlane_b32" && ops.size() == 2) {
      std::optional<int> s = parseScalarRegister(ops[0]);
      auto v = read(ops[1]);
      if (!s)
        return;
      if (v && exec && *exec)
        sgprs[*s] = (*v)[llvm::countr_zero(*exec)];
      else
        sgprs.erase(*s);
      return;
    }
    // Integer arithmetic on known lanes.
    std::optional<Lanes> out;
    if (IntegerOp op = getIntegerOp(base)) {
      llvm::SmallVector<const Lanes *, 3> in;
      llvm::SmallVector<Lanes, 3> storage(ops.size());
      bool known = ops.size() > 1;
      for (size_t k = 1; k < ops.size() && known; ++k) {
        std::optional<Lanes> value = read(ops[k]);
        known = value.has_value();
        if (known) {
          storage[k] = *value;
          in.push_back(&storage[k]);
        }
      }
      if (known) {
        unsigned table = 0;
        size_t at = inst.text.find("bitop3:");
        if (at != std::string::npos)
          llvm::StringRef(inst.text).drop_front(at + 7).consumeInteger(0,
                                                                      table);
        Lanes r;
        for (int lane = 0; lane < waveSize; ++lane) {
          auto x = [&](size_t k) { return k < in.size() ? (*in[k])[lane] : 0u; };
          r[lane] = op(x(0), x(1), x(2), table);
        }
        out = r;
      }
    }
    if (ops[0].starts_with("v") && !ops[0].starts_with("vcc")) {
      int index;
      if (!ops[0].drop_front().getAsInteger(10, index)) {
        if (out)
          vgprs[index] = *out;
        else
          vgprs.erase(index);
        return;
      }
    }
    forgetDefinitions(inst);
    return;
  }
  if (inst.kind == InstructionClass::SALU && !ops.empty()) {
    // Exec masks: s_and_saveexec_b64 s, x: s = exec, exec &= x; moves and
    // logic on exec.
    auto both = [&](auto f) -> std::optional<uint64_t> {
      auto a = readMask(ops[1]), b = readMask(ops[2]);
      if (!a || !b)
        return std::nullopt;
      return f(*a, *b);
    };
    if (m == "s_and_saveexec_b64" && ops.size() == 2) {
      auto previous = exec;
      auto x = readMask(ops[1]);
      exec = previous && x ? std::optional<uint64_t>(*previous & *x)
                           : std::nullopt;
      writeMask(ops[0], previous);
      return;
    }
    if (m == "s_mov_b64" && ops.size() == 2) {
      writeMask(ops[0], readMask(ops[1]));
      return;
    }
    if (ops.size() == 3 && m.ends_with("_b64")) {
      if (m == "s_and_b64")
        return writeMask(ops[0], both([](uint64_t a, uint64_t b) { return a & b; }));
      if (m == "s_or_b64")
        return writeMask(ops[0], both([](uint64_t a, uint64_t b) { return a | b; }));
      if (m == "s_xor_b64")
        return writeMask(ops[0], both([](uint64_t a, uint64_t b) { return a ^ b; }));
      if (m == "s_andn2_b64")
        return writeMask(ops[0],
                       both([](uint64_t a, uint64_t b) { return a & ~b; }));
    }
    if (m.starts_with("s_cmp") || m.starts_with("s_bitcmp") ||
        m.starts_with("s_set") || m.starts_with("s_wait"))
      return;
    // 32-bit scalar arithmetic on known values.
    std::optional<int> dst = parseScalarRegister(ops[0]);
    if (!dst) {
      if (ops[0] == "exec" || ops[0] == "vcc")
        writeMask(ops[0], std::nullopt);
      return;
    }
    auto a = ops.size() > 1 ? read(ops[1]) : std::nullopt;
    auto b = ops.size() > 2 ? read(ops[2]) : std::nullopt;
    std::optional<uint32_t> r;
    if ((m == "s_mov_b32" || m == "s_movk_i32") && a)
      r = (*a)[0];
    else if (a && b) {
      uint32_t x = (*a)[0], y = (*b)[0];
      if (m == "s_and_b32") r = x & y;
      else if (m == "s_or_b32") r = x | y;
      else if (m == "s_xor_b32") r = x ^ y;
      else if (m == "s_lshl_b32") r = x << (y & 31);
      else if (m == "s_lshr_b32") r = x >> (y & 31);
      else if (m == "s_add_u32" || m == "s_add_i32") r = x + y;
      else if (m == "s_sub_u32" || m == "s_sub_i32") r = x - y;
      else if (m == "s_mul_i32") r = x * y;
    }
    if (m.ends_with("_b64")) {
      sgprs.erase(*dst + 1);
      r.reset();
    }
    if (r)
      sgprs[*dst] = *r;
    else
      sgprs.erase(*dst);
    return;
  }
  if (inst.kind == InstructionClass::ScalarLoad ||
      inst.kind == InstructionClass::GlobalLoad ||
      inst.kind == InstructionClass::LDS ||
      inst.kind == InstructionClass::MFMA)
    forgetDefinitions(inst);
}
