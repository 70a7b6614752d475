//===- ProgramModel.cpp - every kernel a qmm program launches, modeled ----===//
//
// Reads each gpu.launch_func of the host functions (grid, block, buffers),
// compiles the kernel's gpu.module to a code object, and takes what the
// code object cannot say (the GEMM, its tiles, the trips of the K loop)
// from the description qmm-tile-matmul leaves in the kernel's location.
//
//===----------------------------------------------------------------------===//

#include "qmm/PerfModel/PerfModel.h"
#include "qmm/Dialect/QMM/IR/QMMDialect.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/Conversion/Utils.h"
#include "qmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "qmm/Dialect/QMM/IR/StorageSize.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::perf;

/// The kernel's description qmm-tile-matmul left as the metadata of the
/// launch's (so the gpu.func's) fused location; null when absent.
static DictionaryAttr getKernelInfo(gpu::GPUFuncOp kernel) {
  auto fused = dyn_cast<FusedLoc>(kernel.getLoc());
  return fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata())
               : DictionaryAttr();
}

/// Fills the GEMM part of `w` from the kernel's description; notes what it
/// cannot account for.
static void readKernelInfo(gpu::GPUFuncOp kernel, KernelWorkload &w,
                           std::vector<std::string> &notes,
                           std::optional<int64_t> dynamicM) {
  DictionaryAttr info = getKernelInfo(kernel);
  if (!info)
    return;
  auto config = info.getAs<ConfigAttr>("config");
  auto problem = info.getAs<DenseI64ArrayAttr>("problem");
  auto aType = info.getAs<TypeAttr>("a_type");
  auto bType = info.getAs<TypeAttr>("b_type");
  auto scaleBlock = info.getAs<IntegerAttr>("scale_block_k");
  auto conflicts = info.getAs<IntegerAttr>("lds_conflict_cycles");
  auto grouped = info.getAs<StringAttr>("grouped");
  auto split = info.getAs<IntegerAttr>("split_k");
  if (!config || !problem || problem.size() != 3 || !aType || !bType)
    return;
  int64_t m = problem[0], n = problem[1], k = problem[2];
  if (ShapedType::isDynamic(m) && dynamicM)
    m = *dynamicM;
  // Split-K: workgroup z multiplies the z-th of `split` ranges of K.
  int64_t ranges = split ? std::max<int64_t>(1, split.getInt()) : 1;
  if (ranges > 1)
    notes.push_back("split-K: the partial sums' workspace is counted once "
                    "(its writes); reading it back in the last-arriving "
                    "waves is assumed to hit the caches");
  llvm::raw_string_ostream(w.config) << config;
  // The K loop (folded away when K fits one tile: one trip).
  scf::ForOp kLoop;
  kernel.walk([&](scf::ForOp loop) {
    if (!kLoop && loop->hasAttr("qmm.k_loop"))
      kLoop = loop;
  });
  w.loopTrips = 1;
  if (kLoop) {
    std::optional<int64_t> lb = getConstantIntValue(kLoop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(kLoop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(kLoop.getStep());
    if (lb && ub && step && *step > 0)
      w.loopTrips = std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
  }
  int64_t mfmas = 0;
  Operation *scope = kLoop ? kLoop.getOperation() : kernel.getOperation();
  scope->walk([&](Operation *op) {
    mfmas += isa<amdgpu::MFMAOp, amdgpu::ScaledMFMAOp>(op);
  });
  w.mfmasPerTrip = mfmas;
  // Blocks of scales spanning several K tiles: the block's update runs on
  // the trips that end a block; per tensor or row, after the last trip.
  int64_t tileK = config.getTileK();
  int64_t blockK = scaleBlock ? scaleBlock.getInt() : k;
  if (w.loopTrips > 1 && blockK < k && blockK > tileK) {
    int64_t tilesPerBlock = blockK / tileK;
    w.conditionalShare =
        double((w.loopTrips + tilesPerBlock - 1) / tilesPerBlock) /
        double(w.loopTrips);
  } else if (w.loopTrips > 1 && blockK >= k) {
    w.conditionalShare = 1.0 / double(w.loopTrips);
  }
  int aBits = aType.getValue().getIntOrFloatBitWidth();
  int bBits = bType.getValue().getIntOrFloatBitWidth();
  w.aBits = aBits;
  w.bBits = bBits;
  // Workgroups in z are groups (masked grouped GEMMs) or split-K ranges,
  // each reading panels of its own.
  int64_t rangeK = k / ranges;
  w.usefulFlops = 2.0 * double(m) * double(n) * double(rangeK) * w.grid[2];
  w.tileM = config.getTileM();
  w.tileN = config.getTileN();
  w.aPanelBytes = w.tileM * rangeK * aBits / 8;
  w.bPanelBytes = w.tileN * rangeK * bBits / 8;
  if (conflicts)
    w.ldsConflictCyclesPerTrip = double(conflicts.getInt());
  if (grouped && grouped.getValue() == "masked")
    notes.push_back("grouped (masked): every row of every group counted as "
                    "valid (FLOP and time)");
  if (grouped && grouped.getValue() == "contiguous")
    notes.push_back("grouped (contiguous): padding rows counted as useful; B "
                    "panels counted per tile column, not per group (the "
                    "Infinity Cache traffic of B is a lower bound)");
}

namespace {
/// Host values of one host function at given argument extents.
struct HostExtents {
  mutable func::FuncOp func;
  const std::vector<std::vector<int64_t>> *shapes = nullptr;

  /// Extent `dim` of a host memref: static, an argument's given extent, or
  /// an allocation's size.
  std::optional<int64_t> extentOf(Value memref, int64_t dim) const {
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (!type || dim >= type.getRank())
      return std::nullopt;
    if (!type.isDynamicDim(dim))
      return type.getDimSize(dim);
    if (auto arg = dyn_cast<BlockArgument>(memref)) {
      if (!shapes || arg.getOwner()->getParentOp() != func.getOperation() ||
          arg.getArgNumber() >= shapes->size() ||
          size_t(dim) >= (*shapes)[arg.getArgNumber()].size() ||
          ShapedType::isDynamic((*shapes)[arg.getArgNumber()][dim]))
        return std::nullopt;
      return (*shapes)[arg.getArgNumber()][dim];
    }
    if (auto alloc = memref.getDefiningOp<memref::AllocOp>())
      return evaluate(alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
    if (auto cast = memref.getDefiningOp<memref::CastOp>())
      return extentOf(cast.getSource(), dim);
    if (auto expand = memref.getDefiningOp<memref::ExpandShapeOp>()) {
      OpFoldResult extent = expand.getMixedOutputShape()[dim];
      if (auto value = dyn_cast<Value>(extent))
        return evaluate(value);
      return getConstantIntValue(extent);
    }
    if (auto collapse = memref.getDefiningOp<memref::CollapseShapeOp>()) {
      int64_t product = 1;
      for (int64_t d : collapse.getReassociationIndices()[dim]) {
        std::optional<int64_t> extent = extentOf(collapse.getSrc(), d);
        if (!extent)
          return std::nullopt;
        product *= *extent;
      }
      return product;
    }
    return std::nullopt;
  }

  /// A host index value (a grid extent, a condition): constants,
  /// memref.dim and the host arithmetic over them (foldHostScalarOp).
  std::optional<int64_t> evaluate(Value value) const {
    if (std::optional<int64_t> constant = getConstantIntValue(value))
      return constant;
    Operation *op = value.getDefiningOp();
    if (auto dim = dyn_cast_or_null<memref::DimOp>(op)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      return index ? extentOf(dim.getSource(), *index) : std::nullopt;
    }
    if (!op || !isHostScalarOp(op))
      return std::nullopt;
    SmallVector<APInt> operands;
    for (Value operand : op->getOperands()) {
      std::optional<int64_t> v = evaluate(operand);
      if (!v)
        return std::nullopt;
      operands.push_back(APInt(64, uint64_t(*v)));
    }
    std::optional<APInt> folded = foldHostScalarOp(op, operands);
    if (!folded)
      return std::nullopt;
    // i1 conditions read as 0 / 1, wider values as signed.
    return folded->getBitWidth() == 1 ? int64_t(folded->getZExtValue())
                                      : folded->getSExtValue();
  }

  /// Whether `op` runs at these extents: the branch of each enclosing
  /// scf.if it sits in is the one its condition takes (a dynamic M's
  /// M > 0 guard, the small-M / large-M versions); none when unknown.
  std::optional<bool> runs(Operation *op) const {
    for (; op && op != func.getOperation(); op = op->getParentOp()) {
      auto ifOp = dyn_cast_or_null<scf::IfOp>(op->getParentOp());
      if (!ifOp)
        continue;
      std::optional<int64_t> condition = evaluate(ifOp.getCondition());
      if (!condition)
        return std::nullopt;
      bool inThen = op->getParentRegion() == &ifOp.getThenRegion();
      if (bool(*condition) != inThen)
        return false;
    }
    return true;
  }

  /// The bytes of a launch operand: a dynamic operand passed as its base
  /// (qmm-kernel-size-arguments) counts as the buffer it views; 0 where
  /// the extents are unknown.
  int64_t bytesOf(Value operand) const {
    if (auto base = operand.getDefiningOp<memref::ReinterpretCastOp>())
      operand = base.getSource();
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      return 0;
    int64_t count = 1;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::optional<int64_t> extent = extentOf(operand, d);
      if (!extent)
        return 0;
      count *= *extent;
    }
    return getStorageBytes(count, type.getElementType());
  }
};
} // namespace

perf::DynamicExtents perf::getDynamicExtentsAtM(ModuleOp program,
                                                int64_t m) {
  DynamicExtents result;
  result.m = m;
  for (auto func : program.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    std::vector<std::vector<int64_t>> &shapes =
        result.shapes[func.getName().str()];
    for (Type type : func.getArgumentTypes()) {
      auto shaped = dyn_cast<ShapedType>(type);
      shapes.emplace_back();
      if (shaped && shaped.hasRank())
        shapes.back().assign(shaped.getShape().begin(),
                             shaped.getShape().end());
    }
    auto assign = [&](Value operand, ArrayRef<int64_t> extents) {
      auto arg = dyn_cast_or_null<BlockArgument>(operand);
      if (!arg || arg.getOwner() != &func.getBody().front())
        return;
      std::vector<int64_t> &shape = shapes[arg.getArgNumber()];
      for (size_t d = 0; d < shape.size() && d < extents.size(); ++d)
        if (ShapedType::isDynamic(shape[d]))
          shape[d] = extents[d];
    };
    func.walk([&](MatmulOp op) {
      int64_t n = op.getN(), k = op.getK();
      assign(op.getA(), {m, k});
      assign(op.getAScales(), op.getAEncoding().getScaleShape(m, k));
      assign(op.getInit(), {m, n});
      assign(op.getAux(), {m, n});
      if (ScaleEncodingAttr out = op.getOutEncodingAttr())
        assign(op.getOutScales(), out.getScaleShape(m, n));
    });
    func.walk([&](GroupedMatmulOp op) {
      // Masked: every group matrix has M (Mmax) rows, behind G.
      bool masked = op.getLayout() == GroupedLayout::Masked;
      int64_t n = op.getN(), k = op.getK();
      auto shape = [&](ArrayRef<int64_t> matrix) {
        SmallVector<int64_t> result;
        if (masked)
          result.push_back(op.getNumGroups());
        llvm::append_range(result, matrix);
        return result;
      };
      assign(op.getA(), shape({m, k}));
      assign(op.getAScales(), shape(op.getAEncoding().getScaleShape(m, k)));
      if (!masked)
        assign(op.getGroups(), {m});
      assign(op.getInit(), shape({m, n}));
      assign(op.getAux(), shape({m, n}));
      if (ScaleEncodingAttr out = op.getOutEncodingAttr())
        assign(op.getOutScales(), shape(out.getScaleShape(m, n)));
    });
    // Any other dynamic extent (an argument reaching a matmul through
    // other ops: a frontend's per-token scale vector) is M: the only
    // dynamic extent a program may have.
    for (std::vector<int64_t> &shape : shapes)
      for (int64_t &extent : shape)
        if (ShapedType::isDynamic(extent))
          extent = m;
  }
  return result;
}

llvm::Expected<std::vector<KernelPrediction>>
perf::modelProgram(ModuleOp gpuModule, const ChipInfo &chip,
                   const DeviceInfo &device, const ModelParameters &params,
                   const DynamicExtents *at) {
  if (device.getChip().name != chip.name)
    return llvm::createStringError(
        "device %s is a %s, but the program is compiled for %s",
        device.name.str().c_str(), device.chip.str().c_str(),
        chip.name.str().c_str());
  std::vector<KernelPrediction> predictions;
  std::map<std::string, std::vector<DisassembledKernel>> codeObjects;
  llvm::Error error = llvm::Error::success();
  gpuModule.walk([&](gpu::LaunchFuncOp launch) {
    if (error)
      return WalkResult::interrupt();
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel) {
      error = llvm::createStringError("no kernel %s",
                                      launch.getKernelName().str().c_str());
      return WalkResult::interrupt();
    }
    std::string moduleName = launch.getKernelModuleName().str();
    std::string kernelName = launch.getKernelName().str();
    KernelWorkload w;
    HostExtents host{launch->getParentOfType<func::FuncOp>()};
    if (host.func && at) {
      auto it = at->shapes.find(host.func.getName().str());
      if (it != at->shapes.end())
        host.shapes = &it->second;
    }
    // Launches on a path the host code does not take at these extents
    // (the other version of a matmul versioned by M) are not modeled.
    std::optional<bool> runs = host.runs(launch);
    if (!runs) {
      error = llvm::createStringError(
          "the launch of %s::%s depends on extents known only at run time; "
          "the model needs them (for a dynamic M, the M to model at)",
          moduleName.c_str(), kernelName.c_str());
      return WalkResult::interrupt();
    }
    if (!*runs)
      return WalkResult::advance();
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value gridValues[] = {grid.x, grid.y, grid.z};
    Value blockValues[] = {block.x, block.y, block.z};
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> g = host.evaluate(gridValues[d]);
      std::optional<int64_t> b = getConstantIntValue(blockValues[d]);
      if (!g || !b) {
        error = llvm::createStringError(
            "the launch of %s::%s has a grid or block size known only at run "
            "time; the model needs constant ones (or, for a dynamic M, the "
            "M to model at)",
            moduleName.c_str(), kernelName.c_str());
        return WalkResult::interrupt();
      }
      w.grid[d] = *g;
      w.block[d] = *b;
    }
    for (Value operand : launch.getKernelOperands())
      w.compulsoryBytes += host.bytesOf(operand);
    std::vector<std::string> notes;
    readKernelInfo(kernel, w, notes,
                   at ? std::optional<int64_t>(at->m) : std::nullopt);

    auto found = codeObjects.find(moduleName);
    if (found == codeObjects.end()) {
      llvm::Expected<std::string> elf = compileKernelModule(
          gpuModule, kernelName, chip.name, "bin", moduleName);
      if (!elf) {
        error = elf.takeError();
        return WalkResult::interrupt();
      }
      auto kernels = disassembleCodeObject(*elf, chip);
      if (!kernels) {
        error = kernels.takeError();
        return WalkResult::interrupt();
      }
      found = codeObjects.emplace(moduleName, std::move(*kernels)).first;
    }
    const DisassembledKernel *code = nullptr;
    for (const DisassembledKernel &k : found->second)
      if (k.name == kernelName)
        code = &k;
    if (!code) {
      error = llvm::createStringError("kernel %s is not in the code object of "
                                      "%s",
                                      kernelName.c_str(), moduleName.c_str());
      return WalkResult::interrupt();
    }
    llvm::Expected<KernelPrediction> prediction =
        modelKernel(*code, w, device, params);
    if (!prediction) {
      error = prediction.takeError();
      return WalkResult::interrupt();
    }
    prediction->kernel = "@" + moduleName + "::" + kernelName;
    llvm::append_range(prediction->notes, notes);
    predictions.push_back(std::move(*prediction));
    return WalkResult::advance();
  });
  if (error)
    return std::move(error);
  return predictions;
}

llvm::Expected<std::vector<KernelPrediction>>
perf::modelQMMProgram(ModuleOp program, const ChipInfo &chip,
                      const DeviceInfo &device, const ModelParameters &params,
                      llvm::StringRef config,
                      std::optional<int64_t> dynamicM) {
  OwningOpRef<ModuleOp> lowered = program.clone();
  AMDGPUPipelineOptions options{chip.name.str(), "gpu", config.str()};
  if (llvm::Error error = runAMDGPUPipeline(*lowered, options))
    return llvm::createStringError("the AMD pipeline failed for " +
                                   chip.name.str() + ": " +
                                   llvm::toString(std::move(error)));
  if (!dynamicM)
    return modelProgram(*lowered, chip, device, params);
  DynamicExtents at = getDynamicExtentsAtM(program, *dynamicM);
  return modelProgram(*lowered, chip, device, params, &at);
}
