//===- CodeObject.cpp - kernels of an AMDGPU code object, disassembled ----===//
//
// Reads the ELF with LLVM's object library, decodes each kernel's bytes
// with the AMDGPU MC disassembler and classifies every instruction from its
// printed mnemonic and operands: the names are the ISA guides' and stable
// across LLVM versions, unlike opcode enums, which the installed LLVM does
// not export.
//
//===----------------------------------------------------------------------===//

#include "PerfModelInternal.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
}

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

/// Register ranges named in `operand` ("v[4:7]", "a12", "s[0:1]").
static void parseRegisters(llvm::StringRef operand,
                           std::vector<RegisterRange> &into) {
  static const llvm::Regex range("^([vas])\\[([0-9]+):([0-9]+)\\]$");
  static const llvm::Regex single("^([vas])([0-9]+)$");
  llvm::SmallVector<llvm::StringRef, 4> m;
  // Source modifiers: -v0, |v1|, -|v2|, neg(v3), abs(v4), sext(v5).
  operand = operand.trim();
  for (llvm::StringRef wrapper : {"neg(", "abs(", "sext("})
    if (operand.consume_front(wrapper))
      operand.consume_back(")");
  operand = operand.ltrim("-").trim("|");
  if (range.match(operand, &m)) {
    int first = 0, last = 0;
    m[2].getAsInteger(10, first);
    m[3].getAsInteger(10, last);
    into.push_back({m[1][0], first, last - first + 1});
  } else if (single.match(operand, &m)) {
    int index = 0;
    m[2].getAsInteger(10, index);
    into.push_back({m[1][0], index, 1});
  }
}

/// Bytes per lane a memory mnemonic moves: dwordxN, dword, short, byte,
/// format components, or a _bNN/_uNN/_iNN/_fNN width (read2/write2 move
/// two).
static int memoryWidth(llvm::StringRef mnemonic) {
  static const llvm::Regex dwords("dwordx([0-9])");
  static const llvm::Regex bits("_[buif]([0-9]+)");
  static const llvm::Regex format("_format_([xyzw]+)");
  llvm::SmallVector<llvm::StringRef, 2> m;
  int bytes = 0;
  if (format.match(mnemonic, &m)) {
    // buffer_load_format_xyzw: up to four 32-bit components (d16: 16-bit).
    bytes = int(m[1].size()) * (mnemonic.contains("d16") ? 2 : 4);
  } else if (dwords.match(mnemonic, &m)) {
    m[1].getAsInteger(10, bytes);
    bytes *= 4;
  } else if (mnemonic.contains("dword")) {
    bytes = 4;
  } else if (mnemonic.contains("short")) {
    bytes = 2;
  } else if (mnemonic.contains("byte")) {
    bytes = 1;
  } else if (bits.match(mnemonic, &m)) {
    m[1].getAsInteger(10, bytes);
    bytes /= 8;
  }
  if (mnemonic.contains("read2") || mnemonic.contains("write2"))
    bytes *= 2;
  return bytes;
}

/// The value of modifier `name:N` in `text`, or -1.
static int modifierValue(llvm::StringRef text, llvm::StringRef name) {
  size_t at = text.find((name + ":").str());
  if (at == llvm::StringRef::npos)
    return -1;
  int value = -1;
  text.drop_front(at + name.size() + 1).consumeInteger(10, value);
  return value;
}

/// The count an s_waitcnt waits for: `name(N)`, or -1.
static int waitValue(llvm::StringRef text, llvm::StringRef name) {
  size_t at = text.find((name + "(").str());
  if (at == llvm::StringRef::npos)
    return -1;
  int value = -1;
  text.drop_front(at + name.size() + 1).consumeInteger(10, value);
  return value;
}

void perf::classifyInstruction(Instruction &inst, const ChipInfo &chip) {
  llvm::StringRef mnemonic = inst.mnemonic;
  llvm::StringRef text = llvm::StringRef(inst.text).trim();
  llvm::StringRef operands = text.drop_front(
      std::min(text.size(), text.find_first_of(" \t")));
  // Register operands in order; modifiers (offset:16, cbsz:4, off, lds)
  // name no register.
  llvm::SmallVector<llvm::StringRef, 8> parts;
  operands.split(parts, ',');
  std::vector<std::vector<RegisterRange>> regs;
  for (llvm::StringRef part : parts) {
    // "v[0:3] cbsz:4": a trailing operand carries the modifiers.
    std::vector<RegisterRange> found;
    parseRegisters(part.trim().split(' ').first, found);
    regs.push_back(found);
  }
  auto defineFirst = [&] {
    for (size_t i = 0; i < regs.size(); ++i)
      for (const RegisterRange &r : regs[i])
        (i == 0 ? inst.defs : inst.uses).push_back(r);
  };
  auto useAll = [&] {
    for (const auto &list : regs)
      inst.uses.insert(inst.uses.end(), list.begin(), list.end());
  };

  if (mnemonic.starts_with("v_mfma")) {
    inst.kind = InstructionClass::MFMA;
    if (const MMAIntrinsicInfo *info = lookupMMAIntrinsicByMnemonic(mnemonic))
      inst.mfma = chip.executes(*info) ? info : nullptr;
    // f8f6f4 operand formats (CDNA4 ISA): cbsz for A, blgp for B; 0 fp8,
    // 1 bf8, 2 fp6, 3 bf6, 4 fp4 (absent: 0).
    if (inst.mfma && inst.mfma->narrowCycles)
      inst.narrowOperands = std::max(0, modifierValue(text, "cbsz")) >= 2 &&
                            std::max(0, modifierValue(text, "blgp")) >= 2;
    defineFirst();
    return;
  }
  if (mnemonic.starts_with("ds_")) {
    inst.kind = InstructionClass::LDS;
    inst.bytesPerLane = memoryWidth(mnemonic);
    bool writes = mnemonic.starts_with("ds_write") ||
                  mnemonic.starts_with("ds_store") ||
                  mnemonic.starts_with("ds_add") || mnemonic == "ds_nop";
    if (writes)
      useAll();
    else
      defineFirst();
    return;
  }
  bool vmem = mnemonic.starts_with("global_") ||
              mnemonic.starts_with("buffer_") ||
              mnemonic.starts_with("flat_") ||
              mnemonic.starts_with("scratch_");
  if (vmem) {
    inst.bytesPerLane = memoryWidth(mnemonic);
    bool load = mnemonic.contains("_load");
    bool toLds = text.ends_with(" lds") || mnemonic.contains("load_lds");
    inst.kind = load ? InstructionClass::GlobalLoad
                     : InstructionClass::GlobalStore;
    if (load && !toLds)
      defineFirst();
    else
      useAll();
    return;
  }
  if (mnemonic.starts_with("s_load") || mnemonic.starts_with("s_buffer_load")) {
    inst.kind = InstructionClass::ScalarLoad;
    inst.bytesPerLane = memoryWidth(mnemonic);
    defineFirst();
    return;
  }
  if (mnemonic == "s_waitcnt") {
    inst.kind = InstructionClass::WaitCount;
    inst.vmcnt = waitValue(text, "vmcnt");
    inst.lgkmcnt = waitValue(text, "lgkmcnt");
    return;
  }
  if (mnemonic == "s_barrier") {
    inst.kind = InstructionClass::Barrier;
    return;
  }
  if (mnemonic == "s_nop") {
    inst.kind = InstructionClass::Nop;
    int n = 0;
    operands.trim().consumeInteger(0, n);
    inst.nopCycles = n + 1;
    return;
  }
  if (mnemonic == "s_branch" || mnemonic.starts_with("s_cbranch")) {
    inst.kind = InstructionClass::Branch;
    inst.conditional = mnemonic != "s_branch";
    return;
  }
  if (mnemonic == "s_endpgm" || mnemonic.starts_with("s_setprio") ||
      mnemonic.starts_with("s_sched") || mnemonic.starts_with("s_sleep") ||
      mnemonic.starts_with("s_set_gpr_idx") || mnemonic == "s_code_end") {
    inst.kind = InstructionClass::Other;
    return;
  }
  if (mnemonic.starts_with("s_")) {
    inst.kind = InstructionClass::SALU;
    return;
  }
  if (mnemonic.starts_with("v_")) {
    inst.kind = InstructionClass::VALU;
    defineFirst();
    return;
  }
  inst.kind = InstructionClass::Other;
}

//===----------------------------------------------------------------------===//
// ELF and disassembly
//===----------------------------------------------------------------------===//

namespace {
/// The MC objects for one chip.
struct Disassembler {
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instrInfo;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  std::unique_ptr<llvm::MCInstrAnalysis> analysis;
};
} // namespace

static llvm::Expected<Disassembler> createDisassembler(const ChipInfo &chip) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no AMDGPU target in this LLVM: " + error);
  Disassembler d;
  d.registers.reset(target->createMCRegInfo(triple));
  llvm::MCTargetOptions options;
  d.asmInfo.reset(target->createMCAsmInfo(*d.registers, triple, options));
  d.subtarget.reset(target->createMCSubtargetInfo(triple, chip.name, ""));
  d.instrInfo.reset(target->createMCInstrInfo());
  if (!d.registers || !d.asmInfo || !d.subtarget || !d.instrInfo)
    return llvm::createStringError("cannot set up the AMDGPU MC layer for " +
                                   chip.name.str());
  d.context = std::make_unique<llvm::MCContext>(
      triple, d.asmInfo.get(), d.registers.get(), d.subtarget.get());
  d.disassembler.reset(target->createMCDisassembler(*d.subtarget, *d.context));
  d.printer.reset(target->createMCInstPrinter(triple, 0, *d.asmInfo,
                                              *d.instrInfo, *d.registers));
  d.analysis.reset(target->createMCInstrAnalysis(d.instrInfo.get()));
  if (!d.disassembler || !d.printer)
    return llvm::createStringError("no AMDGPU disassembler in this LLVM");
  return std::move(d);
}

/// Registers and segment sizes from a kernel descriptor (AMDHSA code object
/// V3+ layout: LLVM AMDGPUUsage, "Kernel Descriptor").
static KernelDescriptor decodeDescriptor(llvm::ArrayRef<uint8_t> bytes,
                                         const ChipInfo &chip) {
  using llvm::support::endian::read32le;
  KernelDescriptor kd;
  if (bytes.size() < 64)
    return kd;
  kd.ldsBytes = read32le(bytes.data() + 0);
  kd.scratchBytes = read32le(bytes.data() + 4);
  uint32_t rsrc3 = read32le(bytes.data() + 44);
  uint32_t rsrc1 = read32le(bytes.data() + 48);
  // gfx90a+: one unified file, granulated in units of 8; ACCUM_OFFSET (in
  // units of 4, minus 1) says where the AGPRs start.
  kd.found = true;
  kd.registers = int((rsrc1 & 0x3f) + 1) * chip.registerGranule;
  kd.accumOffset = std::min(kd.registers, int((rsrc3 & 0x3f) + 1) * 4);
  return kd;
}

llvm::Expected<std::vector<DisassembledKernel>>
perf::disassembleCodeObject(llvm::StringRef elf, const ChipInfo &chip) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(elf, "code object",
                                                 /*RequiresNullTerminator=*/false);
  auto object = llvm::object::ObjectFile::createELFObjectFile(*buffer);
  if (!object)
    return llvm::createStringError("not an ELF code object: " +
                                   llvm::toString(object.takeError()));
  // The code object names its processor; decoding it as another one would
  // misread its instructions.
  if (auto *elfObject =
          llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get())) {
    if (elfObject->getEMachine() != llvm::ELF::EM_AMDGPU)
      return llvm::createStringError("not an AMDGPU code object (ELF "
                                     "machine %u)",
                                     unsigned(elfObject->getEMachine()));
    std::optional<llvm::StringRef> cpu = elfObject->tryGetCPUName();
    if (cpu && !cpu->empty() && *cpu != chip.name)
      return llvm::createStringError("the code object is for " + cpu->str() +
                                     ", not " + chip.name.str());
  }
  llvm::Expected<Disassembler> d = createDisassembler(chip);
  if (!d)
    return d.takeError();

  struct Function {
    std::string name;
    uint64_t address, size;
    llvm::object::SectionRef section;
  };
  std::vector<Function> functions;
  std::map<std::string, llvm::ArrayRef<uint8_t>> descriptors;
  for (const llvm::object::SymbolRef &symbol : (*object)->symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
    llvm::Expected<uint64_t> address = symbol.getAddress();
    llvm::Expected<llvm::object::section_iterator> section =
        symbol.getSection();
    if (!name || !type || !address || !section ||
        *section == (*object)->section_end()) {
      llvm::consumeError(name.takeError());
      llvm::consumeError(type.takeError());
      llvm::consumeError(address.takeError());
      llvm::consumeError(section.takeError());
      continue;
    }
    llvm::object::ELFSymbolRef elfSymbol(symbol);
    if (*type == llvm::object::SymbolRef::ST_Function) {
      functions.push_back({name->str(), *address, elfSymbol.getSize(),
                           **section});
    } else if (name->ends_with(".kd")) {
      llvm::Expected<llvm::StringRef> contents = (*section)->getContents();
      if (!contents) {
        llvm::consumeError(contents.takeError());
        continue;
      }
      uint64_t offset = *address - (*section)->getAddress();
      if (offset + 64 <= contents->size())
        descriptors[name->drop_back(3).str()] = llvm::ArrayRef<uint8_t>(
            reinterpret_cast<const uint8_t *>(contents->data()) + offset, 64);
    }
  }
  bool anyDescriptor = llvm::any_of(functions, [&](const Function &f) {
    return descriptors.count(f.name);
  });

  std::vector<DisassembledKernel> kernels;
  for (const Function &function : functions) {
    if (anyDescriptor && !descriptors.count(function.name))
      continue;
    llvm::Expected<llvm::StringRef> contents = function.section.getContents();
    if (!contents)
      return contents.takeError();
    uint64_t sectionStart = function.section.getAddress();
    uint64_t begin = function.address - sectionStart;
    // Without a .size the function runs to the next one or the section's
    // end.
    uint64_t end = contents->size();
    if (function.size)
      end = std::min(end, begin + function.size);
    else
      for (const Function &other : functions)
        if (other.section == function.section &&
            other.address > function.address)
          end = std::min(end, other.address - sectionStart);
    llvm::ArrayRef<uint8_t> bytes(
        reinterpret_cast<const uint8_t *>(contents->data()), contents->size());

    DisassembledKernel kernel;
    kernel.name = function.name;
    if (auto it = descriptors.find(function.name); it != descriptors.end())
      kernel.descriptor = decodeDescriptor(it->second, chip);
    for (uint64_t offset = begin; offset < end;) {
      llvm::MCInst mcInst;
      uint64_t size = 0;
      uint64_t address = sectionStart + offset;
      auto status = d->disassembler->getInstruction(
          mcInst, size, bytes.slice(offset, end - offset), address,
          llvm::nulls());
      if (status != llvm::MCDisassembler::Success || size == 0) {
        // Padding after s_endpgm (s_code_end fills) may not decode.
        if (!kernel.instructions.empty() &&
            kernel.instructions.back().mnemonic == "s_endpgm")
          break;
        return llvm::createStringError(
            "cannot decode the instruction at offset %llu of kernel %s",
            (unsigned long long)offset, function.name.c_str());
      }
      Instruction inst;
      inst.address = address;
      inst.size = unsigned(size);
      std::string text;
      llvm::raw_string_ostream os(text);
      d->printer->printInst(&mcInst, address, "", *d->subtarget, os);
      inst.text = llvm::StringRef(text).trim().str();
      inst.operands = parseOperands(inst.text);
      inst.mnemonic = llvm::StringRef(inst.text)
                          .split(' ')
                          .first.split('\t')
                          .first.str();
      classifyInstruction(inst, chip);
      if (inst.kind == InstructionClass::Branch) {
        uint64_t target = 0;
        if (d->analysis &&
            d->analysis->evaluateBranch(mcInst, address, size, target))
          inst.target = target;
      }
      kernel.instructions.push_back(std::move(inst));
      offset += size;
    }
    kernels.push_back(std::move(kernel));
  }
  if (kernels.empty())
    return llvm::createStringError("the code object holds no kernel");
  return kernels;
}
