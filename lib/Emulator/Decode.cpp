//===- Decode.cpp - the op registry and kernel decoding -------------------===//
//
// A kernel is decoded once per launch: values become slot numbers and ops
// Instrs that name their handler, so that running a wave needs neither a
// value map nor a dispatch on op names.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "Numerics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::qmm::emu;

const Registry &mlir::qmm::emu::getRegistry() {
  static const Registry registry = [] {
    Registry result;
    registerArithHandlers(result);
    registerVectorHandlers(result);
    registerMemoryHandlers(result);
    registerMatrixHandlers(result);
    registerGpuHandlers(result);
    registerControlFlowHandlers(result);
    return result;
  }();
  return registry;
}

/// Ops the registry does not know fail when (and only when) they run, as
/// the other errors do.
static LogicalResult unsupported(WaveInterpreter &wave, const Instr &inst,
                                 ExecMask) {
  return wave.fail(inst.op, "operation not supported by the emulator");
}

namespace {
class KernelDecoder {
public:
  explicit KernelDecoder(DecodedKernel &kernel) : kernel(kernel) {}

  int32_t getSlot(Value value) {
    auto [it, inserted] = slots.try_emplace(value, 0);
    if (inserted) {
      it->second = int32_t(kernel.slotIsMemRef.size());
      kernel.slotIsMemRef.push_back(isa<MemRefType>(value.getType()));
    }
    return it->second;
  }

  /// Decodes `block` (and the regions of its scf ops); returns its index.
  int32_t decodeBlock(Block &block) {
    int32_t index = int32_t(kernel.blocks.size());
    kernel.blocks.emplace_back();
    SmallVector<int32_t, 4> arguments;
    for (BlockArgument arg : block.getArguments())
      arguments.push_back(getSlot(arg));
    std::vector<Instr> instrs;
    instrs.reserve(block.getOperations().size());
    const Registry &registry = getRegistry();
    for (Operation &op : block) {
      Instr inst;
      inst.op = &op;
      for (Value operand : op.getOperands())
        inst.operands.push_back(getSlot(operand));
      for (Value result : op.getResults())
        inst.results.push_back(getSlot(result));
      Type typed = op.getNumResults()    ? op.getResult(0).getType()
                   : op.getNumOperands() ? op.getOperand(0).getType()
                                         : Type();
      if (typed) {
        Type element = getElementTypeOrSelf(typed);
        if (element.isIntOrIndexOrFloat())
          inst.bitWidth = getBitWidth(element);
      }
      const Registry::Entry *entry = registry.lookup(op.getName());
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        inst.kind = InstrKind::Terminator;
      } else if (!entry) {
        inst.handler = unsupported;
      } else {
        inst.kind = entry->kind;
        inst.handler = entry->handler;
        // Regions are decoded only for the ops that run them.
        if (inst.kind == InstrKind::For || inst.kind == InstrKind::If)
          for (auto [i, region] : llvm::enumerate(op.getRegions()))
            if (i < 2 && !region.empty())
              inst.regions[i] = decodeBlock(region.front());
        if (entry->decoder)
          entry->decoder(kernel, inst);
      }
      instrs.push_back(std::move(inst));
    }
    // `kernel.blocks` may have grown while decoding nested regions.
    kernel.blocks[index].arguments = std::move(arguments);
    kernel.blocks[index].instrs = std::move(instrs);
    return index;
  }

private:
  DecodedKernel &kernel;
  llvm::DenseMap<Value, int32_t> slots;
};
} // namespace

std::unique_ptr<DecodedKernel>
mlir::qmm::emu::decodeKernel(gpu::GPUFuncOp func, const ChipInfo &chip) {
  auto kernel = std::make_unique<DecodedKernel>();
  kernel->chip = &chip;
  KernelDecoder decoder(*kernel);
  decoder.decodeBlock(func.getBody().front());
  return kernel;
}
