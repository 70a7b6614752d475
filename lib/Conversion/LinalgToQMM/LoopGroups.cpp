//===- LoopGroups.cpp - linalg ops on reshaped views, collapsed back ------===//

#include "LoopGroups.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

std::optional<SmallVector<ReassociationIndices>>
qmm::linalg_to_qmm::getExpandedLoopGroups(linalg::GenericOp op) {
  SmallVector<ReassociationIndices> split;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!expand || !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      continue;
    for (const ReassociationIndices &dims : expand.getReassociationIndices()) {
      if (dims.size() < 2)
        continue;
      ReassociationIndices loops;
      for (int64_t dim : dims)
        loops.push_back(cast<AffineDimExpr>(map.getResult(dim)).getPosition());
      for (size_t i = 1; i < loops.size(); ++i)
        if (loops[i] != loops[0] + int64_t(i))
          return std::nullopt; // a view that permutes the split loops
      bool known = false;
      for (const ReassociationIndices &group : split) {
        bool overlaps = loops.front() <= group.back() &&
                        group.front() <= loops.back();
        if (overlaps && group != loops)
          return std::nullopt;
        known |= group == loops;
      }
      if (!known)
        split.push_back(loops);
    }
  }
  if (split.empty())
    return std::nullopt;
  SmallVector<ReassociationIndices> groups;
  for (int64_t loop = 0; loop < op.getNumLoops();) {
    auto group = llvm::find_if(split, [&](const ReassociationIndices &g) {
      return g.front() == loop;
    });
    if (group == split.end()) {
      groups.push_back({loop++});
      continue;
    }
    groups.push_back(*group);
    loop += group->size();
  }
  return groups;
}

FailureOr<qmm::linalg_to_qmm::CollapsedOp>
qmm::linalg_to_qmm::collapseLoopGroups(RewriterBase &rewriter, linalg::GenericOp op,
                                  ArrayRef<ReassociationIndices> groups) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      !op.getBlock()->getOps<linalg::IndexOp>().empty())
    return failure();
  MLIRContext *ctx = op->getContext();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Each loop as an expression of the collapsed ones: a group's loops are
  // the digits of its collapsed loop, the innermost fastest.
  SmallVector<AffineExpr> loopExprs(op.getNumLoops());
  SmallVector<utils::IteratorType> collapsedIterators;
  for (auto [position, group] : llvm::enumerate(groups)) {
    AffineExpr collapsed = getAffineDimExpr(position, ctx);
    int64_t stride = 1;
    for (int64_t loop : llvm::reverse(group)) {
      if (iterators[loop] != iterators[group.front()])
        return failure();
      AffineExpr expr = stride == 1 ? collapsed : collapsed.floorDiv(stride);
      if (loop == group.front()) {
        loopExprs[loop] = expr;
        continue;
      }
      if (ShapedType::isDynamic(extents[loop]))
        return failure();
      loopExprs[loop] = expr % extents[loop];
      stride *= extents[loop];
    }
    collapsedIterators.push_back(iterators[group.front()]);
  }

  // An operand read by whole groups, in order: its reassociation and map.
  auto readByGroups = [&](AffineMap map)
      -> std::optional<std::pair<SmallVector<ReassociationIndices>,
                                 AffineMap>> {
    SmallVector<ReassociationIndices> reassociation;
    SmallVector<AffineExpr> results;
    for (unsigned r = 0; r < map.getNumResults();) {
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(r));
      if (!dim)
        return std::nullopt;
      auto group = llvm::find_if(groups, [&](const ReassociationIndices &g) {
        return g.front() == int64_t(dim.getPosition());
      });
      if (group == groups.end() || r + group->size() > map.getNumResults())
        return std::nullopt;
      ReassociationIndices dims;
      for (auto [i, loop] : llvm::enumerate(*group)) {
        if (map.getResult(r + i) != getAffineDimExpr(loop, ctx))
          return std::nullopt;
        dims.push_back(r + i);
      }
      reassociation.push_back(dims);
      results.push_back(getAffineDimExpr(group - groups.begin(), ctx));
      r += group->size();
    }
    return std::pair(reassociation,
                     AffineMap::get(groups.size(), 0, results, ctx));
  };
  auto isSplit = [](ArrayRef<ReassociationIndices> reassociation) {
    return llvm::any_of(reassociation, [](const ReassociationIndices &dims) {
      return dims.size() > 1;
    });
  };

  Location loc = op.getLoc();
  OpOperand *init = op.getDpsInitOperand(0);
  auto initRead = readByGroups(op.getMatchingIndexingMap(init));
  if (!initRead)
    return failure();
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto read = readByGroups(map);
    if (!read) {
      maps.push_back(simplifyAffineMap(
          map.replaceDimsAndSymbols(loopExprs, {}, groups.size(), 0)));
      inputs.push_back(input->get());
      continue;
    }
    Value value = input->get();
    if (isSplit(read->first)) {
      auto expand = value.getDefiningOp<tensor::ExpandShapeOp>();
      value = expand && expand.getReassociationIndices() == read->first
                  ? expand.getSrc()
                  : tensor::CollapseShapeOp::create(rewriter, loc, value,
                                                    read->first)
                        .getResult();
    }
    inputs.push_back(value);
    maps.push_back(read->second);
  }
  Value initValue = init->get();
  if (isSplit(initRead->first))
    initValue = tensor::CollapseShapeOp::create(rewriter, loc, initValue,
                                                initRead->first);
  maps.push_back(initRead->second);
  auto collapsed = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initValue.getType()}, inputs,
      ValueRange{initValue}, maps, collapsedIterators);
  IRMapping mapping;
  op.getRegion().cloneInto(&collapsed.getRegion(), mapping);
  return CollapsedOp{collapsed, initRead->first};
}

FailureOr<linalg::GenericOp>
qmm::linalg_to_qmm::splitLoop(RewriterBase &rewriter, linalg::GenericOp op,
                              unsigned loop, ArrayRef<int64_t> extents) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      !op.getBlock()->getOps<linalg::IndexOp>().empty() || extents.size() < 2)
    return failure();
  MLIRContext *ctx = op->getContext();
  unsigned added = extents.size() - 1;
  // Each old loop as the new loops: `loop` by the first of its parts,
  // later loops shifted.
  SmallVector<AffineExpr> shifted;
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    shifted.push_back(getAffineDimExpr(d <= loop ? d : d + added, ctx));
  unsigned loops = op.getNumLoops() + added;
  Location loc = op.getLoc();
  // An operand's view and map on the split loops.
  auto split = [&](OpOperand &operand) -> FailureOr<std::pair<Value, AffineMap>> {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    Value value = operand.get();
    SmallVector<AffineExpr> results;
    SmallVector<ReassociationIndices> reassociation;
    SmallVector<int64_t> shape;
    auto type = cast<RankedTensorType>(value.getType());
    bool reads = false;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      ReassociationIndices dims;
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (dim && dim.getPosition() == loop) {
        if (reads || type.getDimSize(i) != [&] {
              int64_t product = 1;
              for (int64_t e : extents)
                product *= e;
              return product;
            }())
          return failure();
        reads = true;
        for (unsigned part = 0; part <= added; ++part) {
          dims.push_back(shape.size());
          shape.push_back(extents[part]);
          results.push_back(getAffineDimExpr(loop + part, ctx));
        }
      } else {
        if (expr.isFunctionOfDim(loop))
          return failure(); // the loop in an expression
        dims.push_back(shape.size());
        shape.push_back(type.getDimSize(i));
        results.push_back(expr.replaceDims(shifted));
      }
      reassociation.push_back(dims);
    }
    if (reads)
      value = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(shape, type.getElementType()), value,
          reassociation);
    return std::pair(value, AffineMap::get(loops, 0, results, ctx));
  };
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<std::pair<Value, AffineMap>> viewed = split(operand);
    if (failed(viewed))
      return failure();
    (op.isDpsInit(&operand) ? inits : inputs).push_back(viewed->first);
    maps.push_back(viewed->second);
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.insert(iterators.begin() + loop, added, iterators[loop]);
  auto result = linalg::GenericOp::create(
      rewriter, loc, TypeRange{inits.front().getType()}, inputs, inits, maps,
      iterators);
  IRMapping mapping;
  op.getRegion().cloneInto(&result.getRegion(), mapping);
  return result;
}
