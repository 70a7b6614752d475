//===- LowerMatmulToWgmma.cpp - qmm.matmul as a Hopper wgmma kernel -------===//
//
// The main loop of the NVVM pipeline: a bufferized qmm.matmul becomes one
// warp-specialized kernel (its own gpu.module) and the host code that
// launches it. Per block of (2 x wgmma M) x N_tile outputs:
//
//   warpgroup 0 (producer): one thread walks K in tiles of one swizzle row
//     (128 FP8 elements), waiting for a free stage of the ring (`empty`
//     mbarrier), then copying A's and B's tiles into it with TMA into
//     128B-swizzled shared memory, completing on the stage's `full` mbarrier;
//   warpgroups 1, 2 (consumers, 64 rows each; 128 as two waves of 64 in
//     a tile of 256 rows): wait for `full`, run the
//     K tile's wgmma.mma_async steps (k = 32) into a fresh f32 fragment,
//     wait for them (wait_group 0), release the stage (`empty`) and add
//     the fragment to the f32 accumulator, multiplied by the K block's
//     scales when A or B is block-scaled (DeepGEMM's promotion: it also
//     keeps wgmma's FP8 accumulation to 128 products); while one
//     warpgroup promotes, the other's wgmma steps run. Without block
//     scales wgmma sums 4 K tiles between promotions (WgmmaPromotion.h),
//     waiting with wait_group 1 in between. A tile's first K tile is
//     issued before the previous tile's epilogue;
//   epilogue (WgmmaEpilogue.cpp): per-tensor / per-row scales, C, bias,
//     activation and the rounding, or an FP8 output's quantization per
//     block of columns, written from the documented wgmma accumulator
//     layout; D's tile staged in shared memory and stored with TMA where
//     its tensor map allows.
//
// A last round of tiles at most half as many as the blocks, after at most
// 2 whole rounds, is split along K across the idle blocks (Stream-K,
// WgmmaStreamK.cpp): each block's last work item may be a part, whose
// sums meet the others' in a workspace before one part's epilogue.
//
// Optionally (dynamic-schedule, off by default), the blocks draw their
// tiles after the first from a global counter (WgmmaTicketDrawer.cpp).
//
// Optionally (cluster-rows), clusters of blocks share B's tile through TMA
// multicast; the `empty` barriers then collect the releases of every
// block of the cluster.
//
// The wgmma descriptors are computed here (nvgpu's automatic K-stepping is
// wrong for K-major FP8), and the tensor maps are 128-byte objects the
// runtime encodes (nvgpu's host lowering encodes FP8 as bf16), passed by
// value (qmm-tensor-maps-by-value).
//
// What is decided before any IR is built (eligibility, tiling, schedule,
// shared-memory layout) is the plan (qmm/Conversion/NVVM/WgmmaPlan.h); the
// kernel's parts are the types of WgmmaKernel.h, which this file wires.
//
//===----------------------------------------------------------------------===//

#include "PtxBuilders.h"
#include "WgmmaKernel.h"

#include "qmm/Conversion/NVVM/TensorMapArguments.h"
#include "qmm/Conversion/NVVM/WgmmaPlan.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMOps.h"
#include "qmm/Target/NvidiaChip.h"
#include "qmm/Target/TargetAttr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace qmm {
#define GEN_PASS_DEF_QMMLOWERMATMULTOWGMMA
#include "qmm/Conversion/Passes.h.inc"
} // namespace qmm
} // namespace mlir

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

//===----------------------------------------------------------------------===//
// The kernel: set-up and roles
//===----------------------------------------------------------------------===//

/// The kernel's arguments, in the order buildLaunch passes them.
static KernelArguments getKernelArguments(ImplicitLocOpBuilder &b,
                                          const KernelSpec &spec,
                                          gpu::GPUFuncOp kernel) {
  const WgmmaPlan &plan = spec.plan;
  const WgmmaTiling &tiling = plan.tiling;
  const MatmulOperands &op = spec.op;
  KernelArguments arguments;
  unsigned argument = 0;
  auto next = [&]() -> Value { return kernel.getArgument(argument++); };
  // The tensor maps arrive as pointers (to the grid constants they become
  // in qmm-tensor-maps-by-value); TMA reads them through the nvgpu type
  // that records the box and swizzle.
  auto tensorMap = [&](nvgpu::TensorMapDescriptorType type) {
    return UnrealizedConversionCastOp::create(b, type, next()).getResult(0);
  };
  arguments.tensorMapA =
      tensorMap(spec.getTensorMapType(spec.getAPartRows(), spec.aElement));
  arguments.tensorMapB =
      tensorMap(spec.getTensorMapType(spec.getBPartRows(), spec.bElement));
  arguments.aScales = next();
  arguments.bScales = next();
  arguments.bias = op.bias ? next() : Value();
  arguments.destination = next();
  arguments.outScales = op.outScales ? next() : Value();
  arguments.groupLayout = op.groupLayout ? next() : Value();
  // D's rows: for a run-time M, its view's extent (the kernel's view
  // rebuilt at entry from its size arguments, qmm-kernel-size-arguments).
  arguments.rows = spec.plan.runtimeRows
                       ? memref::DimOp::create(b, arguments.destination, 0)
                             .getResult()
                       : constant(b, spec.m);
  if (tiling.stagingBytes)
    arguments.tensorMapD = tensorMap(spec.getTensorMapType(
        spec.chip.getWgmma().m, spec.dElement, plan.stagingBoxColumns));
  if (tiling.aScaleBox.present())
    arguments.tensorMapAScales =
        tensorMap(spec.getScaleTensorMapType(tiling.aScaleBox));
  if (tiling.bScaleBox.present())
    arguments.tensorMapBScales =
        tensorMap(spec.getScaleTensorMapType(tiling.bScaleBox));
  auto addressOf = [&](Value buffer) -> Value {
    return arith::IndexCastOp::create(
        b, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, buffer));
  };
  if (plan.usesWorkspace()) {
    arguments.workspaceAddress = addressOf(next());
    arguments.countersAddress = addressOf(next());
  } else if (plan.schedule.dynamic || plan.scaleChecks) {
    arguments.countersAddress = addressOf(next());
  }
  return arguments;
}

/// One thread initializes the barriers and fences them and the tensor maps.
static void initializeBlock(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                            const KernelArguments &arguments,
                            const SharedMemory &shared,
                            const RingPipeline &ring,
                            const TicketQueue *queue) {
  ring.initialize(b);
  if (queue)
    queue->initialize(b);
  if (spec.plan.reducesInCluster)
    initializeClusterReduction(b, spec, shared);
  // The initialized barriers are seen by TMA's async proxy (and, in a
  // cluster, by the other blocks). The tensor maps are grid constants
  // (qmm-tensor-maps-by-value), which TMA reads without a proxy fence.
  if (spec.plan.clusterBlocks() > 1)
    NVVM::FenceMbarrierInitOp::create(b);
  NVVM::FenceProxyOp::create(
      b, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(spec.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  for (Value map : {arguments.tensorMapA, arguments.tensorMapB,
                    arguments.tensorMapD, arguments.tensorMapAScales,
                    arguments.tensorMapBScales})
    if (map)
      nvgpu::TmaPrefetchOp::create(b, map, Value());
}

static void buildKernelBody(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                            gpu::GPUFuncOp kernel) {
  const WgmmaPlan &plan = spec.plan;
  const WgmmaTiling &tiling = plan.tiling;
  KernelArguments arguments = getKernelArguments(b, spec, kernel);
  Value c0 = constant(b, 0), c1 = constant(b, 1);
  SharedMemory shared(b, spec);
  RingPipeline ring(b, spec, shared);
  Value clusterRank =
      plan.clustered()
          ? gpu::ClusterBlockIdOp::create(b, gpu::Dimension::x).getResult()
          : c0;
  std::optional<TicketQueue> queue;
  if (plan.schedule.dynamic)
    queue.emplace(spec, shared, arguments);
  const TicketQueue *queuePointer = queue ? &*queue : nullptr;
  std::optional<ScaleCheck> scaleCheck;
  if (plan.scaleChecks)
    scaleCheck.emplace(spec, arguments);
  const ScaleCheck *scaleCheckPointer = scaleCheck ? &*scaleCheck : nullptr;
  TileScheduler scheduler(
      spec, clusterRank, arguments.groupLayout, arguments.rows,
      plan.maskedGroups ? shared.getGroupTable(b) : Value());
  Value threadId = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value isFirstThread =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, threadId, c0);
  {
    auto init = scf::IfOp::create(b, isFirstThread, false);
    ImplicitLocOpBuilder inner(b.getLoc(), init.getThenBodyBuilder());
    initializeBlock(inner, spec, arguments, shared, ring, queuePointer);
  }
  if (plan.maskedGroups)
    scheduler.fillGroupTable(b, threadId, tiling.threads);
  // No block multicasts into another's shared memory or arrives on its
  // barriers before they are initialized.
  auto syncCluster = [&]() {
    if (plan.clusterBlocks() == 1)
      return gpu::BarrierOp::create(b), void();
    NVVM::ClusterArriveOp::create(b, /*aligned=*/nullptr);
    NVVM::ClusterWaitOp::create(b, /*aligned=*/nullptr);
  };
  syncCluster();

  Value warpgroup = arith::DivUIOp::create(
      b, threadId, constant(b, spec.chip.getWgmma().threads));
  Value isProducer =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warpgroup, c0);
  auto roles = scf::IfOp::create(b, isProducer, /*withElseRegion=*/true);
  {
    // The producer warpgroup gives registers up for the consumers (both
    // roles are branches of one if, as setmaxnreg requires).
    ImplicitLocOpBuilder producer(b.getLoc(), roles.getThenBodyBuilder());
    NVVM::SetMaxRegisterOp::create(producer, tiling.producerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
    auto issuing = scf::IfOp::create(producer, isFirstThread, false);
    ImplicitLocOpBuilder inner(b.getLoc(), issuing.getThenBodyBuilder());
    Producer(spec, arguments, shared, ring, scheduler, queuePointer,
             clusterRank)
        .build(inner);
    if (queue) {
      // The ticket drawer: the second warp's first thread.
      Value isDrawer = arith::CmpIOp::create(
          producer, arith::CmpIPredicate::eq, threadId, constant(producer, 32));
      auto drawing = scf::IfOp::create(producer, isDrawer, false);
      ImplicitLocOpBuilder drawer(b.getLoc(), drawing.getThenBodyBuilder());
      queue->buildDrawer(drawer);
    }
    if (scaleCheck) {
      // The scale checkers: the other warps (1, 2, 3).
      Value warp = arith::DivUIOp::create(producer, threadId,
                                          constant(producer, 32));
      Value isChecker = arith::CmpIOp::create(
          producer, arith::CmpIPredicate::uge, warp, c1);
      auto checking = scf::IfOp::create(producer, isChecker, false);
      ImplicitLocOpBuilder checker(b.getLoc(), checking.getThenBodyBuilder());
      scaleCheck->buildChecker(
          checker, arith::SubIOp::create(checker, warp, c1),
          arith::RemUIOp::create(checker, threadId, constant(checker, 32)));
    }
  }
  {
    ImplicitLocOpBuilder consumer(b.getLoc(), roles.getElseBodyBuilder());
    NVVM::SetMaxRegisterOp::create(consumer, tiling.consumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
    Value consumerIndex = ptx::broadcastFromLaneZero(
        consumer, arith::SubIOp::create(consumer, warpgroup, c1));
    Consumer({spec, arguments, shared, ring, scheduler, queuePointer,
              scaleCheckPointer})
        .build(consumer, consumerIndex);
  }
  if (scaleCheck) {
    // The block's checks and polls are over: the last block resets the
    // counters for the next launch.
    gpu::BarrierOp::create(b);
    auto reset = scf::IfOp::create(b, isFirstThread, false);
    ImplicitLocOpBuilder inner(b.getLoc(), reset.getThenBodyBuilder());
    scaleCheck->buildReset(inner);
  }
  // Nor does a block exit while the others may still write into its
  // shared memory or arrive on its barriers.
  if (plan.clusterBlocks() > 1)
    syncCluster();
  gpu::ReturnOp::create(b);
}

//===----------------------------------------------------------------------===//
// The host side: the kernel's module, the tensor maps and the launch
//===----------------------------------------------------------------------===//

namespace {
/// A kernel built for a plan, and the temporaries its launch allocates.
struct BuiltKernel {
  gpu::GPUFuncOp kernel;
  /// Stream-K's workspace and the counters (null types without).
  MemRefType workspaceType, countersType;
};
} // namespace

/// Creates the kernel of `spec` in a new gpu.module after `func`.
static BuiltKernel buildKernel(const KernelSpec &spec, func::FuncOp func,
                               SymbolTable &symbols) {
  const WgmmaPlan &plan = spec.plan;
  const WgmmaTiling &tiling = plan.tiling;
  const TileSchedule &schedule = plan.schedule;
  const MatmulOperands &op = spec.op;
  MLIRContext *ctx = spec.getContext();
  Location loc = op.op->getLoc();
  auto pointer = LLVM::LLVMPointerType::get(ctx);

  // The kernel: its own gpu.module after the function, named after it.
  OpBuilder moduleBuilder(func);
  moduleBuilder.setInsertionPointAfter(func);
  auto gpuModule = gpu::GPUModuleOp::create(
      moduleBuilder, loc, (func.getName() + "_wgmma").str());
  symbols.insert(gpuModule);
  // The tensor maps' parameters (A's, B's, D's), passed by value
  // (qmm-tensor-maps-by-value).
  SmallVector<int32_t> tensorMapParameters = {0, 1};
  SmallVector<Type> parameters = {pointer, pointer, op.aScales.getType(),
                                  op.bScales.getType()};
  for (Value operand : {op.bias, op.init, op.outScales, op.groupLayout})
    if (operand)
      parameters.push_back(operand.getType());
  if (tiling.stagingBytes) {
    tensorMapParameters.push_back(parameters.size());
    parameters.push_back(pointer);
  }
  // The block scales' maps, where TMA copies them into the ring.
  for (const WgmmaScaleBox *box : {&tiling.aScaleBox, &tiling.bScaleBox})
    if (box->present()) {
      tensorMapParameters.push_back(parameters.size());
      parameters.push_back(pointer);
    }
  // Stream-K: each part's f32 sums, and an arrival counter per split tile
  // and consumer warpgroup. Dynamic schedules: the tickets drawn and the
  // blocks done. Checked scales: the blocks that found a scale out of
  // range, those whose checks are done, and those finished.
  MemRefType workspaceType, countersType;
  if (plan.usesWorkspace()) {
    workspaceType = MemRefType::get(
        {schedule.splitTiles * schedule.parts * tiling.tileM * tiling.tileN},
        Float32Type::get(ctx));
    countersType =
        MemRefType::get({schedule.splitTiles * tiling.consumers},
                        IntegerType::get(ctx, 32));
    parameters.append({workspaceType, countersType});
  } else if (schedule.dynamic || plan.scaleChecks) {
    countersType = MemRefType::get({schedule.dynamic ? 2 : 3},
                                   IntegerType::get(ctx, 32));
    parameters.push_back(countersType);
  }
  OpBuilder kernelBuilder = OpBuilder::atBlockBegin(gpuModule.getBody());
  auto kernel = gpu::GPUFuncOp::create(
      kernelBuilder, loc, "matmul",
      FunctionType::get(ctx, parameters, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  UnitAttr::get(ctx));
  kernel->setAttr(kTensorMapArgumentsAttrName,
                  DenseI32ArrayAttr::get(ctx, tensorMapParameters));
  kernel.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {int32_t(tiling.threads), 1, 1}));
  // One block per multiprocessor (.minnctapersm 1, as CUTLASS's
  // warp-specialized kernels declare it): ptxas then knows the registers
  // at entry (all of them, over the block's threads) and honours the
  // roles' setmaxnreg; without it a kernel that needs fewer registers
  // drops setmaxnreg (note C7508) and its consumers keep the entry count.
  kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  IntegerAttr::get(IntegerType::get(ctx, 32), 1));
  ImplicitLocOpBuilder body(loc, OpBuilder::atBlockBegin(
                                     &kernel.getBody().front()));
  buildKernelBody(body, spec, kernel);
  return {kernel, workspaceType, countersType};
}

/// At `b`: the tensor maps and the launch of `built`, `spec`'s kernel
/// (`rows`: a run-time M, not 0 there, or null).
static void buildLaunch(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                        const BuiltKernel &built, Value rows) {
  const WgmmaPlan &plan = spec.plan;
  const WgmmaTiling &tiling = plan.tiling;
  const TileSchedule &schedule = plan.schedule;
  const MatmulOperands &op = spec.op;
  auto pointer = LLVM::LLVMPointerType::get(spec.getContext());
  gpu::GPUFuncOp kernel = built.kernel;
  MemRefType workspaceType = built.workspaceType,
             countersType = built.countersType;
  // A 2-D operand's tensor map of `type` (boxes of `outer` x `inner`
  // elements), as the pointer the kernel takes.
  auto encode = [&](Value operand, Type element,
                    nvgpu::TensorMapDescriptorType type, int64_t outer,
                    int64_t inner) -> Value {
    auto unranked = UnrankedMemRefType::get(
        element, cast<MemRefType>(operand.getType()).getMemorySpace());
    Value cast = memref::CastOp::create(b, unranked, operand);
    Value box[2] = {constant(b, outer), constant(b, inner)};
    Value map = nvgpu::TmaCreateDescriptorOp::create(b, type, cast, box);
    return UnrealizedConversionCastOp::create(b, pointer, map).getResult(0);
  };
  auto tensorMap = [&](Value operand, int64_t rows, Type element,
                       int64_t columns = 0) -> Value {
    return encode(operand, element,
                  spec.getTensorMapType(rows, element, columns), rows,
                  columns ? columns : tiling.tileK);
  };
  // A grouped matmul's B matrices are one [G * N, K] tensor to TMA: group
  // g's rows start at row g * N.
  Value b2d = op.b;
  if (op.isGrouped())
    b2d = memref::CollapseShapeOp::create(
        b, op.b, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  SmallVector<Value> arguments = {
      tensorMap(op.a, spec.getAPartRows(), spec.aElement),
      tensorMap(b2d, spec.getBPartRows(), spec.bElement), op.aScales,
      op.bScales};
  for (Value operand : {op.bias, op.init, op.outScales, op.groupLayout})
    if (operand)
      arguments.push_back(operand);
  if (tiling.stagingBytes)
    arguments.push_back(tensorMap(op.init, spec.chip.getWgmma().m,
                                  spec.dElement, plan.stagingBoxColumns));
  // The block scales' maps: 2-D, the scales' layout (a grouped matmul's B
  // scales [G, N blocks, K blocks] as [G N blocks, K blocks]).
  auto scaleMap = [&](Value scales, const WgmmaScaleBox &box) -> Value {
    if (cast<MemRefType>(scales.getType()).getRank() == 3)
      scales = memref::CollapseShapeOp::create(
          b, scales, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    return encode(scales, b.getF32Type(), spec.getScaleTensorMapType(box),
                  box.outer, box.inner);
  };
  if (tiling.aScaleBox.present())
    arguments.push_back(scaleMap(op.aScales, tiling.aScaleBox));
  if (tiling.bScaleBox.present())
    arguments.push_back(scaleMap(op.bScales, tiling.bScaleBox));
  int64_t temporaries = 0;
  if (countersType) {
    // The workspace is written before it is read; the counters start at
    // zero (memref.alloc leaves contents undefined), and the kernel leaves
    // them at zero for the next launch.
    Value counters = memref::AllocOp::create(b, countersType);
    gpu::MemsetOp::create(b, /*asyncToken=*/Type(),
                          /*asyncDependencies=*/ValueRange(), counters,
                          arith::ConstantIntOp::create(b, b.getI32Type(), 0));
    if (workspaceType)
      arguments.push_back(memref::AllocOp::create(b, workspaceType));
    arguments.push_back(counters);
    temporaries = workspaceType ? 2 : 1;
  }
  Value one = constant(b, 1);
  // Persistent blocks: one per multiprocessor (at most max-blocks), or
  // one per work item; for a run-time M, as getTileSchedule balances them
  // (unsplit): the fewest blocks that take M's tiles in as many rounds,
  // rounded up to whole raster columns, at most the plan's.
  Value blocks = constant(b, schedule.blocks);
  if (rows && plan.countsItemsAtRunTime()) {
    Value items = arith::MulIOp::create(
        b, arith::CeilDivUIOp::create(b, rows, constant(b, tiling.tileM)),
        constant(b, plan.tileColumns));
    Value rounds = arith::CeilDivUIOp::create(b, items, blocks);
    Value raster = constant(b, plan.rasterUnits);
    Value balanced = arith::MulIOp::create(
        b,
        arith::CeilDivUIOp::create(
            b, arith::CeilDivUIOp::create(b, items, rounds), raster),
        raster);
    blocks = arith::MinUIOp::create(
        b, blocks, arith::MinUIOp::create(b, items, balanced));
  }
  gpu::KernelDim3 grid{blocks, one, one};
  gpu::KernelDim3 block{constant(b, tiling.threads), one, one};
  std::optional<gpu::KernelDim3> cluster;
  if (plan.clusterBlocks() > 1)
    cluster = gpu::KernelDim3{constant(b, plan.clusterBlocks()), one, one};
  Value sharedBytes =
      arith::ConstantIntOp::create(b, b.getI32Type(), plan.shared.bytes);
  gpu::LaunchFuncOp::create(b, kernel, grid, block, sharedBytes, arguments,
                            /*asyncTokenType=*/nullptr,
                            /*asyncDependencies=*/{}, cluster);
  for (Value buffer : ArrayRef(arguments).take_back(temporaries))
    memref::DeallocOp::create(b, buffer);
}

/// Creates the kernel of each of `specs` (one matmul's versions) and
/// replaces the matmul by the host side: the tensor maps and a launch. For
/// a run-time M only where M is not 0 (a tensor map has no empty
/// dimension), and with several versions, of the first whose bound in
/// `maxRows` holds M (the last has none).
static void buildKernelsAndLaunch(ArrayRef<KernelSpec> specs,
                                  ArrayRef<int64_t> maxRows,
                                  func::FuncOp func, SymbolTable &symbols) {
  const MatmulOperands &op = specs.front().op;
  SmallVector<BuiltKernel> built;
  for (const KernelSpec &spec : specs)
    built.push_back(buildKernel(spec, func, symbols));
  ImplicitLocOpBuilder b(op.op->getLoc(), op.op);
  Value rows;
  if (specs.front().plan.runtimeRows) {
    rows = memref::DimOp::create(b, op.a, 0);
    auto ifOp = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, rows,
                                 constant(b, 0)),
        /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  for (size_t i = 0; i + 1 < specs.size(); ++i) {
    auto ifOp = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ule, rows,
                                 constant(b, maxRows[i])),
        /*withElseRegion=*/true);
    ImplicitLocOpBuilder then(b.getLoc(),
                              ifOp.thenBlock()->getTerminator());
    buildLaunch(then, specs[i], built[i], rows);
    b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  }
  buildLaunch(b, specs.back(), built.back(), rows);
  op.op->erase();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct QMMLowerMatmulToWgmmaPass
    : public qmm::impl::QMMLowerMatmulToWgmmaBase<QMMLowerMatmulToWgmmaPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const NvidiaChipInfo *target =
        getNvidiaTargetChip(getOperation(), chip, "qmm-lower-matmul-to-wgmma");
    if (!target)
      return signalPassFailure();
    WgmmaOptions options;
    options.stages = stages;
    options.rasterRows = rasterRows;
    options.clusterRows = clusterRows;
    options.clusterColumns = clusterColumns;
    options.streamK = streamK;
    options.maxBlocks = maxBlocks;
    options.promotionKTiles = promotionKTiles;
    options.dynamicSchedule = dynamicSchedule;
    options.checkScalesAhead = checkScalesAhead;
    options.stageScales = stageScales;
    options.clusterReduction = clusterReduction;
    options.tileM = tileM;
    options.tileN = tileN;
    llvm::Expected<WgmmaTiling> tiling = getWgmmaTiling(options, *target);
    if (!tiling) {
      module.emitError("qmm-lower-matmul-to-wgmma: ")
          << llvm::toString(tiling.takeError());
      return signalPassFailure();
    }

    // A matmul's kernel, or for a run-time M its versions by M
    // (getRowVersions), each with its bound on M (0: none).
    struct Kernel {
      MatmulOperands operands;
      func::FuncOp func;
      SmallVector<WgmmaPlan, 1> plans;
      SmallVector<int64_t, 1> maxRows;
    };
    SmallVector<Kernel, 1> kernels;
    auto plan = [&](const MatmulOperands &operands, Kernel &kernel)
        -> llvm::Error {
      llvm::Expected<WgmmaProblem> problem = describeMatmul(operands);
      if (!problem)
        return problem.takeError();
      for (const WgmmaRowVersion &version :
           getRowVersions(*problem, options, *target)) {
        WgmmaOptions versionOptions = options;
        WgmmaProblem versionProblem = *problem;
        if (version.maxRows) {
          versionOptions.tileM = version.tileM;
          versionOptions.tileN = version.tileN;
          versionProblem.maxRows = version.maxRows;
        }
        llvm::Expected<WgmmaPlan> planned = planWgmmaKernel(
            versionProblem, *tiling, versionOptions, *target);
        if (!planned) {
          // A version the kernel does not take leaves the M it would
          // have served to the next one.
          if (version.maxRows) {
            llvm::consumeError(planned.takeError());
            continue;
          }
          return planned.takeError();
        }
        kernel.plans.push_back(*planned);
        kernel.maxRows.push_back(version.maxRows);
      }
      return llvm::Error::success();
    };
    WalkResult walked = module.walk([&](Operation *op) {
      auto matmul = dyn_cast<MatmulOp>(op);
      auto grouped = dyn_cast<GroupedMatmulOp>(op);
      if (!matmul && !grouped)
        return WalkResult::advance();
      auto func = op->getParentOfType<func::FuncOp>();
      MatmulOperands operands = matmul ? MatmulOperands::get(matmul)
                                       : MatmulOperands::get(grouped);
      Kernel kernel{operands, func, {}, {}};
      llvm::Error planned = plan(operands, kernel);
      if (!planned) {
        if (operands.masked) {
          ImplicitLocOpBuilder b(op->getLoc(), op);
          kernel.operands.collapseMaskedOperands(b);
        }
        kernels.push_back(std::move(kernel));
        return WalkResult::advance();
      }
      std::string reason = llvm::toString(std::move(planned));
      // The reference lowering quantizes on the host (scf.for loops no
      // GPU kernel takes), and the NVVM pipeline has never run its grouped
      // loops: on NVIDIA only the wgmma kernels quantize or run grouped
      // matmuls.
      if (grouped) {
        op->emitOpError("qmm-lower-matmul-to-wgmma: a grouped matmul runs "
                        "as a wgmma kernel only, which does not take this "
                        "one: ")
            << reason;
        return WalkResult::interrupt();
      }
      if (matmul.getOutScales() &&
          isa<MemRefType>(matmul.getInit().getType())) {
        matmul.emitOpError("qmm-lower-matmul-to-wgmma: an FP8 output is "
                           "quantized by the wgmma kernel only, which does "
                           "not take this matmul: ")
            << reason;
        return WalkResult::interrupt();
      }
      // Said on request (--remarks-filter-missed=wgmma): the matmul runs as
      // the reference loops.
      remark::missed(matmul.getLoc(),
                     remark::RemarkOpts::name("WgmmaKernel")
                         .category(getArgument())
                         .function(func ? func.getName() : StringRef()))
          << ("not lowered to a wgmma kernel (runs as reference loops): " +
              reason);
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    if (kernels.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SymbolTable symbols(module);
    for (const Kernel &kernel : kernels) {
      SmallVector<KernelSpec, 1> specs;
      for (const WgmmaPlan &plan : kernel.plans)
        specs.emplace_back(kernel.operands, *target, plan);
      buildKernelsAndLaunch(specs, kernel.maxRows, kernel.func, symbols);
    }
  }
};
} // namespace
