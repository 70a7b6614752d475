//===- HostInterpreter.h - the host code of a compiled qmm function -------===//
//
// Private to lib/Runtime: the interpreter of a compiled function's host
// code, shared by HostProgram.cpp (the walk, the views, the registry) and
// HostOps.cpp (one handler per host op, registered by op type as the
// emulator registers its ops).
//
//===----------------------------------------------------------------------===//

#ifndef QMM_LIB_RUNTIME_HOSTINTERPRETER_H
#define QMM_LIB_RUNTIME_HOSTINTERPRETER_H

#include "qmm/Runtime/HostProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <vector>

namespace mlir {
namespace qmm {
namespace hostprog {

/// A memref of the host code: elements of one of the run's buffers, from
/// `offset` on, `strides` apart (both counted in elements, as memref
/// layouts count them). Arguments, allocations and globals are row-major
/// from offset 0; memref.subview and reinterpret_cast make the others.
struct HostView {
  size_t buffer = 0;
  int64_t offset = 0;
  std::vector<int64_t> shape, strides;
};

class HostInterpreter;

/// The host ops the interpreter runs, by op type: each type's handler.
class HostOpRegistry {
public:
  using Handler = llvm::Error (*)(HostInterpreter &, Operation &);
  template <typename... OpTys> void add(Handler handler) {
    (handlers.try_emplace(TypeID::get<OpTys>(), handler), ...);
  }
  Handler lookup(OperationName name) const {
    auto it = handlers.find(name.getTypeID());
    return it == handlers.end() ? nullptr : it->second;
  }

private:
  llvm::DenseMap<TypeID, Handler> handlers;
};

/// Walks a host function: views of buffers (by index into the run's
/// storage), index and integer scalars, and the launches.
class HostInterpreter {
public:
  HostInterpreter(KernelLauncher &launcher, HostBuffers &storage)
      : launcher(launcher), storage(storage) {}

  llvm::Expected<HostResults>
  run(func::FuncOp func, llvm::ArrayRef<std::vector<int64_t>> shapes);

private:
  /// Runs `block` up to its terminator; a func.return sets `results`.
  llvm::Error runBlock(Block &block);
  /// Runs `op` by its registered handler (HostOps.cpp); index arithmetic
  /// by its folder.
  llvm::Error runOp(Operation &op);

  /// The handlers, one per host op (HostOps.cpp).
  static const HostOpRegistry &getRegistry();
  template <typename OpTy, llvm::Error (HostInterpreter::*Run)(OpTy)>
  static llvm::Error dispatch(HostInterpreter &interpreter, Operation &op) {
    return (interpreter.*Run)(llvm::cast<OpTy>(op));
  }
  static llvm::Error ignore(HostInterpreter &, Operation &) {
    return llvm::Error::success();
  }
  llvm::Error defineScalarOp(Operation &op);
  llvm::Error defineConstant(arith::ConstantOp op);
  llvm::Error defineDim(memref::DimOp op);
  llvm::Error check(cf::AssertOp op);
  llvm::Error runIf(scf::IfOp op);
  llvm::Error allocate(memref::AllocOp op);
  llvm::Error defineGlobal(memref::GetGlobalOp op);
  llvm::Error fill(gpu::MemsetOp op);
  llvm::Error defineSubView(memref::SubViewOp subview);
  llvm::Error defineReinterpretCast(memref::ReinterpretCastOp op);
  llvm::Error defineStridedMetadata(memref::ExtractStridedMetadataOp op);
  /// memref.cast to an unranked memref (the view a tensor map is made
  /// from), else a reshape.
  llvm::Error defineCast(memref::CastOp op);
  /// memref.expand_shape, collapse_shape and cast.
  llvm::Error defineReshape(Operation &op);
  llvm::Error defineTensorMap(nvgpu::TmaCreateDescriptorOp op);
  /// A tensor map passed to a kernel as the pointer its ABI takes.
  llvm::Error defineTensorMapCast(UnrealizedConversionCastOp op);
  llvm::Error copy(memref::CopyOp copyOp);
  llvm::Error launch(gpu::LaunchFuncOp launchOp);
  llvm::Error finish(func::ReturnOp op);
  std::optional<uint64_t> scalar(Value v) const {
    auto it = scalars.find(v);
    if (it == scalars.end())
      return std::nullopt;
    return it->second;
  }
  /// The view `v` is; null when it is not a known one. (Valid until the
  /// next view is defined.)
  const HostView *lookupView(Value v) const {
    auto it = views.find(v);
    return it == views.end() ? nullptr : &it->second;
  }
  /// Mixed static and dynamic values of an op (extents, offsets, strides):
  /// the static ones, the dynamic ones from `dynamic` in order.
  std::optional<std::vector<int64_t>>
  resolveValues(llvm::ArrayRef<int64_t> statics, ValueRange dynamic) const {
    std::vector<int64_t> values;
    auto next = dynamic.begin();
    for (int64_t value : statics) {
      if (!ShapedType::isDynamic(value)) {
        values.push_back(value);
        continue;
      }
      if (next == dynamic.end())
        return std::nullopt;
      std::optional<uint64_t> known = scalar(*next++);
      if (!known)
        return std::nullopt;
      values.push_back(int64_t(*known));
    }
    return values;
  }
  /// Records `view` as `value` (`what`, for errors) once its type is seen
  /// to describe it and it stays within its buffer.
  llvm::Error defineView(Operation *op, Value value, HostView view,
                         const llvm::Twine &what = "the result");
  /// Whether `view` is all of its buffer, row-major from offset 0: what
  /// results and fills take.
  bool isWholeBuffer(const HostView &view, MemRefType type) const;

  KernelLauncher &launcher;
  HostBuffers &storage;
  llvm::DenseMap<Value, HostView> views;
  llvm::DenseMap<Value, uint64_t> scalars;
  llvm::DenseMap<Value, HostTensorMap> tensorMaps;
  std::optional<HostResults> results;
};

/// Bytes left in fresh allocations, so that reads of them show.
constexpr uint8_t kUninitializedByte = kUninitializedHostByte;

/// "host program: '<op>' at <location>", and an error that starts so.
std::string describeHostOp(Operation *op);
llvm::Error hostError(Operation *op, const llvm::Twine &message);
/// The bytes of a dense buffer of `type` with extents `shape`, as the
/// devices store it: rows of the last extent, each packed to whole bytes
/// (FP4/FP6; see host::getDeviceBytes).
size_t getShapedBufferBytes(MemRefType type, llvm::ArrayRef<int64_t> shape);
std::vector<int64_t> getRowMajorStrides(llvm::ArrayRef<int64_t> shape);
std::string describeView(const HostView &view);
/// Checks that `type` describes `view`: its rank, its static extents and
/// its static strides and offset; with `staticLayout`, that all of the
/// layout is static (what a kernel given the buffer's base pointer needs).
llvm::Error checkViewType(Operation *op, const llvm::Twine &what,
                          MemRefType type, const HostView &view,
                          bool staticLayout);

} // namespace hostprog
} // namespace qmm
} // namespace mlir

#endif // QMM_LIB_RUNTIME_HOSTINTERPRETER_H
