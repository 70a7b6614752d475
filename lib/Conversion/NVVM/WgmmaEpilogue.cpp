//===- WgmmaEpilogue.cpp - the wgmma kernel's epilogue --------------------===//
//
// The output tile from wgmma's accumulator layout: scales, C, bias,
// activation and the rounding to D's type, or an FP8 output's
// quantization per block of columns; staged in shared memory and stored
// with TMA where D's tensor map allows, else stored from registers.
//
//===----------------------------------------------------------------------===//

#include "WgmmaKernel.h"

#include "qmm/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::wgmma;

Epilogue::Epilogue(ImplicitLocOpBuilder &b, const KernelSpec &spec,
                   const KernelArguments &arguments,
                   const SharedMemory &shared, const ConsumerThread &thread)
    : spec(spec), arguments(arguments), shared(shared), thread(thread) {
  const MatmulOperands &op = spec.op;
  // Per-tensor scales are the same for every tile: loaded once (B's of a
  // grouped matmul per tile, its group's; A's of a masked one too).
  Value c0 = constant(b, 0);
  if (op.aEncoding.getKind() == ScaleKind::PerTensor && !op.masked)
    tensorScaleA = loadScale(b, arguments.aScales, op.aEncoding, spec.m,
                             spec.k, c0, c0);
  if (op.bEncoding.getKind() == ScaleKind::PerTensor && !op.isGrouped())
    tensorScaleB = loadScale(b, arguments.bScales, op.bEncoding, spec.n,
                             spec.k, c0, c0);
  // Without staging (or, in a grouped matmul, for the parts with rows
  // that keep their values), D's elements are stored in pairs through a
  // global pointer when the pairs (two adjacent columns, the first even)
  // are aligned.
  if (spec.n % 2 == 0 && (!arguments.tensorMapD || op.isGrouped())) {
    Value address = arith::IndexCastOp::create(
        b, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(
            b, arguments.destination));
    destinationPointer = LLVM::IntToPtrOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext(), /*global*/ 1),
        address);
  }
}

void Epilogue::finish(ImplicitLocOpBuilder &b) const {
  if (!arguments.tensorMapD)
    return;
  auto issuer = scf::IfOp::create(b, thread.isFirst, false);
  ImplicitLocOpBuilder inner(b.getLoc(), issuer.getThenBodyBuilder());
  NVVM::CpAsyncBulkWaitGroupOp::create(inner, 0, /*read=*/nullptr);
}

std::array<Value, 2> Epilogue::getRowsWritten(ImplicitLocOpBuilder &b,
                                              const WorkTile &tile,
                                              ArrayRef<Value> rows) const {
  std::array<Value, 2> written;
  const MatmulOperands &op = spec.op;
  if (op.masked) {
    // Rows below the group's count (clamped into [0, Mmax]); the rows of a
    // tile reaching past the group's Mmax rows (the next group's) are past
    // it too.
    Value count = memref::LoadOp::create(b, arguments.groupLayout, tile.group);
    Type i32 = count.getType();
    Value valid = arith::IndexCastOp::create(
        b, b.getIndexType(),
        arith::MinSIOp::create(
            b,
            arith::MaxSIOp::create(b, count,
                                   arith::ConstantIntOp::create(b, i32, 0)),
            arith::ConstantIntOp::create(b, i32, op.groupRows)));
    Value groupStart =
        arith::MulIOp::create(b, tile.group, constant(b, op.groupRows));
    for (int64_t half = 0; half < 2; ++half)
      written[half] = arith::CmpIOp::create(
          b, arith::CmpIPredicate::ult,
          arith::SubIOp::create(b, rows[half], groupStart), valid);
    return written;
  }
  bool partialRows = spec.plan.partialRows;
  for (int64_t half = 0; half < 2; ++half) {
    Value row = rows[half];
    if (partialRows)
      written[half] = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row,
                                            arguments.rows);
    if (!op.isGrouped())
      continue;
    // A padding row (group -1) keeps its values. Rows past M read row M -
    // 1's entry (and are not written either way).
    Value clamped = partialRows ? clampRow(b, row, arguments.rows) : row;
    Value group = memref::LoadOp::create(b, arguments.groupLayout, clamped);
    Value notPadding = arith::CmpIOp::create(
        b, arith::CmpIPredicate::sge, group,
        arith::ConstantIntOp::create(b, group.getType(), 0));
    written[half] = written[half]
                        ? arith::AndIOp::create(b, written[half], notPadding)
                        : notPadding;
  }
  return written;
}

Value Epilogue::isPartWritten(ImplicitLocOpBuilder &b,
                              const WorkTile &tile) const {
  const MatmulOperands &op = spec.op;
  // A group's valid rows come first in its rows (contiguous: its segment,
  // then padding; masked: below its count), and the consumer's part lies
  // in one group's rows: the part is written where its last row is.
  Value lastRow = arith::AddIOp::create(
      b, thread.getOriginRow(b, spec, tile),
      constant(b, spec.chip.getWgmma().m - 1));
  if (op.masked) {
    Value count = memref::LoadOp::create(b, arguments.groupLayout, tile.group);
    Value local = arith::IndexCastOp::create(
        b, count.getType(),
        arith::SubIOp::create(
            b, lastRow,
            arith::MulIOp::create(b, tile.group, constant(b, op.groupRows))));
    return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, local, count);
  }
  Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lastRow,
                                       arguments.rows);
  Value clamped = clampRow(b, lastRow, arguments.rows);
  Value entry = memref::LoadOp::create(b, arguments.groupLayout, clamped);
  Value notPadding = arith::CmpIOp::create(
      b, arith::CmpIPredicate::sge, entry,
      arith::ConstantIntOp::create(b, entry.getType(), 0));
  return arith::AndIOp::create(b, inside, notPadding);
}

void Epilogue::build(ImplicitLocOpBuilder &b, const WorkTile &tile,
                     Value accumulator, ArrayRef<Value> rows,
                     Value laneColumn) const {
  std::array<Value, 2> rowsWritten = getRowsWritten(b, tile, rows);
  bool staged = static_cast<bool>(arguments.tensorMapD);
  if (!staged || !spec.op.isGrouped())
    return buildStores(b, tile, accumulator, rows, rowsWritten, laneColumn,
                       staged);
  // A grouped matmul's consumer part whose rows are all written goes out
  // through the staging buffer and TMA as a matmul's; one with rows that
  // keep their values (a group's last rows) from registers, row by row.
  auto ifOp = scf::IfOp::create(b, isPartWritten(b, tile),
                                /*withElseRegion=*/true);
  ImplicitLocOpBuilder whole(b.getLoc(), ifOp.getThenBodyBuilder());
  buildStores(whole, tile, accumulator, rows, {Value(), Value()}, laneColumn,
              /*staged=*/true);
  ImplicitLocOpBuilder some(b.getLoc(), ifOp.getElseBodyBuilder());
  buildStores(some, tile, accumulator, rows, rowsWritten, laneColumn,
              /*staged=*/false);
}

void Epilogue::buildStores(ImplicitLocOpBuilder &b, const WorkTile &tile,
                           Value accumulator, ArrayRef<Value> rows,
                           ArrayRef<Value> rowsWritten, Value laneColumn,
                           bool staged) const {
  const MatmulOperands &op = spec.op;
  const WgmmaTiling &tiling = spec.tiling();
  int64_t n = spec.n;
  Value destination = arguments.destination;
  Value aScales = arguments.aScales, bScales = arguments.bScales,
        bias = arguments.bias;
  // The accumulator layout: the thread's elements per group of columns,
  // its two rows' in turn (QMMIntrinsics.def).
  const WgmmaIntrinsicInfo &wgmma = spec.chip.getWgmma();
  int64_t groups = tiling.consumerColumns / wgmma.groupColumns;
  Type f32 = b.getF32Type();
  auto dType = cast<MemRefType>(destination.getType());
  Type dElement = dType.getElementType();
  bool aPerRow = op.aEncoding.getKind() == ScaleKind::PerRow;
  bool bPerRow = op.bEncoding.getKind() == ScaleKind::PerRow;
  bool partialColumns = spec.plan.partialColumns;
  Value c0 = constant(b, 0);
  Value nValue = constant(b, n);
  // A grouped matmul's B scale per tensor: its group's; a masked one's A
  // scale per tensor too.
  Value scaleB = tensorScaleB, scaleA = tensorScaleA;
  if (!scaleB && op.bEncoding.getKind() == ScaleKind::PerTensor)
    scaleB = loadScale(b, bScales, op.bEncoding, n, spec.k, c0, c0,
                       tile.group);
  if (!scaleA && op.aEncoding.getKind() == ScaleKind::PerTensor)
    scaleA = loadScale(b, aScales, op.aEncoding, op.groupRows, spec.k, c0, c0,
                       tile.group);
  // The epilogue's A scale per row: per-row (rows past M read row M - 1's)
  // or per-tensor, or none.
  SmallVector<Value, 2> rowScales;
  for (Value row : rows) {
    Value scale = scaleA;
    if (aPerRow)
      scale = loadAScale(b, spec, aScales, clampRow(b, row, arguments.rows), c0,
                         tile.group);
    rowScales.push_back(scale);
  }
  // With a B scale per tensor, each row's two factors (createScaleFactors:
  // sa * sb may overflow f32 where the scaled value does not) once.
  SmallVector<std::pair<Value, Value>, 2> rowFactors;
  for (Value rowScale : rowScales)
    if (rowScale && scaleB)
      rowFactors.push_back(
          createScaleFactors(b, b.getLoc(), rowScale, scaleB));
  // Runs `body` where row `rows[half]` is written and `column` is inside
  // D (always, in whole tiles of a matmul).
  auto guarded = [&](ImplicitLocOpBuilder &b, int64_t half, Value column,
                     llvm::function_ref<void(ImplicitLocOpBuilder &)> body) {
    Value condition = rowsWritten[half];
    if (partialColumns) {
      Value inside =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, column, nValue);
      condition =
          condition ? arith::AndIOp::create(b, condition, inside) : inside;
    }
    if (!condition)
      return body(b);
    auto ifOp = scf::IfOp::create(b, condition, false);
    ImplicitLocOpBuilder inner(b.getLoc(), ifOp.getThenBodyBuilder());
    body(inner);
  };
  // One element in f32 after C, bias and the activation.
  auto finishF32 = [&](ImplicitLocOpBuilder &b, Value value, Value row,
                       Value column, Value biasValue) {
    if (op.accumulate) {
      // Staged, elements outside D are computed too (TMA does not store
      // them): they read C inside it.
      if (staged && (spec.plan.partialRows || partialColumns)) {
        row = clampRow(b, row, arguments.rows);
        column = arith::MinUIOp::create(b, column, constant(b, n - 1));
      }
      Value c = memref::LoadOp::create(b, destination, ValueRange{row, column});
      if (c.getType() != f32)
        c = arith::ExtFOp::create(b, f32, c);
      value = arith::AddFOp::create(b, value, c);
    }
    if (biasValue)
      value = arith::AddFOp::create(b, value, biasValue);
    return createActivation(b, b.getLoc(), value, op.activation);
  };
  // The output value of one element: the above, rounded to D's type.
  auto finish = [&](ImplicitLocOpBuilder &b, Value value, Value row,
                    Value column, Value biasValue) {
    value = finishF32(b, value, row, column, biasValue);
    if (dElement != f32)
      value = arith::TruncFOp::create(b, dElement, value);
    return value;
  };
  // A group's columns, column scales and bias values.
  struct ColumnGroup {
    Value columns[2], columnScales[2], biasValues[2];
  };
  auto loadColumnGroup = [&](int64_t group) {
    ColumnGroup loaded;
    auto &[columns, columnScales, biasValues] = loaded;
    for (int64_t pair = 0; pair < 2; ++pair) {
      columns[pair] = arith::AddIOp::create(b, laneColumn,
                                            constant(b, wgmma.groupColumns * group + pair));
      Value clamped =
          arith::MinUIOp::create(b, columns[pair], constant(b, n - 1));
      if (bPerRow)
        columnScales[pair] = loadScale(b, bScales, op.bEncoding, n, spec.k,
                                       clamped, c0, tile.group);
      if (bias) {
        // A grouped matmul's bias is [G, N]: its group's row.
        SmallVector<Value, 2> indices = {clamped};
        if (tile.group)
          indices.insert(indices.begin(), tile.group);
        biasValues[pair] = memref::LoadOp::create(b, bias, indices);
        if (biasValues[pair].getType() != f32)
          biasValues[pair] = arith::ExtFOp::create(b, f32, biasValues[pair]);
      }
    }
    return loaded;
  };
  // Fragment element 4 group + 2 half + pair times its scales.
  auto scaledElement = [&](const ColumnGroup &columnGroup, int64_t group,
                           int64_t half, int64_t pair) -> Value {
    Value value = LLVM::ExtractValueOp::create(b, accumulator,
                                               wgmma.getElementsPerGroup() * group +
                                                   wgmma.columnsPerLane * half +
                                                   pair);
    Value rowScale = rowScales[half];
    Value columnScale = columnGroup.columnScales[pair];
    if (!columnScale)
      columnScale = scaleB;
    if (!rowScale || !columnScale) {
      Value scale = rowScale ? rowScale : columnScale;
      return scale ? arith::MulFOp::create(b, value, scale) : value;
    }
    auto [first, second] =
        rowFactors.empty()
            ? createScaleFactors(b, b.getLoc(), rowScale, columnScale)
            : rowFactors[half];
    return arith::MulFOp::create(b, arith::MulFOp::create(b, value, first),
                                 second)
        .getResult();
  };
  if (op.outScales) {
    // FP8 output (never accumulated into): each block's f32 results where
    // it is quantized, its column values loaded there (all of them up
    // front, with both rows' results live until their amax, would spill).
    if (staged)
      beginStaging(b);
    storeQuantized(
        b, tile,
        [&](int64_t group, int64_t half) -> std::array<Value, 2> {
          ColumnGroup columnGroup = loadColumnGroup(group);
          std::array<Value, 2> results;
          for (int64_t pair = 0; pair < 2; ++pair)
            results[pair] =
                finishF32(b, scaledElement(columnGroup, group, half, pair),
                          rows[half], columnGroup.columns[pair],
                          columnGroup.biasValues[pair]);
          return results;
        },
        rows, rowsWritten, laneColumn, staged);
    if (staged)
      storeStagedTile(b, tile);
    return;
  }
  // Every group's column values first: loaded before the first store,
  // they are in flight together (LLVM does not move loads above stores
  // that may alias them).
  // (Staged, the stores go to shared memory, which LLVM knows the loads
  // do not read: each group's are loaded where they are used, and LLVM
  // schedules them.)
  SmallVector<ColumnGroup> columnGroups;
  for (int64_t group = 0; group < groups && !staged; ++group)
    columnGroups.push_back(loadColumnGroup(group));
  auto pairType = VectorType::get({2}, dElement);
  Value stagingBase;
  if (staged) {
    beginStaging(b);
    stagingBase = getStagingBase(b);
  }
  for (int64_t group = 0; group < groups; ++group) {
    if (staged)
      columnGroups.push_back(loadColumnGroup(group));
    auto &[columns, columnScales, biasValues] = columnGroups[group];
    for (int64_t half = 0; half < 2; ++half) {
      Value row = rows[half];
      Value values[2];
      for (int64_t pair = 0; pair < 2; ++pair)
        values[pair] =
            scaledElement(columnGroups[group], group, half, pair);
      auto pack = [&](ImplicitLocOpBuilder &b) {
        Value packed = LLVM::PoisonOp::create(b, pairType);
        for (int64_t pair = 0; pair < 2; ++pair)
          packed = LLVM::InsertElementOp::create(
              b, packed,
              finish(b, values[pair], row, columns[pair], biasValues[pair]),
              arith::ConstantIntOp::create(b, b.getI32Type(), pair));
        return packed;
      };
      if (staged) {
        // Staged: every pair, inside D or not (TMA stores D's part).
        Value address = getStagingPointer(b, stagingBase, group, half);
        LLVM::StoreOp::create(
            b, pack(b), address,
            /*alignment=*/2 * dElement.getIntOrFloatBitWidth() / 8);
        continue;
      }
      if (!destinationPointer) {
        // Odd N: element by element.
        for (int64_t pair = 0; pair < 2; ++pair)
          guarded(b, half, columns[pair], [&](ImplicitLocOpBuilder &b) {
            Value result =
                finish(b, values[pair], row, columns[pair], biasValues[pair]);
            memref::StoreOp::create(b, result, destination,
                                    ValueRange{row, columns[pair]});
          });
        continue;
      }
      // Even N: both columns of the pair are inside D or neither is; one
      // 2-element store.
      guarded(b, half, columns[0], [&](ImplicitLocOpBuilder &b) {
        Value packed = pack(b);
        Value offset = arith::IndexCastOp::create(
            b, b.getI64Type(),
            arith::AddIOp::create(
                b, arith::MulIOp::create(b, row, nValue), columns[0]));
        Value address = LLVM::GEPOp::create(
            b, destinationPointer.getType(), dElement, destinationPointer,
            ValueRange{offset});
        LLVM::StoreOp::create(
            b, packed, address,
            /*alignment=*/2 * dElement.getIntOrFloatBitWidth() / 8);
      });
    }
  }
  if (staged)
    storeStagedTile(b, tile);
}

Value Epilogue::getStagingBase(ImplicitLocOpBuilder &b) const {
  const NvidiaChipInfo &chip = spec.chip;
  const WgmmaSharedLayout &layout = spec.plan.shared;
  const WgmmaIntrinsicInfo &wgmma = chip.getWgmma();
  Value warp = thread.warp, lane = thread.lane;
  int64_t elementBytes = spec.dElement.getIntOrFloatBitWidth() / 8;
  int64_t rowBytes = chip.swizzleBytes;
  // The thread's first row in the consumer's wgmma M rows and its first
  // byte in a group of 8 columns, at the accumulator layout's position
  // (QMMIntrinsics.def).
  Value row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, warp, constant(b, wgmma.rowsPerWarp)),
      arith::DivUIOp::create(b, lane, constant(b, wgmma.lanesPerRow)));
  Value laneByte = arith::MulIOp::create(
      b, arith::RemUIOp::create(b, lane, constant(b, wgmma.lanesPerRow)),
      constant(b, wgmma.columnsPerLane * elementBytes));
  // 128B swizzle: byte b of a row r is stored at b ^ (r mod 8) * 16 (the
  // 16-byte chunk XORed with the row in its 8-row atom; rows start at
  // multiples of rowBytes, so the XOR stays inside the row).
  Value inRow = arith::XOrIOp::create(
      b, laneByte,
      arith::MulIOp::create(b, arith::RemUIOp::create(b, row, constant(b, 8)),
                            constant(b, 16)));
  Value offset = arith::AddIOp::create(
      b,
      arith::AddIOp::create(
          b,
          arith::MulIOp::create(b, thread.consumer,
                                constant(b, layout.stagingBytesPerConsumer)),
          arith::MulIOp::create(b, row, constant(b, rowBytes))),
      arith::AddIOp::create(b, inRow, constant(b, layout.staging)));
  // The address in 32 bits (shared memory is below 4 GiB).
  Type i32 = b.getI32Type();
  return ptx::computeInPlace(
      b, arith::AddIOp::create(
             b, arith::TruncIOp::create(b, i32, shared.getRingAddress()),
             arith::IndexCastOp::create(b, i32, offset)));
}

Value Epilogue::getStagingPointer(ImplicitLocOpBuilder &b, Value base,
                                  int64_t group, int64_t half) const {
  const NvidiaChipInfo &chip = spec.chip;
  const WgmmaIntrinsicInfo &wgmma = chip.getWgmma();
  int64_t elementBytes = spec.dElement.getIntOrFloatBitWidth() / 8;
  int64_t rowBytes = chip.swizzleBytes;
  // The group's bytes are a multiple of a group's width, a power of two
  // past every lane's byte in it: the XOR below adds them to the thread's
  // byte in the row, swizzled as the base's is (getStagingBase). The
  // second row is 8 rows down, the same row of the next 8-row atom.
  int64_t groupByte = wgmma.groupColumns * group * elementBytes;
  assert(llvm::isPowerOf2_64(wgmma.groupColumns * elementBytes) &&
         wgmma.secondRow % 8 == 0 && "a layout the swizzle XOR assumes");
  int64_t boxOffset = groupByte / rowBytes * wgmma.m * rowBytes;
  int64_t rowOffset = wgmma.secondRow * half * rowBytes;
  // The constant offset as a GEP of the pointer, which the store's
  // address folds ([base + offset]): one register per XOR, not per store.
  Type i32 = b.getI32Type();
  auto pointerType = LLVM::LLVMPointerType::get(b.getContext(), /*shared*/ 3);
  Value swizzled = LLVM::IntToPtrOp::create(
      b, pointerType,
      arith::XOrIOp::create(
          b, base, arith::ConstantIntOp::create(b, i32, groupByte % rowBytes))
          .getResult());
  // (Below shared memory's 256 KiB.)
  auto offset = static_cast<int32_t>(boxOffset + rowOffset);
  return LLVM::GEPOp::create(b, pointerType, b.getI8Type(), swizzled,
                             ArrayRef<LLVM::GEPArg>{offset});
}

void Epilogue::beginStaging(ImplicitLocOpBuilder &b) const {
  auto issuer = scf::IfOp::create(b, thread.isFirst, false);
  {
    ImplicitLocOpBuilder inner(b.getLoc(), issuer.getThenBodyBuilder());
    NVVM::CpAsyncBulkWaitGroupOp::create(inner, 0, b.getUnitAttr());
  }
  thread.sync(b, spec);
}

void Epilogue::storeStagedTile(ImplicitLocOpBuilder &b,
                               const WorkTile &tile) const {
  // Each writer orders its generic-proxy writes before TMA's reads.
  NVVM::FenceProxyOp::create(
      b, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  thread.sync(b, spec);
  auto issuer = scf::IfOp::create(b, thread.isFirst, false);
  ImplicitLocOpBuilder inner(b.getLoc(), issuer.getThenBodyBuilder());
  Value row = thread.getOriginRow(inner, spec, tile);
  Value column = thread.getOriginColumn(inner, spec, tile);
  int64_t boxColumns = spec.plan.stagingBoxColumns;
  // TMA coordinates are innermost first: (column, row). Boxes reaching
  // past D's edges store only their part inside D.
  for (int64_t box = 0; box < spec.tiling().consumerColumns / boxColumns;
       ++box)
    nvgpu::TmaAsyncStoreOp::create(
        inner, shared.getStagingBox(inner, thread.consumer, box),
        arguments.tensorMapD,
        ValueRange{arith::AddIOp::create(inner, column,
                                         constant(inner, box * boxColumns)),
                   row},
        Value());
  NVVM::CpAsyncBulkCommitGroupOp::create(inner);
}

void Epilogue::storeQuantized(
    ImplicitLocOpBuilder &b, const WorkTile &tile,
    llvm::function_ref<std::array<Value, 2>(int64_t, int64_t)> resultsAt,
    ArrayRef<Value> rows, ArrayRef<Value> rowsWritten, Value laneColumn,
    bool staged) const {
  Location loc = b.getLoc();
  const MatmulOperands &op = spec.op;
  const WgmmaTiling &tiling = spec.tiling();
  int64_t m = spec.m, n = spec.n;
  Value destination = arguments.destination;
  Value lane = thread.lane;
  Type dElement = spec.dElement;
  ScaleEncodingAttr encoding = op.outEncoding;
  int64_t blockColumns = encoding.getBlockExtent(m, n).second;
  ScaleRule rule{dElement, encoding.getScaleType(), op.outRounding,
                 op.outMinAmax};
  bool columnsMasked = spec.plan.partialColumns;
  Value zero = createF32(b, loc, 0.0);
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  Value stagingBase = staged ? getStagingBase(b) : Value();
  auto both = [&](Value x, Value y) -> Value {
    if (!x || !y)
      return x ? x : y;
    return arith::AndIOp::create(b, x, y);
  };
  auto below = [&](Value x, int64_t bound) -> Value {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x,
                                 constant(b, bound));
  };
  // Runs `body` where `condition` holds (always when null).
  auto when = [&](Value condition,
                  llvm::function_ref<void(ImplicitLocOpBuilder &)> body) {
    if (!condition)
      return body(b);
    auto ifOp = scf::IfOp::create(b, condition, false);
    ImplicitLocOpBuilder inner(loc, ifOp.getThenBodyBuilder());
    body(inner);
  };
  // The accumulator layout (QMMIntrinsics.def): a row's columns are held by
  // `lanesPerRow` consecutive lanes, a pair of adjacent columns per group.
  const WgmmaIntrinsicInfo &wgmma = spec.chip.getWgmma();
  auto columnOf = [&](int64_t group, int64_t pair) -> Value {
    return arith::AddIOp::create(
        b, laneColumn, constant(b, wgmma.groupColumns * group + pair));
  };
  Value isRowLeader = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, lane, constant(b, wgmma.lanesPerRow)),
      constant(b, 0));
  int64_t groupsPerBlock = blockColumns / wgmma.groupColumns;
  // The consumer's first column in D (its part of the tile's columns).
  Value partColumn = thread.getOriginColumn(b, spec, tile);
  for (int64_t half = 0; half < 2; ++half) {
    Value row = rows[half];
    Value rowInside = rowsWritten[half];
    for (int64_t block = 0; block < tiling.consumerColumns / blockColumns;
         ++block) {
      int64_t firstGroup = block * groupsPerBlock;
      SmallVector<std::array<Value, 2>> results;
      for (int64_t group = firstGroup; group < firstGroup + groupsPerBlock;
           ++group)
        results.push_back(resultsAt(group, half));
      auto elementsOf = [&](auto &&visit) {
        for (int64_t group = firstGroup; group < firstGroup + groupsPerBlock;
             ++group)
          for (int64_t pair = 0; pair < 2; ++pair)
            visit(group, pair, results[group - firstGroup][pair]);
      };
      // The block's amax over its columns inside D: the thread's, then
      // that of the lanes holding the row's other columns (a butterfly
      // over `lanesPerRow` lanes). arith.maximumf keeps NaN.
      Value amax = zero;
      elementsOf([&](int64_t group, int64_t pair, Value result) {
        Value magnitude = createF32Magnitude(b, loc, result);
        if (columnsMasked)
          magnitude = arith::SelectOp::create(
              b, below(columnOf(group, pair), n), magnitude, zero);
        amax = arith::MaximumFOp::create(b, amax, magnitude);
      });
      for (int64_t distance = 1; distance < wgmma.lanesPerRow;
           distance *= 2) {
        Value other =
            gpu::ShuffleOp::create(
                b, amax, arith::ConstantIntOp::create(b, i32, distance),
                arith::ConstantIntOp::create(b, i32, 32),
                gpu::ShuffleMode::XOR)
                .getShuffleResult();
        amax = arith::MaximumFOp::create(b, amax, other);
      }
      auto [scale, reciprocal] = createBlockScale(b, loc, amax, rule);
      // The codes: sat(rne(x * reciprocal)), two columns at once where N
      // is even (one 2-byte store), else one by one.
      SmallVector<Value, 2> codes;
      elementsOf([&](int64_t group, int64_t pair, Value result) {
        codes.push_back(
            createQuantizedElement(b, loc, result, reciprocal, dElement));
        if (pair == 0)
          return;
        Value first = columnOf(group, 0);
        auto packCodes = [&](ImplicitLocOpBuilder &b) -> Value {
          Value halves[2];
          for (int64_t i = 0; i < 2; ++i)
            halves[i] = arith::ExtUIOp::create(
                b, i16, arith::BitcastOp::create(b, b.getI8Type(), codes[i]));
          return arith::OrIOp::create(
              b, halves[0],
              arith::ShLIOp::create(b, halves[1],
                                    arith::ConstantIntOp::create(b, i16, 8)));
        };
        if (staged) {
          // Staged: every pair (TMA stores D's part).
          Value address = getStagingPointer(b, stagingBase, group, half);
          LLVM::StoreOp::create(b, packCodes(b), address, /*alignment=*/2);
        } else if (destinationPointer) {
          when(both(rowInside, columnsMasked ? below(first, n) : Value()),
               [&](ImplicitLocOpBuilder &b) {
                 Value packed = packCodes(b);
                 Value offset = arith::IndexCastOp::create(
                     b, b.getI64Type(),
                     arith::AddIOp::create(
                         b, arith::MulIOp::create(b, row, constant(b, n)),
                         first));
                 Value address = LLVM::GEPOp::create(
                     b, destinationPointer.getType(), b.getI8Type(),
                     destinationPointer, ValueRange{offset});
                 LLVM::StoreOp::create(b, packed, address, /*alignment=*/2);
               });
        } else {
          for (int64_t i = 0; i < 2; ++i) {
            Value column = columnOf(group, i);
            when(both(rowInside, columnsMasked ? below(column, n) : Value()),
                 [&](ImplicitLocOpBuilder &b) {
                   memref::StoreOp::create(b, codes[i], destination,
                                           ValueRange{row, column});
                 });
          }
        }
        codes.clear();
      });
      // The row's first lane stores the block's scale, where the block
      // starts inside D.
      Value blockStart = arith::AddIOp::create(
          b, partColumn, constant(b, block * blockColumns));
      when(both(both(isRowLeader, rowInside),
                columnsMasked ? below(blockStart, n) : Value()),
           [&](ImplicitLocOpBuilder &b) {
             Value scaleColumn = arith::DivUIOp::create(
                 b, blockStart, constant(b, blockColumns));
             memref::StoreOp::create(b, scale, arguments.outScales,
                                     ValueRange{row, scaleColumn});
           });
    }
  }
}

