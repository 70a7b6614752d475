//===- PtxBuilders.h - typed builders of the wgmma kernels' PTX -*- C++ -*-===//
//
// The wgmma kernels' synchronization and ordered memory accesses beyond
// what nvgpu's TMA and barrier-group ops express go through these typed
// builders (nvvm and llvm ops where LLVM 22 has them, inline PTX for the
// rest), and the named barriers' ids live in one enum: the kernel's parts
// never spell PTX (models: Triton's NVGPU ops, CUTLASS's arch/barrier.h).
// Addresses of shared memory are 32-bit (i32), of global memory 64-bit
// (i64).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_CONVERSION_NVVM_PTXBUILDERS_H
#define QMM_LIB_CONVERSION_NVVM_PTXBUILDERS_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir {
namespace qmm {
namespace ptx {

/// The named barriers (bar.sync ids) of a wgmma kernel's block: 0 is the
/// whole block's (gpu.barrier), consumer warpgroup c meets at
/// FirstConsumer + c with its 128 threads.
enum class NamedBarrier : int32_t {
  Block = 0,
  FirstConsumer = 1,
  /// The producer warpgroup's scale checkers (after two consumers').
  ScaleCheckers = 3,
  /// Every consumer warpgroup of the block (a cluster reduction's start).
  Consumers = 4
};

/// Consumer warpgroup `consumer`'s (index) named barrier id, as i32.
Value getConsumerBarrierId(ImplicitLocOpBuilder &b, Value consumer);

/// mbarrier.init: the barrier at `address` expects `arrivals` (i32).
void initMBarrier(ImplicitLocOpBuilder &b, Value address, Value arrivals);
/// Waits until the phase of parity `parity` (i1) of the mbarrier at
/// `address` completes (for a fresh barrier, parity 1 returns at once).
void waitMBarrierParity(ImplicitLocOpBuilder &b, Value address, Value parity);
/// Whether the phase of parity `parity` (i1) of the mbarrier at shared
/// address `address` has completed (i1), without waiting (acquire at CTA
/// scope where it has).
Value testMBarrierParity(ImplicitLocOpBuilder &b, Value address, Value parity);
/// An arrival on the mbarrier at `address` of this block, with the
/// default semantics (release at CTA scope).
void arriveMBarrier(ImplicitLocOpBuilder &b, Value address);
/// An arrival on the mbarrier at `address` (this block's address) of the
/// cluster's block `rank` (i32), with the default semantics (release at
/// CTA scope) or, with `releaseToCluster`, releasing at cluster scope.
void arriveRemoteMBarrier(ImplicitLocOpBuilder &b, Value address, Value rank,
                          bool releaseToCluster = false);

/// Waits until the phase of parity `parity` (i1) of this block's mbarrier
/// at `address` completes, acquiring at cluster scope (what other blocks
/// released when they arrived).
void waitMBarrierParityCluster(ImplicitLocOpBuilder &b, Value address,
                               Value parity);
/// mbarrier.arrive.expect_tx on this block's mbarrier at `address`: one
/// arrival, and `bytes` (i32) of transactions to complete the phase.
void arriveExpectBytes(ImplicitLocOpBuilder &b, Value address, Value bytes);
/// Sends `values` (f32) into the shared memory of the cluster's block
/// `rank` (i32) with st.async, in 16-byte vectors: vector v at byte
/// offset v * `vectorStride` from `address` (this block's address of the
/// same place); each completes its bytes on that block's mbarrier at
/// `barrier` (this block's address of it). One statement.
void sendVectorsToBlock(ImplicitLocOpBuilder &b, Value address, Value rank,
                        Value barrier, ArrayRef<Value> values,
                        int64_t vectorStride);
/// Loads `count` f32 values from shared memory as 16-byte vectors in one
/// statement: vector v at byte offset offsets[v] from `address` (i32).
/// Returns a struct of the values.
Value loadSharedVectors(ImplicitLocOpBuilder &b, Value address,
                        ArrayRef<int64_t> offsets);

/// A 32-bit store to shared memory.
void storeShared(ImplicitLocOpBuilder &b, Value address, Value value);
/// A 32-bit load from shared memory, not moved above the wait that
/// published it (volatile).
Value loadShared(ImplicitLocOpBuilder &b, Value address);

/// Memory orders of the global counters' atomics, at GPU scope.
enum class Semantics { Relaxed, AcquireRelease };
/// atom.add of 1 to the u32 at `address` at GPU scope: the value before.
Value atomicIncrement(ImplicitLocOpBuilder &b, Value address,
                      Semantics semantics);
/// ld.acquire of the u32 at `address` (global, i64) at GPU scope.
Value loadAcquire(ImplicitLocOpBuilder &b, Value address);
/// A relaxed store of 0 to the u32 at `address` at GPU scope.
void storeRelaxedZero(ImplicitLocOpBuilder &b, Value address);

/// Stores `values` (f32) at `address` in 16-byte vectors: vector v (values
/// 4v .. 4v + 3) at byte offset v * `vectorStride`, in one statement.
void storeVectors(ImplicitLocOpBuilder &b, Value address,
                  ArrayRef<Value> values, int64_t vectorStride);
/// Loads `count` f32 values as 16-byte vectors in one statement (all
/// issued before any is used), relaxed at GPU scope (from L2): vector v at
/// byte offset offsets[v]. Returns a struct of the values.
Value loadRelaxedVectors(ImplicitLocOpBuilder &b, Value address,
                         ArrayRef<int64_t> offsets);

/// bar.red.or.pred over the threads meeting at barrier `id` (i32), of
/// `threads` threads: whether `value` (i32) is non-zero in any of them
/// (i32 0 or 1). (nvvm.barrier reduces at barrier 0 only.)
Value barrierReduceOr(ImplicitLocOpBuilder &b, Value value, Value id,
                      int64_t threads);

/// `value` (index, the same in every lane of the warp) as lane 0 holds it
/// (shfl.sync.idx): ptxas then knows it is warp-uniform, and keeps what is
/// computed from it (the wgmma descriptors) in uniform registers. CUTLASS
/// broadcasts its warpgroup index the same way.
Value broadcastFromLaneZero(ImplicitLocOpBuilder &b, Value value);
/// `value` (an LLVM struct of registers) unchanged, through an empty
/// volatile asm statement that defines its registers anew: LLVM keeps the
/// reads and writes of async wgmma registers on the right side of the
/// waits and the next issue instead of moving them across.
Value pinRegisters(ImplicitLocOpBuilder &b, Value value);
/// The i32 `value` through a volatile `mov`: LLVM cannot hoist it, nor what
/// is computed from it, out of the loop it is in. For values cheap to
/// compute that would otherwise be held in registers across an inner loop
/// that needs them (the consumers' K loop).
Value computeInPlace(ImplicitLocOpBuilder &b, Value value);

} // namespace ptx
} // namespace qmm
} // namespace mlir

#endif // QMM_LIB_CONVERSION_NVVM_PTXBUILDERS_H
