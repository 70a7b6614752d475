//===- PtxBuilders.cpp - typed builders of the wgmma kernels' PTX ---------===//
//
// nvvm and llvm ops where LLVM 22 has them (mbarrier, mapa, stores with a
// sync scope); inline PTX for the rest: atomics and loads with a memory
// order (see atomicIncrement), batches of 16-byte loads and stores in one
// statement (all issued before any is used), the barrier reduction at a named
// barrier (nvvm.barrier reduces at barrier 0 only) and the empty statement
// that pins registers.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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

/// The shared-memory pointer of 32-bit address `address`.
static Value getSharedPointer(ImplicitLocOpBuilder &b, Value address) {
  return LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), /*shared*/ 3), address);
}

/// The global-memory pointer of 64-bit address `address`.
static Value getGlobalPointer(ImplicitLocOpBuilder &b, Value address) {
  return LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), /*global*/ 1), address);
}

/// LLVM's NVPTX sync scope of PTX's `.gpu`.
static constexpr StringLiteral kGpuScope = "device";

void ptx::initMBarrier(ImplicitLocOpBuilder &b, Value address,
                       Value arrivals) {
  NVVM::MBarrierInitOp::create(b, getSharedPointer(b, address), arrivals,
                               /*predicate=*/Value());
}

void ptx::waitMBarrierParity(ImplicitLocOpBuilder &b, Value address,
                             Value parity) {
  // The op loops on try_wait until the phase completes; the suspend-time
  // hint is the one nvgpu gives the `full` barriers' waits.
  NVVM::MBarrierTryWaitParityOp::create(
      b, getSharedPointer(b, address),
      arith::ExtUIOp::create(b, b.getI32Type(), parity),
      i32Constant(b, 10000000));
}

Value ptx::testMBarrierParity(ImplicitLocOpBuilder &b, Value address,
                              Value parity) {
  // test_wait, not try_wait: a thread is never suspended by it.
  return NVVM::MBarrierTestWaitOp::create(
      b, b.getI1Type(), getSharedPointer(b, address),
      arith::ExtUIOp::create(b, b.getI32Type(), parity));
}

void ptx::arriveMBarrier(ImplicitLocOpBuilder &b, Value address) {
  NVVM::MBarrierArriveOp::create(
      b, /*res=*/Type(), getSharedPointer(b, address), /*count=*/Value(),
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
}

void ptx::arriveRemoteMBarrier(ImplicitLocOpBuilder &b, Value address,
                               Value rank, bool releaseToCluster) {
  // mapa: the address of the same barrier in block `rank`'s shared memory.
  Value remote = NVVM::MapaOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), /*shared_cluster*/ 7),
      getSharedPointer(b, address), rank);
  NVVM::MBarrierArriveOp::create(
      b, /*res=*/Type(), remote, /*count=*/Value(),
      NVVM::MemScopeKindAttr::get(b.getContext(),
                                  releaseToCluster ? NVVM::MemScopeKind::CLUSTER
                                                   : NVVM::MemScopeKind::CTA));
}

void ptx::waitMBarrierParityCluster(ImplicitLocOpBuilder &b, Value address,
                                    Value parity) {
  // Inline PTX: nvvm.mbarrier.try_wait.parity acquires at CTA scope only.
  // (Labels are local to the statement's braces.)
  createAsm(b, Type(),
            {address, arith::ExtUIOp::create(b, b.getI32Type(), parity)},
            "{ .reg .pred done; retry: mbarrier.try_wait.parity.acquire."
            "cluster.shared::cta.b64 done, [$0], $1; @!done bra retry; }",
            "r,r");
}

void ptx::arriveExpectBytes(ImplicitLocOpBuilder &b, Value address,
                            Value bytes) {
  createAsm(b, Type(), {address, bytes},
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r");
}

void ptx::sendVectorsToBlock(ImplicitLocOpBuilder &b, Value address, Value rank,
                             Value barrier, ArrayRef<Value> values,
                             int64_t vectorStride) {
  // mapa gives the other block's addresses of the same places (its
  // dynamic shared memory is laid out as this block's).
  std::string text = "{ .reg .b32 to, done;\n"
                     "mapa.shared::cluster.u32 to, $0, $1;\n"
                     "mapa.shared::cluster.u32 done, $2, $1;\n";
  SmallVector<std::string> constraints = {"r", "r", "r"};
  SmallVector<Value> operands = {address, rank, barrier};
  for (int64_t vector = 0; vector < int64_t(values.size()) / 4; ++vector) {
    text += llvm::formatv("st.async.shared::cluster.mbarrier::complete_tx::"
                          "bytes.v4.f32 [to+{0}], {{${1}, ${2}, ${3}, ${4}}, "
                          "[done];\n",
                          vector * vectorStride, 4 * vector + 3, 4 * vector + 4,
                          4 * vector + 5, 4 * vector + 6)
                .str();
    for (int64_t element = 0; element < 4; ++element) {
      operands.push_back(values[4 * vector + element]);
      constraints.push_back("f");
    }
  }
  text += "}";
  createAsm(b, Type(), operands, text, llvm::join(constraints, ","));
}

void ptx::storeShared(ImplicitLocOpBuilder &b, Value address, Value value) {
  LLVM::StoreOp::create(b, value, getSharedPointer(b, address),
                        /*alignment=*/4);
}

Value ptx::loadShared(ImplicitLocOpBuilder &b, Value address) {
  // Volatile: never moved above the wait that published the value, nor
  // merged with an earlier load of the same slot.
  return LLVM::LoadOp::create(b, b.getI32Type(), getSharedPointer(b, address),
                              /*alignment=*/4, /*isVolatile=*/true);
}

Value ptx::atomicIncrement(ImplicitLocOpBuilder &b, Value address,
                           Semantics semantics) {
  // Inline PTX: LLVM 22's NVPTX backend emits every `atomicrmw add` as a
  // plain `atom.global.add` (relaxed, .gpu), dropping acq_rel and the sync
  // scope (llc -mcpu=sm_90a -mattr=+ptx83), and the Stream-K reduction
  // and the dynamic schedule's reset need the acquire-release.
  StringRef order =
      semantics == Semantics::Relaxed ? "relaxed" : "acq_rel";
  std::string text =
      ("atom." + order + ".gpu.global.add.u32 $0, [$1], 1;").str();
  return createAsm(b, b.getI32Type(), {address}, text, "=r,l").getResult(0);
}

Value ptx::loadAcquire(ImplicitLocOpBuilder &b, Value address) {
  // Inline PTX, as atomicIncrement: the backend's atomic loads lose the
  // scope.
  return createAsm(b, b.getI32Type(), {address},
                   "ld.acquire.gpu.global.u32 $0, [$1];", "=r,l")
      .getResult(0);
}

void ptx::storeRelaxedZero(ImplicitLocOpBuilder &b, Value address) {
  LLVM::StoreOp::create(b, i32Constant(b, 0), getGlobalPointer(b, address),
                        /*alignment=*/4, /*isVolatile=*/false,
                        /*isNonTemporal=*/false, /*isInvariantGroup=*/false,
                        LLVM::AtomicOrdering::monotonic, kGpuScope);
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

/// `count` f32 values loaded by `instruction` (a 16-byte vector load) in
/// one statement: vector v at byte offset offsets[v] from `address`, whose
/// asm constraint is `addressConstraint`. A struct of the values.
static Value loadVectors(ImplicitLocOpBuilder &b, Value address,
                         ArrayRef<int64_t> offsets, StringRef instruction,
                         StringRef addressConstraint) {
  int64_t count = 4 * offsets.size();
  std::string text;
  for (auto [vector, offset] : llvm::enumerate(offsets)) {
    int64_t first = 4 * vector;
    text += llvm::formatv("{0} {{${1}, ${2}, ${3}, ${4}}, [${5}+{6}];\n",
                          instruction, first, first + 1, first + 2, first + 3,
                          count, offset)
                .str();
  }
  SmallVector<std::string> constraints(count, "=f");
  constraints.push_back(addressConstraint.str());
  auto type = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(count, b.getF32Type()));
  return createAsm(b, type, {address}, text, llvm::join(constraints, ","))
      .getResult(0);
}

Value ptx::loadRelaxedVectors(ImplicitLocOpBuilder &b, Value address,
                              ArrayRef<int64_t> offsets) {
  return loadVectors(b, address, offsets, "ld.relaxed.gpu.global.v4.f32", "l");
}

Value ptx::loadSharedVectors(ImplicitLocOpBuilder &b, Value address,
                             ArrayRef<int64_t> offsets) {
  return loadVectors(b, address, offsets, "ld.shared.v4.f32", "r");
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

Value ptx::broadcastFromLaneZero(ImplicitLocOpBuilder &b, Value value) {
  Type i32 = b.getI32Type();
  auto constant = [&](int32_t v) -> Value {
    return arith::ConstantIntOp::create(b, i32, v);
  };
  Value lane0 = NVVM::ShflOp::create(
      b, i32, constant(-1), arith::IndexCastOp::create(b, i32, value),
      constant(0), constant(0x1f), NVVM::ShflKind::idx, UnitAttr());
  return arith::IndexCastOp::create(b, b.getIndexType(), lane0);
}

Value ptx::computeInPlace(ImplicitLocOpBuilder &b, Value value) {
  return createAsm(b, b.getI32Type(), value, "mov.b32 $0, $1;", "=r,r")
      .getResult(0);
}
