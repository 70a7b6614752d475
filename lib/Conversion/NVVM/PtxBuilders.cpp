//===- PtxBuilders.cpp - typed builders of the wgmma kernels' PTX ---------===//
//
// Inline PTX for what the nvvm dialect of LLVM 22 does not express the way
// the kernels need it (PTX ISA 8.3: mbarrier, mapa, atom, ld/st with
// memory orders, bar.red).
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qmm;

/// An inline PTX statement with side effects (never moved or dropped).
static LLVM::InlineAsmOp createAsm(ImplicitLocOpBuilder &b, Type result,
                                   ValueRange operands, StringRef text,
                                   StringRef constraints) {
  return LLVM::InlineAsmOp::create(b, result, operands, text, constraints,
                                   /*has_side_effects=*/true,
                                   /*is_align_stack=*/false,
                                   LLVM::tailcallkind::TailCallKind::None,
                                   /*asm_dialect=*/nullptr,
                                   /*operand_attrs=*/nullptr);
}

static Value i32Constant(ImplicitLocOpBuilder &b, int64_t value) {
  return arith::ConstantIntOp::create(b, b.getI32Type(), value);
}

Value ptx::getConsumerBarrierId(ImplicitLocOpBuilder &b, Value consumer) {
  return arith::IndexCastOp::create(
      b, b.getI32Type(),
      arith::AddIOp::create(
          b, consumer,
          arith::ConstantIndexOp::create(
              b, static_cast<int64_t>(NamedBarrier::FirstConsumer))));
}

void ptx::initMBarrier(ImplicitLocOpBuilder &b, Value address,
                       Value arrivals) {
  createAsm(b, Type(), {address, arrivals},
            "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r");
}

void ptx::waitMBarrierParity(ImplicitLocOpBuilder &b, Value address,
                             Value parity) {
  // The braces scope the label to this copy of the loop.
  createAsm(b, Type(),
            {address, arith::ExtUIOp::create(b, b.getI32Type(), parity)},
            "{ .reg .pred done; wait_phase: mbarrier.try_wait.parity."
            "shared::cta.b64 done, [$0], $1; @!done bra wait_phase; }",
            "r,r");
}

void ptx::arriveMBarrier(ImplicitLocOpBuilder &b, Value address) {
  createAsm(b, Type(), {address}, "mbarrier.arrive.shared::cta.b64 _, [$0];",
            "r");
}

void ptx::arriveRemoteMBarrier(ImplicitLocOpBuilder &b, Value address,
                               Value rank) {
  // mapa: the address of the same barrier in block `rank`'s shared memory.
  createAsm(b, Type(), {address, rank},
            "{ .reg .b32 remote; mapa.shared::cluster.u32 remote, $0, $1; "
            "mbarrier.arrive.shared::cluster.b64 _, [remote]; }",
            "r,r");
}

void ptx::storeShared(ImplicitLocOpBuilder &b, Value address, Value value) {
  createAsm(b, Type(), {address, value}, "st.shared.u32 [$0], $1;", "r,r");
}

Value ptx::loadShared(ImplicitLocOpBuilder &b, Value address) {
  return createAsm(b, b.getI32Type(), {address}, "ld.shared.u32 $0, [$1];",
                   "=r,r")
      .getResult(0);
}

Value ptx::atomicIncrement(ImplicitLocOpBuilder &b, Value address,
                           Semantics semantics) {
  StringRef order =
      semantics == Semantics::Relaxed ? "relaxed" : "acq_rel";
  std::string text =
      ("atom." + order + ".gpu.global.add.u32 $0, [$1], 1;").str();
  return createAsm(b, b.getI32Type(), {address}, text, "=r,l").getResult(0);
}

void ptx::storeRelaxedZero(ImplicitLocOpBuilder &b, Value address) {
  createAsm(b, Type(), {address}, "st.relaxed.gpu.global.u32 [$0], 0;", "l");
}

void ptx::storeVectors(ImplicitLocOpBuilder &b, Value address,
                       ArrayRef<Value> values, int64_t vectorStride) {
  std::string text;
  SmallVector<std::string> constraints = {"l"};
  SmallVector<Value> operands = {address};
  for (int64_t vector = 0; vector < int64_t(values.size()) / 4; ++vector) {
    text += llvm::formatv("st.global.v4.f32 [$0+{0}], {{${1}, ${2}, ${3}, "
                          "${4}};\n",
                          vector * vectorStride, 4 * vector + 1,
                          4 * vector + 2, 4 * vector + 3, 4 * vector + 4)
                .str();
    for (int64_t element = 0; element < 4; ++element) {
      operands.push_back(values[4 * vector + element]);
      constraints.push_back("f");
    }
  }
  createAsm(b, Type(), operands, text, llvm::join(constraints, ","));
}

Value ptx::loadRelaxedVectors(ImplicitLocOpBuilder &b, Value address,
                              ArrayRef<int64_t> offsets) {
  int64_t count = 4 * offsets.size();
  std::string text;
  for (auto [vector, offset] : llvm::enumerate(offsets)) {
    int64_t first = 4 * vector;
    text += llvm::formatv("ld.relaxed.gpu.global.v4.f32 {{${0}, ${1}, "
                          "${2}, ${3}}, [${4}+{5}];\n",
                          first, first + 1, first + 2, first + 3, count,
                          offset)
                .str();
  }
  SmallVector<std::string> constraints(count, "=f");
  constraints.push_back("l");
  auto type = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(count, b.getF32Type()));
  return createAsm(b, type, {address}, text, llvm::join(constraints, ","))
      .getResult(0);
}

Value ptx::barrierReduceOr(ImplicitLocOpBuilder &b, Value value, Value id,
                           int64_t threads) {
  return createAsm(
             b, b.getI32Type(), {value, id, i32Constant(b, threads)},
             "{ .reg .pred last; setp.ne.u32 last, $1, 0; "
             "bar.red.or.pred last, $2, $3, last; selp.u32 $0, 1, 0, last; }",
             "=r,r,r,r")
      .getResult(0);
}

Value ptx::pinRegisters(ImplicitLocOpBuilder &b, Value value) {
  auto type = cast<LLVM::LLVMStructType>(value.getType());
  int64_t count = type.getBody().size();
  SmallVector<Value> registers;
  SmallVector<std::string> outputs, inputs;
  for (int64_t i = 0; i < count; ++i) {
    registers.push_back(LLVM::ExtractValueOp::create(b, value, i));
    outputs.push_back("=f");
    inputs.push_back(std::to_string(i));
  }
  std::string constraints =
      llvm::join(outputs, ",") + "," + llvm::join(inputs, ",");
  return createAsm(b, type, registers, "", constraints).getResult(0);
}
