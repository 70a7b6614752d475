//===- KernelSizeArguments.cpp - dynamic memref extents as kernel args ----===//
//
// Stage 7b of the AMD pipeline, after outlining: a kernel's memref operands
// of run-time shape or layout become a base pointer (memref<0xT>, which the
// bare-pointer convention of the code objects can pass) plus one index
// argument per dynamic offset, extent and stride, and the kernel rebuilds
// the view at entry.
//
//===----------------------------------------------------------------------===//

#include "qmm/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMKERNELSIZEARGUMENTS
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;

/// The extent-less handle a dynamic memref of `type` is passed as.
static MemRefType getBaseType(MemRefType type) {
  return MemRefType::get({0}, type.getElementType(), MemRefLayoutAttrInterface(),
                         type.getMemorySpace());
}

/// Row-major strides of `sizes`, folded where the inner extents are known.
static SmallVector<OpFoldResult> getRowMajorStrides(OpBuilder &b, Location loc,
                                                    ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  for (int64_t d = int64_t(sizes.size()) - 2; d >= 0; --d) {
    std::optional<int64_t> inner = getConstantIntValue(strides[d + 1]),
                           extent = getConstantIntValue(sizes[d + 1]);
    if (inner && extent) {
      strides[d] = b.getIndexAttr(*inner * *extent);
      continue;
    }
    if (inner == 1) {
      strides[d] = sizes[d + 1];
      continue;
    }
    strides[d] = arith::MulIOp::create(
                     b, loc, getValueOrCreateConstantIndexOp(b, loc, strides[d + 1]),
                     getValueOrCreateConstantIndexOp(b, loc, sizes[d + 1]))
                     .getResult();
  }
  return strides;
}

/// Whether kernel argument `type` is passed as a base pointer and index
/// arguments: a dynamic extent, offset or stride. (A static strided layout
/// stays in the type: the bare pointer is its buffer's base.)
static FailureOr<bool> needsRuntimeLayout(MemRefType type) {
  if (type.getLayout().isIdentity())
    return !type.hasStaticShape();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return failure();
  return !type.hasStaticShape() || ShapedType::isDynamic(offset) ||
         llvm::any_of(strides, ShapedType::isDynamic);
}

/// Rewrites kernel `func`'s memref arguments of run-time shape or layout;
/// returns, per original argument, whether it was rewritten (and fails on
/// a layout that is not strided).
static FailureOr<SmallVector<bool>> rewriteKernel(gpu::GPUFuncOp func) {
  SmallVector<bool> rewritten(func.getNumArguments(), false);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref)
      continue;
    FailureOr<bool> runtime = needsRuntimeLayout(memref);
    if (failed(runtime) && !memref.hasStaticShape())
      return func.emitOpError("qmm-kernel-size-arguments: a dynamic memref "
                              "argument must have a strided layout, got ")
             << memref;
    rewritten[i] = succeeded(runtime) && *runtime;
  }
  if (!llvm::is_contained(rewritten, true))
    return rewritten;
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  // After the arguments, before the workgroup attributions.
  auto appendIndexArgument = [&]() -> FailureOr<OpFoldResult> {
    unsigned position = func.getNumArguments();
    if (failed(func.insertArgument(position, b.getIndexType(),
                                   DictionaryAttr(), loc)))
      return failure();
    return OpFoldResult(entry.getArgument(position));
  };
  // A static value of the type, or the next index argument.
  auto staticOrArgument = [&](int64_t value) -> FailureOr<OpFoldResult> {
    if (!ShapedType::isDynamic(value))
      return OpFoldResult(b.getIndexAttr(value));
    return appendIndexArgument();
  };
  unsigned numOriginal = func.getNumArguments();
  for (unsigned i = 0; i < numOriginal; ++i) {
    if (!rewritten[i])
      continue;
    BlockArgument arg = entry.getArgument(i);
    auto type = cast<MemRefType>(arg.getType());
    // The arguments come as the launch passes them: the offset, the
    // extents, the strides, each where dynamic.
    OpFoldResult offset = b.getIndexAttr(0);
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset = 0;
    bool identity = type.getLayout().isIdentity();
    if (!identity) {
      (void)type.getStridesAndOffset(staticStrides, staticOffset);
      FailureOr<OpFoldResult> value = staticOrArgument(staticOffset);
      if (failed(value))
        return failure();
      offset = *value;
    }
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t extent : type.getShape()) {
      FailureOr<OpFoldResult> value = staticOrArgument(extent);
      if (failed(value))
        return failure();
      sizes.push_back(*value);
    }
    if (identity) {
      strides = getRowMajorStrides(b, loc, sizes);
    } else {
      for (int64_t stride : staticStrides) {
        FailureOr<OpFoldResult> value = staticOrArgument(stride);
        if (failed(value))
          return failure();
        strides.push_back(*value);
      }
    }
    arg.setType(getBaseType(type));
    auto view = memref::ReinterpretCastOp::create(b, loc, type, arg, offset,
                                                  sizes, strides);
    arg.replaceAllUsesExcept(view.getResult(), view);
  }
  SmallVector<Type> argumentTypes;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    argumentTypes.push_back(entry.getArgument(i).getType());
  func.setFunctionType(
      FunctionType::get(func.getContext(), argumentTypes, TypeRange()));
  return rewritten;
}

/// Passes each rewritten operand of `launch` as its base (the buffer's
/// start: reinterpret_cast ignores the source's offset) and the dynamic
/// parts of its shape and layout, in the order the kernel takes them.
static void rewriteLaunch(gpu::LaunchFuncOp launch, ArrayRef<bool> rewritten) {
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  SmallVector<Value> operands, scalars;
  for (auto [operand, isRewritten] :
       llvm::zip(launch.getKernelOperands(), rewritten)) {
    if (!isRewritten) {
      operands.push_back(operand);
      continue;
    }
    auto type = cast<MemRefType>(operand.getType());
    operands.push_back(memref::ReinterpretCastOp::create(
        b, loc, getBaseType(type), operand, /*offset=*/0,
        /*sizes=*/ArrayRef<int64_t>{0}, /*strides=*/ArrayRef<int64_t>{1}));
    if (type.getLayout().isIdentity()) {
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          scalars.push_back(memref::DimOp::create(b, loc, operand, d));
      continue;
    }
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, operand);
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    (void)type.getStridesAndOffset(staticStrides, staticOffset);
    if (ShapedType::isDynamic(staticOffset))
      scalars.push_back(metadata.getOffset());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        scalars.push_back(metadata.getSizes()[d]);
    for (auto [d, stride] : llvm::enumerate(staticStrides))
      if (ShapedType::isDynamic(stride))
        scalars.push_back(metadata.getStrides()[d]);
  }
  operands.append(scalars);
  launch.getKernelOperandsMutable().assign(operands);
}

namespace {
struct QMMKernelSizeArgumentsPass
    : public qmm::impl::QMMKernelSizeArgumentsBase<QMMKernelSizeArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<Operation *, SmallVector<bool>> rewrittenKernels;
    WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      FailureOr<SmallVector<bool>> rewritten = rewriteKernel(func);
      if (failed(rewritten))
        return WalkResult::interrupt();
      if (llvm::is_contained(*rewritten, true))
        rewrittenKernels[func] = std::move(*rewritten);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    if (rewrittenKernels.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      auto it = rewrittenKernels.find(kernel);
      if (it != rewrittenKernels.end())
        rewriteLaunch(launch, it->second);
    });
  }
};
} // namespace
