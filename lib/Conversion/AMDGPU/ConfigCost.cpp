//===- ConfigCost.cpp - what a #qmm.config costs, from its shape alone ----===//

#include "qmm/Conversion/AMDGPU/ConfigCost.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::qmm;

/// Share of the MFMA pipe the resident waves keep busy, by waves per SIMD
/// and LDS stages: one wave alone waits for its own LDS reads and
/// barriers, more waves cover each other's waits; a single stage also
/// waits for each tile's global loads. The performance model's main loops
/// of the pipeline's kernels sit near these.
static double getLatencyEfficiency(int wavesPerSimd, int64_t stages) {
  static const double kDoubleBuffered[] = {0.68, 0.68, 0.80, 0.83, 0.86};
  static const double kSingleStage[] = {0.45, 0.45, 0.58, 0.62, 0.66};
  int i = std::clamp(wavesPerSimd, 0, 4);
  return stages > 1 ? kDoubleBuffered[i] : kSingleStage[i];
}

/// Bytes one lane holds of one MFMA fragment of an operand.
static int64_t getFragmentBytes(ConfigAttr config, Type type, bool forB) {
  OperandLaneLayout layout = getOperandLayout(config, type, forB);
  return layout.runs * layout.getRunBytes();
}

ConfigCost qmm::estimateConfigCost(const DeviceInfo &device,
                                   const ConfigQuery &query,
                                   ConfigAttr config) {
  const ChipInfo &chip = device.getChip();
  const MMAIntrinsicInfo &mfma = config.getIntrinsic();
  ConfigCost cost;
  int64_t m = std::max<int64_t>(query.m, 1), n = std::max<int64_t>(query.n, 1);
  int64_t tileM = config.getTileM(), tileN = config.getTileN(),
          tileK = config.getTileK();
  int64_t split = std::max<int64_t>(config.getSplit(), 1);
  int64_t waves = config.getNumWaves();
  int64_t tilesK = llvm::divideCeil(std::max<int64_t>(query.k, 0), tileK);
  cost.tilesPerWorkgroup = llvm::divideCeil(tilesK, split);
  cost.workgroups =
      llvm::divideCeil(m, tileM) * llvm::divideCeil(n, tileN) * split;
  int64_t cusPerXcd = device.computeUnits / device.xcds;
  int64_t onBusiestXcd = llvm::divideCeil(cost.workgroups, device.xcds);
  cost.workgroupsOnBusiestCU = llvm::divideCeil(onBusiestXcd, cusPerXcd);

  // Per workgroup and K tile.
  int aBits = query.operands.a.getIntOrFloatBitWidth();
  int bBits = query.operands.b.getIntOrFloatBitWidth();
  int64_t steps = tileK / mfma.k;
  int64_t mfmasPerWave =
      config.getMfmaRepeatsM() * config.getMfmaRepeatsN() * steps;
  int cycles = mfma.cycles;
  if (mfma.narrowCycles && aBits <= 6 && bBits <= 6)
    cycles = mfma.narrowCycles;
  int64_t wavesPerSimdPerWorkgroup =
      llvm::divideCeil(waves, int64_t(chip.simdsPerCU));
  cost.mfmaCycles = double(wavesPerSimdPerWorkgroup * mfmasPerWave * cycles);
  double fragmentBytes =
      double(config.getWaveTileM() * tileK * aBits +
             config.getWaveTileN() * tileK * bBits) / 8;
  double tileBytes = double(tileM * tileK * aBits + tileN * tileK * bBits) / 8;
  // Tiles copied directly reach LDS without LDS instructions (the model
  // counts them as global loads).
  double copyWriteBytes = config.copiesDirectToLds() ? 0 : tileBytes;
  cost.ldsCycles = (double(waves) * fragmentBytes + copyWriteBytes) /
                   double(chip.getLdsBytesPerClock());
  double l2BytesPerClock = device.nominalL2TBps * 1e12 /
                           (device.nominalClockGHz * 1e9) /
                           double(device.computeUnits);
  cost.l2Cycles = tileBytes / l2BytesPerClock;
  // Block scales shorter than K: each block's partial sums are scaled and
  // added (two packed VALU operations per pair of accumulators, 4 cycles
  // each), once per block.
  bool promotes = mfma.kind != MFMAKind::ScaledF8F6F4 &&
                  query.scaleBlockK > 0 && query.scaleBlockK < query.k;
  if (promotes) {
    double accumulatorsPerLane =
        double(config.getWaveTileM() * config.getWaveTileN()) / chip.waveSize;
    double blocksPerTile =
        std::max(1.0, double(tileK) / double(query.scaleBlockK));
    cost.valuCycles =
        double(wavesPerSimdPerWorkgroup) * accumulatorsPerLane * 4 *
        blocksPerTile;
  }

  // Rows whose bytes are not a whole number of 16-byte chunks (K not a
  // multiple of 16 FP8 values) are copied to LDS in pieces: about 100 VALU
  // operations per 16-byte chunk of a lane instead of one load.
  int64_t chunkBytes = 16;
  if ((query.k * aBits / 8) % chunkBytes != 0 ||
      (query.k * bBits / 8) % chunkBytes != 0)
    cost.valuCycles += tileBytes / double(waves * chip.waveSize * chunkBytes) *
                       100 * 4 * double(wavesPerSimdPerWorkgroup);

  // The bound: the busiest SIMD's MFMA work and the busiest CU's LDS work,
  // less two K tiles (trips LLVM may peel; the model counts those once).
  double tiles = double(std::max<int64_t>(cost.tilesPerWorkgroup - 2, 0));
  cost.boundCycles = double(cost.workgroupsOnBusiestCU) * tiles *
                     std::max(cost.mfmaCycles, cost.ldsCycles);

  // Residency from an estimate of the registers: f32 accumulators, the
  // fragments of one MFMA step, the staged copies of double buffering
  // through registers (16-byte chunks per lane), and addressing.
  int64_t accumulators =
      config.getWaveTileM() * config.getWaveTileN() / chip.waveSize;
  int64_t fragments =
      (config.getMfmaRepeatsM() *
           getFragmentBytes(config, query.operands.a, /*forB=*/false) +
       config.getMfmaRepeatsN() *
           getFragmentBytes(config, query.operands.b, /*forB=*/true)) /
      4;
  int64_t staged = config.getStages() > 1 && !config.copiesDirectToLds()
                       ? int64_t(tileBytes) / (waves * chip.waveSize) / 4
                       : 0;
  cost.estimatedRegisters = int(accumulators + fragments + staged + 24);
  ChipInfo::Residency residency = chip.getResidency(
      cost.estimatedRegisters, getLdsFootprint(chip, config, query.operands),
      int(waves));
  cost.workgroupsPerCU = std::max(residency.workgroupsPerCU, 1);
  cost.wavesPerSimd = std::max(residency.wavesPerSimd, 1);

  // The estimate: per round, each K tile at its largest term (MFMA derated
  // by latency hiding), plus the prologue (first loads) and the epilogue
  // (accumulators out; split-K adds its workspace round trip).
  auto roundCycles = [&](int64_t perCU) {
    int wavesPerSimd = int(std::min<int64_t>(
        cost.wavesPerSimd, perCU * wavesPerSimdPerWorkgroup));
    double terms[] = {double(perCU) * (cost.mfmaCycles + cost.valuCycles) /
                          getLatencyEfficiency(wavesPerSimd, config.getStages()),
                      double(perCU) * cost.ldsCycles,
                      double(perCU) * cost.l2Cycles};
    // The largest term, plus a little of the others: they overlap it
    // imperfectly (and configs bound alike are told apart by the rest).
    double largest = *std::max_element(std::begin(terms), std::end(terms));
    double perTile = largest + 0.05 * (terms[0] + terms[1] + terms[2] - largest);
    double epilogue = 1800 + 8 * double(accumulators);
    if (split > 1)
      epilogue *= 2;
    return 1000 + double(cost.tilesPerWorkgroup) * perTile + epilogue;
  };
  int64_t slotsPerXcd = cusPerXcd * cost.workgroupsPerCU;
  int64_t fullRounds = onBusiestXcd / slotsPerXcd;
  int64_t remainder = onBusiestXcd % slotsPerXcd;
  cost.estimateCycles = double(fullRounds) * roundCycles(cost.workgroupsPerCU);
  if (remainder > 0)
    cost.estimateCycles +=
        roundCycles(llvm::divideCeil(remainder, cusPerXcd));
  return cost;
}

std::vector<ConfigAttr> qmm::rankConfigsByCost(MLIRContext *ctx,
                                               const ChipInfo &chip,
                                               const ConfigQuery &query) {
  std::vector<ConfigAttr> space = enumerateConfigs(ctx, chip, query);
  if (ConfigAttr rule = selectConfig(ctx, chip, query))
    if (!llvm::is_contained(space, rule))
      space.push_back(rule);
  const DeviceInfo *device = getDefaultDevice(chip);
  std::vector<std::pair<double, ConfigAttr>> ranked;
  for (ConfigAttr config : space)
    ranked.push_back(
        {estimateConfigCost(*device, query, config).estimateCycles, config});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto &x, const auto &y) { return x.first < y.first; });
  std::vector<ConfigAttr> result;
  for (auto &[cycles, config] : ranked)
    result.push_back(config);
  return result;
}
